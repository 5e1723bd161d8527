use dynorm::Model;

// A key written into its own field's attribute reads the field back out of it: the
// table's key, of that field alone, a `String`.
#[derive(Model, Debug)]
#[dynorm(table = "App", entity = "account")]
#[key(accountId = "{account_id}#{org}", sk = "#META")]
struct TwoFields {
    #[dynorm(rename = "accountId")]
    account_id: String,
    org: String,
}

#[derive(Model, Debug)]
#[dynorm(table = "App", entity = "counter")]
#[key(number = "N#{number}", sk = "#META")]
struct NotText {
    number: u32,
}

#[derive(Model, Debug)]
#[dynorm(table = "App", entity = "member")]
#[key(pk = "M#{id}", sk = "#META")]
#[key(index = "GSI1", team = "T#{team}", gsi1sk = "#META")]
struct OnAnIndex {
    id: String,
    team: String,
}

fn main() {}
