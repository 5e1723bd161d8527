#!/usr/bin/env python3
"""The vocabulary table of the guide (guide/13-vocabulary.md) against the public API
(public-api/dynorm.txt), both ways:

- every verb a row names on a builder is a method of the type that builder's `Client`
  method returns (`get` -> `dynorm::item::GetItem`, so `GetItem::send`);
- every builder whose type has a method named as a row's verb is named in that row (a row
  that says "every builder" names them all).

A difference the table does not explain fails, naming the verb and the builder. The
exceptions still to be resolved are listed below, each once; one that no longer differs
fails too, so that the list only shrinks.

    python3 scripts/check_vocabulary.py
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "guide" / "13-vocabulary.md"
API = ROOT / "public-api" / "dynorm.txt"

# (verb, builder): differences known and not resolved yet.
EXCEPTIONS = {
    ("preview", "find"),
}


# A builder sends: its type has one of these verbs.
SENDS = {"send", "all", "first", "page", "stream"}


def builders(api_lines, of_type):
    """Each `Client` method that makes a builder that sends, and the builder's type path
    (not a `ClientBuilder`, an SDK input, or a transaction's condition check)."""
    out = {}
    pattern = re.compile(r"^dynorm::Client::(\w+) \[method\] .*-> (dynorm::[\w:]+)")
    for line in api_lines:
        match = pattern.match(line)
        if match and of_type.get(match.group(2), set()) & SENDS:
            out[match.group(1)] = match.group(2)
    return out


def methods(api_lines):
    """Each type path's method names."""
    out = {}
    pattern = re.compile(r"^(dynorm::[\w:]+)::(\w+) \[method\]")
    for line in api_lines:
        match = pattern.match(line)
        if match:
            out.setdefault(match.group(1), set()).add(match.group(2))
    return out


def rows(text):
    """Each row of the table: its verbs and the builders it names (None: every builder)."""
    out = []
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4:
            continue
        verbs = [re.match(r"(\w+)", v).group(1) for v in re.findall(r"`([^`]+)`", cells[0])]
        named = cells[3]
        if "every builder" in named:
            out.append((verbs, None))
            continue
        names = set(re.findall(r"`(\w+)`", named))
        if "`_raw`" in named:
            names |= {f"{n}_raw" for n in names}
        out.append((verbs, names))
    return out


def main():
    api_lines = API.read_text().splitlines()
    of_type = methods(api_lines)
    made = builders(api_lines, of_type)
    table = rows(TABLE.read_text())
    if not table:
        print(f"no vocabulary table found in {TABLE.relative_to(ROOT)}")
        return 1
    differences = set()
    for verbs, named in table:
        listed = set(made) if named is None else {n for n in named if n in made}
        for verb in verbs:
            for builder in sorted(set(made) | listed):
                has = verb in of_type.get(made[builder], set())
                if builder in listed and not has:
                    differences.add((verb, builder, "the table names it, the API lacks it"))
                elif has and builder not in listed:
                    differences.add((verb, builder, "the API has it, the table does not name it"))
    unexplained = sorted(d for d in differences if (d[0], d[1]) not in EXCEPTIONS)
    resolved = sorted(e for e in EXCEPTIONS if e not in {(d[0], d[1]) for d in differences})
    for verb, builder, why in unexplained:
        print(f"`{verb}` on `{builder}` ({made[builder]}): {why}")
    for verb, builder in resolved:
        print(f"`{verb}` on `{builder}` is listed as an exception but no longer differs: remove it")
    if unexplained or resolved:
        print(f"the vocabulary table ({TABLE.relative_to(ROOT)}) and the public API disagree")
        return 1
    print(f"the vocabulary table matches the public API: {len(table)} rows, "
          f"{len(made)} builders, {len(EXCEPTIONS)} known exceptions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
