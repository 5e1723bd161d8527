use dynorm::Model;

fn slug_of(title: &str) -> String {
    title.to_lowercase()
}

#[derive(Model)]
struct Post {
    #[hash_key]
    id: String,
    title: String,
    #[dynorm(watch = [title], set = slug_of)]
    slug: String,
    #[combine(fields = [id, title], sep = "/")]
    label: String,
}

fn update(db: dynorm::Client) {
    // A computed field follows its sources: no update writes it.
    let _ = db.update::<Post>("p1").set(Post::SLUG, "hello");
    let _ = db.update::<Post>("p1").set(Post::LABEL, "p1/hello");
}

fn main() {}
