#!/usr/bin/env python3
"""Tests of scripts/check_layers.py: small fake workspaces in a temporary directory, each
checked by running the script on it. Run with `python3 scripts/test_check_layers.py`."""

import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parent / "check_layers.py"

# A clean core: value <- error <- item <- batch, with client above them, and a derive.
CLEAN = {
    "dynorm-derive/Cargo.toml": '[package]\nname = "dynorm-derive"\n',
    "dynorm-derive/src/lib.rs": "mod expand;\nmod parse;\n",
    "dynorm-derive/src/parse.rs": "pub struct Parsed;\n",
    "dynorm-derive/src/expand.rs": "use crate::parse::Parsed;\npub fn expand(_: Parsed) {}\n",
    "dynorm/Cargo.toml": textwrap.dedent(
        """\
        [package]
        name = "dynorm"

        [dependencies]
        dynorm-derive = { path = "../dynorm-derive" }
        serde = "1"

        [dev-dependencies]
        dynorm-streams = { path = "../dynorm-streams" }
        """
    ),
    "dynorm/src/lib.rs": textwrap.dedent(
        """\
        pub mod value;
        pub mod error;
        pub mod item;
        pub mod batch;
        pub mod client;
        pub use error::Error;
        """
    ),
    "dynorm/src/value.rs": "pub struct Value;\n",
    "dynorm/src/error.rs": "use crate::value::Value;\npub struct Error(Value);\n",
    "dynorm/src/item/mod.rs": textwrap.dedent(
        """\
        //! Single items: `crate::batch` is above, and a comment is not an import.
        mod get;
        mod key;
        pub use get::Get;
        pub(crate) use key::typed_key;
        """
    ),
    # `super::typed_key` is a re-export of a sibling: an import of key.rs, not of mod.rs.
    "dynorm/src/item/get.rs": textwrap.dedent(
        """\
        use super::typed_key;
        use crate::client::Client;
        use crate::Error;
        pub struct Get;
        impl Client {
            pub fn get(&self) -> Result<Get, Error> { typed_key(); Ok(Get) }
        }
        """
    ),
    "dynorm/src/item/key.rs": "pub(crate) fn typed_key() {}\n",
    "dynorm/src/batch.rs": textwrap.dedent(
        """\
        use crate::item::{self, Get};
        pub struct Batch(Vec<Get>);
        pub fn key() { item::typed_key() }
        #[cfg(test)]
        mod tests {
            use crate::client::Client; // unit tests may reach anything
        }
        """
    ),
    "dynorm/src/client.rs": "use crate::value::Value;\npub struct Client;\npub fn connect(_: Value) {}\n",
    "dynorm-streams/Cargo.toml": textwrap.dedent(
        """\
        [package]
        name = "dynorm-streams"

        [dependencies]
        dynorm = { path = "../dynorm" }
        """
    ),
    "dynorm-streams/src/lib.rs": "mod consumer;\npub use consumer::Consumer;\n",
    "dynorm-streams/src/consumer.rs": "pub struct Consumer(dynorm::client::Client);\n",
}


class CheckLayers(unittest.TestCase):
    def check(self, changes: dict[str, str]) -> subprocess.CompletedProcess:
        """Runs the check on the clean workspace with `changes` written over it."""
        with tempfile.TemporaryDirectory() as directory:
            root = pathlib.Path(directory)
            for path, text in {**CLEAN, **changes}.items():
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(text)
            return subprocess.run(
                [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True
            )

    def assert_fails(self, changes: dict[str, str], *messages: str):
        result = self.check(changes)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        for message in messages:
            self.assertIn(message, result.stderr)

    def test_a_clean_workspace_passes(self):
        result = self.check({})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("checked 3 crates", result.stdout)

    def test_an_upward_import_fails(self):
        self.assert_fails(
            {"dynorm/src/error.rs": "use crate::item::Get;\npub struct Error(Get);\n"},
            "dynorm/src/error.rs:1: `error` (layer 1) names `crate::item` (layer 4), up",
        )

    def test_an_operation_naming_a_higher_operation_fails(self):
        self.assert_fails(
            {"dynorm/src/item/key.rs": "pub(crate) fn typed_key() { crate::batch::key() }\n"},
            "`item` (layer 4) names `crate::batch` (layer 5), up",
        )

    def test_a_sideways_import_between_operations_fails(self):
        # `transaction` and `relation` moved to one rank: naming each other is sideways.
        script = SCRIPT.read_text().replace('"relation": 8,', '"relation": 7,')
        with tempfile.TemporaryDirectory() as directory:
            root = pathlib.Path(directory)
            for path, text in CLEAN.items():
                (root / path).parent.mkdir(parents=True, exist_ok=True)
                (root / path).write_text(text)
            (root / "dynorm/src/lib.rs").write_text(CLEAN["dynorm/src/lib.rs"] + "pub mod transaction;\npub mod relation;\n")
            (root / "dynorm/src/transaction.rs").write_text("pub struct Change;\n")
            (root / "dynorm/src/relation.rs").write_text("use crate::transaction::Change;\npub struct R(Change);\n")
            (root / "check_layers.py").write_text(script)
            result = subprocess.run(
                [sys.executable, str(root / "check_layers.py"), str(root)], capture_output=True, text=True
            )
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("`relation` (layer 7) names `crate::transaction` (layer 7), sideways", result.stderr)

    def test_the_imports_of_the_ranked_operations_point_down(self):
        # item < batch: batch naming item passes (the clean tree), item naming batch fails
        # even through a group.
        self.assert_fails(
            {"dynorm/src/item/key.rs": "use crate::{batch, value};\npub(crate) fn typed_key() {}\n"},
            "names `crate::batch` (layer 5), up",
        )

    def test_an_operation_may_name_the_client_type_only(self):
        self.assert_fails(
            {"dynorm/src/item/key.rs": "pub(crate) fn typed_key() { crate::client::connect(todo!()) }\n"},
            "names `crate::client` (layer 11), up",
        )

    def test_a_module_without_a_rank_fails(self):
        self.assert_fails(
            {"dynorm/src/lib.rs": CLEAN["dynorm/src/lib.rs"] + "mod extra;\n", "dynorm/src/extra.rs": ""},
            "module `extra` has no layer",
        )

    def test_a_satellite_depending_on_another_satellite_fails(self):
        self.assert_fails(
            {
                "dynorm-migrate/Cargo.toml": textwrap.dedent(
                    """\
                    [package]
                    name = "dynorm-migrate"

                    [dependencies]
                    dynorm.workspace = true
                    streams = { package = "dynorm-streams", path = "../dynorm-streams" }
                    """
                ),
                "dynorm-migrate/src/lib.rs": "",
            },
            "`dynorm-migrate` (rank 2) depends on `dynorm-streams` (rank 2); it may depend only on dynorm",
        )

    def test_the_core_depending_on_a_satellite_fails(self):
        manifest = CLEAN["dynorm/Cargo.toml"].replace(
            'serde = "1"', 'serde = "1"\ndynorm-streams = { path = "../dynorm-streams" }'
        )
        self.assert_fails({"dynorm/Cargo.toml": manifest}, "`dynorm` (rank 1) depends on `dynorm-streams` (rank 2)")

    def test_a_two_file_circle_fails(self):
        self.assert_fails(
            {"dynorm-derive/src/parse.rs": "use crate::expand::expand;\npub struct Parsed;\n"},
            "`dynorm-derive`: files import each other: dynorm-derive/src/expand.rs:1 -> "
            "dynorm-derive/src/parse.rs:1 -> dynorm-derive/src/expand.rs",
        )

    def test_a_three_file_circle_fails(self):
        # get.rs -> key.rs -> mod.rs -> get.rs: a child naming what its parent defines,
        # while the parent re-exports the child that imports it.
        self.assert_fails(
            {
                "dynorm/src/item/mod.rs": textwrap.dedent(
                    """\
                    mod get;
                    mod key;
                    pub use get::Get;
                    pub(crate) const OPERATION: &str = "get";
                    """
                ),
                "dynorm/src/item/key.rs": "pub(crate) fn typed_key() -> &'static str { super::OPERATION }\n",
                "dynorm/src/item/get.rs": "use super::key::typed_key;\npub struct Get;\nfn f() { typed_key(); }\n",
                "dynorm/src/batch.rs": "use crate::item::Get;\npub struct Batch(Vec<Get>);\n",
            },
            "`dynorm`: files import each other: dynorm/src/item/get.rs:1 -> dynorm/src/item/key.rs:1 -> "
            "dynorm/src/item/mod.rs:3 -> dynorm/src/item/get.rs",
        )

    def test_a_circle_around_three_siblings_fails(self):
        self.assert_fails(
            {
                "dynorm-derive/src/lib.rs": "mod a;\nmod b;\nmod c;\n",
                "dynorm-derive/src/a.rs": "use crate::b::B;\npub struct A;\n",
                "dynorm-derive/src/b.rs": "pub struct B;\nfn f() -> crate::c::C { todo!() }\n",
                "dynorm-derive/src/c.rs": "pub struct C(super::a::A);\n",
            },
            "dynorm-derive/src/a.rs:1 -> dynorm-derive/src/b.rs:2 -> dynorm-derive/src/c.rs:1 -> dynorm-derive/src/a.rs",
        )

    def test_re_exports_comments_strings_and_tests_are_not_circles(self):
        result = self.check(
            {
                "dynorm-derive/src/lib.rs": "mod expand;\nmod parse;\npub use parse::Parsed;\n",
                # The root re-exports `Parsed`; naming it through the root imports parse.rs.
                "dynorm-derive/src/expand.rs": 'use crate::Parsed;\n// crate::parse\nconst S: &str = "crate::lib";\npub fn expand(_: Parsed) {}\n',
                "dynorm-derive/src/parse.rs": "pub struct Parsed;\n#[cfg(test)]\nmod tests {\n    use crate::expand::expand;\n}\n",
            }
        )
        self.assertEqual(result.returncode, 0, result.stderr)


if __name__ == "__main__":
    unittest.main()
