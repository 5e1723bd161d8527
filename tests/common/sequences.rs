//! The runner of the stateful property tests: random sequences of steps, each case run
//! against the server and checked by the test's oracle.

use std::fmt::Debug;

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};

/// Runs `cases` sequences of 1 to `max_steps` steps drawn from `step`, from the fixed
/// `seed`, each by `case`. `PROPTEST_CASES` and `PROPTEST_RNG_SEED` explore others. A
/// failing case is shrunk, and the test panics with its reason and the minimal sequence.
pub fn run_sequences<S>(
    cases: u32,
    seed: u64,
    step: S,
    max_steps: usize,
    case: impl Fn(Vec<S::Value>) -> Result<(), String>,
) where
    S: Strategy,
    S::Value: Debug,
{
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let config = Config {
        cases: env("PROPTEST_CASES").map_or(cases, |c| c as u32),
        rng_seed: RngSeed::Fixed(env("PROPTEST_RNG_SEED").unwrap_or(seed)),
        failure_persistence: None,
        max_shrink_iters: 400,
        max_shrink_time: 30_000,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&proptest::collection::vec(step, 1..=max_steps), |ops| {
        case(ops).map_err(TestCaseError::fail)
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, ops)) => {
            let steps: Vec<String> = ops
                .iter()
                .enumerate()
                .map(|(i, op)| format!("  {i}: {op:?}"))
                .collect();
            panic!("{reason}\nminimal failing sequence:\n{}", steps.join("\n"));
        }
        Err(other) => panic!("{other}"),
    }
}
