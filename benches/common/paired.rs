//! The paired harness of the operation benchmarks: two contenders timed side by side in
//! one run, so that both see the same load, connections and server state.

use std::future::Future;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Times `iters` calls of `timed`, each next to one untimed call of `other`, which goes
/// before it on odd iterations and after it on even ones.
pub async fn interleaved<T, O, TF, OF>(iters: u64, mut timed: T, mut other: O) -> Duration
where
    T: FnMut() -> TF,
    O: FnMut() -> OF,
    TF: Future,
    OF: Future,
{
    let mut total = Duration::ZERO;
    for i in 0..iters {
        if i % 2 == 1 {
            black_box(other().await);
        }
        let start = Instant::now();
        black_box(timed().await);
        total += start.elapsed();
        if i % 2 == 0 {
            black_box(other().await);
        }
    }
    total
}

/// Alternates the two calls `pairs` times in ABBA order and reports the medians and the
/// median per-pair ratio.
pub async fn paired<D, R, DF, RF>(
    mode: &super::RunMode,
    name: &str,
    pairs: usize,
    mut dynorm: D,
    mut raw: R,
) where
    D: FnMut() -> DF,
    R: FnMut() -> RF,
    DF: Future,
    RF: Future,
{
    let mut dynorm_ns = Vec::with_capacity(pairs);
    let mut raw_ns = Vec::with_capacity(pairs);
    for i in 0..pairs {
        if i % 2 == 1 {
            let start = Instant::now();
            black_box(raw().await);
            raw_ns.push(start.elapsed().as_nanos() as f64);
        }
        let start = Instant::now();
        black_box(dynorm().await);
        dynorm_ns.push(start.elapsed().as_nanos() as f64);
        if i % 2 == 0 {
            let start = Instant::now();
            black_box(raw().await);
            raw_ns.push(start.elapsed().as_nanos() as f64);
        }
    }
    let mut ratios: Vec<f64> = dynorm_ns.iter().zip(&raw_ns).map(|(d, r)| d / r).collect();
    let ratio = super::median(&mut ratios);
    let dynorm_median = super::median(&mut dynorm_ns);
    let raw_median = super::median(&mut raw_ns);
    println!(
        "paired_{name}: {pairs} pairs, median dynorm {:.1} us, raw {:.1} us, \
         median per-pair ratio dynorm/raw {ratio:.3} (ratio of medians {:.3})",
        dynorm_median / 1e3,
        raw_median / 1e3,
        dynorm_median / raw_median,
    );
    let json = format!(
        "{{\"op\": \"{name}\", \"pairs\": {pairs}, \"dynorm_median_ns\": {dynorm_median}, \
         \"raw_median_ns\": {raw_median}, \"median_pair_ratio\": {ratio}}}\n"
    );
    if mode.bench {
        super::write_result("paired", name, &json);
    }
}
