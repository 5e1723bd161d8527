use dynorm::Model;

#[derive(Model)]
#[dynorm(convention = "dynamodb-toolbox")]
struct Order {
    #[hash_key]
    id: String,
}

fn main() {}
