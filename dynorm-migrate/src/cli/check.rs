//! `check`: every difference between the models and their live tables.

use dynorm::__ext::schema::missing_table;
use std::fmt;

use crate::cli::registry::Tables;
use dynorm::__ext::client::Client;
use dynorm::__ext::error::Result;
use dynorm::__ext::schema::Difference;

/// Every difference of every table: a missing table, or each way it differs from its
/// models, global indexes no model declares included.
pub(crate) async fn run(client: &Client, tables: &Tables<'_>) -> Result<Vec<Difference>> {
    let mut found = Vec::new();
    for table in &tables.0 {
        match dynorm::__ext::client::differences_of(
            client,
            &table.schemas(),
            &table.name,
            true,
            "check",
        )
        .await
        {
            Ok(differences) => found.extend(differences),
            Err(e) if e.kind() == dynorm::ErrorKind::TableNotFound => {
                found.push(missing_table(&table.name))
            }
            Err(e) => return Err(e),
        }
    }
    Ok(found)
}

/// The differences, one a line, or that there are none.
pub(crate) fn show(f: &mut fmt::Formatter<'_>, differences: &[Difference]) -> fmt::Result {
    if differences.is_empty() {
        return f.write_str("every table matches its models");
    }
    let count = differences.len();
    let noun = if count == 1 {
        "difference"
    } else {
        "differences"
    };
    write!(f, "{count} {noun}:")?;
    for difference in differences {
        write!(f, "\n  {difference}")?;
    }
    Ok(())
}
