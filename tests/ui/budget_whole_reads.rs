// A budget stops a read midway and only a cursor resumes it, so a budgeted read has `page`
// and nothing that reads to the end.
use dynorm::{Client, Model};

#[derive(Model, Clone)]
struct Note {
    #[hash_key]
    owner: String,
    #[range_key]
    id: String,
}

async fn whole_reads(db: Client) {
    let _ = db.query_by::<Note>("ann").budget(10.0).all().await;
    let _ = db.query_by::<Note>("ann").budget(10.0).count().await;
    let _ = db.scan::<Note>().budget(10.0).stream();
    let _ = db.find::<Note>().budget(10.0).first().await;
    // Set everything else before the budget.
    let _ = db.query_by::<Note>("ann").budget(10.0).page_size(5);
}

fn main() {
    let _ = whole_reads;
}
