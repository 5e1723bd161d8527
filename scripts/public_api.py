#!/usr/bin/env python3
"""Lists the public API of the `dynorm` and `dynorm-derive` crates, one line per item.

    python3 scripts/public_api.py           # rewrites public-api/dynorm.txt and dynorm-derive.txt
    python3 scripts/public_api.py --check   # fails with a diff when they differ from the code

The lists are made from rustdoc's JSON output (`--output-format json`, with all features),
which is unstable: rustdoc gets `RUSTC_BOOTSTRAP=1` through a wrapper given to cargo as
`RUSTDOC`, so that only rustdoc sees it. Set for the whole of cargo, it would change the
fingerprint of every dependency and rebuild them all (and again for the next ordinary build);
through the wrapper, and with the same `cargo doc` command as the docs step of .ci/run, the JSON
build reuses the dependencies that step already checked and only reruns rustdoc on the two
crates.

From each crate's root module the script follows public items and public re-exports (`use`),
skipping what rustdoc hides (`#[doc(hidden)]`, `__private`), and prints one line per item:

    <path> [<kind>] <signature>

An item reachable at several paths is listed in full at the shortest (then the first in
alphabetical order), which also names it in signatures, and as `[re-export]` of that path at
the others. Items of other crates re-exported here are listed as `[re-export: <kind>]` of
their path, and signatures name them by the re-export. Inherent methods of an impl whose
header is more than `impl<A, B> Type<A, B>` say which: `(in impl<M> Attr<M, String>)`.
Types' and traits' impls are listed as `[impl]` lines under the type (or, for a trait of this
crate implemented on a type of another crate, under the trait); impls that rustdoc makes up
(auto traits, blanket impls) are left out. Lines are sorted; the output carries no rustdoc
ids, so it changes only when the API does (or when rustdoc's JSON format does).
"""

import argparse
import difflib
import json
import os
import pathlib
import re
import shlex
import stat
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "public-api"
# The packages listed, each in public-api/<package>.txt.
CRATES = ["dynorm", "dynorm-derive", "dynorm-streams", "dynorm-migrate", "dynorm-test"]
# The same command, features and so dependency builds as the docs step of .ci/run, so that in
# CI this step builds no dependency of its own.
COMMAND = ["cargo", "doc", "--no-deps", "--workspace", "--all-features"]
# The rustdoc JSON format versions this script has been checked with.
FORMAT_VERSIONS = {57}
HIDDEN = re.compile(r"doc\s*\(\s*hidden\s*\)")


# ---------------------------------------------------------------------------------------------
# Building the JSON


def target_dir() -> pathlib.Path:
    metadata = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return pathlib.Path(json.loads(metadata.stdout)["target_directory"])


def build_json() -> dict[str, dict]:
    """Runs rustdoc with JSON output on the workspace's libraries; returns the parsed crates
    by package name."""
    target = target_dir()
    # At a fixed path: cargo reruns rustdoc when the path of RUSTDOC changes.
    wrapper = target / "public-api" / "rustdoc"
    wrapper.parent.mkdir(parents=True, exist_ok=True)
    wrapper.write_text(
        '#!/bin/sh\nRUSTC_BOOTSTRAP=1 exec "$PUBLIC_API_RUSTDOC" "$@"\n', encoding="utf-8"
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    env = dict(os.environ)
    env["PUBLIC_API_RUSTDOC"] = os.environ.get("RUSTDOC", "rustdoc")
    env["RUSTDOC"] = str(wrapper)
    env["RUSTDOCFLAGS"] = "-Z unstable-options --output-format json"
    subprocess.run(COMMAND, cwd=ROOT, env=env, check=True)
    crates = {}
    for package in CRATES:
        path = target / "doc" / (package.replace("-", "_") + ".json")
        with open(path, encoding="utf-8") as file:
            krate = json.load(file)
        version = krate.get("format_version")
        if version not in FORMAT_VERSIONS:
            print(
                f"warning: rustdoc JSON format_version {version}; this script was checked"
                f" with {sorted(FORMAT_VERSIONS)}: check its output",
                file=sys.stderr,
            )
        crates[package] = krate
    return crates


# ---------------------------------------------------------------------------------------------
# Rendering


def one(mapping):
    """The (tag, value) of an externally tagged enum value, or (value, None) for a bare tag."""
    if isinstance(mapping, str):
        return mapping, None
    ((tag, value),) = mapping.items()
    return tag, value


class Api:
    def __init__(self, krate: dict):
        self.krate = krate
        self.index = krate["index"]
        self.paths = krate["paths"]
        self.crate_name = self.index[str(krate["root"])]["name"]
        # id -> paths where the item is defined (a child of a module), and where it is
        # re-exported (a `use`).
        self.defined: dict[str, set[tuple[str, ...]]] = {}
        self.reexported: dict[str, set[tuple[str, ...]]] = {}
        self.lines: set[str] = set()
        self.canonical: dict[str, tuple[str, ...]] = {}
        # Items of other crates re-exported here: id -> the paths of the re-exports.
        self.external: dict[str, set[tuple[str, ...]]] = {}
        self.external_paths: dict[str, tuple[str, ...]] = {}

    # -- the walk ------------------------------------------------------------------------------

    def item(self, id_) -> dict | None:
        return self.index.get(str(id_))

    def local(self, id_) -> bool:
        item = self.item(id_)
        return item is not None and item["crate_id"] == 0

    def hidden(self, item: dict) -> bool:
        for attr in item.get("attrs", []):
            text = attr if isinstance(attr, str) else json.dumps(attr)
            if HIDDEN.search(text):
                return True
        return item.get("name") == "__private"

    def walk(self, module_id, prefix: tuple[str, ...], stack: tuple = ()):
        if module_id in stack:
            return
        stack = stack + (module_id,)
        for child in self.item(module_id)["inner"]["module"]["items"]:
            item = self.item(child)
            if item is None or self.hidden(item) or item["visibility"] != "public":
                continue
            tag, inner = one(item["inner"])
            if tag == "use":
                self.walk_use(inner, prefix, stack)
                continue
            if tag == "impl":
                continue
            path = prefix + (item["name"],)
            self.defined.setdefault(str(child), set()).add(path)
            if tag == "module":
                self.walk(child, path, stack)

    def walk_use(self, use: dict, prefix: tuple[str, ...], stack: tuple):
        target = use["id"]
        if use["is_glob"]:
            if target is not None and self.local(target):
                if "module" in self.item(target)["inner"]:
                    self.walk(target, prefix, stack)
                return
            self.add(prefix + ("*",), "re-export", f"pub use {self.source(use)}::*")
            return
        path = prefix + (use["name"],)
        if target is not None and self.local(target):
            if self.hidden(self.item(target)):
                return
            self.reexported.setdefault(str(target), set()).add(path)
            if "module" in self.item(target)["inner"]:
                self.walk(target, path, stack)
            return
        summary = self.paths.get(str(target)) if target is not None else None
        kind = summary["kind"].replace("_", " ") if summary else "primitive"
        if target is not None:
            self.external.setdefault(str(target), set()).add(path)
        self.add(path, f"re-export: {kind}", f"pub use {self.source(use)}")

    def source(self, use: dict) -> str:
        summary = self.paths.get(str(use["id"])) if use["id"] is not None else None
        return "::".join(summary["path"]) if summary else use["source"]

    def add(self, path: tuple[str, ...], kind: str, signature: str):
        self.lines.add(f"{'::'.join(path)} [{kind}] {signature}")

    def run(self) -> list[str]:
        root = self.krate["root"]
        self.walk(root, (self.crate_name,))

        def best(paths):
            return min(paths, key=lambda path: (len(path), path))

        for id_ in set(self.defined) | set(self.reexported):
            paths = self.defined.get(id_, set()) | self.reexported.get(id_, set())
            self.canonical[id_] = best(paths)
        for id_, paths in self.external.items():
            self.external_paths[id_] = best(paths)
        impls = set()
        for id_, path in self.canonical.items():
            for other in self.defined.get(id_, set()) | self.reexported.get(id_, set()):
                if other != path:
                    self.add(other, "re-export", f"pub use {'::'.join(path)}")
            impls.update(self.render_item(id_, path))
        for impl in sorted(impls, key=int):
            self.render_impl(impl)
        return sorted(self.lines)

    # -- items ---------------------------------------------------------------------------------

    def render_item(self, id_: str, path: tuple[str, ...]) -> list:
        """Adds the lines of an item at its canonical path; returns the ids of its impls."""
        item = self.item(id_)
        tag, inner = one(item["inner"])
        name = item["name"]
        attrs = self.attrs(item)
        if tag == "module":
            self.add(path, "module", f"pub mod {name}")
            return []
        if tag == "function":
            self.add(path, "fn", "pub " + self.function(name, inner))
            return []
        if tag == "struct":
            self.add(path, "struct", attrs + self.struct(name, inner))
            self.fields(path, inner["kind"])
            return inner["impls"]
        if tag == "union":
            generics = self.generics(inner["generics"])
            where = self.where(inner["generics"])
            body = self.field_summary(inner["fields"], inner["has_stripped_fields"])
            self.add(path, "union", f"{attrs}pub union {name}{generics}{where} {body}")
            self.fields(path, {"plain": inner})
            return inner["impls"]
        if tag == "enum":
            generics = self.generics(inner["generics"])
            where = self.where(inner["generics"])
            stripped = " { private variants }" if inner["has_stripped_variants"] else ""
            self.add(path, "enum", f"{attrs}pub enum {name}{generics}{where}{stripped}")
            for variant in inner["variants"]:
                self.variant(path, self.item(variant))
            return inner["impls"]
        if tag == "trait":
            self.add(path, "trait", self.trait(name, inner))
            for member in inner["items"]:
                self.trait_item(path, self.item(member))
            return inner["implementations"]
        if tag == "trait_alias":
            generics = self.generics(inner["generics"])
            bounds = self.bounds(inner["params"])
            self.add(path, "trait alias", f"pub trait {name}{generics} = {bounds}")
            return []
        if tag == "type_alias":
            generics = self.generics(inner["generics"])
            where = self.where(inner["generics"])
            target = self.type(inner["type"])
            self.add(path, "type alias", f"pub type {name}{generics}{where} = {target}")
            return []
        if tag == "constant":
            self.add(path, "const", f"pub const {name}: {self.type(inner['type'])}")
            return []
        if tag == "static":
            mutable = "mut " if inner["is_mutable"] else ""
            unsafe = "unsafe " if inner.get("is_unsafe") else ""
            kind = f"pub {unsafe}static {mutable}{name}: {self.type(inner['type'])}"
            self.add(path, "static", kind)
            return []
        if tag == "macro":
            self.add(path, "macro", " ".join(inner.split()))
            return []
        if tag == "proc_macro":
            self.add(path, "proc macro", self.proc_macro(name, inner))
            return []
        if tag == "primitive":
            self.add(path, "primitive", name)
            return inner.get("impls", [])
        self.add(path, tag.replace("_", " "), name)
        return []

    def attrs(self, item: dict) -> str:
        return "#[non_exhaustive] " if "non_exhaustive" in self.attr_names(item) else ""

    def attr_names(self, item: dict) -> set[str]:
        names = set()
        for attr in item.get("attrs", []):
            if isinstance(attr, str):
                names.add(attr.strip("#[] "))
            elif isinstance(attr, dict) and "other" in attr:
                names.add(attr["other"].strip("#[] "))
            elif isinstance(attr, dict):
                names.update(attr)
        return names

    def struct(self, name: str, inner: dict) -> str:
        generics = self.generics(inner["generics"])
        where = self.where(inner["generics"])
        tag, kind = one(inner["kind"])
        if tag == "unit":
            return f"pub struct {name}{generics}{where};"
        if tag == "tuple":
            fields = ", ".join(
                "private" if field is None else "pub " + self.type(self.field_type(field))
                for field in kind
            )
            return f"pub struct {name}{generics}({fields}){where};"
        body = self.field_summary(kind["fields"], kind["has_stripped_fields"])
        return f"pub struct {name}{generics}{where} {body}"

    def field_summary(self, fields: list, stripped: bool) -> str:
        if fields and stripped:
            return "{ pub and private fields }"
        if stripped:
            return "{ private fields }"
        return "{ pub fields }" if fields else "{}"

    def field_type(self, field_id) -> dict:
        return self.item(field_id)["inner"]["struct_field"]

    def fields(self, path: tuple[str, ...], kind):
        tag, value = one(kind)
        if tag == "plain":
            for field in value["fields"]:
                item = self.item(field)
                ty = self.type(item["inner"]["struct_field"])
                self.add(path + (item["name"],), "field", f"pub {item['name']}: {ty}")

    def variant(self, path: tuple[str, ...], item: dict):
        inner = item["inner"]["variant"]
        name = item["name"]
        tag, kind = one(inner["kind"])
        if tag == "tuple":
            name += "(" + ", ".join(
                "private" if field is None else self.type(self.field_type(field))
                for field in kind
            ) + ")"
        elif tag == "struct":
            fields = [
                f"{self.item(field)['name']}: {self.type(self.field_type(field))}"
                for field in kind["fields"]
            ]
            if kind["has_stripped_fields"]:
                fields.append("private fields")
            name += " { " + ", ".join(fields) + " }" if fields else " {}"
        if inner.get("discriminant"):
            name += f" = {inner['discriminant']['value']}"
        self.add(path + (item["name"],), "variant", self.attrs(item) + name)

    def trait(self, name: str, inner: dict) -> str:
        unsafe = "unsafe " if inner["is_unsafe"] else ""
        auto = "auto " if inner["is_auto"] else ""
        generics = self.generics(inner["generics"])
        bounds = f": {self.bounds(inner['bounds'])}" if inner["bounds"] else ""
        where = self.where(inner["generics"])
        return f"pub {unsafe}{auto}trait {name}{generics}{bounds}{where}"

    def trait_item(self, path: tuple[str, ...], item: dict):
        if item is None or self.hidden(item):
            return
        tag, inner = one(item["inner"])
        name = item["name"]
        here = path + (name,)
        if tag == "function":
            provided = " (provided)" if inner["has_body"] else ""
            self.add(here, "trait method", self.function(name, inner) + provided)
        elif tag == "assoc_const":
            provided = " (provided)" if inner.get("value") is not None else ""
            self.add(here, "trait const", f"const {name}: {self.type(inner['type'])}{provided}")
        elif tag == "assoc_type":
            self.add(here, "trait type", self.assoc_type(name, inner))

    def assoc_type(self, name: str, inner: dict) -> str:
        generics = self.generics(inner["generics"])
        bounds = f": {self.bounds(inner['bounds'])}" if inner["bounds"] else ""
        where = self.where(inner["generics"])
        default = f" = {self.type(inner['type'])}" if inner.get("type") is not None else ""
        return f"type {name}{generics}{bounds}{where}{default}"

    def proc_macro(self, name: str, inner: dict) -> str:
        kind = inner["kind"]
        if kind == "derive":
            helpers = ", ".join(sorted(inner["helpers"]))
            attributes = f", attributes({helpers})" if helpers else ""
            return f"#[proc_macro_derive({name}{attributes})]"
        if kind == "attr":
            return f"#[proc_macro_attribute] {name}"
        return f"{name}!()"

    # -- impls ---------------------------------------------------------------------------------

    def render_impl(self, impl_id):
        item = self.item(impl_id)
        if item is None or self.hidden(item):
            return
        inner = item["inner"]["impl"]
        if inner["is_synthetic"] or inner.get("blanket_impl") is not None:
            return
        owner = self.impl_owner(inner)
        if owner is None:
            return
        if inner["trait"] is None:
            context = self.inherent_context(inner)
            for member in inner["items"]:
                self.inherent_item(owner, self.item(member), context)
            return
        unsafe = "unsafe " if inner["is_unsafe"] else ""
        generics = self.generics(inner["generics"])
        negative = "!" if inner["is_negative"] else ""
        trait = self.path(inner["trait"])
        for_ = self.type(inner["for"])
        where = self.where(inner["generics"])
        members = []
        for member in inner["items"]:
            member = self.item(member)
            if member is None or self.hidden(member):
                continue
            tag, value = one(member["inner"])
            if tag == "assoc_type":
                members.append(self.assoc_type(member["name"], value) + ";")
            elif tag == "assoc_const":
                members.append(f"const {member['name']}: {self.type(value['type'])};")
        body = " { " + " ".join(sorted(members)) + " }" if members else ""
        signature = f"{unsafe}impl{generics} {negative}{trait} for {for_}{where}{body}"
        self.add(owner, "impl", signature)

    def impl_owner(self, inner: dict) -> tuple[str, ...] | None:
        """The path an impl is listed under: its type's, else its trait's, else the first
        public type of this crate that its header names."""
        candidates = list(self.type_ids(inner["for"]))
        if inner["trait"] is not None:
            candidates.insert(1 if candidates else 0, inner["trait"]["id"])
            candidates += self.args_ids(inner["trait"].get("args"))
        for id_ in candidates:
            if str(id_) in self.canonical:
                return self.canonical[str(id_)]
        return None

    def inherent_context(self, inner: dict) -> str:
        """` (in impl<...> Type<...>)` for an inherent impl whose header says more than the
        type's definition, such as `impl<M> Attr<M, String>`; else nothing."""
        header = f"impl{self.generics(inner['generics'])} {self.type(inner['for'])}"
        header += self.where(inner["generics"])
        tag, value = one(inner["for"])
        if tag == "resolved_path":
            definition = self.item(value["id"])
            if definition is not None:
                generics = json.loads(json.dumps(one(definition["inner"])[1]["generics"]))
                for param in generics["params"]:
                    kind = one(param["kind"])[1]
                    if isinstance(kind, dict) and "default" in kind:
                        kind["default"] = None
                names = [param["name"] for param in generics["params"]]
                args = f"<{', '.join(names)}>" if names else ""
                path = "::".join(self.canonical.get(str(value["id"]), ()))
                plain = f"impl{self.generics(generics)} {path}{args}{self.where(generics)}"
                if header == plain:
                    return ""
        return f" (in {header})"

    def inherent_item(self, owner: tuple[str, ...], item: dict, context: str):
        if item is None or self.hidden(item) or item["visibility"] != "public":
            return
        tag, inner = one(item["inner"])
        name = item["name"]
        if tag == "function":
            signature = "pub " + self.function(name, inner)
            self.add(owner + (name,), "method", signature + context)
        elif tag == "assoc_const":
            ty = self.type(inner["type"])
            self.add(owner + (name,), "assoc const", f"pub const {name}: {ty}{context}")
        elif tag == "assoc_type":
            signature = "pub " + self.assoc_type(name, inner)
            self.add(owner + (name,), "assoc type", signature + context)

    def type_ids(self, ty):
        """The ids of the paths in a type, outermost first."""
        if ty is None:
            return
        tag, value = one(ty)
        if tag == "resolved_path":
            yield value["id"]
            yield from self.args_ids(value.get("args"))
        elif tag in ("borrowed_ref", "raw_pointer"):
            yield from self.type_ids(value["type"])
        elif tag in ("slice",):
            yield from self.type_ids(value)
        elif tag == "array":
            yield from self.type_ids(value["type"])
        elif tag == "tuple":
            for element in value:
                yield from self.type_ids(element)

    def args_ids(self, args):
        if not args:
            return
        tag, value = one(args)
        if tag == "angle_bracketed":
            for arg in value["args"]:
                arg_tag, arg_value = one(arg)
                if arg_tag == "type":
                    yield from self.type_ids(arg_value)

    # -- signatures ----------------------------------------------------------------------------

    def function(self, name: str, inner: dict) -> str:
        header = inner["header"]
        qualifiers = ""
        if header["is_const"]:
            qualifiers += "const "
        if header["is_async"]:
            qualifiers += "async "
        if header["is_unsafe"]:
            qualifiers += "unsafe "
        if header["abi"] != "Rust":
            qualifiers += f"extern {self.abi(header['abi'])} "
        generics = self.generics(inner["generics"])
        sig = inner["sig"]
        inputs = ", ".join(self.input(param, ty) for param, ty in sig["inputs"])
        if sig.get("is_c_variadic"):
            inputs += ", ..."
        output = f" -> {self.type(sig['output'])}" if sig["output"] is not None else ""
        where = self.where(inner["generics"])
        return f"{qualifiers}fn {name}{generics}({inputs}){output}{where}"

    def abi(self, abi) -> str:
        tag, _ = one(abi)
        if tag == "Other":
            return json.dumps(abi["Other"])
        return json.dumps(tag)

    def input(self, name: str, ty: dict) -> str:
        """A parameter: its type alone, except the receiver, written as in the source."""
        if name == "self":
            tag, value = one(ty)
            if tag == "generic" and value == "Self":
                return "self"
            if tag == "borrowed_ref" and value["type"] == {"generic": "Self"}:
                lifetime = f"{value['lifetime']} " if value["lifetime"] else ""
                mutable = "mut " if value["is_mutable"] else ""
                return f"&{lifetime}{mutable}self"
            return f"self: {self.type(ty)}"
        return self.type(ty)

    def generics(self, generics: dict) -> str:
        params = [
            self.generic_param(param)
            for param in generics["params"]
            if not (one(param["kind"])[0] == "type" and param["kind"]["type"]["is_synthetic"])
        ]
        return f"<{', '.join(params)}>" if params else ""

    def generic_param(self, param: dict) -> str:
        tag, kind = one(param["kind"])
        name = param["name"]
        if tag == "lifetime":
            outlives = kind.get("outlives") or []
            return f"{name}: {' + '.join(outlives)}" if outlives else name
        if tag == "type":
            text = name
            if kind["bounds"]:
                text += f": {self.bounds(kind['bounds'])}"
            if kind.get("default") is not None:
                text += f" = {self.type(kind['default'])}"
            return text
        text = f"const {name}: {self.type(kind['type'])}"
        if kind.get("default") is not None:
            text += f" = {kind['default']}"
        return text

    def where(self, generics: dict) -> str:
        predicates = [self.predicate(p) for p in generics["where_predicates"]]
        return f" where {', '.join(predicates)}" if predicates else ""

    def predicate(self, predicate: dict) -> str:
        tag, value = one(predicate)
        if tag == "bound_predicate":
            binder = self.binder(value.get("generic_params", []))
            return f"{binder}{self.type(value['type'])}: {self.bounds(value['bounds'])}"
        if tag == "lifetime_predicate":
            return f"{value['lifetime']}: {' + '.join(value['outlives'])}"
        return f"{self.type(value['lhs'])} = {self.term(value['rhs'])}"

    def binder(self, params: list) -> str:
        if not params:
            return ""
        return f"for<{', '.join(self.generic_param(param) for param in params)}> "

    def bounds(self, bounds: list) -> str:
        return " + ".join(self.bound(bound) for bound in bounds)

    def bound(self, bound: dict) -> str:
        tag, value = one(bound)
        if tag == "trait_bound":
            modifier = {"none": "", "maybe": "?", "maybe_const": "~const "}[value["modifier"]]
            binder = self.binder(value.get("generic_params", []))
            return f"{binder}{modifier}{self.path(value['trait'])}"
        if tag == "outlives":
            return value
        # `use<'a, T>`: precise capturing.
        args = []
        for arg in value:
            args.append(arg if isinstance(arg, str) else one(arg)[1])
        return f"use<{', '.join(args)}>"

    def path(self, path: dict) -> str:
        """A path to an item, with its generic arguments: this crate's items at their
        canonical public path, other items at their path in their crate."""
        id_ = str(path["id"])
        if id_ in self.canonical:
            name = "::".join(self.canonical[id_])
        elif id_ in self.external_paths:
            name = "::".join(self.external_paths[id_])
        elif id_ in self.paths:
            name = "::".join(self.paths[id_]["path"])
        else:
            name = path.get("path") or path.get("name")
        return name + self.generic_args(path.get("args"))

    def generic_args(self, args) -> str:
        if not args:
            return ""
        tag, value = one(args)
        if tag == "angle_bracketed":
            parts = [self.generic_arg(arg) for arg in value["args"]]
            parts += [self.constraint(c) for c in value.get("constraints", [])]
            return f"<{', '.join(parts)}>" if parts else ""
        if tag == "parenthesized":
            inputs = ", ".join(self.type(ty) for ty in value["inputs"])
            output = f" -> {self.type(value['output'])}" if value.get("output") else ""
            return f"({inputs}){output}"
        return "(..)"

    def generic_arg(self, arg) -> str:
        tag, value = one(arg)
        if tag == "lifetime":
            return value
        if tag == "type":
            return self.type(value)
        if tag == "const":
            return value["expr"]
        return "_"

    def constraint(self, constraint: dict) -> str:
        name = constraint["name"] + self.generic_args(constraint.get("args"))
        tag, value = one(constraint["binding"])
        if tag == "equality":
            return f"{name} = {self.term(value)}"
        return f"{name}: {self.bounds(value)}"

    def term(self, term: dict) -> str:
        tag, value = one(term)
        return self.type(value) if tag == "type" else value["expr"]

    def type(self, ty) -> str:
        tag, value = one(ty)
        if tag == "resolved_path":
            return self.path(value)
        if tag == "dyn_trait":
            parts = [
                self.binder(poly.get("generic_params", [])) + self.path(poly["trait"])
                for poly in value["traits"]
            ]
            if value.get("lifetime"):
                parts.append(value["lifetime"])
            return "dyn " + " + ".join(parts)
        if tag == "primitive":
            return "!" if value == "never" else value
        if tag == "generic":
            return value
        if tag == "function_pointer":
            header = value["header"]
            text = self.binder(value.get("generic_params", []))
            if header["is_unsafe"]:
                text += "unsafe "
            if header["abi"] != "Rust":
                text += f"extern {self.abi(header['abi'])} "
            sig = value["sig"]
            inputs = ", ".join(self.type(ty) for _, ty in sig["inputs"])
            if sig.get("is_c_variadic"):
                inputs += ", ..."
            output = f" -> {self.type(sig['output'])}" if sig["output"] is not None else ""
            return f"{text}fn({inputs}){output}"
        if tag == "tuple":
            if len(value) == 1:
                return f"({self.type(value[0])},)"
            return "(" + ", ".join(self.type(element) for element in value) + ")"
        if tag == "slice":
            return f"[{self.type(value)}]"
        if tag == "array":
            return f"[{self.type(value['type'])}; {value['len']}]"
        if tag == "pat":
            return self.type(value["type"])
        if tag == "impl_trait":
            return "impl " + self.bounds(value)
        if tag == "infer":
            return "_"
        if tag == "raw_pointer":
            mutable = "mut" if value["is_mutable"] else "const"
            return f"*{mutable} {self.type(value['type'])}"
        if tag == "borrowed_ref":
            lifetime = f"{value['lifetime']} " if value.get("lifetime") else ""
            mutable = "mut " if value["is_mutable"] else ""
            return f"&{lifetime}{mutable}{self.type(value['type'])}"
        if tag == "qualified_path":
            self_type = self.type(value["self_type"])
            args = self.generic_args(value.get("args"))
            if value.get("trait") is None:
                return f"{self_type}::{value['name']}{args}"
            return f"<{self_type} as {self.path(value['trait'])}>::{value['name']}{args}"
        raise ValueError(f"unknown type in rustdoc JSON: {tag}")


# ---------------------------------------------------------------------------------------------
# Modes


def generate(directory: pathlib.Path):
    directory.mkdir(parents=True, exist_ok=True)
    crates = build_json()
    for package, krate in crates.items():
        lines = Api(krate).run()
        (directory / f"{package}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Lists the public API of dynorm and dynorm-derive in public-api/."
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="compare with public-api/ instead of writing it; fail with a diff if they differ",
    )
    args = parser.parse_args()
    if not args.check:
        generate(OUT)
        for package in CRATES:
            print(f"wrote public-api/{package}.txt")
        return 0

    with tempfile.TemporaryDirectory(prefix="public-api-check-") as fresh:
        fresh = pathlib.Path(fresh)
        generate(fresh)
        differs = False
        for package in CRATES:
            file_name = f"{package}.txt"
            committed = OUT / file_name
            old = committed.read_text(encoding="utf-8") if committed.exists() else ""
            new = (fresh / file_name).read_text(encoding="utf-8")
            if old != new:
                differs = True
                name = f"public-api/{file_name}"
                sys.stdout.writelines(
                    difflib.unified_diff(
                        old.splitlines(keepends=True),
                        new.splitlines(keepends=True),
                        fromfile=f"{name} (committed)",
                        tofile=f"{name} (from the code)",
                    )
                )
    if differs:
        print(
            "\nThe public API differs from the committed list (diff above). If the change is"
            " meant, update the list, review its diff and commit it with the change:\n\n"
            f"    {shlex.join(['python3', 'scripts/public_api.py'])}\n"
            "    git diff public-api/",
            file=sys.stderr,
        )
        return 1
    print("public API matches public-api/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
