"""Compares the stored forms that `cargo run -p dynorm --example stored_forms` printed under
several feature sets: every attribute printed under two feature sets must be printed the
same, byte for byte, and the run with the most features must print every attribute the
others did. Features only add."""

import sys


def read(path):
    forms = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            key, _, value = line.partition(" = ")
            forms[key] = value
    return forms


def main(paths):
    runs = {path: read(path) for path in paths}
    widest = max(runs, key=lambda p: len(runs[p]))
    failures = []
    for path, forms in runs.items():
        if not forms:
            failures.append(f"{path}: printed nothing")
        for key, value in forms.items():
            other = runs[widest].get(key)
            if other is None:
                failures.append(f"{key}: printed by {path}, not by {widest}")
            elif other != value:
                failures.append(f"{key}: {path} stores {value}, {widest} stores {other}")
    for failure in failures:
        print(failure)
    total = sum(len(forms) for forms in runs.values())
    print(f"{len(runs)} feature sets, {total} stored forms compared, {len(failures)} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
