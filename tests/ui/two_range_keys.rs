use dynorm::Model;

#[derive(Model)]
struct Message {
    #[hash_key]
    room_id: String,
    #[range_key]
    sent_at: i64,
    #[range_key]
    sequence: u32,
}

fn main() {}
