use dynorm::Model;

fn upper(value: String) -> String {
    value.to_uppercase()
}

fn bump(value: u64) -> u64 {
    value
}

#[derive(Model)]
struct Month {
    #[hash_key]
    id: String,
    year: String,
    // A joined text takes no transform; `watch` computes a field.
    #[combine(fields = [id, year], sep = "#")]
    #[dynorm(set = upper)]
    label: String,
}

// A transform changes what is stored, so a value compared as given (a unique attribute)
// or set by dynorm (the version) takes none.
#[derive(Model)]
#[dynorm(unique_name = "Account")]
struct Account {
    #[hash_key]
    id: String,
    #[unique]
    #[dynorm(set = upper)]
    email: String,
    #[version]
    #[dynorm(get = bump)]
    version: u64,
}

fn main() {}
