use dynorm::Model;

#[derive(Model)]
struct Comment {
    #[hash_key]
    id: String,
    post_id: String,
}

// No key of Comment is built from `post_id`: a scan would be needed.
#[derive(Model)]
#[relation(name = "comments", many = Comment, fields = [id], references = [post_id])]
struct Post {
    #[hash_key]
    id: String,
}

fn main() {}
