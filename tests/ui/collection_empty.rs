use dynorm::Collection;

#[derive(Collection)]
enum TeamWithMembers {}

fn main() {}
