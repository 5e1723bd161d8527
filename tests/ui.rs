//! Tests for the derives' diagnostics: each file in `tests/ui/` must fail to compile with
//! the diagnostic recorded in the `.stderr` file beside it, and each file in
//! `tests/ui/pass/` must compile and run.
//!
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
