use dynorm::Model;

#[derive(Model)]
struct Order {
    #[hash_key]
    id: String,
    #[index(name = "byG1")]
    g1: String,
    #[index(name = "byG2")]
    g2: String,
    #[index(name = "byG3")]
    g3: String,
    #[index(name = "byG4")]
    g4: String,
    #[index(name = "byG5")]
    g5: String,
    #[index(name = "byG6")]
    g6: String,
    #[index(name = "byG7")]
    g7: String,
    #[index(name = "byG8")]
    g8: String,
    #[index(name = "byG9")]
    g9: String,
    #[index(name = "byG10")]
    g10: String,
    #[index(name = "byG11")]
    g11: String,
    #[index(name = "byG12")]
    g12: String,
    #[index(name = "byG13")]
    g13: String,
    #[index(name = "byG14")]
    g14: String,
    #[index(name = "byG15")]
    g15: String,
    #[index(name = "byG16")]
    g16: String,
    #[index(name = "byG17")]
    g17: String,
    #[index(name = "byG18")]
    g18: String,
    #[index(name = "byG19")]
    g19: String,
    #[index(name = "byG20")]
    g20: String,
    #[index(name = "byG21")]
    g21: String,
}

fn main() {}
