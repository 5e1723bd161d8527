#!/usr/bin/env python3
"""Checks that the runtime crate's layers point down (see ARCHITECTURE.md).

Each top-level module of `dynorm/src` has a rank. Code in a module may name `crate::x`
only when `x` has the same rank or a lower one:

    value (0) -> error (1) -> schema (2) -> expr (3)
      -> operations: item, query, batch, transaction, stream (4) -> client (5)
      -> cli, codegen, local, lib.rs (6) -> testing (7)

Operations may also name `crate::client::Client`, the type their `impl Client` blocks
extend, as the AWS SDK's operation modules do. Comments and doc links are not imports.
Exits non-zero, listing every offending line, when a path points up.
"""

import pathlib
import re
import sys

RANKS = {
    "value": 0,
    "error": 1,
    "schema": 2,
    "expr": 3,
    "observe": 3,
    "item": 4,
    "query": 4,
    "batch": 4,
    "backfill": 4,
    "transaction": 4,
    "stream": 4,
    "relation": 4,
    "client": 5,
    "cli": 6,
    "codegen": 6,
    "local": 6,
    "lib": 6,
    "testing": 7,
}
OPERATIONS = {"item", "query", "batch", "backfill", "transaction", "stream", "relation"}
# Names at the crate root that re-export a module's items: `crate::Error` is the error
# layer, `crate::Model` the schema, and so on.
ROOT_NAMES = {
    "Error": "error",
    "ErrorKind": "error",
    "Result": "error",
    "Item": "value",
    "Model": "schema",
    "Collection": "schema",
    "Attr": "expr",
    "Condition": "expr",
    "Update": "expr",
    "Client": "client",
}

PATH = re.compile(r"(?:\$crate|\bcrate)::([A-Za-z_][A-Za-z0-9_]*)(::\{?[A-Za-z_]*)?")
# `use crate::{a, b::c}` names several modules at once.
GROUP = re.compile(r"\bcrate::\{([^}]*)\}")


def strip_comments(line: str) -> str:
    """The code of a line, without a `//` comment (doc comments included)."""
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            in_string = not in_string
        if not in_string and line.startswith("//", i):
            return line[:i]
    return line


def layer_of(path: pathlib.Path, src: pathlib.Path) -> str:
    parts = path.relative_to(src).parts
    name = parts[0]
    return name[:-3] if name.endswith(".rs") else name


def targets(code: str):
    for match in GROUP.finditer(code):
        for item in match.group(1).split(","):
            head = item.strip().split("::")[0].strip()
            if head:
                yield head, None
    for match in PATH.finditer(code):
        yield match.group(1), match.group(2)


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    src = root / "dynorm" / "src"
    problems = []
    for path in sorted(src.rglob("*.rs")):
        layer = layer_of(path, src)
        rank = RANKS.get(layer)
        if rank is None:
            problems.append(f"{path.relative_to(root)}: module `{layer}` has no layer in scripts/check_layers.py")
            continue
        in_tests = False
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if line.strip().startswith("#[cfg(test)]"):
                in_tests = True  # unit tests may reach anything
            if in_tests:
                continue
            code = strip_comments(line)
            for head, rest in targets(code):
                target = ROOT_NAMES.get(head, head)
                if target not in RANKS:
                    continue  # a macro, `self`, or an item of the root that is not a module
                if RANKS[target] <= rank:
                    continue
                if layer in OPERATIONS and target == "client" and (rest or "").startswith("::Client"):
                    continue
                if layer in OPERATIONS and head == "Client":
                    continue
                problems.append(
                    f"{path.relative_to(root)}:{number}: `{layer}` (layer {rank}) names `crate::{head}` "
                    f"(layer {RANKS[target]}), which is above it: {line.strip()}"
                )
    if problems:
        print("layers point up:", file=sys.stderr)
        for problem in problems:
            print("  " + problem, file=sys.stderr)
        return 1
    print(f"layers point down: checked {sum(1 for _ in src.rglob('*.rs'))} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
