//! A shared store that loses data (a Redis restarted without persistence, `FLUSHALL`, an
//! `allkeys-*` eviction) never takes a process's knowledge of a good version away: a model test
//! against a store that forgets everything on command, a real HTTP server, an injected clock.
//! The real `redis-server` version of the same story is in `tests/processes.rs`.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use proptest::prelude::*;

use crate::support::{runtime, status_switch, TestServer};
use crawlgate::engine::{CacheOptions, ManualClock, RobotsCache};
use crawlgate::http::FetchOptions;
use crawlgate::policy::{Change, Digest, OriginState};
use crawlgate::store::{MemoryStore, Pruned, Store, StoreFuture, StoreUsage, Updated};
use crawlgate::{Origin, ProductToken};

const RULES: &str = "User-agent: *\nDisallow: /private\n";
const SYNC: Duration = Duration::from_secs(30);

/// A shared store that forgets everything it holds when told ([`Lossy::lose`]).
#[derive(Debug, Default)]
struct Lossy {
    inner: Mutex<Arc<MemoryStore>>,
}

impl Lossy {
    fn lose(&self) {
        *self.inner.lock().expect("lock") = Arc::new(MemoryStore::new());
    }

    fn now(&self) -> Arc<MemoryStore> {
        self.inner.lock().expect("lock").clone()
    }
}

macro_rules! forward {
    ($self:ident, $call:ident ( $($arg:expr),* )) => {{
        let store = $self.now();
        Box::pin(async move { store.$call($($arg),*).await })
    }};
}

impl Store for Lossy {
    fn load<'a>(&'a self, o: &'a Origin) -> StoreFuture<'a, Option<OriginState>> {
        forward!(self, load(o))
    }
    fn update<'a>(&'a self, o: &'a Origin, c: &'a [Change]) -> StoreFuture<'a, Updated> {
        forward!(self, update(o, c))
    }
    fn body<'a>(&'a self, o: &'a Origin, d: &'a Digest) -> StoreFuture<'a, Option<Arc<[u8]>>> {
        forward!(self, body(o, d))
    }
    fn origins(&self) -> StoreFuture<'_, Vec<Origin>> {
        forward!(self, origins())
    }
    fn try_lease<'a>(&'a self, o: &'a Origin, w: &'a str, t: Duration) -> StoreFuture<'a, bool> {
        forward!(self, try_lease(o, w, t))
    }
    fn release_lease<'a>(&'a self, o: &'a Origin, w: &'a str) -> StoreFuture<'a, ()> {
        forward!(self, release_lease(o, w))
    }
    fn prune(&self, now: SystemTime) -> StoreFuture<'_, Pruned> {
        forward!(self, prune(now))
    }
    fn usage(&self) -> StoreFuture<'_, StoreUsage> {
        forward!(self, usage())
    }
    fn is_shared(&self) -> bool {
        true
    }
}

#[derive(Debug, Clone)]
enum Op {
    /// Time passes (hours, plus a second).
    Advance(u64),
    /// The site answers this status from now on.
    Status(u16),
    /// The store loses everything.
    Lose,
    /// The sync interval passes and both engines check `/private` (their copies are re-read,
    /// a due one refreshed), and their background work lands.
    Check,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (1u64..40).prop_map(Op::Advance),
        1 => prop::sample::select(vec![200u16, 503, 404]).prop_map(Op::Status),
        2 => Just(Op::Lose),
        3 => Just(Op::Check),
    ]
}

fn engine(store: Arc<dyn Store>, clock: Arc<ManualClock>) -> RobotsCache {
    let mut options = CacheOptions::default();
    options.fetch = {
        let mut fetch = FetchOptions::default();
        fetch.timeout = Duration::from_secs(5);
        fetch
    };
    options.sync_interval = SYNC;
    RobotsCache::with_store(options, store, clock).expect("engine")
}

/// `/private` as `cache` answers it now, after its background work (a re-read, a refresh).
async fn settled(cache: &RobotsCache, bot: &ProductToken, url: &str) -> (bool, String) {
    cache.check(bot, url).await.expect("check");
    cache.flush().await.expect("flush");
    let a = cache.check(bot, url).await.expect("check");
    (a.allowed, a.reason.as_str().to_owned())
}

/// Runs `ops` on an engine whose store loses data and on one whose store does not, side by side
/// on one site; fails at the first check where the first allows `/private` and the second
/// does not.
fn run(ops: &[Op]) -> Result<(), TestCaseError> {
    let rt = runtime(2);
    rt.block_on(async {
        let (server, status): (TestServer, Arc<AtomicU16>) = status_switch(RULES).await;
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let clock = Arc::new(ManualClock::new(t0));
        let lossy = Arc::new(Lossy::default());
        let a = engine(lossy.clone(), clock.clone());
        let b = engine(Arc::new(MemoryStore::new()), clock.clone());
        let bot = ProductToken::new("testbot").expect("token");
        let private = server.url("/private");
        let origin = Origin::from_url(&private).expect("origin");
        // Both know the good version before anything happens.
        prop_assert!(!settled(&a, &bot, &private).await.0);
        prop_assert!(!settled(&b, &bot, &private).await.0);
        for (i, op) in ops.iter().enumerate() {
            match op {
                Op::Advance(h) => clock.advance(Duration::from_secs(h * 3600 + 1)),
                Op::Status(s) => status.store(*s, Ordering::SeqCst),
                Op::Lose => lossy.lose(),
                Op::Check => {
                    // Past the sync interval: the copies are re-read.
                    clock.advance(SYNC + Duration::from_secs(1));
                    let (lossy_allowed, lossy_reason) = settled(&a, &bot, &private).await;
                    let (allowed, reason) = settled(&b, &bot, &private).await;
                    prop_assert!(
                        allowed || !lossy_allowed,
                        "step {i} of {ops:?}: allowed ({lossy_reason}) after losses where the lossless store disallows ({reason})"
                    );
                    let stored = lossy.load(&origin).await.expect("load");
                    let kept = b.state(&origin).await.expect("a state");
                    prop_assert!(
                        stored.is_some_and(|s| s.last_good().map(|g| g.0) == kept.last_good().map(|g| g.0)),
                        "step {i}: the store was not given memory's copy back"
                    );
                }
            }
        }
        Ok(())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn losses_and_re_syncs_never_allow_what_a_known_good_version_disallows(
        ops in prop::collection::vec(op(), 1..14)
    ) {
        run(&ops)?;
    }
}

/// The story, step by step: a good version, then 503s for 37 hours (the last good
/// version rules), then the store loses everything; the process keeps disallowing, and the
/// store gets its copy back.
#[test]
fn the_last_good_version_survives_a_store_that_lost_it() {
    use Op::*;
    run(&[
        Status(503),
        Advance(24),
        Check,
        Advance(12),
        Check,
        Lose,
        Check,
        Advance(12),
        Check,
        Advance(1),
        Check,
    ])
    .expect("no door opened");
}

/// A state one process recorded later, with a clock an hour behind, does not look older than
/// the copy another process holds: fetches are counted, not their times compared. An emptied
/// store, or one that lost the good version, knows less.
#[test]
fn knowing_less_is_counted_not_timed() {
    use crawlgate::policy::{Fetch, FetchOutcome, FetchRecord, Unreachable};
    let origin = Origin::from_url("https://skew.example/").expect("origin");
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let fetched = |state: &OriginState, outcome: FetchOutcome, at: SystemTime| {
        let fetch = Fetch::new(origin.robots_txt_url(), Some(200), outcome);
        Change::Fetched(FetchRecord::new(&fetch, state, at, at, at))
    };
    let rules = || FetchOutcome::Rules {
        body: RULES.as_bytes().into(),
        parsed: Arc::new(crawlgate::Robots::parse(RULES.as_bytes())),
    };
    let mut copy = OriginState::new();
    copy.apply(&fetched(&copy, rules(), t0));
    // Another process, its clock an hour behind, records a 503 after it.
    let mut stored = copy.clone();
    let change = fetched(
        &stored,
        FetchOutcome::Unreachable(Unreachable::Status(503)),
        t0 - Duration::from_secs(3600),
    );
    stored.apply(&change);
    assert!(!stored.knows_less_than(&copy));
    assert!(copy.knows_less_than(&stored));
    // An emptied store, and one whose only fetch came after it was emptied, know less.
    assert!(OriginState::new().knows_less_than(&copy));
    let mut refilled = OriginState::new();
    refilled.apply(&fetched(
        &refilled,
        FetchOutcome::Unreachable(Unreachable::Status(503)),
        t0 + Duration::from_secs(60),
    ));
    assert!(refilled.knows_less_than(&copy));
    // Restored, it holds the copy's good version and keeps nothing older than it.
    let mut restored = refilled.clone();
    restored.apply(&Change::Restore(Box::new(copy.clone())));
    assert_eq!(restored.good_file(), copy.good_file());
    assert!(!restored.knows_less_than(&copy));
}
