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

The list is cargo-public-api's (scripts/public_api.py): a type's methods are the `pub fn`
lines (`pub fn dynorm::item::GetItem<M>::send(..)`) that follow an inherent `impl` line
(`impl<M: dynorm::Model> dynorm::item::GetItem<M>`); the members of a trait's impl (`clone`,
`fmt`) are not the builder's own verbs. An item re-exported at a shorter path is listed at
both, with the same lines.

    python3 scripts/check_vocabulary.py
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "guide" / "13-vocabulary.md"
API = ROOT / "public-api" / "dynorm.txt"

# (verb, builder): differences known and not resolved yet.
EXCEPTIONS = set()

# The trait whose methods (`preview`, `predict`, `tally`) count as a builder's own, and how a
# row names every builder that implements it.
REQUEST = "dynorm::Request"


# A builder sends: its type has one of these verbs.
SENDS = {"send", "all", "first", "page", "stream"}


def split_top(text, separator):
    """text split at each `separator` outside `<>`, `()` and `[]` (an `->` closes nothing)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        if text.startswith("->", i):
            i += 2
            continue
        if depth == 0 and text.startswith(separator, i):
            parts.append(text[start:i])
            i += len(separator)
            start = i
            continue
        if text[i] in "<([":
            depth += 1
        elif text[i] in ">)]":
            depth -= 1
        i += 1
    parts.append(text[start:])
    return parts


def bare(segment):
    """A path segment without its generic arguments: `GetItem<M>` -> `GetItem`."""
    return segment.split("<", 1)[0]


def own(impl_line):
    """Whether an `impl` line opens an impl whose methods are a builder's vocabulary: an
    inherent impl (`impl<M> Type<M>`), or the `Request` trait's (`impl<M> dynorm::Request
    for Type<M>`), not another trait's."""
    head = split_top(impl_line, " where ")[0]
    parts = split_top(head, " for ")
    if len(parts) == 1:
        return True
    trait = parts[0].split(" ")[-1]
    return bare(trait) == REQUEST


def request_types(api_lines):
    """The type paths that implement `dynorm::Request`."""
    out = set()
    for line in api_lines:
        if line.startswith("impl"):
            parts = split_top(split_top(line, " where ")[0], " for ")
            if len(parts) == 2 and bare(parts[0].split(" ")[-1]) == REQUEST:
                out.add("::".join(bare(s) for s in split_top(parts[1].strip(), "::")))
    return out


ASSOCIATED = re.compile(r"^pub type dynorm::.+?::\w+ = ")
FN = re.compile(r"^pub (?:const )?(?:async )?(?:unsafe )?(?:extern \S+ )?fn (.*)$")


def inherent_methods(api_lines):
    """(type path, method name, line) of each method of an inherent impl or of the
    `Request` trait's impl."""
    out = []
    in_inherent = False
    for line in api_lines:
        if line.startswith("impl"):
            in_inherent = own(line)
            continue
        match = FN.match(line)
        if not match:
            # An associated type (`Request::Input`) is a member too; anything else (a type,
            # a module, a field, a variant) ends the impl's members.
            if not ASSOCIATED.match(line):
                in_inherent = False
            continue
        if not in_inherent:
            continue
        path = split_top(split_top(match.group(1), "(")[0], "::")
        if len(path) >= 2 and path[0] == "dynorm":
            out.append(("::".join(bare(segment) for segment in path[:-1]), bare(path[-1]), line))
    return out


def builders(api_lines, of_type):
    """Each `Client` method that makes a builder that sends, and the builder's type path
    (not a `ClientBuilder`, an SDK input, or a transaction's condition check)."""
    out = {}
    returns = re.compile(r".*-> (dynorm::[\w:]+)")
    for type_path, name, line in inherent_methods(api_lines):
        if type_path != "dynorm::Client":
            continue
        match = returns.match(line)
        if match and of_type.get(match.group(1), set()) & SENDS:
            out[name] = match.group(1)
    return out


def methods(api_lines):
    """Each type path's method names (of its inherent impls)."""
    out = {}
    for type_path, name, _ in inherent_methods(api_lines):
        out.setdefault(type_path, set()).add(name)
    return out


def rows(text, requests):
    """Each row of the table: its verbs and the builders it names (None: every builder).
    A row that names `dynorm::Request` names every builder that implements it (`requests`),
    and the builders it names besides."""
    out = []
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4:
            continue
        verbs = [re.match(r"(\w+)", v).group(1) for v in re.findall(r"`([^`]+)`", cells[0])]
        named = cells[3]
        if REQUEST in named:
            names = set(re.findall(r"`(\w+)`", named)) | requests
            out.append((verbs, names))
            continue
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
    implementing = request_types(api_lines)
    table = rows(TABLE.read_text(), {n for n, t in made.items() if t in implementing})
    if not table:
        print(f"no vocabulary table found in {TABLE.relative_to(ROOT)}")
        return 1
    if not made:
        print(f"no builder found in {API.relative_to(ROOT)}: has the list's format changed?")
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
