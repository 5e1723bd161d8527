// Typed attribute methods take what a Rust user writes for the field's type: an integer
// literal for any integer field, `&str` for text, the inner value for an `Option` field.
use dynorm::Model;

#[derive(Model)]
struct Message {
    #[hash_key]
    room: String,
    #[range_key]
    seq: u64,
    small: u8,
    big: i128,
    note: Option<String>,
}

fn main() {
    let _ = Message::SEQ.ge(90);
    let _ = Message::SEQ.between(1, 2);
    let _ = Message::SMALL.is_in([1, 2, 3]);
    let _ = Message::BIG.lt(-5);
    let _ = Message::ROOM.eq("general");
    let _ = Message::NOTE.eq("hello");
    let _ = dynorm::Update::<Message>::new()
        .set(Message::SMALL, 7)
        .set(Message::NOTE, "set")
        .increment(Message::BIG, 1);
}
