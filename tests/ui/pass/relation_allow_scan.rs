use dynorm::Model;

#[derive(Model, Clone)]
struct Comment {
    #[hash_key]
    id: String,
    post_id: String,
}

// Allowed explicitly: the relation reads Comment with a scan.
#[derive(Model, Clone)]
#[relation(name = "comments", many = Comment, fields = [id], references = [post_id], allow_scan)]
struct Post {
    #[hash_key]
    id: String,
}

fn main() {
    let _ = Post::comments().limit(3);
}
