use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App")]
#[key(pk = "ORG#{org}", sk = "USER#{id}")]
struct User {
    org: String,
    id: String,
    #[unique(scope = org)]
    email: String,
}

fn main() {}
