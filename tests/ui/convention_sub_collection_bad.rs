use dynorm::Model;

// A sub-collection names one collection or more, each without `#`.
#[derive(Model)]
#[dynorm(table = "Owned", entity = "issue", convention = "electrodb", service = "vc", entity_version = "1")]
#[key(pk = [id], sk = [])]
#[key(index = "gsi1", gsi1pk = [user], gsi1sk = [id], collection = [])]
#[key(index = "gsi2", gsi2pk = [user], gsi2sk = [id], collection = ["owned", "man#aged"])]
struct Issue {
    id: String,
    user: String,
}

fn main() {}
