use dynorm::Model;

/// Takes the title by value, where a `watch` function takes each source by reference.
fn slug_of(title: String) -> String {
    title.to_lowercase()
}

/// Returns a number for a `String` field.
fn length_of(title: &String) -> usize {
    title.len()
}

#[derive(Model)]
struct Post {
    #[hash_key]
    id: String,
    title: String,
    #[dynorm(watch = [title], set = slug_of)]
    slug: String,
    #[dynorm(watch = [title], set = length_of)]
    label: String,
}

fn main() {}
