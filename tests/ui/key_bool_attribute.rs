use dynorm::Model;

// A boolean can be one part of a key built from several (its text is `true` or `false`),
// but not a key attribute itself: DynamoDB keys are strings, numbers or binary.
#[derive(Model)]
struct Flag {
    #[hash_key]
    enabled: bool,
}

fn main() {}
