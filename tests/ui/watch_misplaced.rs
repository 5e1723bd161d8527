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

// A guard compares the value given: a computed field cannot scope a unique attribute.
#[derive(Model)]
#[dynorm(unique_name = "Handle")]
struct Handle {
    #[hash_key]
    id: String,
    team: String,
    #[dynorm(watch = [team], set = copy)]
    team_slug: String,
    #[unique(scope = team_slug)]
    handle: String,
}

fn main() {}
