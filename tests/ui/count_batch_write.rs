use dynorm::Model;

#[derive(Model)]
struct Team {
    #[hash_key]
    id: String,
    member_count: u64,
}

#[derive(Model)]
#[count(parent = Team, into = member_count, fields = [team], references = [id])]
struct Member {
    #[hash_key]
    id: String,
    team: String,
}

async fn remove(db: dynorm::Client, ids: Vec<String>) -> Result<u32, dynorm::Error> {
    db.batch_write().delete_many::<Member, _>(ids).send().await
}

fn main() {
    let _ = remove;
}
