// Raw identifiers as field names: the attribute is named without `r#`, and the field can
// be an index key, a template field and a combine source.
use dynorm::schema::Index;
use dynorm::Model;

#[derive(Model)]
struct Item {
    #[hash_key]
    id: String,
    #[index(name = "byType", range_key = "r#match")]
    r#type: String,
    #[index(name = "byMatch", range_key = r#type)]
    r#match: u64,
    #[combine(fields = [r#type, r#match])]
    r#loop: String,
}

#[derive(Model)]
#[dynorm(table = "App", entity = "thing")]
#[key(pk = "TYPE#{r#type}", sk = "#META")]
#[key(index = "GSI1", gsi1pk = "MATCH#{ r#match }")]
struct Thing {
    r#type: String,
    r#match: String,
}

// Relations named with raw identifiers, over raw fields.
#[derive(Model)]
#[relation(name = "r#type", one = Item, fields = [r#type], references = [id])]
#[relation(name = "r#match", many = Thing, fields = [r#type], references = [r#type])]
struct Link {
    #[hash_key]
    id: String,
    r#type: String,
}

fn main() {
    assert_eq!(<Item as Model>::SCHEMA.attributes, &["id", "type", "match", "loop"]);
    assert_eq!(<ItemByType as Index>::INDEX.range_key[0].name, "match");
    assert_eq!(<ItemByMatch as Index>::INDEX.hash_key[0].name, "match");
    assert_eq!(Item::TYPE.name(), "type");
    let item = Item { id: "i".to_owned(), r#type: "a".to_owned(), r#match: 3, r#loop: String::new() };
    assert_eq!(item.to_item().unwrap()["loop"].as_s().unwrap(), "a#3");

    let thing = Thing { r#type: "box".to_owned(), r#match: "m".to_owned() };
    assert_eq!(thing.to_item().unwrap()["pk"].as_s().unwrap(), "TYPE#box");
    assert_eq!(ThingKey { r#type: "box".to_owned() }, thing.key());
    assert_eq!(Thing::MATCH.name(), "match");
    let _ = ThingGSI1;
    let _ = (Link::r#type(), Link::r#match());
}
