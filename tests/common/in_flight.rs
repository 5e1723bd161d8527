//! Requests in flight, counted by an SDK interceptor of the tests' own: how many were in
//! flight at once at most, and how many sequential rounds they came in.
//!
//! A request is in flight from the moment the SDK starts executing it
//! (`read_before_execution`, before anything is sent) until it has its answer
//! (`read_after_execution`). A round is a maximal group of overlapping requests: a new one
//! starts whenever a request starts while none is in flight. Nothing here reads a clock.
//!
//! The counts are deterministic on a current-thread runtime (`#[tokio::test]`'s default):
//! the SDK's connection tasks, which receive the server's answers, run only when the task
//! that sends the requests waits, so every request started together has started before
//! any of them is answered. On a multi-thread runtime a request can be answered while the
//! next ones are still being started, and the counts vary.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextRef, FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

/// What a client's requests did, shared by the clones of an `InFlight`.
#[derive(Clone, Debug, Default)]
pub struct InFlight {
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    now: usize,
    most: usize,
    rounds: usize,
    started: usize,
}

impl InFlight {
    /// Counts nothing until a client is made with [`client`](Self::client).
    pub fn new() -> Self {
        Self::default()
    }

    /// A client on the same server and tables as `db` whose requests are counted here.
    pub fn client(&self, db: &dynorm::Client) -> dynorm::Client {
        let config = db
            .sdk()
            .config()
            .to_builder()
            .interceptor(Counting(self.clone()))
            .build();
        db.to_builder()
            .sdk(aws_sdk_dynamodb::Client::from_conf(config))
            .build()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The most requests in flight at once.
    pub fn most(&self) -> usize {
        self.state().most
    }

    /// The maximal groups of overlapping requests, one after the other.
    pub fn rounds(&self) -> usize {
        self.state().rounds
    }

    /// The requests started.
    pub fn started(&self) -> usize {
        self.state().started
    }

    /// The requests in flight now.
    pub fn now(&self) -> usize {
        self.state().now
    }

    /// Forgets what was counted; the requests in flight stay in flight.
    pub fn reset(&self) {
        let mut state = self.state();
        let now = state.now;
        *state = State {
            now,
            most: now,
            ..State::default()
        };
    }
}

#[derive(Debug)]
struct Counting(InFlight);

impl Intercept for Counting {
    fn name(&self) -> &'static str {
        "dynorm-tests-in-flight"
    }

    fn read_before_execution(
        &self,
        _context: &BeforeSerializationInterceptorContextRef<'_>,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let mut state = self.0.state();
        if state.now == 0 {
            state.rounds += 1;
        }
        state.now += 1;
        state.started += 1;
        state.most = state.most.max(state.now);
        Ok(())
    }

    fn read_after_execution(
        &self,
        _context: &FinalizerInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let mut state = self.0.state();
        state.now = state.now.saturating_sub(1);
        Ok(())
    }
}
