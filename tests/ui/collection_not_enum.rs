use dynorm::Collection;

#[derive(Collection)]
struct TeamWithMembers {
    team: String,
}

fn main() {}
