//! Items as DynamoDB JSON (`{"S": ..}`, `{"N": ..}`, ...), the form the node scripts read
//! and write and `tests/interop/fixtures.json` holds, so that items are compared byte for
//! byte.

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use serde_json::{json, Map, Value};

pub fn item(item: &HashMap<String, AttributeValue>) -> Value {
    Value::Object(item.iter().map(|(k, v)| (k.clone(), value(v))).collect())
}

fn value(v: &AttributeValue) -> Value {
    let b64 = |b: &Blob| base64::engine::general_purpose::STANDARD.encode(b.as_ref());
    match v {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::B(b) => json!({ "B": b64(b) }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(_) => json!({ "NULL": true }),
        AttributeValue::Ss(s) => json!({ "SS": s }),
        AttributeValue::Ns(n) => json!({ "NS": n }),
        AttributeValue::Bs(b) => json!({ "BS": b.iter().map(b64).collect::<Vec<_>>() }),
        AttributeValue::L(l) => json!({ "L": l.iter().map(value).collect::<Vec<_>>() }),
        AttributeValue::M(m) => json!({ "M": item(m) }),
        other => panic!("an attribute value this test does not know: {other:?}"),
    }
}

pub fn from_item(json: &Value) -> HashMap<String, AttributeValue> {
    let Value::Object(map) = json else {
        panic!("an item is an object: {json}")
    };
    map.iter()
        .map(|(k, v)| (k.clone(), from_value(v)))
        .collect()
}

fn from_value(json: &Value) -> AttributeValue {
    let map: &Map<String, Value> = json.as_object().expect("a typed value");
    let (kind, v) = map.iter().next().expect("one type");
    let texts = || -> Vec<String> {
        v.as_array()
            .expect("a list")
            .iter()
            .map(|t| t.as_str().expect("text").to_owned())
            .collect()
    };
    let blob = |t: &Value| {
        Blob::new(
            base64::engine::general_purpose::STANDARD
                .decode(t.as_str().expect("base64"))
                .expect("base64"),
        )
    };
    match kind.as_str() {
        "S" => AttributeValue::S(v.as_str().expect("text").to_owned()),
        "N" => AttributeValue::N(v.as_str().expect("text").to_owned()),
        "B" => AttributeValue::B(blob(v)),
        "BOOL" => AttributeValue::Bool(v.as_bool().expect("a bool")),
        "NULL" => AttributeValue::Null(true),
        "SS" => AttributeValue::Ss(texts()),
        "NS" => AttributeValue::Ns(texts()),
        "BS" => AttributeValue::Bs(v.as_array().expect("a list").iter().map(blob).collect()),
        "L" => AttributeValue::L(
            v.as_array()
                .expect("a list")
                .iter()
                .map(from_value)
                .collect(),
        ),
        "M" => AttributeValue::M(from_item(v)),
        other => panic!("an attribute type this test does not know: {other}"),
    }
}
