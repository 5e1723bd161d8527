use dynorm::Model;

#[derive(Model)]
struct Message {
    #[hash_key]
    room_id: String,
    #[range_key]
    sent_at: i64,
    body: String,
}

fn f() -> MessageKey {
    MessageKey { room_id: String::new() }
}

fn main() {}
