#!/usr/bin/env python3
"""Checks that dynorm's layers point down and that no files import each other (see
ARCHITECTURE.md). Usage: `python3 scripts/check_layers.py [WORKSPACE_ROOT]`: without a root, this
repository; with one, that workspace (the fake workspaces of `scripts/test_check_layers.py`,
which tests this script). Python 3.11 standard library only.

Three checks, each listing every offence; the script exits non-zero if any finds one.

1. Modules of the core crate. Each top-level module of `dynorm/src` has a rank (RANKS).
   Code in a module may name `crate::x` only when `x` has the same rank or a lower one:

       value (0) -> error (1) -> schema (2) -> expr, observe (3)
         -> operations, each on a rank of its own, in the order they use each other:
            item (4) -> batch (5) -> query (6) -> transaction (7) -> relation (8)
         -> client (11) -> codegen (`__private`), ext (`__ext`), lib.rs (12)

   An operation may name only operations ranked below it: naming one of the same rank
   is sideways, of a higher rank up, and both fail. Operations may also name
   `crate::client::Client`, the type their `impl Client` blocks extend, as the AWS SDK's
   operation modules do. Modules that moved out of the core (to a satellite crate) are
   simply absent; a top-level module that has no rank fails. Names at the crate root that
   re-export a module's items (`crate::Error`, ...) count as that module (ROOT_NAMES).

2. Crates. dynorm-derive (0) -> dynorm, the core (1) -> the satellites dynorm-streams,
   dynorm-migrate, dynorm-test (2). A crate's `[dependencies]` (not its dev-dependencies)
   may name only the workspace crate directly below it: the core the derive, each
   satellite the core (the derive reaches a satellite through the core). A satellite
   naming another satellite, or a crate named `dynorm-*` with no rank, fails.

3. Import circles, in every crate `dynorm*/` with a `src/`. File A imports file B when a
   path in A (`crate::a::b`, `super::x`, `self::x`, a child module's name, a name that a
   `use` brought in, groups `{..}` nested or not) names an item that B defines. Re-exports
   (`pub use child::X`, and every `use`) are followed to the file that defines the item,
   so a child naming `super::X`, where the parent only re-exports X from a sibling, imports
   the sibling, not the parent. Declaring `mod child;` is not an import. Any cycle of
   imports (two files, or more around a loop) fails, and is printed.

Comments, doc links and string literals are not imports; neither are unit tests: an item
marked `#[cfg(test)]` (a `mod tests { .. }`, a test-only function or impl) is skipped.
"""

import pathlib
import re
import sys
import tomllib

RANKS = {
    "value": 0,
    "error": 1,
    "schema": 2,
    "expr": 3,
    "observe": 3,
    "item": 4,
    "batch": 5,
    "query": 6,
    "transaction": 7,
    "relation": 8,
    "client": 11,
    "codegen": 12,
    # The satellites' door (`__ext`): it re-exports from every layer, as lib.rs does.
    "ext": 12,
    "lib": 12,
}
OPERATIONS = {"item", "batch", "query", "transaction", "relation"}
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
CORE = "dynorm"
CRATE_RANKS = {
    "dynorm-derive": 0,
    CORE: 1,
    "dynorm-streams": 2,
    "dynorm-migrate": 2,
    "dynorm-test": 2,
}

# ---------------------------------------------------------------------------------------
# Reading Rust: the code of a file without comments, strings and unit tests.

LEXEME = re.compile(
    r"""
    (?P<comment>//[^\n]*)
  | (?P<block>/\*)
  | (?P<raw>(?<!\w)b?r(?P<hashes>\#*)")
  | (?P<string>(?<!\w)b?"(?:\\.|[^"\\])*")
  | (?P<char>b?'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^'\\\n])')
    """,
    re.VERBOSE | re.DOTALL,
)


def blank(text: str) -> str:
    """`text` with every character but newlines turned into a space."""
    return re.sub(r"[^\n]", " ", text)


def strip(source: str) -> str:
    """The code of a file: comments, string and char literals blanked, lines kept."""
    out = []
    i = 0
    while True:
        match = LEXEME.search(source, i)
        if match is None:
            out.append(source[i:])
            return "".join(out)
        out.append(source[i : match.start()])
        if match.group("block"):
            depth, j = 1, match.end()
            while depth and j < len(source):
                if source.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif source.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            end = j
        elif match.group("raw"):
            close = '"' + match.group("hashes")
            found = source.find(close, match.end())
            end = len(source) if found < 0 else found + len(close)
        else:
            end = match.end()
        out.append(blank(source[match.start() : end]))
        i = end


TOKEN = re.compile(r"\$crate|[A-Za-z_][A-Za-z0-9_]*|::|\S")


def tokens(code: str):
    """(token, line number) pairs of stripped code."""
    for number, line in enumerate(code.split("\n"), 1):
        for match in TOKEN.finditer(line):
            yield match.group(), number


OPEN = {"(": ")", "[": "]", "{": "}"}


def without_tests(code: str) -> str:
    """`code` with every item marked `#[cfg(test)]` blanked: from the attribute to the `;`
    or the closing `}` that ends the item."""
    pattern = re.compile(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")
    while (match := pattern.search(code)) is not None:
        i, depth = match.end(), []
        while i < len(code):
            ch = code[i]
            if ch in OPEN:
                depth.append(OPEN[ch])
            elif depth and ch == depth[-1]:
                depth.pop()
                if ch == "}" and not depth:
                    i += 1
                    break
            elif ch in ")]}":
                break  # the item ended with the block around it
            elif ch == ";" and not depth:
                i += 1
                break
            i += 1
        code = code[: match.start()] + blank(code[match.start() : i]) + code[i:]
    return code


def code_of(path: pathlib.Path) -> str:
    return without_tests(strip(path.read_text()))


# ---------------------------------------------------------------------------------------
# 1. The core's modules.

PATH = re.compile(r"(?:\$crate|\bcrate)::([A-Za-z_][A-Za-z0-9_]*)(::\{?[A-Za-z_]*)?")
# `use crate::{a, b::c}` names several modules at once.
GROUP = re.compile(r"\bcrate::\{([^}]*)\}")


def layer_of(path: pathlib.Path, src: pathlib.Path) -> str:
    name = path.relative_to(src).parts[0]
    return name[:-3] if name.endswith(".rs") else name


def crate_targets(code: str):
    for match in GROUP.finditer(code):
        for item in match.group(1).split(","):
            head = item.strip().split("::")[0].strip()
            if head:
                yield head, None
    for match in PATH.finditer(code):
        yield match.group(1), match.group(2)


def check_modules(root: pathlib.Path) -> list[str]:
    src = root / CORE / "src"
    problems = []
    for path in sorted(src.rglob("*.rs")):
        layer = layer_of(path, src)
        rank = RANKS.get(layer)
        if rank is None:
            problems.append(
                f"{path.relative_to(root)}: module `{layer}` has no layer in scripts/check_layers.py"
            )
            continue
        lines = path.read_text().splitlines()
        for number, code in enumerate(code_of(path).split("\n"), 1):
            for head, rest in crate_targets(code):
                target = ROOT_NAMES.get(head, head)
                if target not in RANKS or target == layer:
                    continue  # a macro, `self`, an item of the root that is not a module
                if layer in OPERATIONS and target == "client" and (rest or "").startswith("::Client"):
                    continue
                if layer in OPERATIONS and head == "Client":
                    continue
                if RANKS[target] < rank:
                    continue
                if RANKS[target] == rank and not (layer in OPERATIONS and target in OPERATIONS):
                    continue  # expr and observe share a rank
                way = "sideways" if RANKS[target] == rank else "up"
                problems.append(
                    f"{path.relative_to(root)}:{number}: `{layer}` (layer {rank}) names "
                    f"`crate::{head}` (layer {RANKS[target]}), {way}: {lines[number - 1].strip()}"
                )
    return problems


# ---------------------------------------------------------------------------------------
# 2. Crates.


def workspace_crates(root: pathlib.Path) -> dict[str, pathlib.Path]:
    """The crates `dynorm*/` of the workspace, by package name."""
    crates = {}
    for manifest in sorted(root.glob("dynorm*/Cargo.toml")):
        package = tomllib.loads(manifest.read_text()).get("package", {})
        crates[package.get("name", manifest.parent.name)] = manifest.parent
    return crates


def dependencies(manifest: dict):
    """The package names of a manifest's `[dependencies]`, target-specific ones too."""
    tables = [manifest.get("dependencies", {})]
    tables += [t.get("dependencies", {}) for t in manifest.get("target", {}).values()]
    for table in tables:
        for key, spec in table.items():
            yield spec.get("package", key) if isinstance(spec, dict) else key


def check_crates(root: pathlib.Path, crates: dict[str, pathlib.Path]) -> list[str]:
    problems = []
    for name, directory in crates.items():
        rank = CRATE_RANKS.get(name)
        where = (directory / "Cargo.toml").relative_to(root)
        if rank is None:
            problems.append(f"{where}: crate `{name}` has no rank in scripts/check_layers.py")
            continue
        manifest = tomllib.loads((directory / "Cargo.toml").read_text())
        for dependency in dependencies(manifest):
            if dependency not in CRATE_RANKS and dependency not in crates:
                continue  # not a crate of the workspace
            below = CRATE_RANKS.get(dependency)
            if below is None or below != rank - 1:
                allowed = [n for n, r in CRATE_RANKS.items() if r == rank - 1] or ["none"]
                problems.append(
                    f"{where}: `{name}` (rank {rank}) depends on `{dependency}` (rank {below}); "
                    f"it may depend only on {', '.join(allowed)}"
                )
    return problems


# ---------------------------------------------------------------------------------------
# 3. Import circles.

ITEM_KEYWORDS = {"fn", "struct", "enum", "trait", "const", "static", "type", "union"}


class Module:
    """A module: the file it is written in, its children, what it defines and imports."""

    def __init__(self, path: tuple, file: pathlib.Path):
        self.path = path
        self.file = file
        self.children: dict[str, "Module"] = {}
        self.defines: set[str] = set()
        self.imports: dict[str, tuple] = {}  # name -> (module path it was written in, segments)
        self.globs: list[tuple] = []
        self.parent: "Module | None" = None
        self.file_module = path  # the path of the module whose file this is


def parse_use_tree(toks, i, prefix, out):
    """Parses the use tree at toks[i]; appends (segments, name or None, glob) to `out`.
    Returns the index after the tree."""
    segments = list(prefix)
    while i < len(toks):
        tok = toks[i]
        if tok == "::":
            i += 1
        elif tok == "{":
            i += 1
            while i < len(toks) and toks[i] != "}":
                i = parse_use_tree(toks, i, segments, out)
                if i < len(toks) and toks[i] == ",":
                    i += 1
            return i + 1
        elif tok == "*":
            out.append((segments, None, True))
            return i + 1
        elif re.fullmatch(r"\$crate|[A-Za-z_]\w*", tok) and tok != "as":
            segments.append(tok)
            i += 1
        else:
            break
    name = segments[-1] if segments else None
    if name == "self":
        segments = segments[:-1]
        name = segments[-1] if segments else None
    if i + 1 < len(toks) and toks[i] == "as":
        name = toks[i + 1]
        i += 2
    if segments:
        out.append((segments, None if name == "_" else name, False))
    return i


class Crate:
    """The modules of one crate, and the paths each file names."""

    def __init__(self, src: pathlib.Path):
        self.src = src
        self.files: dict[pathlib.Path, list] = {}  # file -> [(module, segments, line)]
        root_file = src / "lib.rs" if (src / "lib.rs").exists() else src / "main.rs"
        self.root = Module((), root_file)
        self.load(self.root, root_file)

    def child_file(self, module: Module, name: str) -> pathlib.Path | None:
        file = module.file
        base = file.parent if file.name in ("lib.rs", "main.rs", "mod.rs") else file.parent / file.stem
        for inline in module.path[len(module.file_module) :]:
            base = base / inline  # `mod a { mod b; }` in x.rs: x/a/b.rs
        for candidate in (base / f"{name}.rs", base / name / "mod.rs"):
            if candidate.exists():
                return candidate
        return None

    def load(self, module: Module, file: pathlib.Path):
        toks = list(tokens(code_of(file)))
        self.files[file] = []
        self.read(module, file, toks, 0)

    def read(self, module: Module, file: pathlib.Path, toks, i) -> int:
        """Reads the items of `module` from toks[i] to its closing `}`."""
        words = [t for t, _ in toks]
        depth = 0
        while i < len(toks):
            tok, line = toks[i]
            prev = words[i - 1] if i else ""
            if tok == "{":
                depth += 1
            elif tok == "}":
                if depth == 0:
                    return i + 1
                depth -= 1
            elif tok == "mod" and i + 1 < len(toks) and prev not in ("::",):
                name = words[i + 1]
                child = Module(module.path + (name,), file)
                child.parent = module
                child.file_module = module.file_module
                module.children[name] = child
                if i + 2 < len(toks) and words[i + 2] == "{":
                    i = self.read(child, file, toks, i + 3)
                    continue
                child_file = self.child_file(module, name)
                if child_file is not None:
                    child.file = child_file
                    child.file_module = child.path
                    self.load(child, child_file)
                i += 2
                continue
            elif tok == "use" and prev != "::":
                end = i + 1
                while end < len(toks) and words[end] != ";":
                    end += 1
                trees = []
                parse_use_tree(words[i + 1 : end], 0, [], trees)
                for segments, name, glob in trees:
                    self.files[file].append((module, segments, line))
                    if glob:
                        module.globs.append(segments)
                    elif name:
                        module.imports[name] = segments
                i = end + 1
                continue
            elif tok in ITEM_KEYWORDS and i + 1 < len(toks) and re.fullmatch(r"[A-Za-z_]\w*", words[i + 1]):
                module.defines.add(words[i + 1])
            elif tok == "macro_rules" and i + 2 < len(toks) and words[i + 1] == "!":
                module.defines.add(words[i + 2])
            elif re.fullmatch(r"\$crate|[A-Za-z_]\w*", tok) and prev != "::" and i + 1 < len(toks) and words[i + 1] == "::":
                segments = [tok]
                j = i + 1
                while j + 1 < len(toks) and words[j] == "::" and re.fullmatch(r"[A-Za-z_]\w*", words[j + 1]):
                    segments.append(words[j + 1])
                    j += 2
                self.files[file].append((module, segments, line))
                i = j
                continue
            i += 1
        return i

    def start(self, module: Module, segments: list):
        """Where a path starts: (module, the segments left), or None when it starts outside
        the crate."""
        head = segments[0]
        if head in ("crate", "$crate"):
            return self.root, segments[1:]
        if head in ("self", "super"):
            rest = segments
            while rest and rest[0] in ("self", "super"):
                if rest[0] == "super":
                    module = module.parent or module
                rest = rest[1:]
            return module, rest
        return module, segments

    def resolve(self, module: Module, segments: list, seen=frozenset()):
        """The file that defines what a path names: a Path, "module" when it names a module,
        or None when it names something outside the crate (std, another crate, a local)."""
        key = (module.path, tuple(segments))
        if key in seen:
            return None
        seen = seen | {key}
        start = self.start(module, segments)
        module, rest = start
        if not rest:
            return "module"
        first = True
        for index, name in enumerate(rest):
            explicit = segments[0] in ("crate", "$crate", "self", "super") or not first
            found = self.lookup(module, name, seen, relative=not explicit)
            first = False
            if found is None:
                return None
            if isinstance(found, Module):
                module = found
                continue
            return found
        return "module"

    def lookup(self, module: Module, name: str, seen, relative: bool):
        """What `name` is in `module`: a child Module, a file, or None."""
        if name in module.children:
            return module.children[name]
        if name in module.defines:
            return module.file
        if name in module.imports:
            found = self.resolve(module, module.imports[name], seen)
            if found == "module":
                return self.module_at(module, module.imports[name])
            return found
        for glob in module.globs:
            target = self.resolve(module, glob, seen)
            if target == "module":
                inner = self.module_at(module, glob)
                if inner is not None:
                    found = self.lookup(inner, name, seen, relative=False)
                    if found is not None:
                        return found
        if relative:
            return None  # std, another crate, a generic or a local
        return module.file  # a name only a macro makes

    def module_at(self, module: Module, segments: list):
        module, rest = self.start(module, segments)
        for name in rest:
            found = self.lookup(module, name, frozenset(), relative=False)
            if not isinstance(found, Module):
                return None
            module = found
        return module

    def graph(self) -> dict[pathlib.Path, dict[pathlib.Path, int]]:
        """File -> the files it imports, with the line of the first import."""
        edges = {file: {} for file in self.files}
        for file, paths in self.files.items():
            for module, segments, line in paths:
                target = self.resolve(module, segments)
                if isinstance(target, pathlib.Path) and target != file:
                    edges[file].setdefault(target, line)
        return edges


def cycles(edges: dict) -> list[tuple[set, list]]:
    """Every strongly connected set of more than one file, with one cycle through it."""
    index, low, stack, on_stack, sets = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in edges.get(node, {}):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            members = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                members.append(other)
                if other == node:
                    break
            if len(members) > 1:
                sets.append(set(members))

    sys.setrecursionlimit(10000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    found = []
    for members in sets:
        first = min(members)
        # The shortest way from `first` back to itself, inside the set.
        paths = {first: [first]}
        queue = [first]
        while queue:
            node = queue.pop(0)
            for other in sorted(edges[node]):
                if other == first:
                    found.append((members, paths[node] + [first]))
                    queue = []
                    break
                if other in members and other not in paths:
                    paths[other] = paths[node] + [other]
                    queue.append(other)
    return sorted(found, key=lambda found: found[1])


def check_circles(root: pathlib.Path, crates: dict[str, pathlib.Path]) -> list[str]:
    """Every import circle, each as a problem."""
    problems = []
    for name, directory in sorted(crates.items()):
        src = directory / "src"
        if not (src / "lib.rs").exists() and not (src / "main.rs").exists():
            continue
        edges = Crate(src).graph()
        for members, cycle in cycles(edges):
            steps = [
                f"{a.relative_to(root)}:{edges[a][b]}" for a, b in zip(cycle, cycle[1:])
            ]
            others = sorted(str(m.relative_to(root)) for m in members - set(cycle))
            problems.append(
                f"`{name}`: files import each other: "
                + " -> ".join(steps + [str(cycle[-1].relative_to(root))])
                + (f" (in one circle with {', '.join(others)})" if others else "")
            )
    return problems


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        root = pathlib.Path(argv[1]).resolve()
    else:
        root = pathlib.Path(__file__).resolve().parent.parent
    crates = workspace_crates(root)
    problems = check_modules(root)
    problems += check_crates(root, crates)
    problems += check_circles(root, crates)
    if problems:
        print("layers point up or sideways, or files import each other:", file=sys.stderr)
        for problem in problems:
            print("  " + problem, file=sys.stderr)
        return 1
    files = sum(1 for d in crates.values() for _ in (d / "src").rglob("*.rs"))
    print(
        f"layers point down and no import circle: checked {len(crates)} crates, {files} files"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
