#!/usr/bin/env python3
"""Benchmark 8: what dynorm costs a Lambda function.

Runs the two handler binaries of this crate (`handler-dynorm`, `handler-raw`), built with
its release profile, against the DynamoDB endpoint the environment names, in pairs, and
reports:

- the stripped size of each binary;
- the time from process start (just before fork and exec) to the first answered GetItem
  (the line the handler prints once GetItem returns);
- the peak memory of each process (`ru_maxrss` from wait4: the resident set's high-water
  mark, VmHWM, which `/usr/bin/time -v` prints as "Maximum resident set size").

Before each pair both files are read in full, so both start from the page cache; the
order within a pair alternates (dynorm first, then raw first). Ratios are the medians of
the per-pair ratios dynorm / raw.

    cargo build --release --manifest-path benches/lambda/Cargo.toml
    AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_REGION=us-east-1 \\
    AWS_ENDPOINT_URL=http://127.0.0.1:8000 python3 benches/lambda/run.py --pairs 300

The table `LambdaBench` (hash key `id`, a string) is created with the AWS CLI when it is
missing. Only the Python standard library is needed.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = b"99.5 3\n"


def read_all(path):
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


def run_once(path, env):
    start = time.perf_counter_ns()
    proc = subprocess.Popen([path], stdout=subprocess.PIPE, env=env)
    line = proc.stdout.readline()
    answered = time.perf_counter_ns()
    proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if line != EXPECTED or proc.returncode != 0:
        sys.exit(f"{path}: printed {line!r}, exit code {proc.returncode}")
    return (answered - start) / 1e6, usage.ru_maxrss


def ensure_table(env):
    endpoint = env.get("AWS_ENDPOINT_URL_DYNAMODB") or env.get("AWS_ENDPOINT_URL")
    cli = ["aws", "dynamodb"] + (["--endpoint-url", endpoint] if endpoint else [])
    found = subprocess.run(cli + ["describe-table", "--table-name", "LambdaBench"],
                           env=env, capture_output=True)
    if found.returncode != 0:
        subprocess.run(cli + [
            "create-table", "--table-name", "LambdaBench",
            "--attribute-definitions", "AttributeName=id,AttributeType=S",
            "--key-schema", "AttributeName=id,KeyType=HASH",
            "--billing-mode", "PAY_PER_REQUEST"], env=env, check=True, capture_output=True)


def main():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "target"))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--dynorm", default=os.path.join(target, "release", "handler-dynorm"))
    parser.add_argument("--raw", default=os.path.join(target, "release", "handler-raw"))
    args = parser.parse_args()
    env = dict(os.environ)
    env.setdefault("AWS_DEFAULT_REGION", env.get("AWS_REGION", "us-east-1"))
    ensure_table(env)

    sizes = {name: os.path.getsize(path) for name, path in (("dynorm", args.dynorm), ("raw", args.raw))}
    print(f"stripped size: dynorm {sizes['dynorm']:,} B, raw {sizes['raw']:,} B, "
          f"ratio {sizes['dynorm'] / sizes['raw']:.4f} (+{sizes['dynorm'] - sizes['raw']:,} B)")

    times = {"dynorm": [], "raw": []}
    rss = {"dynorm": [], "raw": []}
    for i in range(args.warmup + args.pairs):
        read_all(args.dynorm)
        read_all(args.raw)
        order = [("dynorm", args.dynorm), ("raw", args.raw)]
        if i % 2:
            order.reverse()
        for name, path in order:
            ms, kb = run_once(path, env)
            if i >= args.warmup:
                times[name].append(ms)
                rss[name].append(kb)

    def ratios(values):
        return [d / r for d, r in zip(values["dynorm"], values["raw"])]

    t = ratios(times)
    m = ratios(rss)
    q = statistics.quantiles(t, n=4)
    print(f"start to first GetItem, {args.pairs} pairs: median dynorm "
          f"{statistics.median(times['dynorm']):.2f} ms, raw {statistics.median(times['raw']):.2f} ms; "
          f"median per-pair ratio {statistics.median(t):.4f} (quartiles {q[0]:.4f} - {q[2]:.4f})")
    print(f"peak memory (max RSS): median dynorm {statistics.median(rss['dynorm']):,.0f} KiB, "
          f"raw {statistics.median(rss['raw']):,.0f} KiB; median per-pair ratio {statistics.median(m):.4f} "
          f"(range {min(m):.4f} - {max(m):.4f})")


if __name__ == "__main__":
    main()
