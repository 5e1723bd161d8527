use dynorm::Model;

#[derive(Model)]
struct Device {
    #[hash_key]
    id: u64,
    #[unique]
    serial: String,
}

fn main() {}
