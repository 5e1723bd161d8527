//! Tasks before and after an index by owner, for the tests of index lifecycle and of the
//! command line: the same items, and an index whose keys the old ones lack.

use dynorm::{Client, Model};

/// Tasks as they were written before the index by owner existed.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Tasks", entity = "task")]
#[key(pk = "TASK#{id}", sk = "TASK")]
pub struct TaskV1 {
    pub id: String,
    pub owner: String,
    pub title: String,
}

/// Tasks today: the same items, and an index by owner whose keys old items lack.
#[derive(Model, Debug, Clone, PartialEq)]
#[dynorm(table = "Tasks", entity = "task")]
#[key(pk = "TASK#{id}", sk = "TASK")]
#[key(index = "GSI1", gsi1pk = "OWNER#{owner}", gsi1sk = "TASK#{id}")]
pub struct Task {
    pub id: String,
    pub owner: String,
    pub title: String,
}

/// Writes `count` tasks as the first release did, owned by `o0`, `o1` and `o2` in turn.
pub async fn write_old_tasks(db: &Client, count: usize) {
    for i in 0..count {
        let task = TaskV1 {
            id: format!("t{i:02}"),
            owner: format!("o{}", i % 3),
            title: format!("task {i}"),
        };
        db.put(&task).send().await.unwrap();
    }
}
