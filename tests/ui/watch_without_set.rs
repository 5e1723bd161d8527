use dynorm::Model;

#[derive(Model)]
struct Post {
    #[hash_key]
    id: String,
    title: String,
    // `watch` names the sources; `set` is the function that computes the field.
    #[dynorm(watch = [title])]
    slug: String,
}

fn main() {}
