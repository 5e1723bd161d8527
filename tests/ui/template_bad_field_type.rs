use dynorm::Model;

#[derive(Model)]
#[dynorm(table = "App", entity = "post")]
#[key(pk = "POST#{tags}")]
struct Post {
    tags: Vec<String>,
}

fn main() {}
