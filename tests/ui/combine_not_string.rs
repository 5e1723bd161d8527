use dynorm::Model;

#[derive(Model)]
struct Pair {
    #[hash_key]
    id: String,
    a: u32,
    b: u32,
    #[combine(fields = [a, b])]
    ab: u64,
}

fn main() {}
