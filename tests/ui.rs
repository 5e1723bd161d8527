//! Compile-fail tests for `#[derive(Model)]`: each file in `tests/ui/` must fail to
//! compile with the diagnostic recorded in the `.stderr` file beside it.
//!
//! Regenerate the expected output with `TRYBUILD=overwrite cargo test --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
