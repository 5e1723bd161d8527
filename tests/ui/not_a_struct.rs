use dynorm::Model;

#[derive(Model)]
enum Status {
    Active,
    Inactive,
}

fn main() {}
