//! What the derive knows about a model before it prints anything.
//!
//! The stages run in order: `ast` parses the struct and its attributes (with `attr`),
//! `resolve` turns the parsed names into resolved facts once, and `check` validates those
//! facts. Each stage reports its errors to the shared `Ctxt`, and code is expanded only when
//! there were none.

pub mod ast;
pub mod attr;
pub mod case;
pub mod check;
pub mod ctxt;
pub mod resolve;
pub mod symbol;
pub mod template;
pub mod types;

pub use ctxt::Ctxt;
