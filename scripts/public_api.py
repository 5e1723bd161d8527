#!/usr/bin/env python3
"""Lists the public API of the published crates with `cargo-public-api`, one line per item.

    python3 scripts/public_api.py           # rewrites public-api/<crate>.txt
    python3 scripts/public_api.py --check   # fails with a diff when they differ from the code
    python3 scripts/public_api.py --pinned  # prints the cargo-public-api version it needs

The lists are cargo-public-api's own output (https://github.com/cargo-public-api/cargo-public-api)
at the version pinned below, for each crate of CRATES with all features, without the blanket
impls (`--omit blanket-impls`: `impl<T> Any for T`, `Into`, `From<T>`, `Borrow`... come from
the standard library, the same for every type). cargo-public-api leaves out what rustdoc hides
(`#[doc(hidden)]`, so `dynorm::__ext`, and `__private`). It is found at
$CARGO_PUBLIC_API, else in .ci/cache/cargo-public-api/bin (where .ci/run installs it), else on
PATH; any other version is refused, with the command that installs the pinned one.

cargo-public-api reads rustdoc's JSON output, whose format has a version: the pinned
cargo-public-api reads FORMAT_VERSION, the one the toolchain CI uses writes (rustc 1.95). A
toolchain that writes another fails here: pick the cargo-public-api release that reads it (the
compatibility matrix of its README) and update both constants, then the lists.

The JSON is built here, not by cargo-public-api: on a stable toolchain cargo-public-api runs
`cargo +nightly`, which needs a nightly toolchain and checks every dependency again with it.
Instead rustdoc gets `RUSTC_BOOTSTRAP=1` through a wrapper given to cargo as `RUSTDOC`, so
that only rustdoc sees it. Set for the whole of cargo, it would change the fingerprint of
every dependency and rebuild them all (and again for the next ordinary build); through the
wrapper, and with the same `cargo doc` command as the docs step of .ci/run, the JSON build
reuses the dependencies that step already checked and only reruns rustdoc on the workspace's
crates. cargo-public-api then reads each crate's JSON (`--rustdoc-json`, an option its help
hides: check it when changing the pinned version).

Each run prints, per crate, the number of items: the lines that are not `impl ...` lines.
"""

import argparse
import difflib
import json
import os
import re
import pathlib
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "public-api"
# The packages listed, each in public-api/<package>.txt.
CRATES = ["dynorm", "dynorm-derive", "dynorm-streams", "dynorm-migrate", "dynorm-test"]
# cargo-public-api, and the rustdoc JSON format version it reads (through rustdoc-types
# 0.57), which rustc 1.95 writes.
VERSION = "0.52.0"
FORMAT_VERSION = 57
# Where .ci/run installs it.
CACHED = ROOT / ".ci" / "cache" / "cargo-public-api" / "bin" / "cargo-public-api"
INSTALL = ["cargo", "install", "cargo-public-api", "--version", VERSION, "--locked"]
OPTIONS = ["--omit", "blanket-impls", "--color", "never"]
# The same command, features and so dependency builds as the docs step of .ci/run, so that in
# CI this step builds no dependency of its own.
COMMAND = ["cargo", "doc", "--no-deps", "--workspace", "--all-features"]


class Failure(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# cargo-public-api


def tool() -> str:
    """The path of cargo-public-api at the pinned version."""
    candidates = []
    if os.environ.get("CARGO_PUBLIC_API"):
        candidates.append(os.environ["CARGO_PUBLIC_API"])
    elif CACHED.exists():
        candidates.append(str(CACHED))
    else:
        found = shutil.which("cargo-public-api")
        if found:
            candidates.append(found)
    for path in candidates:
        try:
            version = subprocess.run(
                [path, "--version"], check=True, capture_output=True, text=True
            ).stdout.split()
        except (OSError, subprocess.CalledProcessError) as error:
            raise Failure(f"{path} --version failed: {error}") from error
        if version[-1:] != [VERSION]:
            raise Failure(
                f"{path} is cargo-public-api {' '.join(version[1:]) or '?'}, this script needs"
                f" {VERSION}; install it with\n\n    {shlex.join(INSTALL)}\n\nor set"
                " CARGO_PUBLIC_API to its path"
            )
        return path
    raise Failure(
        f"cargo-public-api {VERSION} not found (CARGO_PUBLIC_API, {CACHED.relative_to(ROOT)},"
        f" PATH); install it with\n\n    {shlex.join(INSTALL)}"
    )


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


def build_json() -> dict[str, pathlib.Path]:
    """Runs rustdoc with JSON output on the workspace's libraries; returns the path of each
    package's JSON."""
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
    paths = {}
    for package in CRATES:
        path = target / "doc" / (package.replace("-", "_") + ".json")
        with open(path, encoding="utf-8") as file:
            version = json.load(file).get("format_version")
        if version != FORMAT_VERSION:
            raise Failure(
                f"{path}: rustdoc JSON format version {version}; cargo-public-api {VERSION}"
                f" reads version {FORMAT_VERSION}. Pin the cargo-public-api release that reads"
                f" {version} in {pathlib.Path(__file__).relative_to(ROOT)} and .ci/run"
                " follows it."
            )
        paths[package] = path
    return paths


# ---------------------------------------------------------------------------------------------
# Modes


# What a member line of an impl starts with, before the implementing type:
# `pub fn `, `pub async fn `, `pub const fn `, `pub type `, `pub const `.
MEMBER = re.compile(r"^pub (?:(?:async|const|unsafe) )*(?:fn|type|const) ")


def implementing_type(line: str) -> str | None:
    """The type a trait impl line is for, as its members name it (`impl<M> Clone for
    dynorm::item::GetItem<M>` -> `dynorm::item::GetItem<M>`), or None for an inherent
    impl."""
    if " for " not in line:
        return None
    return line.rsplit(" for ", 1)[1].split(" where ", 1)[0].strip()


def items(text: str) -> int:
    """The crate's own items: the lines of a list that are neither `impl ...` lines nor
    members of a trait impl (a `clone` under `impl Clone for T`, or `preview` under
    `impl Request for T`: the trait's own item, listed again for each type that implements
    it). This is the count a release goal of the API's size compares."""
    count = 0
    implemented = None
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith("impl"):
            implemented = implementing_type(line)
            continue
        member = MEMBER.match(line)
        if implemented and member and line[member.end():].startswith(implemented + "::"):
            continue
        implemented = None
        count += 1
    return count


def generate(directory: pathlib.Path) -> dict[str, str]:
    """Writes each crate's list into directory; returns them by package."""
    cargo_public_api = tool()
    directory.mkdir(parents=True, exist_ok=True)
    lists = {}
    for package, path in build_json().items():
        run = subprocess.run(
            [cargo_public_api, "--rustdoc-json", str(path), *OPTIONS],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            raise Failure(f"cargo-public-api failed on {path}:\n{run.stderr}")
        listed = run.stdout
        (directory / f"{package}.txt").write_text(listed, encoding="utf-8")
        lists[package] = listed
    return lists


def counts(lists: dict[str, str]):
    for package, listed in lists.items():
        print(
            f"public-api/{package}.txt: {items(listed)} items of its own (trait impls and their"
            " members apart)"
            f" ({len(listed.splitlines())} lines)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Lists the public API of the published crates in public-api/."
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="compare with public-api/ instead of writing it; fail with a diff if they differ",
    )
    parser.add_argument(
        "--pinned",
        action="store_true",
        help="print the version of cargo-public-api this script needs, and nothing else",
    )
    args = parser.parse_args()
    if args.pinned:
        print(VERSION)
        return 0
    try:
        if not args.check:
            counts(generate(OUT))
            return 0
        with tempfile.TemporaryDirectory(prefix="public-api-check-") as fresh:
            lists = generate(pathlib.Path(fresh))
    except Failure as failure:
        print(f"error: {failure}", file=sys.stderr)
        return 1

    differs = False
    for package, new in lists.items():
        name = f"public-api/{package}.txt"
        committed = OUT / f"{package}.txt"
        old = committed.read_text(encoding="utf-8") if committed.exists() else ""
        if old != new:
            differs = True
            sys.stdout.writelines(
                difflib.unified_diff(
                    old.splitlines(keepends=True),
                    new.splitlines(keepends=True),
                    fromfile=f"{name} (committed)",
                    tofile=f"{name} (from the code)",
                )
            )
    counts(lists)
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
