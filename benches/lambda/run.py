#!/usr/bin/env python3
"""Benchmark 8: what dynorm costs a Lambda function.

Runs the two handler binaries of this crate (`handler-dynorm`, `handler-raw`), built with
its release profile, against the DynamoDB endpoint the environment names, in pairs, and
reports:

- the stripped size of each binary;
- the time from process start (just before fork and exec) to the first answered GetItem
  (the line the handler prints once GetItem returns);
- the peak memory of each process: the resident set's high-water mark as GNU time
  (`/usr/bin/time -f %M`, a 27 KB C program) reports it for the handler it forks and execs.
  Not `ru_maxrss` of a child that Python starts: Linux keeps the larger of the high-water
  marks before and after `exec`, and Python's child starts as a copy of (or shares, with
  vfork) the interpreter's memory, so every program, `/bin/true` included, read as about
  14 MiB. The control: `/bin/true` is measured both ways first, and the run stops unless
  GNU time's reading of it is under a quarter of the smaller handler's peak.

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


TIME = "/usr/bin/time"


def run_once(path, env, expected=EXPECTED):
    """Runs `path` under GNU time: the ms to its first line, and its peak RSS in KiB."""
    start = time.perf_counter_ns()
    proc = subprocess.Popen([TIME, "-f", "%M", path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    line = proc.stdout.readline()
    answered = time.perf_counter_ns()
    proc.stdout.read()
    err = proc.stderr.read()
    proc.wait()
    if line != expected or proc.returncode != 0:
        sys.exit(f"{path}: printed {line!r}, exit code {proc.returncode}, {err!r}")
    return (answered - start) / 1e6, int(err.decode().strip().splitlines()[-1])


def control(env):
    """`/bin/true`'s peak memory as Python's wait4 and as GNU time see it (KiB)."""
    proc = subprocess.Popen(["/bin/true"], env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    _, by_time = run_once("/bin/true", env, expected=b"")
    return usage.ru_maxrss, by_time


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

    by_wait4, by_time = control(env)
    print(f"control, /bin/true: wait4 from Python {by_wait4:,} KiB, GNU time {by_time:,} KiB")

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

    floor = min(min(rss["dynorm"]), min(rss["raw"]))
    if by_time * 4 >= floor:
        sys.exit(f"the control reads {by_time} KiB, not far enough under the handlers' {floor} KiB")
    t = ratios(times)
    m = ratios(rss)
    q = statistics.quantiles(t, n=4)
    print(f"start to first GetItem, {args.pairs} pairs: median dynorm "
          f"{statistics.median(times['dynorm']):.2f} ms, raw {statistics.median(times['raw']):.2f} ms; "
          f"median per-pair ratio {statistics.median(t):.4f} (quartiles {q[0]:.4f} - {q[2]:.4f})")
    print(f"peak memory (max RSS, GNU time): median dynorm {statistics.median(rss['dynorm']):,.0f} KiB, "
          f"raw {statistics.median(rss['raw']):,.0f} KiB; median per-pair ratio {statistics.median(m):.4f} "
          f"(range {min(m):.4f} - {max(m):.4f})")


if __name__ == "__main__":
    main()
