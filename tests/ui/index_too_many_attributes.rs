use dynorm::Model;

#[derive(Model)]
#[index(name = "byAll", hash_key = [a, b, c, d, e])]
struct Order {
    #[hash_key]
    id: String,
    a: String,
    b: String,
    c: String,
    d: String,
    e: String,
}

fn main() {}
