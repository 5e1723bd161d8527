use dynorm::Model;

#[derive(Model)]
#[dynorm(unique_name = "Device")]
struct Device {
    #[hash_key]
    id: u64,
    #[unique]
    serial: String,
}

fn main() {}
