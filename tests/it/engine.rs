//! The crawl-policy engine end to end: real HTTP servers on 127.0.0.1, an injected clock.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::support::{status_switch, Reply, TestServer};
use crawlgate::engine::{Answer, CacheOptions, CheckError, Clock, ManualClock, RobotsCache};

use crawlgate::http::FetchOptions;
use crawlgate::policy::{Change, Digest, OriginState, Unavailable, VerdictReason};
use crawlgate::store::{MemoryStore, Pruned, Store, StoreError, StoreFuture, StoreUsage, Updated};
use crawlgate::{Origin, ProductToken};

const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(86_400);
const RULES: &str = "User-agent: *\nDisallow: /private\n";

fn bot() -> ProductToken {
    ProductToken::new("testbot").expect("token")
}

/// The answer for `url`, which must be given.
async fn check(cache: &RobotsCache, url: &str) -> Answer {
    cache.check(&bot(), url).await.expect("check")
}

/// An engine with the default options (a 5 s fetch timeout) on a manual clock.
fn engine() -> (RobotsCache, Arc<ManualClock>) {
    engine_with(CacheOptions::default())
}

/// Waits (bounded) until the server has seen `n` requests: refreshes run in the background.
async fn wait_for_hits(server: &TestServer, n: usize) {
    for _ in 0..500 {
        if server.hits() >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("server saw {} requests, expected {n}", server.hits());
}

#[tokio::test]
async fn rules_are_fetched_once_and_shared_by_all_agents() {
    let server = TestServer::start(|_| Reply::text(200, RULES)).await;
    let (cache, _) = engine();
    let a = check(&cache, &server.url("/private/x")).await;
    assert!(!a.allowed);
    assert_eq!(a.reason, VerdictReason::Fetched);
    assert_eq!(a.rule.as_ref().map(|r| r.line), Some(2));
    let other = ProductToken::new("otherbot").expect("token");
    assert!(
        cache
            .check(&other, &server.url("/public"))
            .await
            .expect("check")
            .allowed
    );
    assert_eq!(server.hits(), 1);
    assert_eq!(server.requests()[0].path, "/robots.txt");
}

#[tokio::test]
async fn not_found_allows_everything() {
    let server = TestServer::start(|_| Reply::status(404)).await;
    let (cache, _) = engine();
    let a = check(&cache, &server.url("/private")).await;
    assert!(a.allowed);
    assert_eq!(
        a.reason,
        VerdictReason::NoRobotsTxt(Unavailable::Status(404))
    );
}

#[tokio::test]
async fn urls_without_a_robots_txt_are_errors() {
    let (cache, _) = engine();
    let err = cache
        .check(&bot(), "ftp://example.com/x")
        .await
        .unwrap_err();
    assert!(matches!(err, CheckError::Origin(_)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_cold_checks_cause_one_fetch() {
    let server = TestServer::start(|_| {
        Reply::Delayed(
            Duration::from_millis(200),
            Box::new(Reply::text(200, RULES)),
        )
    })
    .await;
    let (cache, _) = engine();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..1000 {
        let (cache, url) = (cache.clone(), server.url(&format!("/private/{i}")));
        tasks.spawn(async move { cache.check(&bot(), &url).await.map(|a| a.allowed) });
    }
    let mut answered = 0;
    while let Some(r) = tasks.join_next().await {
        assert!(!r.expect("task").expect("check"));
        answered += 1;
    }
    assert_eq!(answered, 1000);
    assert_eq!(server.hits(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_checks_on_a_stale_origin_are_answered_while_one_refresh_runs() {
    let served = Arc::new(AtomicU16::new(0));
    let s = served.clone();
    let server = TestServer::start(move |_| {
        if s.fetch_add(1, Ordering::SeqCst) == 0 {
            Reply::text(200, RULES)
        } else {
            // The refresh hangs for longer than this test lasts.
            Reply::Delayed(Duration::from_secs(60), Box::new(Reply::text(200, "")))
        }
    })
    .await;
    let (cache, clock) = engine();
    assert!(!check(&cache, &server.url("/private")).await.allowed);
    clock.advance(25 * HOUR);
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..1000 {
        let (cache, url) = (cache.clone(), server.url("/private"));
        tasks.spawn(async move { cache.check(&bot(), &url).await.map(|a| a.allowed) });
    }
    while let Some(r) = tasks.join_next().await {
        // Answered from the stale rules, not blocked behind the refresh.
        assert!(!r.expect("task").expect("check"));
    }
    wait_for_hits(&server, 2).await;
    assert_eq!(server.hits(), 2, "exactly one refresh");
}

#[tokio::test]
async fn the_failure_ladder_end_to_end() {
    let (server, status) = status_switch("User-agent: *\nDisallow: /other\n").await;
    let (cache, clock) = engine();
    let origin = Origin::from_url(&server.url("/")).expect("origin");
    let private = server.url("/private");
    assert!(check(&cache, &private).await.allowed);

    // The server starts failing.
    status.store(503, Ordering::SeqCst);
    clock.advance(DAY);
    cache.request_recrawl(&origin).await;
    let a = check(&cache, &private).await;
    assert!(!a.allowed, "first 12 hours: stop");
    assert!(matches!(a.reason, VerdictReason::Unreachable { .. }));
    assert!(check(&cache, &server.url("/robots.txt")).await.allowed);

    clock.advance(13 * HOUR);
    cache.request_recrawl(&origin).await;
    let a = check(&cache, &private).await;
    assert!(a.allowed, "12 hours to 30 days: the last good version");
    assert!(matches!(a.reason, VerdictReason::LastGoodVersion { .. }));
    assert!(!check(&cache, &server.url("/other")).await.allowed);

    clock.advance(30 * DAY);
    cache.request_recrawl(&origin).await;
    let a = check(&cache, &private).await;
    assert!(!a.allowed, "after 30 days, site not known to be up: stop");
    cache.record_page_fetch(&origin, true).await;
    let a = check(&cache, &private).await;
    assert!(a.allowed, "after 30 days, site up: no robots.txt");
    assert!(matches!(
        a.reason,
        VerdictReason::LongUnreachableSiteUp { .. }
    ));

    // Recovery.
    status.store(200, Ordering::SeqCst);
    cache.request_recrawl(&origin).await;
    let a = check(&cache, &server.url("/other")).await;
    assert!(!a.allowed);
    assert_eq!(a.reason, VerdictReason::Fetched);
    // History: the first file's last fetch is over 30 days old and gone; the 503 run is one
    // entry of three fetches (repeats coalesce), its last within 30 days; then the recovery.
    let state = cache.state(&origin).await.expect("state");
    let history: Vec<_> = state.history().map(|e| (e.status, e.count)).collect();
    assert_eq!(history, [(Some(503), 3), (Some(200), 1)]);
    assert_eq!(state.failing_since(), None);
}

#[tokio::test]
async fn max_age_and_retry_after_set_the_next_fetch() {
    let server = TestServer::start(|_| {
        Reply::text(200, RULES).with_header("cache-control", "public, max-age=3600")
    })
    .await;
    let (cache, clock) = engine();
    let url = server.url("/x");
    check(&cache, &url).await;
    clock.advance(30 * 60 * Duration::from_secs(1));
    check(&cache, &url).await;
    assert_eq!(server.hits(), 1, "fresh for max-age");
    clock.advance(31 * 60 * Duration::from_secs(1));
    check(&cache, &url).await;
    wait_for_hits(&server, 2).await;

    let down = TestServer::start(|_| Reply::status(503).with_header("retry-after", "7200")).await;
    let url = down.url("/x");
    assert!(!check(&cache, &url).await.allowed);
    clock.advance(HOUR);
    check(&cache, &url).await;
    assert_eq!(down.hits(), 1, "Retry-After: 2 hours not yet passed");
    clock.advance(HOUR + Duration::from_secs(1));
    check(&cache, &url).await;
    wait_for_hits(&down, 2).await;
}

/// An engine with these options on a manual clock at the usual start.
fn engine_with(options: CacheOptions) -> (RobotsCache, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
    ));
    let mut options = options;
    options.fetch = {
        let mut fetch = FetchOptions::default();
        fetch.timeout = Duration::from_secs(5);
        fetch
    };
    let cache = RobotsCache::with_clock(options, clock.clone()).expect("engine");
    (cache, clock)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eviction_loses_no_state() {
    // The scenario: 20 origins in memory; a site that disallows /private starts
    // answering 503; 12 hours on, the last good version applies; 60 other origins push it out
    // of memory; it must still be the last good version, not a new failure run.
    let (site, status) = status_switch(RULES).await;
    let others = TestServer::start(|_| Reply::text(200, "User-agent: *\nDisallow:\n")).await;
    let (cache, clock) = engine_with({
        let mut options = CacheOptions::default();
        options.max_origins = 20;
        options
    });
    let private = site.url("/private");
    assert!(!check(&cache, &private).await.allowed);
    status.store(503, Ordering::SeqCst);
    clock.advance(DAY);
    check(&cache, &private).await; // due: the refresh gets a 503
    cache.flush().await.expect("flush");
    assert_eq!(site.hits(), 2);
    clock.advance(13 * HOUR);
    let a = check(&cache, &private).await;
    assert!(!a.allowed);
    assert!(matches!(a.reason, VerdictReason::LastGoodVersion { .. }));
    cache.flush().await.expect("flush");
    let hits_before = site.hits();

    // 60 other origins (127.0.0.1 on other ports is another origin; use distinct ports).
    let mut servers = Vec::new();
    for _ in 0..60 {
        servers.push(TestServer::start(|_| Reply::status(404)).await);
    }
    for s in &servers {
        check(&cache, &s.url("/")).await;
    }
    drop(others);
    cache.flush().await.expect("flush");
    let site_origin = Origin::from_url(&private).expect("origin");
    assert!(
        !cache.in_memory(&site_origin).await,
        "the site was evicted from memory"
    );
    let a = check(&cache, &private).await;
    assert!(!a.allowed, "still the last good version: {:?}", a.reason);
    assert!(matches!(a.reason, VerdictReason::LastGoodVersion { .. }));
    cache.flush().await.expect("flush");
    // Read back from the store, not fetched: the state was not due.
    assert_eq!(site.hits(), hits_before, "no fetch for an evicted origin");
    assert!(cache.origin_count() <= 21, "memory stays bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_cache_fetches_each_new_origin_once() {
    // moka's default admission (TinyLFU) refused new keys into a full cache, so 4 of 20 new
    // origins were fetched twice. Every new origin is admitted and fetched once.
    let (cache, _clock) = engine_with({
        let mut options = CacheOptions::default();
        options.max_origins = 5;
        options
    });
    let mut old = Vec::new();
    for _ in 0..5 {
        old.push(TestServer::start(|_| Reply::text(200, RULES)).await);
    }
    // Make the five old origins frequent, so that a frequency-based cache would keep them.
    for _ in 0..10 {
        for s in &old {
            check(&cache, &s.url("/")).await;
        }
    }
    let mut new = Vec::new();
    for _ in 0..20 {
        new.push(TestServer::start(|_| Reply::text(200, RULES)).await);
    }
    for s in &new {
        // Checked twice in a row: the second is answered from memory.
        for _ in 0..2 {
            let a = check(&cache, &s.url("/private")).await;
            assert!(!a.allowed);
        }
        // Admitted: its compiled rules are in memory, not read back from the store per check.
        let origin = Origin::from_url(&s.url("/")).expect("origin");
        assert!(cache.in_memory(&origin).await, "a new origin is admitted");
    }
    cache.flush().await.expect("flush");
    for (i, s) in new.iter().enumerate() {
        assert_eq!(s.hits(), 1, "new origin {i} fetched once");
    }
    for s in &old {
        assert_eq!(s.hits(), 1, "old origins are not due: never fetched again");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recrawl_is_not_undone_by_an_older_refresh() {
    let served = Arc::new(AtomicU16::new(0));
    let s = served.clone();
    let server = TestServer::start(move |_| match s.fetch_add(1, Ordering::SeqCst) {
        0 => Reply::text(200, RULES),
        // The routine refresh is slow and brings the old rules back.
        1 => Reply::Delayed(
            Duration::from_millis(800),
            Box::new(Reply::text(200, RULES)),
        ),
        // The site was fixed: the recrawl gets the new rules.
        _ => Reply::text(200, "User-agent: *\nDisallow:\n"),
    })
    .await;
    let (cache, clock) = engine();
    let origin = Origin::from_url(&server.url("/")).expect("origin");
    let private = server.url("/private");
    assert!(!check(&cache, &private).await.allowed);
    clock.advance(25 * HOUR);
    check(&cache, &private).await; // starts the slow refresh
    wait_for_hits(&server, 2).await;
    cache.request_recrawl(&origin).await;
    assert!(check(&cache, &private).await.allowed);
    // The old refresh lands after the recrawl: dropped.
    cache.flush().await.expect("flush");
    assert_eq!(server.hits(), 3);
    let a = check(&cache, &private).await;
    assert!(a.allowed, "the recrawl's rules stay: {a:?}");
    let state = cache.state(&origin).await.expect("state");
    assert_eq!(state.epoch(), 1);
    assert_eq!(
        state.history().len(),
        2,
        "the stale result entered no history"
    );
}

#[tokio::test]
async fn a_recrawl_of_an_unknown_origin_makes_one_request() {
    let server = TestServer::start(|_| Reply::text(200, RULES)).await;
    let (cache, _) = engine();
    let origin = Origin::from_url(&server.url("/")).expect("origin");
    let j = cache.request_recrawl(&origin).await;
    assert_eq!(j.reason, VerdictReason::Fetched);
    assert!(!check(&cache, &server.url("/private")).await.allowed);
    cache.flush().await.expect("flush");
    assert_eq!(server.hits(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callers_that_give_up_do_not_cancel_the_fetch() {
    let server = TestServer::start(|_| {
        Reply::Delayed(Duration::from_secs(1), Box::new(Reply::text(200, RULES)))
    })
    .await;
    let (cache, _) = engine();
    let url = server.url("/private");
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..5 {
        let (cache, url) = (cache.clone(), url.clone());
        tasks.spawn(async move {
            tokio::time::timeout(Duration::from_millis(300), cache.check(&bot(), &url))
                .await
                .is_err()
        });
    }
    while let Some(timed_out) = tasks.join_next().await {
        assert!(timed_out.expect("task"), "the robots.txt takes a second");
    }
    // The next caller joins the fetch that is still running, or finds its result.
    let a = check(&cache, &url).await;
    assert!(!a.allowed);
    assert_eq!(a.reason, VerdictReason::Fetched);
    assert_eq!(
        server.hits(),
        1,
        "one request, however many callers gave up"
    );
}

#[tokio::test]
async fn conditional_requests_and_a_304_re_confirm_the_version() {
    let server = TestServer::start(|req| {
        if req.header("if-none-match") == Some("\"v1\"") {
            Reply::status(304)
        } else {
            Reply::text(200, RULES)
                .with_header("etag", "\"v1\"")
                .with_header("last-modified", "Sun, 06 Nov 1994 08:49:37 GMT")
        }
    })
    .await;
    let (cache, clock) = engine();
    let origin = Origin::from_url(&server.url("/")).expect("origin");
    let private = server.url("/private");
    assert!(!check(&cache, &private).await.allowed);
    assert_eq!(server.requests()[0].header("if-none-match"), None);
    clock.advance(25 * HOUR);
    check(&cache, &private).await;
    cache.flush().await.expect("flush");
    let second = &server.requests()[1];
    assert_eq!(second.header("if-none-match"), Some("\"v1\""));
    assert_eq!(
        second.header("if-modified-since"),
        Some("Sun, 06 Nov 1994 08:49:37 GMT")
    );
    let a = check(&cache, &private).await;
    assert!(!a.allowed, "the re-confirmed rules apply");
    assert_eq!(a.reason, VerdictReason::Fetched);
    let state = cache.state(&origin).await.expect("state");
    let runs: Vec<_> = state.history().map(|v| (v.status, v.count)).collect();
    assert_eq!(
        runs,
        [(Some(304), 2)],
        "one version, fetched then re-confirmed"
    );
    assert_eq!(
        state.last_good().map(|(at, _)| at),
        Some(clock.now()),
        "re-confirmed now"
    );
    // Fresh again for a day: no request.
    clock.advance(HOUR);
    check(&cache, &private).await;
    cache.flush().await.expect("flush");
    assert_eq!(server.hits(), 2);
}

#[tokio::test]
async fn an_unsolicited_304_is_unreachable_not_a_missing_file() {
    let server = TestServer::start(|_| Reply::status(304)).await;
    let (cache, _) = engine();
    let a = check(&cache, &server.url("/private")).await;
    assert!(!a.allowed);
    assert!(
        matches!(a.reason, VerdictReason::Unreachable { .. }),
        "{:?}",
        a.reason
    );
}

// The stored size is measured with the stores' codec (JSON, feature `serde`).
#[cfg(feature = "serde")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_flapping_with_retry_after_0_for_30_days_stays_bounded() {
    // 502, 503, 502… each with `Retry-After: 0`; the crawler checks every simulated minute.
    let served = Arc::new(AtomicU16::new(0));
    let s = served.clone();
    let server = TestServer::start(move |_| {
        let status = if s.fetch_add(1, Ordering::SeqCst).is_multiple_of(2) {
            502
        } else {
            503
        };
        Reply::status(status).with_header("retry-after", "0")
    })
    .await;
    let (cache, clock) = engine();
    let origin = Origin::from_url(&server.url("/")).expect("origin");
    let url = server.url("/page");
    let floor = CacheOptions::default().min_retry_interval;
    let step = Duration::from_secs(60);
    let mut sizes = Vec::new();
    for day in 1..=30u32 {
        for _ in 0..(DAY.as_secs() / step.as_secs()) {
            clock.advance(step);
            check(&cache, &url).await;
            cache.flush().await.expect("flush");
        }
        if day % 10 == 0 {
            let state = cache.state(&origin).await.expect("state");
            assert_eq!(
                state.history().len(),
                crawlgate::policy::MAX_VERSIONS,
                "day {day}"
            );
            sizes.push(crawlgate::store::codec::encode(&state).len());
        }
    }
    // Paced: a 503's `Retry-After: 0` is floored at a minute; a 502's is not honoured (only
    // 429 and 503 carry one), so it waits the default retry interval. One request per
    // (floor + interval) / 2 on average, not one per check.
    let retry = CacheOptions::default().retry_interval;
    let days30 = 30 * DAY.as_secs();
    let expected = days30 * 2 / (floor.as_secs() + retry.as_secs());
    let hits = server.hits() as u64;
    assert!(
        hits.abs_diff(expected) <= expected / 100 + 2,
        "{hits} requests, expected about {expected}"
    );
    // Flat: the stored state is as big on day 30 as on day 10 (within a few bytes of times).
    let (first, last) = (sizes[0], sizes[sizes.len() - 1]);
    assert!(last <= first + first / 50, "state grew: {sizes:?}");
    assert_eq!(cache.origin_count(), 1);
}

/// A memory store that can be switched off: our own `Store`, to drive the engine through an
/// outage deterministically (the Redis outage itself is in tests/processes.rs).
#[derive(Debug, Default)]
struct Switchable {
    inner: MemoryStore,
    down: std::sync::atomic::AtomicBool,
    /// Calls refused while switched off.
    refused: std::sync::atomic::AtomicUsize,
}

impl Switchable {
    fn fail<'a, T: Send + 'a>(&self) -> Option<StoreFuture<'a, T>> {
        self.down
            .load(Ordering::SeqCst)
            .then(|| -> StoreFuture<'a, T> {
                self.refused.fetch_add(1, Ordering::SeqCst);
                Box::pin(async { Err(StoreError::Backend("switched off".into())) })
            })
    }
}

impl Store for Switchable {
    fn load<'a>(&'a self, o: &'a Origin) -> StoreFuture<'a, Option<OriginState>> {
        self.fail().unwrap_or_else(|| self.inner.load(o))
    }
    fn update<'a>(&'a self, o: &'a Origin, c: &'a [Change]) -> StoreFuture<'a, Updated> {
        self.fail().unwrap_or_else(|| self.inner.update(o, c))
    }
    fn body<'a>(&'a self, o: &'a Origin, d: &'a Digest) -> StoreFuture<'a, Option<Arc<[u8]>>> {
        self.fail().unwrap_or_else(|| self.inner.body(o, d))
    }
    fn origins(&self) -> StoreFuture<'_, Vec<Origin>> {
        self.fail().unwrap_or_else(|| self.inner.origins())
    }
    fn try_lease<'a>(&'a self, o: &'a Origin, w: &'a str, t: Duration) -> StoreFuture<'a, bool> {
        self.fail().unwrap_or_else(|| self.inner.try_lease(o, w, t))
    }
    fn release_lease<'a>(&'a self, o: &'a Origin, w: &'a str) -> StoreFuture<'a, ()> {
        self.fail()
            .unwrap_or_else(|| self.inner.release_lease(o, w))
    }
    fn prune(&self, now: SystemTime) -> StoreFuture<'_, Pruned> {
        self.fail().unwrap_or_else(|| self.inner.prune(now))
    }
    fn usage(&self) -> StoreFuture<'_, StoreUsage> {
        self.fail().unwrap_or_else(|| self.inner.usage())
    }
}

/// An engine on a [`Switchable`] store and a manual clock.
fn engine_on_switchable() -> (RobotsCache, Arc<Switchable>, Arc<ManualClock>) {
    let store = Arc::new(Switchable::default());
    let clock = Arc::new(ManualClock::new(
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
    ));
    let cache = RobotsCache::with_store(CacheOptions::default(), store.clone(), clock.clone())
        .expect("engine");
    (cache, store, clock)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_made_while_the_store_is_down_are_written_once_when_it_is_back() {
    let server = TestServer::start(|_| {
        Reply::Delayed(Duration::from_millis(5), Box::new(Reply::text(200, RULES)))
    })
    .await;
    let (cache, store, clock) = engine_on_switchable();
    let origin = Origin::from_url(&server.url("/")).expect("origin");
    let private = server.url("/private");
    assert!(!check(&cache, &private).await.allowed);

    store.down.store(true, Ordering::SeqCst);
    // Refreshes (due every day) and site reports race each other while the store is down.
    let mut tasks = tokio::task::JoinSet::new();
    for round in 0..20u64 {
        clock.advance(DAY + Duration::from_secs(1));
        for i in 0..5 {
            let (cache, url, origin) = (cache.clone(), private.clone(), origin.clone());
            tasks.spawn(async move {
                let a = check(&cache, &url).await;
                assert!(!a.allowed, "answered from memory during the outage");
                if i == 0 {
                    cache.record_page_fetch(&origin, round % 2 == 0).await;
                }
            });
        }
        while let Some(r) = tasks.join_next().await {
            r.expect("no panic in a task");
        }
        cache.flush().await.expect_err("the store is down");
    }
    let status = cache.store_status();
    assert!(!status.available);
    assert!(status.pending > 0, "{status:?}");
    // Within a sync interval, checks do not retry the dead store: no call per check.
    let refused = store.refused.load(Ordering::SeqCst);
    for _ in 0..200 {
        check(&cache, &private).await;
    }
    cache.flush().await.expect_err("the store is down");
    let calls = store.refused.load(Ordering::SeqCst) - refused;
    assert!(calls <= 1, "{calls} store calls for 200 checks and a flush");

    store.down.store(false, Ordering::SeqCst);
    cache.flush().await.expect("written once the store is back");
    assert_eq!(cache.store_status().pending, 0);
    let state = store
        .inner
        .load(&origin)
        .await
        .expect("load")
        .expect("state");
    // Every fetch the server answered is in the stored history exactly once (20 refreshes and
    // 20 reports: fewer than the 64 changes kept per origin while the store is down).
    let fetches: u32 = state.history().map(|v| v.count).sum();
    assert_eq!(fetches as usize, server.hits());
    assert_eq!(server.hits(), 21);
    // The last report was made in round 19: "down".
    assert_eq!(state.site_report().map(|r| r.up), Some(false));
}

#[tokio::test]
async fn a_recrawl_while_the_store_is_down_is_written_when_it_is_back() {
    let fixed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let f = fixed.clone();
    let server = TestServer::start(move |_| {
        if f.load(Ordering::SeqCst) {
            Reply::text(200, "User-agent: *\nDisallow:\n")
        } else {
            Reply::text(200, RULES)
        }
    })
    .await;
    let (cache, store, clock) = engine_on_switchable();
    let origin = Origin::from_url(&server.url("/")).expect("origin");
    let private = server.url("/private");
    assert!(!check(&cache, &private).await.allowed);

    store.down.store(true, Ordering::SeqCst);
    fixed.store(true, Ordering::SeqCst);
    clock.advance(HOUR);
    cache.request_recrawl(&origin).await;
    assert!(check(&cache, &private).await.allowed);

    store.down.store(false, Ordering::SeqCst);
    cache.flush().await.expect("written");
    let state = store
        .inner
        .load(&origin)
        .await
        .expect("load")
        .expect("state");
    assert_eq!(state.epoch(), 1);
    assert_eq!(
        state.good_file().map(|f| f.digest),
        Some(Digest::of(b"User-agent: *\nDisallow:\n")),
        "the recrawl's file"
    );
    assert_eq!(state.history().len(), 2);
    // The recrawl's fetch was written, not dropped as stale and made again.
    assert_eq!(server.hits(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn current_waits_for_a_due_refresh_where_judgement_answers_from_the_copy() {
    use crawlgate::policy::Verdict;
    let (server, status) = status_switch(RULES).await;
    let (cache, clock) = engine();
    let origin = Origin::from_url(&server.url("/")).expect("origin");
    assert_eq!(cache.current(&origin).await.verdict, Verdict::Rules);
    // Fresh: no second fetch.
    assert_eq!(cache.current(&origin).await.verdict, Verdict::Rules);
    assert_eq!(server.hits(), 1);
    // Due, and the site now has no robots.txt.
    status.store(404, Ordering::SeqCst);
    clock.advance(DAY + HOUR);
    assert_eq!(cache.current(&origin).await.verdict, Verdict::AllowAll);
    assert_eq!(server.hits(), 2);
    // `judgement` answers from the copy while a refresh runs in the background.
    status.store(200, Ordering::SeqCst);
    clock.advance(DAY + HOUR);
    assert_eq!(cache.judgement(&origin).await.verdict, Verdict::AllowAll);
    cache.flush().await.expect("flush");
    assert_eq!(server.hits(), 3);
    assert_eq!(cache.local_failure(&origin).await, None);
}

#[tokio::test]
async fn diagnostics_are_kept_in_memory_only_when_asked() {
    // A file with problems: each path that puts rules in memory (a fetch, an inserted fetch, a
    // re-parse of the stored body) keeps its diagnostics only with `keep_diagnostics`.
    const NOISY: &str = "User-agent: *\nDisalow: /x\nDisallow: /private\nFoo bar\n";
    let parsed = Arc::new(crawlgate::Robots::parse(NOISY.as_bytes()));
    assert!(!parsed.diagnostics.is_empty(), "the sample has problems");
    let server = TestServer::start(|_| Reply::text(200, NOISY)).await;
    for keep in [false, true] {
        let store = Arc::new(MemoryStore::new());
        let mut options = CacheOptions::default();
        options.keep_diagnostics = keep;
        let make = || {
            RobotsCache::with_store(
                options.clone(),
                store.clone(),
                Arc::new(ManualClock::new(
                    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
                )),
            )
            .expect("engine")
        };
        let cache = make();
        let fetched = Origin::from_url(&server.url("/")).expect("origin");
        check(&cache, &server.url("/private")).await;
        let inserted = Origin::from_url("https://inserted.example").expect("origin");
        let fetch = crawlgate::policy::Fetch::new(
            inserted.robots_txt_url(),
            Some(200),
            crawlgate::policy::FetchOutcome::Rules {
                body: Arc::from(NOISY.as_bytes()),
                parsed: Arc::new(crawlgate::Robots::parse(NOISY.as_bytes())),
            },
        );
        cache.insert(&inserted, fetch).await;
        // A second engine on the same store re-parses the stored bodies.
        let reread = make();
        for (what, cache, origin) in [
            ("fetched", &cache, &fetched),
            ("inserted", &cache, &inserted),
            ("re-parsed", &reread, &fetched),
        ] {
            let rules = cache.rules(origin).await.expect("rules");
            assert_eq!(
                rules.diagnostics.len(),
                if keep { parsed.diagnostics.len() } else { 0 },
                "{what}, keep_diagnostics = {keep}"
            );
            assert!(
                !rules.robots.check(&bot(), "/private").allowed,
                "{what}: the rules stay"
            );
        }
    }
    assert_eq!(
        server.hits(),
        2,
        "one fetch per engine pair; the second read the store"
    );
}

/// A site-availability report (a page fetched up or down) for an origin whose robots.txt was
/// never fetched, in `store`: the next check fetches robots.txt and answers from its rules,
/// never "not fetched yet"; the report is kept.
async fn a_record_never_stands_in_for_a_fetch(store: Arc<dyn Store>) {
    let server = TestServer::start(|_| Reply::text(200, RULES)).await;
    let clock = Arc::new(ManualClock::new(
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
    ));
    let cache =
        RobotsCache::with_store(CacheOptions::default(), store.clone(), clock).expect("engine");
    let origin = Origin::from_url(&server.url("/")).expect("origin");
    for up in [false, true] {
        cache.record_page_fetch(&origin, up).await;
    }
    let a = check(&cache, &server.url("/public")).await;
    assert!(a.allowed, "{a:?}");
    assert_eq!(a.reason, VerdictReason::Fetched);
    assert!(!check(&cache, &server.url("/private")).await.allowed);
    assert_eq!(server.hits_on("/robots.txt"), 1);
    let state = cache.state(&origin).await.expect("state");
    assert!(state.site_report().is_some_and(|r| r.up), "{state:?}");
    assert!(state.last_fetch().is_some());
}

#[tokio::test]
async fn a_record_never_stands_in_for_a_fetch_in_memory() {
    a_record_never_stands_in_for_a_fetch(Arc::new(MemoryStore::new())).await;
}

#[cfg(feature = "redb")]
#[tokio::test]
async fn a_record_never_stands_in_for_a_fetch_in_a_state_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = crawlgate::store::EmbeddedStore::open(dir.path().join("state.redb")).expect("open");
    a_record_never_stands_in_for_a_fetch(Arc::new(store)).await;
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_never_stands_in_for_a_fetch_in_redis() {
    use crawlgate::store::{RedisOptions, RedisStore};
    let server = crate::support::redis_server::RedisServer::start();
    let store = RedisStore::connect(RedisOptions::new(server.url()))
        .await
        .expect("connect");
    a_record_never_stands_in_for_a_fetch(Arc::new(store)).await;
}
