use dynorm::Model;

fn copy(value: &String) -> String {
    value.clone()
}

// A computed field cannot be the table's key, nor have a default, nor be combined too.
#[derive(Model)]
struct Post {
    title: String,
    #[hash_key]
    #[dynorm(watch = [title], set = copy)]
    id: String,
    #[dynorm(watch = [title], set = copy, default = "x")]
    slug: String,
    #[dynorm(watch = [slug], set = copy)]
    again: String,
}

fn main() {}
