#!/usr/bin/env python3
"""Checks that the workspace's declared `rust-version` is at least the highest
`rust-version` among the locked dependencies, so that the claim in Cargo.toml and the
README stays true when Cargo.lock moves. Reads `cargo metadata`."""

import json
import subprocess
import sys


def version(text: str) -> tuple:
    return tuple(int(part) for part in text.split("."))


def main() -> int:
    metadata = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    members = set(metadata["workspace_members"])
    declared = {
        p["name"]: p.get("rust_version")
        for p in metadata["packages"]
        if p["id"] in members
    }
    missing = [name for name, v in declared.items() if not v]
    if missing:
        print(f"no rust-version declared for {', '.join(missing)}", file=sys.stderr)
        return 1
    floor = min(version(v) for v in declared.values())
    needed = max(
        (
            (version(p["rust_version"]), p["name"], p["version"])
            for p in metadata["packages"]
            if p["id"] not in members and p.get("rust_version")
        ),
        default=((0,), "", ""),
    )
    shown = ".".join(map(str, floor))
    if needed[0] > floor:
        print(
            f"rust-version {shown} is below what {needed[1]} {needed[2]} needs: "
            f"{'.'.join(map(str, needed[0]))}; raise it in Cargo.toml and the README",
            file=sys.stderr,
        )
        return 1
    readme = open("README.md", encoding="utf-8").read()
    if f"{shown} or newer" not in readme:
        print(f"README.md does not say the toolchain is {shown} or newer", file=sys.stderr)
        return 1
    print(f"rust-version {shown} covers every locked dependency (highest: {needed[1]} {needed[2]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
