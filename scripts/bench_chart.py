#!/usr/bin/env python3
"""Charts and tables for dynorm's criterion benchmarks. Standard library only.

Reads every `<criterion dir>/<group>/<bench>/new/estimates.json` (with its
`benchmark.json` for the names), writes one SVG bar chart per group showing the
median of each contender with its 95% confidence interval, and prints a Markdown
table of medians and ratios against dynorm.

    python3 scripts/bench_chart.py                       # target/criterion -> benches/charts
    python3 scripts/bench_chart.py --groups order_to_item,get
    python3 scripts/bench_chart.py --criterion-dir DIR --out-dir DIR

Also reads the extra runs the bench binaries write next to criterion's results:
`<criterion dir>/interleaved/<group>.json` (benches/conversion.rs: the contenders
timed in turn, batch by batch) and `<criterion dir>/paired/<op>.json`
(benches/operations.rs: dynorm and raw alternated call by call). It prints their
ratios and charts the interleaved medians as `interleaved_<group>.svg`.

And the results of the custom-harness benchmarks, from `<criterion dir>/<kind>/<kind>.json`:
`batch_write` (benches/batch_write.rs, chart `batch_write.svg`), `stream_query`
(benches/stream_query.rs, `stream_query_<items>.svg` and `stream_query_memory.svg`) and
`compile_time` (scripts/compile_bench.py, `compile_time.svg`). To redraw only these,
leaving the criterion charts as they are:

    python3 scripts/bench_chart.py --groups batch_write,stream_query,compile_time
"""

import argparse
import json
import math
import os
import sys
from html import escape

# The contender every other one is compared with, and the order of the bars.
SUBJECT = "dynorm"
ORDER = [
    "dynorm",
    "hand_written",
    "raw",
    "serde_dynamo",
    # benchmark 3
    "raw_tuned",
    "sequential",
    # benchmark 4
    "dynorm_stream",
    "raw_collect",
    "dynorm_all",
    "raw_paged",
    # benchmark 5
    "dynorm_models",
    "serde_models",
    "plain_models",
]
COLORS = {
    "dynorm": "#2f6fdf",
    "hand_written": "#7a7a7a",
    "raw": "#7a7a7a",
    "serde_dynamo": "#e07b39",
    "raw_tuned": "#7a7a7a",
    "sequential": "#e07b39",
    "dynorm_stream": "#2f6fdf",
    "raw_collect": "#7a7a7a",
    "dynorm_all": "#9bb8ef",
    "raw_paged": "#b5b5b5",
    "dynorm_models": "#2f6fdf",
    "serde_models": "#7a7a7a",
    "plain_models": "#b5b5b5",
}
# The known groups, in the order of the plan, and what each one's ratio target is.
GROUP_ORDER = [
    "order_to_item",
    "order_from_item",
    "wide_to_item",
    "wide_from_item",
    "get",
    "put",
]
TARGETS = {
    "serde_dynamo": ("serde_dynamo / dynorm", ">= 1.5", lambda r: r >= 1.5),
    "hand_written": ("dynorm / hand-written", "<= 1.2", lambda r: r <= 1.2),
    "raw": ("dynorm / raw", "<= 1.05", lambda r: r <= 1.05),
}


def load(criterion_dir):
    """{group: {bench: {"median": ns, "lo": ns, "hi": ns, "mean": ns}}}."""
    results = {}
    for root, _dirs, files in os.walk(criterion_dir):
        if os.path.basename(root) != "new" or "estimates.json" not in files:
            continue
        with open(os.path.join(root, "estimates.json")) as f:
            estimates = json.load(f)
        bench_json = os.path.join(root, "benchmark.json")
        if os.path.exists(bench_json):
            with open(bench_json) as f:
                meta = json.load(f)
            group = meta.get("group_id")
            bench = meta.get("function_id") or meta.get("value_str") or "?"
            if meta.get("function_id") and meta.get("value_str"):
                bench = "%s/%s" % (meta["function_id"], meta["value_str"])
        else:
            rel = os.path.relpath(os.path.dirname(root), criterion_dir).split(os.sep)
            group, bench = rel[0], "/".join(rel[1:]) or rel[0]
        median = estimates["median"]
        results.setdefault(group, {})[bench] = {
            "median": median["point_estimate"],
            "lo": median["confidence_interval"]["lower_bound"],
            "hi": median["confidence_interval"]["upper_bound"],
            "mean": estimates["mean"]["point_estimate"],
        }
    return results


def load_extra(criterion_dir, kind):
    """{name: data} from `<criterion dir>/<kind>/<name>.json`."""
    extra = {}
    directory = os.path.join(criterion_dir, kind)
    if not os.path.isdir(directory):
        return extra
    for name in sorted(os.listdir(directory)):
        if name.endswith(".json"):
            with open(os.path.join(directory, name)) as f:
                extra[name[: -len(".json")]] = json.load(f)
    return extra


def human(ns):
    """A duration in ns as text with a sensible unit."""
    if ns >= 1e9:
        return "%.2f s" % (ns / 1e9)
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.2f µs" % (ns / 1e3)
    return "%.0f ns" % ns


def bench_key(name):
    return (ORDER.index(name) if name in ORDER else len(ORDER), name)


def group_key(name):
    return (GROUP_ORDER.index(name) if name in GROUP_ORDER else len(GROUP_ORDER), name)


def megabytes(n):
    """A byte count as text."""
    return "%.1f MB" % (n / 1e6)


def svg_chart(group, benches, subtitle=None, subject_name=SUBJECT, fmt=human, names=None,
              left=130):
    """A horizontal bar chart of the medians, with the 95% CI as whiskers (none where
    `lo` and `hi` are the median). `subject_name` is the bar the others are compared
    with, `fmt` formats a value, and `names` gives the bars in order (default: all, in
    the usual order)."""
    names = names or sorted(benches, key=bench_key)
    width, right, top, bar, gap = 720 + left - 130, 190, 52, 30, 14
    height = top + len(names) * (bar + gap) + 40
    scale_max = max(b["hi"] for b in benches.values()) * 1.05
    plot_w = width - left - right

    def x(ns):
        return left + plot_w * ns / scale_max

    subject = benches.get(subject_name)
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
        'viewBox="0 0 %d %d" font-family="sans-serif" font-size="13">'
        % (width, height, width, height),
        '<rect width="100%" height="100%" fill="white"/>',
        '<text x="%d" y="22" font-size="16" font-weight="bold">%s</text>'
        % (left, escape(group)),
        '<text x="%d" y="40" fill="#555">%s</text>'
        % (
            left,
            escape(
                subtitle
                or "criterion: median time per call, lower is better; "
                "whiskers: 95% CI of the median"
            ),
        ),
    ]
    # Grid lines at round values.
    step = nice_step(scale_max / 5)
    tick = 0.0
    axis_y = top + len(names) * (bar + gap)
    while tick <= scale_max:
        out.append(
            '<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e4e4e4"/>'
            % (x(tick), top - 4, x(tick), axis_y)
        )
        out.append(
            '<text x="%.1f" y="%d" text-anchor="middle" fill="#555" font-size="11">%s</text>'
            % (x(tick), axis_y + 16, escape(fmt(tick)) if tick else "0")
        )
        tick += step
    for i, name in enumerate(names):
        b = benches[name]
        y = top + i * (bar + gap)
        color = COLORS.get(name, COLORS.get(name.split(" ")[0], "#999999"))
        out.append(
            '<text x="%d" y="%d" text-anchor="end" dominant-baseline="middle">%s</text>'
            % (left - 8, y + bar / 2, escape(name))
        )
        out.append(
            '<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>'
            % (left, y, max(x(b["median"]) - left, 1), bar, color)
        )
        mid = y + bar / 2
        out.append(
            '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>'
            % (x(b["lo"]), mid, x(b["hi"]), mid)
        )
        for end in (b["lo"], b["hi"]) if b["hi"] > b["lo"] else ():
            out.append(
                '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>'
                % (x(end), mid - 6, x(end), mid + 6)
            )
        label = fmt(b["median"])
        if subject and name != subject_name:
            label += "  (%.2fx %s)" % (b["median"] / subject["median"], subject_name)
        out.append(
            '<text x="%.1f" y="%.1f" dominant-baseline="middle">%s</text>'
            % (x(b["hi"]) + 8, mid, escape(label))
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def nice_step(raw):
    """1, 2 or 5 times a power of ten, at least `raw`."""
    if raw <= 0:
        return 1.0
    base = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 5):
        if base * mult >= raw:
            return base * mult
    return base * 10


def markdown(results, groups, paired, interleaved):
    lines = [
        "| group | contender | median | 95% CI of median | ratio | target | met |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for group in groups:
        benches = results[group]
        subject = benches.get(SUBJECT)
        for name in sorted(benches, key=bench_key):
            b = benches[name]
            ratio_text, target_text, met = "", "", ""
            if subject and name != SUBJECT and name in TARGETS:
                label, target_text, check = TARGETS[name]
                if name == "serde_dynamo":
                    ratio = b["median"] / subject["median"]
                else:
                    ratio = subject["median"] / b["median"]
                ratio_text = "%s = %.2f" % (label, ratio)
                met = "yes" if check(ratio) else "**no**"
            lines.append(
                "| %s | %s | %s | %s – %s | %s | %s | %s |"
                % (
                    group,
                    name,
                    human(b["median"]),
                    human(b["lo"]),
                    human(b["hi"]),
                    ratio_text,
                    target_text,
                    met,
                )
            )
    if interleaved:
        lines += [
            "",
            "| interleaved run | rounds x calls | dynorm median (min) | serde_dynamo median (min) "
            "| hand-written median (min) | serde_dynamo / dynorm | dynorm / hand-written | met |",
            "|---|---:|---:|---:|---:|---:|---:|---|",
        ]
        for group in sorted(interleaved, key=group_key):
            d = interleaved[group]
            cells = [
                "%s (%s)" % (human(d[c]["median_ns"]), human(d[c]["min_ns"]))
                for c in ("dynorm", "serde_dynamo", "hand_written")
            ]
            met = d["serde_over_dynorm"] >= 1.5 and d["dynorm_over_hand"] <= 1.2
            lines.append(
                "| %s | %d x %d | %s | %s | %s | %.2f | %.2f | %s |"
                % (
                    group,
                    d["rounds"],
                    d["batch"],
                    cells[0],
                    cells[1],
                    cells[2],
                    d["serde_over_dynorm"],
                    d["dynorm_over_hand"],
                    "yes" if met else "**no**",
                )
            )
    if paired:
        lines += [
            "",
            "| paired run | pairs | dynorm median | raw median | median per-pair dynorm/raw | target | met |",
            "|---|---:|---:|---:|---:|---|---|",
        ]
        for op in sorted(paired, key=group_key):
            p = paired[op]
            ratio = p["median_pair_ratio"]
            lines.append(
                "| %s | %d | %s | %s | %.3f | <= 1.05 | %s |"
                % (
                    op,
                    p["pairs"],
                    human(p["dynorm_median_ns"]),
                    human(p["raw_median_ns"]),
                    ratio,
                    "yes" if ratio <= 1.05 else "**no**",
                )
            )
    return "\n".join(lines)


def write_svg(out_dir, name, text):
    path = os.path.join(out_dir, "%s.svg" % name)
    with open(path, "w") as f:
        f.write(text)
    print("wrote %s" % path, file=sys.stderr)


def spread(median, lo, hi, scale=1e9):
    """A bar of `svg_chart` from values in seconds (or other units with `scale`)."""
    return {"median": median * scale, "lo": lo * scale, "hi": hi * scale}


def batch_write_section(data, out_dir):
    """Benchmark 3 (benches/batch_write.rs): chart and table."""
    contenders = data["contenders"]
    benches = {
        c: spread(v["median_s"], v["min_s"], v["max_s"]) for c, v in contenders.items()
    }
    write_svg(
        out_dir,
        "batch_write",
        svg_chart(
            "batch_write: %d items" % data["items"],
            benches,
            "median time to write them all, whiskers: min – max; lower is better",
        ),
    )
    lines = [
        "| contender | runs | median | min – max | items/s | client CPU | process CPU |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in sorted(contenders, key=bench_key):
        v = contenders[c]
        lines.append(
            "| %s | %d | %.2f s | %.2f – %.2f s | %.0f | %.2f s | %.2f s |"
            % (c, v["runs"], v["median_s"], v["min_s"], v["max_s"], v["items_per_s"],
               v["client_cpu_s"], v["process_cpu_s"])
        )
    pairs = data["dynorm_over_raw_tuned_pairs"]
    ratio = data["dynorm_over_raw_tuned"]
    lines += [
        "",
        "| ratio | median | range | target | met |",
        "|---|---:|---:|---|---|",
        "| throughput dynorm / raw_tuned, per pair | %.3f | %.3f – %.3f | >= 0.95 | %s |"
        % (ratio, min(pairs), max(pairs), "yes" if ratio >= 0.95 else "**no**"),
        "| throughput dynorm / sequential, per round | %.2f | %.2f – %.2f | (report) | |"
        % (data["dynorm_over_sequential"], min(data["dynorm_over_sequential_rounds"]),
           max(data["dynorm_over_sequential_rounds"])),
        "| client-thread CPU dynorm / raw_tuned (medians) | %.2f | | | |"
        % data["client_cpu_dynorm_over_raw_tuned"],
    ]
    return "\n".join(lines)


STREAM_CONTENDERS = ["dynorm_stream", "raw_collect", "dynorm_all", "raw_paged"]


def stream_query_section(data, out_dir):
    """Benchmark 4 (benches/stream_query.rs): a time chart per size, one memory chart."""
    sizes = sorted(int(n) for n in data["results"])
    lines = [
        "| items | pages | contender | median time | min – max | peak allocated (min – max) |",
        "|---:|---:|---|---:|---:|---:|",
    ]
    memory = {}
    memory_names = []
    for c in STREAM_CONTENDERS:
        for n in sizes:
            v = data["results"][str(n)]["contenders"][c]
            label = "%s %dk" % (c, n // 1000) if n >= 1000 else "%s %d" % (c, n)
            memory[label] = {
                "median": v["peak_bytes"], "lo": v["peak_min_bytes"], "hi": v["peak_max_bytes"]
            }
            memory_names.append(label)
    for n in sizes:
        r = data["results"][str(n)]
        benches = {
            c: spread(v["median_s"], v["min_s"], v["max_s"]) for c, v in r["contenders"].items()
        }
        write_svg(
            out_dir,
            "stream_query_%d" % n,
            svg_chart(
                "stream_query: %d items, %d pages" % (n, r["pages"]),
                benches,
                "median time of %d rounds, whiskers: min – max; lower is better" % data["rounds"],
                subject_name="dynorm_stream",
                left=150,
            ),
        )
        for c in STREAM_CONTENDERS:
            v = r["contenders"][c]
            lines.append(
                "| %d | %d | %s | %.3f s | %.3f – %.3f s | %.1f MB (%.1f – %.1f) |"
                % (n, r["pages"], c, v["median_s"], v["min_s"], v["max_s"],
                   v["peak_bytes"] / 1e6, v["peak_min_bytes"] / 1e6, v["peak_max_bytes"] / 1e6)
            )
    write_svg(
        out_dir,
        "stream_query_memory",
        svg_chart(
            "stream_query: peak bytes allocated",
            memory,
            "median over rounds of the peak above the start; whiskers: min – max",
            subject_name=None,
            fmt=megabytes,
            names=memory_names,
            left=190,
        ),
    )
    lines += [
        "",
        "| items | time dynorm_stream / raw_collect | target | met | dynorm_stream / raw_paged "
        "| dynorm_all / raw_collect |",
        "|---:|---:|---|---|---:|---:|",
    ]
    for n in sizes:
        r = data["results"][str(n)]
        ratio = r["dynorm_stream_over_raw_collect"]
        met = "yes" if 0.95 <= ratio <= 1.05 else "**no**"
        if ratio < 0.95:
            met = "yes, faster (outside the band on the good side)"
        lines.append(
            "| %d | %.3f | 0.95 – 1.05 | %s | %.3f | %.3f |"
            % (n, ratio, met,
               r["dynorm_stream_over_raw_paged"], r["dynorm_all_over_raw_collect"])
        )
    return "\n".join(lines)


def compile_time_section(data, out_dir):
    """Benchmark 5 (scripts/compile_bench.py): chart and table."""
    benches, names = {}, []
    crates = ["dynorm_models", "serde_models", "plain_models"]
    lines = [
        "| setting | dynorm_models median (min – max) | serde_models median (min – max) "
        "| plain_models median | dynorm / serde, median per round (range) | CPU-time ratio "
        "| above plain: dynorm / serde | target | met |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for setting, v in data["settings"].items():
        for crate in crates:
            if crate in v:
                c = v[crate]
                label = "%s %s" % (crate, setting)
                benches[label] = spread(c["median_s"], c["min_s"], c["max_s"])
                names.append(label)
        d, e = v["dynorm_models"], v["serde_models"]
        plain = v.get("plain_models")
        ratio = v["ratio_median_pair"]
        net = v.get("net_ratio_median")
        lines.append(
            "| %s | %.2f s (%.2f – %.2f) | %.2f s (%.2f – %.2f) | %s | %.2f (%.2f – %.2f) "
            "| %.2f | %s | <= 2 | %s |"
            % (setting, d["median_s"], d["min_s"], d["max_s"], e["median_s"], e["min_s"],
               e["max_s"], "%.2f s" % plain["median_s"] if plain else "–", ratio,
               v["ratio_min_pair"], v["ratio_max_pair"], v["cpu_ratio_median_pair"],
               "%.2f" % net if net else "–", "yes" if ratio <= 2 else "**no**")
        )
    h = data.get("hyperfine_full")
    if h:
        lines += [
            "",
            "hyperfine, `full` setting (all runs of one crate, then the next; medians): "
            + ", ".join("%s %.2f s" % (c, h["median_s"][c]) for c in crates if c in h["median_s"])
            + "; dynorm / serde %.2f" % h["ratio"]
            + ("; above plain %.2f" % h["net_ratio"] if "net_ratio" in h else ""),
        ]
    sizes = data.get("sizes")
    if sizes:
        lines += ["", "| crate | source | .rlib | .rmeta |", "|---|---:|---:|---:|"]
        for crate in crates:
            if crate in sizes:
                z = sizes[crate]
                lines.append(
                    "| %s | %.1f KB | %.2f MB | %.2f MB |"
                    % (crate, z["source_bytes"] / 1e3, z.get("rlib_bytes", 0) / 1e6,
                       z.get("rmeta_bytes", 0) / 1e6)
                )
    write_svg(
        out_dir,
        "compile_time",
        svg_chart(
            "compile time: %d models, debug" % data["models"],
            benches,
            "median wall time of `cargo build` after a touch; whiskers: min – max",
            subject_name=None,
            names=names,
            left=230,
        ),
    )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--criterion-dir",
        default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "criterion"),
    )
    parser.add_argument("--out-dir", default=os.path.join("benches", "charts"))
    parser.add_argument("--groups", help="comma-separated groups; default: all found")
    args = parser.parse_args()

    results = load(args.criterion_dir)
    sections = [
        ("batch_write", batch_write_section),
        ("stream_query", stream_query_section),
        ("compile_time", compile_time_section),
    ]
    extras = {kind: load_extra(args.criterion_dir, kind).get(kind) for kind, _ in sections}
    if not results and not any(extras.values()):
        sys.exit("no results under %s: run `cargo bench` first" % args.criterion_dir)
    groups = sorted(results, key=group_key)
    if args.groups:
        wanted = args.groups.split(",")
        groups = [g for g in groups if g in wanted]
    os.makedirs(args.out_dir, exist_ok=True)
    for group in groups:
        path = os.path.join(args.out_dir, "%s.svg" % group)
        with open(path, "w") as f:
            f.write(svg_chart(group, results[group]))
        print("wrote %s" % path, file=sys.stderr)
    paired = load_extra(args.criterion_dir, "paired")
    interleaved = load_extra(args.criterion_dir, "interleaved")
    if args.groups:
        paired = {k: v for k, v in paired.items() if k in groups}
        interleaved = {k: v for k, v in interleaved.items() if k in groups}
    for group, data in sorted(interleaved.items(), key=lambda kv: group_key(kv[0])):
        benches = {
            c: {"median": data[c]["median_ns"], "lo": data[c]["median_ns"], "hi": data[c]["median_ns"]}
            for c in ("dynorm", "serde_dynamo", "hand_written")
        }
        subtitle = "interleaved run: median of %d rounds of %d calls, lower is better" % (
            data["rounds"],
            data["batch"],
        )
        path = os.path.join(args.out_dir, "interleaved_%s.svg" % group)
        with open(path, "w") as f:
            f.write(svg_chart("%s (interleaved)" % group, benches, subtitle))
        print("wrote %s" % path, file=sys.stderr)
    if groups or paired or interleaved:
        print(markdown(results, groups, paired, interleaved))
    for kind, section in sections:
        if extras[kind] and (not args.groups or kind in args.groups.split(",")):
            print("\n" + section(extras[kind], args.out_dir))


if __name__ == "__main__":
    main()
