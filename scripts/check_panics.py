#!/usr/bin/env python3
"""Lists the places in the runtime crate's non-test code that can panic.

Looks in `dynorm/src` and the satellites' `src` for `panic!`, `unreachable!`, `todo!`, `unimplemented!`, `.unwrap()`
and `.expect(`, outside comments, doc comments and string literals, and outside test code:
an item marked `#[cfg(test)]` (a `mod tests { ... }` block, a test-only function) and the
file of a `#[cfg(test)] mod tests;`.

Each such place must say why it cannot happen: a comment containing `by construction` on
the same line or on the line just above it, such as

    // By construction: `parts` has one element per key attribute, and there are two.
    let range = parts.next().expect("two key attributes");

Exits non-zero, listing every place without that comment. `--all` also lists the ones that
have it.
"""

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The runtime crates: the core and its satellites (dynorm-test's assertions panic by design,
# and say so where they do).
SOURCES = [ROOT / "dynorm" / "src"] + sorted(
    path / "src" for path in ROOT.glob("dynorm-*") if path.name != "dynorm-derive"
)

PANICS = [
    ("panic!", re.compile(r"(?<![A-Za-z0-9_])panic\s*!")),
    ("unreachable!", re.compile(r"(?<![A-Za-z0-9_])unreachable\s*!")),
    ("todo!", re.compile(r"(?<![A-Za-z0-9_])todo\s*!")),
    ("unimplemented!", re.compile(r"(?<![A-Za-z0-9_])unimplemented\s*!")),
    (".unwrap()", re.compile(r"\.\s*unwrap\s*\(\s*\)")),
    (".expect(", re.compile(r"\.\s*expect\s*\(")),
]
JUSTIFICATION = re.compile(r"by construction", re.IGNORECASE)
CFG_TEST = re.compile(r"#\s*\[\s*cfg\s*\(\s*(?:test|all\s*\(\s*test\b[^\]]*\))\s*\)\s*\]")
MOD_DECL = re.compile(r"\bmod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;")


def is_ident(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def split_source(text: str) -> tuple[str, dict[int, list[str]]]:
    """The code of a file with comments and literal contents blanked, and its comments.

    The code keeps every newline and every offset, so a position in it is a position in
    `text`; only what is inside a comment, a string or a character literal becomes spaces.
    The comments (doc comments included) are returned by line number, counted from 1.
    """
    out = list(text)
    comments: dict[int, list[str]] = {}
    line = 1
    i = 0
    n = len(text)

    def blank(start: int, end: int) -> None:
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    def note(start: int, end: int) -> None:
        first = text.count("\n", 0, start) + 1
        for offset, part in enumerate(text[start:end].split("\n")):
            comments.setdefault(first + offset, []).append(part)

    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end == -1 else end
            note(i, end)
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            note(i, j)
            blank(i, j)
            i = j
        elif ch == "r" and raw_string_start(text, i):
            hashes = 0
            j = i + 1
            while text[j] == "#":
                hashes, j = hashes + 1, j + 1
            close = '"' + "#" * hashes
            end = text.find(close, j + 1)
            end = n if end == -1 else end + len(close)
            blank(j + 1, end - len(close))
            i = end
        elif ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, j)
            i = j + 1
        elif ch == "'":
            # A character literal ('a', '\n', '\u{1F600}', '{') or a lifetime ('a, '_).
            if i + 1 < n and text[i + 1] == "\\":
                j = i + 2
                while j < n and text[j] != "'":
                    j += 1
                blank(i + 1, j)
                i = j + 1
            elif i + 2 < n and text[i + 2] == "'":
                blank(i + 1, i + 2)
                i += 3
            else:
                i += 1
        else:
            i += 1
    return "".join(out), comments


def raw_string_start(text: str, i: int) -> bool:
    """Whether the `r` at `i` starts a raw string: `r"`, `r#"`, `br"`, `cr##"`, ..."""
    before = text[i - 1] if i > 0 else " "
    if is_ident(before):
        if before not in "bc" or (i > 1 and is_ident(text[i - 2])):
            return False
    j = i + 1
    while j < len(text) and text[j] == "#":
        j += 1
    return j < len(text) and text[j] == '"'


def test_spans(code: str) -> tuple[list[tuple[int, int]], list[str]]:
    """The spans of the items marked `#[cfg(test)]`, and the modules they declare in files.

    An item runs from its attribute to the brace that closes its first block, or to its
    semicolon when it has no block.
    """
    spans = []
    modules = []
    for found in CFG_TEST.finditer(code):
        start = found.start()
        j = found.end()
        depth = 0
        while j < len(code):
            ch = code[j]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == ";" and depth == 0:
                declared = MOD_DECL.search(code, found.end(), j + 1)
                if declared and not code[found.end() : declared.start()].strip("# \n\t[]"):
                    modules.append(declared.group(1))
                spans.append((start, j + 1))
                break
            elif ch == "{" and depth == 0:
                braces = 0
                while j < len(code):
                    if code[j] == "{":
                        braces += 1
                    elif code[j] == "}":
                        braces -= 1
                        if braces == 0:
                            break
                    j += 1
                spans.append((start, j + 1))
                break
            j += 1
    return spans, modules


def test_files(path: pathlib.Path, modules: list[str]) -> list[pathlib.Path]:
    """The files of the `#[cfg(test)] mod name;` declarations in `path`."""
    if path.name in ("mod.rs", "lib.rs", "main.rs"):
        directory = path.parent
    else:
        directory = path.parent / path.stem
    files = []
    for name in modules:
        for candidate in (directory / f"{name}.rs", directory / name / "mod.rs"):
            if candidate.exists():
                files.append(candidate.resolve())
    return files


def findings(path: pathlib.Path) -> list[tuple[int, str, str, bool]]:
    """(line, construct, source line, justified) for each panicking construct in a file."""
    text = path.read_text(encoding="utf-8")
    code, comments = split_source(text)
    spans, _ = test_spans(code)
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def in_test(offset: int) -> bool:
        return any(start <= offset < end for start, end in spans)

    def justified(line: int) -> bool:
        return any(
            JUSTIFICATION.search(comment)
            for number in (line, line - 1)
            for comment in comments.get(number, [])
        )

    result = []
    for name, pattern in PANICS:
        for found in pattern.finditer(code):
            if in_test(found.start()):
                continue
            line = code.count("\n", 0, found.start()) + 1
            result.append((line, name, lines[line - 1].strip(), justified(line)))
    return sorted(result)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="also list the justified places")
    args = parser.parse_args()

    files = sorted(path for source in SOURCES for path in source.rglob("*.rs"))
    skipped = set()
    for path in files:
        _, modules = test_spans(split_source(path.read_text(encoding="utf-8"))[0])
        skipped.update(test_files(path, modules))

    bad = 0
    good = 0
    for path in files:
        if path.resolve() in skipped:
            continue
        for line, name, source, ok in findings(path):
            shown = path.relative_to(ROOT)
            if ok:
                good += 1
                if args.all:
                    print(f"{shown}:{line}: {name} (by construction): {source}")
            else:
                bad += 1
                print(f"{shown}:{line}: {name}: {source}")
    print(
        f"{bad} place(s) in non-test code of the runtime crates can panic without a `by construction`"
        f" comment on the line or the line above; {good} have one.",
        file=sys.stderr,
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
