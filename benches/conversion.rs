//! Benchmark 1: a model to a DynamoDB item and back, dynorm against serde_dynamo on the
//! same struct and against hand-written `AttributeValue` code.
//!
//! ```sh
//! cargo bench --bench conversion
//! ```
//!
//! One criterion group per model and direction (`order_to_item`, `order_from_item`,
//! `wide_to_item`, `wide_from_item`), each with the three contenders `dynorm`,
//! `serde_dynamo` and `hand_written`, so that every ratio comes from one run.
//!
//! What is timed: encoding takes `&model` and returns the item; decoding takes the item by
//! value (a clone made outside the timing) and returns the model. The outputs are dropped
//! outside the timing in both directions (`iter_batched`), so the figures are the cost of
//! the conversion, not of freeing its result. `BENCH_BATCH=64` replaces criterion's
//! `BatchSize::SmallInput` (batches of a tenth of a sample, up to hundreds of MB of live
//! items) with batches of 64 items, which stay in the cache.
//!
//! Criterion measures the three contenders of a group one after the other, seconds apart,
//! so a burst of load on the machine lands on one of them. After criterion, an
//! interleaved run (`interleaved_<group>`) therefore times the three in turn, a batch of
//! 64 calls each, round after round in a rotating order, and reports each one's minimum
//! and median and the median of the per-round ratios. It is written to
//! `target/criterion/interleaved/<group>.json` for `scripts/bench_chart.py`.

mod common;

use std::hint::black_box;
use std::time::Instant;

use criterion::{BatchSize, Criterion};
use dynorm::{Item, Model};
use serde::de::DeserializeOwned;
use serde::Serialize;

use common::{HandError, RunMode};

/// The batch size of `iter_batched`: criterion's `SmallInput`, or `BENCH_BATCH` items.
fn batch() -> BatchSize {
    match std::env::var("BENCH_BATCH")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        Some(n) => BatchSize::NumIterations(n),
        None => BatchSize::SmallInput,
    }
}

/// The three encoders of one model, in one group.
fn encode_group<M>(
    c: &mut Criterion,
    group: &str,
    value: &M,
    hand: fn(&M) -> Result<Item, HandError>,
) where
    M: Model + Serialize,
{
    let mut g = c.benchmark_group(group);
    g.bench_function("dynorm", |b| {
        b.iter_batched(
            || (),
            |()| black_box(value).to_item().expect("dynorm encodes"),
            batch(),
        )
    });
    g.bench_function("serde_dynamo", |b| {
        b.iter_batched(
            || (),
            |()| -> Item { serde_dynamo::to_item(black_box(value)).expect("serde_dynamo encodes") },
            batch(),
        )
    });
    g.bench_function("hand_written", |b| {
        b.iter_batched(
            || (),
            |()| hand(black_box(value)).expect("the hand-written code encodes"),
            batch(),
        )
    });
    g.finish();
}

/// The three decoders of one model, in one group, each given a fresh clone of one item.
fn decode_group<M>(
    c: &mut Criterion,
    group: &str,
    item: &Item,
    hand: fn(Item) -> Result<M, HandError>,
) where
    M: Model + DeserializeOwned,
{
    let mut g = c.benchmark_group(group);
    g.bench_function("dynorm", |b| {
        b.iter_batched(
            || item.clone(),
            |item| M::from_item(black_box(item)).expect("dynorm decodes"),
            batch(),
        )
    });
    g.bench_function("serde_dynamo", |b| {
        b.iter_batched(
            || item.clone(),
            |item| -> M { serde_dynamo::from_item(black_box(item)).expect("serde_dynamo decodes") },
            batch(),
        )
    });
    g.bench_function("hand_written", |b| {
        b.iter_batched(
            || item.clone(),
            |item| hand(black_box(item)).expect("the hand-written code decodes"),
            batch(),
        )
    });
    g.finish();
}

/// The contenders of the interleaved run, in the order of their results.
const CONTENDERS: [&str; 3] = ["dynorm", "serde_dynamo", "hand_written"];
/// Calls per timed batch in the interleaved run.
const BATCH: usize = 64;

/// One timed batch of `BATCH` calls of contender `which`, in ns per call. Inputs are
/// prepared and outputs dropped outside the timing, as in the criterion groups.
type Batch<'a> = Box<dyn FnMut(usize) -> f64 + 'a>;

fn encode_batch<'a, M>(value: &'a M, hand: fn(&M) -> Result<Item, HandError>) -> Batch<'a>
where
    M: Model + Serialize,
{
    Box::new(move |which| {
        let mut out: Vec<Item> = Vec::with_capacity(BATCH);
        let start = Instant::now();
        for _ in 0..BATCH {
            out.push(match which {
                0 => black_box(value).to_item().expect("dynorm encodes"),
                1 => serde_dynamo::to_item(black_box(value)).expect("serde_dynamo encodes"),
                _ => hand(black_box(value)).expect("the hand-written code encodes"),
            });
        }
        let ns = start.elapsed().as_nanos() as f64 / BATCH as f64;
        drop(black_box(out));
        ns
    })
}

fn decode_batch<'a, M>(item: &'a Item, hand: fn(Item) -> Result<M, HandError>) -> Batch<'a>
where
    M: Model + DeserializeOwned,
{
    Box::new(move |which| {
        let inputs: Vec<Item> = (0..BATCH).map(|_| item.clone()).collect();
        let mut out: Vec<M> = Vec::with_capacity(BATCH);
        let start = Instant::now();
        for input in inputs {
            let input = black_box(input);
            out.push(match which {
                0 => M::from_item(input).expect("dynorm decodes"),
                1 => serde_dynamo::from_item(input).expect("serde_dynamo decodes"),
                _ => hand(input).expect("the hand-written code decodes"),
            });
        }
        let ns = start.elapsed().as_nanos() as f64 / BATCH as f64;
        drop(black_box(out));
        ns
    })
}

/// Times the three contenders in turn, `rounds` times, and reports them.
fn interleaved(mode: &RunMode, group: &str, mut run: Batch<'_>) {
    let name = format!("interleaved_{group}");
    if !mode.wants(&name) {
        return;
    }
    let rounds = if mode.bench { 3000 } else { 3 };
    for which in 0..CONTENDERS.len() {
        for _ in 0..rounds.min(50) {
            run(which); // warm-up
        }
    }
    let mut times = vec![Vec::with_capacity(rounds); CONTENDERS.len()];
    for round in 0..rounds {
        for k in 0..CONTENDERS.len() {
            let which = (k + round) % CONTENDERS.len();
            times[which].push(run(which));
        }
    }
    let ratio = |a: usize, b: usize| {
        let mut ratios: Vec<f64> = times[a].iter().zip(&times[b]).map(|(x, y)| x / y).collect();
        common::median(&mut ratios)
    };
    // serde_dynamo / dynorm and dynorm / hand-written, round by round.
    let serde_ratio = ratio(1, 0);
    let hand_ratio = ratio(0, 2);
    let mut fields = Vec::new();
    for (which, contender) in CONTENDERS.iter().enumerate() {
        let min = times[which].iter().copied().fold(f64::INFINITY, f64::min);
        let median = common::median(&mut times[which]);
        fields.push(format!(
            "\"{contender}\": {{\"min_ns\": {min:.1}, \"median_ns\": {median:.1}}}"
        ));
        println!("{name}/{contender}: min {min:.0} ns, median {median:.0} ns");
    }
    println!(
        "{name}: {rounds} rounds of {BATCH} calls; median per-round ratio \
         serde_dynamo/dynorm {serde_ratio:.3}, dynorm/hand_written {hand_ratio:.3}"
    );
    let json = format!(
        "{{\"group\": \"{group}\", \"rounds\": {rounds}, \"batch\": {BATCH}, {}, \
         \"serde_over_dynorm\": {serde_ratio:.4}, \"dynorm_over_hand\": {hand_ratio:.4}}}\n",
        fields.join(", ")
    );
    if mode.bench {
        common::write_result("interleaved", group, &json);
    }
}

/// One conversion, not inlined, so that a profiler can count it alone:
/// `valgrind --tool=callgrind --toggle-collect='*profiled*'`.
#[inline(never)]
fn profiled<I, O>(convert: &dyn Fn(I) -> O, input: I) -> O {
    convert(input)
}

/// `BENCH_PROFILE=<group>/<contender>/<calls>`: runs only that conversion, `calls` times,
/// through [`profiled`], and nothing else.
fn profile(spec: &str, order: &common::Order, wide: &common::Wide) {
    let mut parts = spec.split('/');
    let (group, contender) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let calls: usize = parts.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
    fn encode<M: Model + Serialize>(
        value: &M,
        contender: &str,
        hand: fn(&M) -> Result<Item, HandError>,
        calls: usize,
    ) {
        let convert = |m: &M| -> Item {
            match contender {
                "dynorm" => m.to_item().expect("dynorm encodes"),
                "serde_dynamo" => serde_dynamo::to_item(m).expect("serde_dynamo encodes"),
                _ => hand(m).expect("the hand-written code encodes"),
            }
        };
        for _ in 0..calls {
            drop(black_box(profiled(&convert, black_box(value))));
        }
    }
    fn decode<M: Model + DeserializeOwned>(
        item: &Item,
        contender: &str,
        hand: fn(Item) -> Result<M, HandError>,
        calls: usize,
    ) {
        let convert = |i: Item| -> M {
            match contender {
                "dynorm" => M::from_item(i).expect("dynorm decodes"),
                "serde_dynamo" => serde_dynamo::from_item(i).expect("serde_dynamo decodes"),
                _ => hand(i).expect("the hand-written code decodes"),
            }
        };
        for _ in 0..calls {
            let input = black_box(item.clone());
            drop(black_box(profiled(&convert, input)));
        }
    }
    match group {
        "order_to_item" => encode(order, contender, common::order_to_item, calls),
        "order_from_item" => {
            let item = order.to_item().expect("dynorm encodes");
            decode(&item, contender, common::order_from_item, calls)
        }
        "wide_to_item" => encode(wide, contender, common::wide_to_item, calls),
        "wide_from_item" => {
            let item = wide.to_item().expect("dynorm encodes");
            decode(&item, contender, common::wide_from_item, calls)
        }
        other => eprintln!("BENCH_PROFILE: no group {other}"),
    }
}

fn main() {
    let mode = RunMode::from_args();
    let order = common::order();
    common::check_equal_work(&order, common::order_to_item, common::order_from_item);
    let wide = common::wide();
    common::check_equal_work(&wide, common::wide_to_item, common::wide_from_item);
    if let Ok(spec) = std::env::var("BENCH_PROFILE") {
        return profile(&spec, &order, &wide);
    }
    let mut c = Criterion::default().configure_from_args();
    let order_item = order.to_item().expect("dynorm encodes");
    let wide_item = wide.to_item().expect("dynorm encodes");

    encode_group(&mut c, "order_to_item", &order, common::order_to_item);
    decode_group(
        &mut c,
        "order_from_item",
        &order_item,
        common::order_from_item,
    );
    encode_group(&mut c, "wide_to_item", &wide, common::wide_to_item);
    decode_group(&mut c, "wide_from_item", &wide_item, common::wide_from_item);
    c.final_summary();

    let runs: [(&str, Batch<'_>); 4] = [
        ("order_to_item", encode_batch(&order, common::order_to_item)),
        (
            "order_from_item",
            decode_batch(&order_item, common::order_from_item),
        ),
        ("wide_to_item", encode_batch(&wide, common::wide_to_item)),
        (
            "wide_from_item",
            decode_batch(&wide_item, common::wide_from_item),
        ),
    ];
    for (group, run) in runs {
        interleaved(&mode, group, run);
    }
}
