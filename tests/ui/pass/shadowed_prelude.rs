// The generated code names everything by absolute path, so a module that shadows the
// prelude (and the primitive `str`) derives as any other.
#![allow(dead_code, non_camel_case_types, non_snake_case, non_upper_case_globals, unused_macros, clippy::all)]

mod shadowed {
    use dynorm::{Collection, Model};

    pub struct Option;
    pub struct Vec;
    pub struct String;
    pub struct Box;
    pub struct HashMap;
    pub struct str;
    pub type Result = ();
    pub fn Some() {}
    pub const None: () = ();
    pub fn Ok() {}
    pub fn Err() {}
    macro_rules! vec {
        () => {};
    }

    #[derive(Model)]
    #[dynorm(table = "Orders")]
    #[index(name = "byPair", hash_key = [status, placed], project = false)]
    pub struct Order {
        #[hash_key]
        pub customer: ::std::string::String,
        #[range_key]
        pub id: ::std::string::String,
        #[index(name = "byStatus", range_key = "placed", project = ["note"])]
        pub status: ::std::string::String,
        #[index(name = "byPlaced", local)]
        pub placed: u64,
        pub note: ::core::option::Option<::std::string::String>,
        #[combine(fields = [status, placed], sep = "#")]
        pub status_placed: ::std::string::String,
        pub bytes: ::std::vec::Vec<u8>,
        pub counts: ::std::collections::HashMap<::std::string::String, u32>,
    }

    #[derive(Model)]
    #[dynorm(table = "App", entity = "team")]
    #[key(pk = "TEAM#{team_id}", sk = "#METADATA")]
    #[key(index = "GSI1", gsi1pk = "OWNER#{owner}", gsi1sk = "TEAM#{team_id}")]
    pub struct Team {
        pub team_id: ::std::string::String,
        pub owner: ::std::string::String,
        pub motto: ::core::option::Option<::std::string::String>,
    }

    #[derive(Model)]
    #[dynorm(table = "App", entity = "member")]
    #[key(pk = "TEAM#{team_id}", sk = "MEMBER#{user_id}")]
    pub struct Member {
        pub team_id: ::std::string::String,
        pub user_id: ::std::string::String,
    }

    #[derive(Collection)]
    pub enum TeamWithMembers {
        Team(Team),
        Member(Member),
    }
}

use dynorm::schema::Index;
use dynorm::Model;
use shadowed::{
    Member, Order, OrderByPair, OrderByPairItem, OrderByPlaced, OrderByStatus, OrderByStatusItem,
    OrderKey, Team, TeamGSI1, TeamWithMembers,
};

fn main() {
    let order = Order {
        customer: "c1".to_owned(),
        id: "o1".to_owned(),
        status: "paid".to_owned(),
        placed: 7,
        note: None,
        status_placed: std::string::String::new(),
        bytes: vec![1, 2],
        counts: std::collections::HashMap::new(),
    };
    let item = order.to_item().unwrap();
    assert_eq!(item["status_placed"].as_s().unwrap(), "paid#7");
    assert_eq!(order.key(), OrderKey { customer: "c1".to_owned(), id: "o1".to_owned() });
    assert_eq!(<OrderByStatus as Index>::INDEX.name, "byStatus");
    assert_eq!(<OrderByPlaced as Index>::INDEX.name, "byPlaced");
    assert_eq!(<OrderByPair as Index>::INDEX.hash_key.len(), 2);
    let _ = Order::NOTE.exists();
    let _: std::option::Option<OrderByStatusItem> = None;
    let _: std::option::Option<OrderByPairItem> = None;

    let team = Team { team_id: "t1".to_owned(), owner: "u1".to_owned(), motto: None };
    assert_eq!(team.to_item().unwrap()["pk"].as_s().unwrap(), "TEAM#t1");
    assert_eq!(<TeamGSI1 as Index>::INDEX.name, "GSI1");
    let _ = Member::USER_ID;
    let _: std::option::Option<TeamWithMembers> = None;
}
