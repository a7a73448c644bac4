//! The gate on a virtual clock: `RobotsCache::acquire` spaces permits by `Crawl-delay` and
//! `Request-rate`, serves waiters in arrival order, backs off on 429/503, caps huge delays and
//! limits concurrency, while other origins proceed. A `ManualClock` wakes sleepers only when
//! set, so minutes of schedule run instantly; the driver moves it to the next deadline.
//!
//! Rules are put in with `RobotsCache::insert` (a fetch made elsewhere), so no server is needed;
//! the real-time tests with servers are in `gate_middleware.rs` and `../gate_fleet.rs`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crawlgate::engine::{Answer, CacheOptions, Clock, ManualClock, RobotsCache};
use crawlgate::engine::{Permit, Recorded, Refused, RetryAfterIgnored};

use crawlgate::policy::{BackoffRules, DelaySource, GateOptions, Outcome, PoliteKey};
use crawlgate::policy::{Change, Digest, Fetch, FetchOutcome, OriginState};
use crawlgate::store::{Pruned, Reservation, Store, StoreError, StoreFuture, StoreUsage, Updated};
use crawlgate::{Origin, ProductToken, Robots};

/// 2027-01-15 08:00:00 UTC.
const T0: u64 = 1_800_000_000;

/// How long the rules put in stay fresh: longer than any schedule here (the backoff cap's
/// run is about 10 days). With the default day, a check after the first day refreshed
/// robots.txt in the background through the engine's real fetcher: a DNS lookup of
/// `curve.test` whose failure, if it came back (in real time) before the schedule ended,
/// stopped the origin for 12 hours and failed the test on a loaded machine.
const FRESH_FOR: Duration = Duration::from_secs(365 * 86_400);

fn engine(gate: GateOptions) -> (RobotsCache, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(UNIX_EPOCH + Duration::from_secs(T0)));
    let mut options = CacheOptions::default();
    options.gate = gate;
    options.default_ttl = FRESH_FOR;
    let cache = RobotsCache::with_clock(options, clock.clone()).expect("engine");
    (cache, clock)
}

/// Gives `origin` the robots.txt `body`, as if fetched now.
async fn rules(cache: &RobotsCache, origin: &str, body: &str) {
    let bytes: Arc<[u8]> = Arc::from(body.as_bytes());
    let parsed = Arc::new(Robots::parse(body.as_bytes()));
    let outcome = FetchOutcome::Rules {
        body: bytes,
        parsed,
    };
    fetched(cache, origin, 200, outcome).await;
}

/// Records a fetch of `origin`'s robots.txt that answered `status` with `outcome`.
async fn fetched(cache: &RobotsCache, origin: &str, status: u16, outcome: FetchOutcome) {
    let origin = Origin::from_url(origin).expect("origin");
    let url = format!("{origin}/robots.txt");
    cache
        .insert(&origin, Fetch::new(url, Some(status), outcome))
        .await;
}

fn bot() -> ProductToken {
    ProductToken::new("testbot").expect("token")
}

/// The gate's options with no default delay: only what a site asks for spaces requests.
fn no_default_delay() -> GateOptions {
    let mut gate = GateOptions::default();
    gate.default_delay = Duration::ZERO;
    gate
}

/// A permit for `url`, which must be allowed.
async fn acquired(cache: &RobotsCache, url: &str) -> Permit {
    cache.acquire(&bot(), url).await.expect("allowed")
}

/// The answer for `url`, which must be given.
async fn check(cache: &RobotsCache, url: &str) -> Answer {
    cache.check(&bot(), url).await.expect("check")
}

/// Runs the schedule: lets the tasks run, then moves the clock to the next sleeper's deadline,
/// until `done()` (or fails after far more rounds than any test needs).
async fn drive(clock: &ManualClock, done: impl Fn() -> bool) {
    for _ in 0..100_000 {
        if done() {
            return;
        }
        for _ in 0..20 {
            tokio::task::yield_now().await;
        }
        if let Some(at) = clock.next_deadline() {
            clock.set(at);
        }
    }
    panic!("the schedule did not complete");
}

/// Seconds since T0.
fn since_t0(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH + Duration::from_secs(T0))
        .expect("after T0")
        .as_secs_f64()
}

/// Task indexes in the order their tasks called `acquire`.
type Arrived = Arc<Mutex<Vec<usize>>>;
/// Task indexes and the (virtual) time each got its permit, in the order granted.
type Granted = Arc<Mutex<Vec<(usize, SystemTime)>>>;

/// Starts `n` tasks that each acquire `url` and note (index, time of the permit), dropping the
/// permit at once; `arrived` gets each index as its task calls `acquire`.
fn spawn_waiters(
    cache: &RobotsCache,
    clock: &Arc<ManualClock>,
    url: &str,
    n: usize,
) -> (Arrived, Granted) {
    let arrived = Arc::new(Mutex::new(Vec::new()));
    let granted = Arc::new(Mutex::new(Vec::new()));
    for i in 0..n {
        let (cache, clock, url) = (cache.clone(), clock.clone(), url.to_owned());
        let (arrived, granted) = (arrived.clone(), granted.clone());
        tokio::spawn(async move {
            arrived.lock().unwrap().push(i);
            let permit = acquired(&cache, &url).await;
            granted.lock().unwrap().push((i, clock.now()));
            drop(permit);
        });
    }
    (arrived, granted)
}

#[tokio::test]
async fn fifty_waiters_are_spaced_by_crawl_delay_in_arrival_order_while_others_proceed() {
    for concurrency in [1, 50] {
        let (cache, clock) = engine({
            let mut gate = GateOptions::default();
            gate.max_concurrency = concurrency;
            gate
        });
        rules(
            &cache,
            "http://slow.test",
            "User-agent: *\nCrawl-delay: 2\n",
        )
        .await;
        let (arrived, granted) = spawn_waiters(&cache, &clock, "http://slow.test/page", 50);
        // Let every waiter arrive (the first gets its permit at once), clock still.
        for _ in 0..200 {
            tokio::task::yield_now().await;
        }
        assert_eq!(arrived.lock().unwrap().len(), 50);
        assert_eq!(
            granted.lock().unwrap().len(),
            1,
            "only the first slot is now"
        );

        // Meanwhile 1,000 other origins get permits at once, the clock standing still.
        let before = clock.now();
        for i in 0..1000 {
            let url = format!("http://o{i}.test/");
            rules(&cache, &url, "User-agent: *\nCrawl-delay: 2\n").await;
            let permit = tokio::time::timeout(Duration::from_secs(10), cache.acquire(&bot(), &url))
                .await
                .expect("another origin does not wait for slow.test")
                .expect("allowed");
            assert_eq!(permit.waited(), Duration::ZERO);
        }
        assert_eq!(clock.now(), before);
        assert_eq!(granted.lock().unwrap().len(), 1);

        drive(&clock, || granted.lock().unwrap().len() == 50).await;
        let granted = granted.lock().unwrap().clone();
        let order: Vec<usize> = granted.iter().map(|(i, _)| *i).collect();
        assert_eq!(order, *arrived.lock().unwrap(), "served in arrival order");
        assert_eq!(since_t0(granted[0].1), 0.0);
        for pair in granted.windows(2) {
            let gap = pair[1].1.duration_since(pair[0].1).expect("in order");
            assert!(
                gap >= Duration::from_secs(2),
                "gap {gap:?} (concurrency {concurrency})"
            );
        }
        assert!(since_t0(granted[49].1) >= 98.0);
    }
}

#[tokio::test]
async fn retry_after_120_pushes_the_next_permit_120_s_out() {
    let (cache, clock) = engine(GateOptions::default());
    rules(&cache, "http://busy.test", "User-agent: *\n").await;
    let permit = acquired(&cache, "http://busy.test/a").await;
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("retry-after", "120".parse().expect("header"));
    let recorded = permit.record_response(429, &headers).await;
    assert_eq!(recorded, Recorded::BackedOff(Duration::from_secs(120)));
    let at = clock.now();

    let (_, granted) = spawn_waiters(&cache, &clock, "http://busy.test/b", 1);
    drive(&clock, || granted.lock().unwrap().len() == 1).await;
    let wait = granted.lock().unwrap()[0]
        .1
        .duration_since(at)
        .expect("later");
    assert!(wait >= Duration::from_secs(120), "{wait:?}");

    // Other origins are not held back.
    rules(&cache, "http://calm.test", "User-agent: *\n").await;
    let permit = acquired(&cache, "http://calm.test/").await;
    assert_eq!(permit.waited(), Duration::ZERO);
}

#[tokio::test]
async fn a_retry_after_that_asks_for_no_wait_or_cannot_be_read_gets_the_default_backoff() {
    let (cache, _clock) = engine({
        let mut gate = no_default_delay();
        gate.backoff_jitter_percent = 0;
        gate
    });
    // Each on an origin of its own: the first backoff of a run, 60 s.
    let values: [&[u8]; 7] = [
        b"0",
        b"2.5",
        b"120s",
        b"-1",
        b"",
        b"Thu, 01 Jan 1970 00:00:00 GMT",
        b"\xff",
    ];
    for (i, value) in values.into_iter().enumerate() {
        let origin = format!("http://o{i}.test");
        rules(&cache, &origin, "User-agent: *\n").await;
        let permit = acquired(&cache, &format!("{origin}/a")).await;
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            "retry-after",
            reqwest::header::HeaderValue::from_bytes(value).expect("header"),
        );
        let recorded = permit.record_response(429, &headers).await;
        assert_eq!(
            recorded,
            Recorded::BackedOff(Duration::from_secs(60)),
            "{value:?}"
        );
    }
    // As does a zero passed as a wait.
    rules(&cache, "http://zero.test", "User-agent: *\n").await;
    let permit = acquired(&cache, "http://zero.test/a").await;
    let recorded = permit.record(503, Some(Duration::ZERO)).await;
    assert_eq!(recorded, Recorded::BackedOff(Duration::from_secs(60)));
}

#[tokio::test]
async fn without_retry_after_the_backoff_doubles_and_a_success_resets_it() {
    let (cache, clock) = engine({
        let mut gate = no_default_delay();
        gate.backoff_jitter_percent = 0;
        gate
    });
    rules(&cache, "http://flaky.test", "User-agent: *\n").await;
    let mut waits = Vec::new();
    for status in [503, 503, 429, 200, 503] {
        let start = clock.now();
        let (_, granted) = spawn_waiters(&cache, &clock, "http://flaky.test/", 1);
        drive(&clock, || granted.lock().unwrap().len() == 1).await;
        waits.push(clock.now().duration_since(start).expect("later").as_secs());
        let permit = cache.acquire(&bot(), "http://flaky.test/").await;
        // That acquire came right after the previous permit: its slot is now.
        let permit = permit.expect("allowed");
        assert_eq!(permit.waited(), Duration::ZERO);
        permit.record(status, None).await;
    }
    let start = clock.now();
    let (_, granted) = spawn_waiters(&cache, &clock, "http://flaky.test/", 1);
    drive(&clock, || granted.lock().unwrap().len() == 1).await;
    waits.push(clock.now().duration_since(start).expect("later").as_secs());
    // 60 s, 120 s, 240 s after three in a row; the 200 starts over: 60 s.
    assert_eq!(waits, [0, 60, 120, 240, 0, 60]);
}

/// The wait after each of `statuses` (recorded on a permit taken when the last wait ended),
/// in seconds, with the gate `options`.
async fn backoff_curve(options: GateOptions, statuses: &[u16]) -> Vec<f64> {
    let (cache, clock) = engine(options);
    rules(&cache, "http://curve.test", "User-agent: *\n").await;
    let mut waits = Vec::new();
    for status in statuses {
        let permit = acquired(&cache, "http://curve.test/").await;
        permit.record(*status, None).await;
        let start = clock.now();
        let (_, granted) = spawn_waiters(&cache, &clock, "http://curve.test/", 1);
        drive(&clock, || granted.lock().unwrap().len() == 1).await;
        waits.push(
            clock
                .now()
                .duration_since(start)
                .expect("later")
                .as_secs_f64(),
        );
    }
    // The schedule ran within the rules' freshness, so no refresh (a real fetch) raced it.
    assert!(since_t0(clock.now()) < FRESH_FOR.as_secs_f64());
    waits
}

#[tokio::test]
async fn the_backoff_curve_has_storm_crawler_steps_jitter_cap_and_forgiveness() {
    let mut seeded = no_default_delay();
    seeded.jitter_seed = Some(7);
    let five = [429, 503, 429, 429, 503];
    let a = backoff_curve(seeded.clone(), &five).await;
    // Deterministic for a seed, and each step within 10 % of 60 s × 2^n.
    assert_eq!(a, backoff_curve(seeded.clone(), &five).await);
    for (n, w) in a.iter().enumerate() {
        let nominal = 60.0 * f64::from(1u32 << n);
        assert!(
            *w >= nominal * 0.9 && *w <= nominal * 1.1,
            "step {n}: {w} s of {nominal} s ({a:?})"
        );
    }
    // Another seed, other jitter.
    let mut other = seeded.clone();
    other.jitter_seed = Some(8);
    assert_ne!(a, backoff_curve(other, &five).await);
    // The cap: 20 in a row end at one day.
    let mut capped = seeded.clone();
    capped.backoff_jitter_percent = 0;
    let curve = backoff_curve(capped.clone(), &[429; 20]).await;
    assert_eq!(curve.last(), Some(&86_400.0));
    // 403 does not back off; the statuses are an option.
    assert_eq!(backoff_curve(capped.clone(), &[403]).await, [0.0]);
    capped.backoff_statuses = vec![403, 429];
    assert_eq!(
        backoff_curve(capped.clone(), &[403, 503]).await,
        [60.0, 0.0]
    );
    // The run is forgiven once its backoff has been over for `backoff_forgive` (30 minutes):
    // with none, each 429 starts a new run.
    capped.backoff_forgive = Duration::ZERO;
    assert_eq!(backoff_curve(capped, &[429, 429]).await, [60.0, 60.0]);
}

#[tokio::test]
async fn a_backoff_reaches_the_slots_already_reserved() {
    let (cache, clock) = engine({
        let mut gate = no_default_delay();
        gate.max_concurrency = 3;
        gate
    });
    rules(
        &cache,
        "http://busy.test",
        "User-agent: *\nCrawl-delay: 2\n",
    )
    .await;
    let first = acquired(&cache, "http://busy.test/").await;
    // Two waiters reserve the slots at 2 s and 4 s.
    let (_, granted) = spawn_waiters(&cache, &clock, "http://busy.test/", 2);
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
    clock.set(UNIX_EPOCH + Duration::from_secs(T0 + 1));
    // The first fetch answers 429 with Retry-After: 10 at 1 s: nothing before 11 s.
    first.record(429, Some(Duration::from_secs(10))).await;
    drive(&clock, || granted.lock().unwrap().len() == 2).await;
    let times: Vec<f64> = granted
        .lock()
        .unwrap()
        .iter()
        .map(|(_, t)| since_t0(*t))
        .collect();
    assert_eq!(times, [11.0, 13.0]);
}

#[tokio::test]
async fn visit_time_holds_permits_until_its_window_opens() {
    let (cache, clock) = engine(no_default_delay());
    // T0 is 08:00 UTC.
    rules(
        &cache,
        "http://night.test",
        "User-agent: *\nVisit-time: 0900-1000\n",
    )
    .await;
    let answer = check(&cache, "http://night.test/").await;
    assert!(answer.visit_time.is_some());
    let (_, granted) = spawn_waiters(&cache, &clock, "http://night.test/", 1);
    drive(&clock, || granted.lock().unwrap().len() == 1).await;
    assert_eq!(since_t0(granted.lock().unwrap()[0].1), 3600.0);
    // Inside the window: at once.
    let permit = acquired(&cache, "http://night.test/").await;
    assert_eq!(permit.waited(), Duration::ZERO);
    // ask_slot says the same wait: the slot is booked at the window's opening.
    rules(
        &cache,
        "http://late.test",
        "User-agent: *\nVisit-time: 1100-1200\n",
    )
    .await;
    let slot = cache
        .ask_slot(&bot(), "http://late.test/")
        .await
        .expect("allowed");
    assert_eq!(slot.wait, Duration::from_secs(7200));
    assert!(
        matches!(slot.outcome, Outcome::Wait { booked: true, .. }),
        "{slot:?}"
    );
    // Turned off: not waited for.
    let (cache, _) = engine({
        let mut gate = no_default_delay();
        gate.visit_time = false;
        gate
    });
    rules(
        &cache,
        "http://night.test",
        "User-agent: *\nVisit-time: 0900-1000\n",
    )
    .await;
    assert_eq!(
        acquired(&cache, "http://night.test/").await.waited(),
        Duration::ZERO
    );
}

#[tokio::test]
async fn a_dropped_acquire_gives_its_slot_to_the_next_waiter() {
    let (cache, clock) = engine(no_default_delay());
    rules(
        &cache,
        "http://drop.test",
        "User-agent: *\nCrawl-delay: 2\n",
    )
    .await;
    drop(acquired(&cache, "http://drop.test/").await);
    // A waiter reserves the slot at 2 s, and is dropped at 1 s.
    let waiter = {
        let cache = cache.clone();
        tokio::spawn(async move { acquired(&cache, "http://drop.test/").await })
    };
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
    clock.set(UNIX_EPOCH + Duration::from_secs(T0 + 1));
    waiter.abort();
    let _ = waiter.await;
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
    // The next one gets that slot: 2 s, not 4 s.
    let (_, granted) = spawn_waiters(&cache, &clock, "http://drop.test/", 1);
    drive(&clock, || granted.lock().unwrap().len() == 1).await;
    assert_eq!(since_t0(granted.lock().unwrap()[0].1), 2.0);
}

#[tokio::test]
async fn request_rate_3_per_10s_gives_3_permits_per_10_s() {
    let (cache, clock) = engine(no_default_delay());
    rules(
        &cache,
        "http://rate.test",
        "User-agent: *\nRequest-rate: 3/10s\n",
    )
    .await;
    let (_, granted) = spawn_waiters(&cache, &clock, "http://rate.test/", 12);
    drive(&clock, || granted.lock().unwrap().len() == 12).await;
    let times: Vec<f64> = granted
        .lock()
        .unwrap()
        .iter()
        .map(|(_, t)| since_t0(*t))
        .collect();
    for w in times.windows(4) {
        assert!(w[3] - w[0] >= 10.0, "four permits within 10 s: {times:?}");
    }
    for w in times.windows(3) {
        assert!(
            w[2] - w[0] < 10.0,
            "the rate allows three per 10 s: {times:?}"
        );
    }
    // Per 10-second window: three.
    for k in 0..3 {
        let n = times
            .iter()
            .filter(|t| (**t / 10.0).floor() as i32 == k)
            .count();
        assert_eq!(n, 3, "window {k}: {times:?}");
    }
}

#[tokio::test]
async fn request_rate_outside_its_window_does_not_apply() {
    let (cache, _clock) = engine(no_default_delay());
    // T0 is 08:00 UTC.
    rules(
        &cache,
        "http://night.test",
        "User-agent: *\nRequest-rate: 1/60s 2200-0600\n",
    )
    .await;
    rules(
        &cache,
        "http://day.test",
        "User-agent: *\nRequest-rate: 1/60s 0700-0900\n",
    )
    .await;
    let p = acquired(&cache, "http://night.test/").await;
    assert_eq!(p.spacing().delay, Duration::ZERO);
    let p = acquired(&cache, "http://day.test/").await;
    assert_eq!(
        (p.spacing().delay, p.spacing().source),
        (Duration::from_secs(60), DelaySource::RequestRate)
    );
}

#[tokio::test]
async fn a_huge_crawl_delay_is_honoured_as_the_cap() {
    let (cache, clock) = engine(GateOptions::default());
    rules(
        &cache,
        "http://sloth.test",
        "User-agent: *\nCrawl-delay: 86400\n",
    )
    .await;
    let p = acquired(&cache, "http://sloth.test/").await;
    let s = p.spacing();
    assert!(s.capped);
    assert_eq!(
        (s.delay, s.source),
        (Duration::from_secs(60), DelaySource::CrawlDelay)
    );
    assert_eq!(
        p.answer().crawl_delay,
        Some(Duration::from_secs(86_400)),
        "as written"
    );
    drop(p);
    let start = clock.now();
    let (_, granted) = spawn_waiters(&cache, &clock, "http://sloth.test/", 1);
    drive(&clock, || granted.lock().unwrap().len() == 1).await;
    assert_eq!(
        clock.now().duration_since(start).expect("later"),
        Duration::from_secs(60)
    );
}

#[tokio::test]
async fn disallowed_urls_are_refused_at_once_with_the_rule() {
    let (cache, clock) = engine(GateOptions::default());
    rules(
        &cache,
        "http://strict.test",
        "User-agent: *\nDisallow: /private\n",
    )
    .await;
    // A permit just taken does not delay the refusal.
    let _held = acquired(&cache, "http://strict.test/public").await;
    let refused = cache
        .acquire(&bot(), "http://strict.test/private/x")
        .await
        .expect_err("disallowed");
    match &refused {
        Refused::Disallowed { url, answer } => {
            assert_eq!(url, "http://strict.test/private/x");
            let rule = answer.rule.as_ref().expect("a rule decided");
            assert_eq!((rule.line, rule.text.as_str()), (2, "Disallow: /private"));
        }
        other => panic!("{other:?}"),
    }
    assert!(
        refused.to_string().contains("line 2: Disallow: /private"),
        "{refused}"
    );
    assert_eq!(clock.sleepers(), 0);
    let bad = cache
        .acquire(&bot(), "mailto:x@example.com")
        .await
        .expect_err("no origin");
    assert!(matches!(bad, Refused::Check(_)), "{bad:?}");
}

/// A refusal names its real cause: a rule ("robots.txt disallows URL (line N: …)"), or the
/// failure rules when the robots.txt could not be read ("not fetching URL: robots.txt
/// unreachable …"), never "disallows" for a site that is down.
#[tokio::test]
async fn a_refusal_by_the_failure_rules_does_not_say_the_site_disallows() {
    let (cache, _clock) = engine(GateOptions::default());
    fetched(
        &cache,
        "http://down.test",
        503,
        FetchOutcome::Unreachable(crawlgate::policy::Unreachable::Status(503)),
    )
    .await;
    let refused = cache
        .acquire(&bot(), "http://down.test/a")
        .await
        .expect_err("disallowed while unreachable");
    let text = refused.to_string();
    assert!(
        text.starts_with("not fetching http://down.test/a: robots.txt unreachable (HTTP 503)"),
        "{text}"
    );
    assert!(!text.contains("disallows"), "{text}");
    // A rule still reads as the site's own answer.
    rules(
        &cache,
        "http://strict.test",
        "User-agent: *\nDisallow: /private\n",
    )
    .await;
    let refused = cache
        .acquire(&bot(), "http://strict.test/private/x")
        .await
        .expect_err("disallowed");
    assert!(
        refused.to_string().starts_with(
            "robots.txt disallows http://strict.test/private/x (line 2: Disallow: /private; "
        ),
        "{refused}"
    );
}

#[tokio::test]
async fn concurrency_is_limited_per_origin_and_freed_on_drop() {
    let (cache, clock) = engine({
        let mut gate = GateOptions::default();
        gate.default_delay = Duration::ZERO;
        gate.max_concurrency = 2;
        gate
    });
    rules(&cache, "http://pair.test", "User-agent: *\n").await;
    let a = acquired(&cache, "http://pair.test/a").await;
    let b = acquired(&cache, "http://pair.test/b").await;
    let (_, granted) = spawn_waiters(&cache, &clock, "http://pair.test/c", 1);
    for _ in 0..200 {
        tokio::task::yield_now().await;
    }
    assert!(
        granted.lock().unwrap().is_empty(),
        "a third waits for a slot"
    );
    drop(a);
    for _ in 0..200 {
        tokio::task::yield_now().await;
    }
    assert_eq!(
        granted.lock().unwrap().len(),
        1,
        "a dropped permit frees its slot"
    );
    drop(b);
}

#[tokio::test]
async fn answers_carry_crawl_delay_request_rate_and_sitemaps() {
    let (cache, _clock) = engine(GateOptions::default());
    let body = "User-agent: testbot\nCrawl-delay: 2.5\nRequest-rate: 1/5s 0600-0845\n\
                Visit-time: 0600-0845\nDisallow: /x\n\nUser-agent: *\nCrawl-delay: 9\n\n\
                Sitemap: http://meta.test/sitemap.xml\nSitemap: http://meta.test/news.xml\n";
    rules(&cache, "http://meta.test", body).await;
    let a = check(&cache, "http://meta.test/page").await;
    assert_eq!(a.crawl_delay, Some(Duration::from_millis(2500)));
    let rate = a.request_rate.expect("request-rate");
    assert_eq!((rate.requests, rate.per), (1, Duration::from_secs(5)));
    let listed = ["http://meta.test/sitemap.xml", "http://meta.test/news.xml"];
    assert_eq!(a.sitemaps.iter().collect::<Vec<_>>(), listed);
    assert_eq!(a.sitemaps.len(), 2);
    assert_eq!(format!("{:?}", a.sitemaps), format!("{listed:?}"));
    let other = ProductToken::new("otherbot").expect("token");
    let b = cache
        .check(&other, "http://meta.test/page")
        .await
        .expect("check");
    assert_eq!(
        (b.crawl_delay, b.request_rate),
        (Some(Duration::from_secs(9)), None)
    );
    // The same file's list, whoever asks.
    assert_eq!(b.sitemaps, a.sitemaps);
    // A server error after that file: everything but robots.txt is disallowed for a while, and
    // the file kept for later is not the rules in force, so its sitemaps are not reported.
    let unreachable = crawlgate::policy::Unreachable::Status(503);
    fetched(
        &cache,
        "http://meta.test",
        503,
        FetchOutcome::Unreachable(unreachable),
    )
    .await;
    let c = check(&cache, "http://meta.test/page").await;
    assert!(!c.allowed && c.sitemaps.is_empty(), "{c:?}");
    assert_ne!(c.sitemaps, a.sitemaps);
    // An answer given before keeps its list.
    assert_eq!(a.sitemaps.iter().collect::<Vec<_>>(), listed);
    // Without rules (no robots.txt) there is nothing to report.
    let unavailable = crawlgate::policy::Unavailable::Status(404);
    fetched(
        &cache,
        "http://none.test",
        404,
        FetchOutcome::Unavailable(unavailable),
    )
    .await;
    let a = check(&cache, "http://none.test/").await;
    assert!(a.allowed && a.crawl_delay.is_none() && a.sitemaps.is_empty());
}

/// A memory store whose request schedule is broken (`failing`: it claims one and every call
/// fails) or absent (a store of another crate: the trait's defaults).
#[derive(Debug)]
struct ScheduleLess {
    inner: crawlgate::store::MemoryStore,
    failing: bool,
}

impl Store for ScheduleLess {
    fn load<'a>(&'a self, o: &'a Origin) -> StoreFuture<'a, Option<OriginState>> {
        self.inner.load(o)
    }
    fn update<'a>(&'a self, o: &'a Origin, c: &'a [Change]) -> StoreFuture<'a, Updated> {
        self.inner.update(o, c)
    }
    fn body<'a>(&'a self, o: &'a Origin, d: &'a Digest) -> StoreFuture<'a, Option<Arc<[u8]>>> {
        self.inner.body(o, d)
    }
    fn origins(&self) -> StoreFuture<'_, Vec<Origin>> {
        self.inner.origins()
    }
    fn try_lease<'a>(&'a self, o: &'a Origin, w: &'a str, t: Duration) -> StoreFuture<'a, bool> {
        self.inner.try_lease(o, w, t)
    }
    fn release_lease<'a>(&'a self, o: &'a Origin, w: &'a str) -> StoreFuture<'a, ()> {
        self.inner.release_lease(o, w)
    }
    fn prune(&self, now: SystemTime) -> StoreFuture<'_, Pruned> {
        self.inner.prune(now)
    }
    fn usage(&self) -> StoreFuture<'_, StoreUsage> {
        self.inner.usage()
    }
    fn keeps_schedule(&self) -> bool {
        self.failing
    }
    fn reserve<'a>(
        &'a self,
        _: &'a PoliteKey,
        _: SystemTime,
        _: Duration,
    ) -> StoreFuture<'a, Reservation> {
        Box::pin(async { Err(StoreError::Backend("schedule down".into())) })
    }
    fn back_off<'a>(
        &'a self,
        _: &'a PoliteKey,
        _: SystemTime,
        _: Option<Duration>,
        _: BackoffRules,
    ) -> StoreFuture<'a, Duration> {
        Box::pin(async { Err(StoreError::Backend("schedule down".into())) })
    }
}

#[tokio::test]
async fn without_a_schedule_in_the_store_the_process_keeps_spacing_and_backoff() {
    for failing in [false, true] {
        let clock = Arc::new(ManualClock::new(UNIX_EPOCH + Duration::from_secs(T0)));
        let store = Arc::new(ScheduleLess {
            inner: crawlgate::store::MemoryStore::new(),
            failing,
        });
        let cache =
            RobotsCache::with_store(CacheOptions::default(), store, clock.clone()).expect("engine");
        rules(&cache, "http://own.test", "User-agent: *\nCrawl-delay: 2\n").await;
        let permit = acquired(&cache, "http://own.test/").await;
        assert_eq!(
            permit.record(503, Some(Duration::from_secs(30))).await,
            Recorded::BackedOff(Duration::from_secs(30))
        );
        let (_, granted) = spawn_waiters(&cache, &clock, "http://own.test/", 3);
        drive(&clock, || granted.lock().unwrap().len() == 3).await;
        let times: Vec<f64> = granted
            .lock()
            .unwrap()
            .iter()
            .map(|(_, t)| since_t0(*t))
            .collect();
        assert_eq!(times, [30.0, 32.0, 34.0], "failing {failing}");
        // A failing store is reported; a store without schedules is not failing.
        assert_eq!(cache.store_status().errors > 0, failing);
    }
}

#[tokio::test]
async fn permits_feed_the_site_availability_report_without_a_write_per_page() {
    let (cache, clock) = engine(no_default_delay());
    rules(&cache, "http://up.test", "User-agent: *\n").await;
    let origin = Origin::from_url("http://up.test/").expect("origin");
    let report = |cache: RobotsCache| {
        let origin = origin.clone();
        async move { cache.state(&origin).await.and_then(|s| s.site_report()) }
    };
    // Dropped unrecorded: nothing.
    drop(acquired(&cache, "http://up.test/").await);
    assert_eq!(report(cache.clone()).await, None);
    let p = acquired(&cache, "http://up.test/").await;
    assert_eq!(p.record(200, None).await, Recorded::Served);
    let first = report(cache.clone()).await.expect("a report");
    assert!(first.up);
    assert_eq!(first.at, clock.now());
    // The same news a minute later is not written again…
    clock.advance(Duration::from_secs(60));
    let p = acquired(&cache, "http://up.test/").await;
    p.record(404, None).await;
    assert_eq!(report(cache.clone()).await, Some(first));
    // …a change is, at once…
    let p = acquired(&cache, "http://up.test/").await;
    assert_eq!(p.record(500, None).await, Recorded::Failed);
    let down = report(cache.clone()).await.expect("a report");
    assert!(!down.up);
    // …and the same news after the interval (10 minutes) is written to keep the report fresh.
    clock.advance(Duration::from_secs(601));
    let p = acquired(&cache, "http://up.test/").await;
    p.record_unreachable().await;
    let later = report(cache.clone()).await.expect("a report");
    assert!(!later.up && later.at == clock.now());
}

/// `ask_slot` (a service's acquire: the slot booked, the wait told, nobody sleeps) keeps
/// the schedule `acquire` keeps, and `record_fetch` (its record) backs the origin off on a 429
/// with `Retry-After` and ends the run on a 200, as a permit's record does; a disallowed URL
/// gets no slot, and its answer names the rule.
#[tokio::test]
async fn slots_reserved_without_waiting_keep_the_schedule() {
    let (cache, clock) = engine(no_default_delay());
    rules(
        &cache,
        "http://slots.test",
        "User-agent: *\nCrawl-delay: 2\nDisallow: /private\n",
    )
    .await;
    let first = cache
        .ask_slot(&bot(), "http://slots.test/a")
        .await
        .expect("allowed");
    assert_eq!(first.wait, Duration::ZERO);
    assert_eq!(first.spacing.delay, Duration::from_secs(2));
    let second = cache
        .ask_slot(&bot(), "http://slots.test/b")
        .await
        .expect("allowed");
    assert_eq!(
        second.wait,
        Duration::from_secs(2),
        "one spacing after the first"
    );
    // Both slots have passed; then the site answers 429 with `Retry-After: 30`.
    clock.set(clock.now() + Duration::from_secs(4));
    let origin = Origin::from_url("http://slots.test/").expect("origin");
    let backed = cache
        .record_fetch(&origin, 429, Some(Duration::from_secs(30)))
        .await;
    assert_eq!(backed, Recorded::BackedOff(Duration::from_secs(30)));
    let after = cache
        .ask_slot(&bot(), "http://slots.test/c")
        .await
        .expect("allowed");
    assert!(
        after.wait >= Duration::from_secs(30),
        "the backoff holds the next slot: {:?}",
        after.wait
    );
    assert_eq!(
        cache.record_fetch(&origin, 200, None).await,
        Recorded::Served
    );
    match cache.ask_slot(&bot(), "http://slots.test/private/x").await {
        Err(Refused::Disallowed { answer, .. }) => {
            assert_eq!(answer.rule.expect("a rule decided").line, 3);
        }
        other => panic!("a disallowed URL gets no slot: {other:?}"),
    }
}

#[tokio::test]
async fn a_confirmed_slot_stands_unless_a_backoff_reaches_it() {
    let (cache, clock) = engine(no_default_delay());
    rules(
        &cache,
        "http://pace.test",
        "User-agent: *\nCrawl-delay: 2\n",
    )
    .await;
    let ask = |url: &'static str| {
        let cache = cache.clone();
        async move { cache.ask_slot(&bot(), url).await.expect("allowed") }
    };
    let first = ask("http://pace.test/a").await;
    let second = ask("http://pace.test/b").await;
    assert!(matches!(first.outcome, Outcome::Permit { .. }), "{first:?}");
    let Outcome::Wait {
        id, booked: true, ..
    } = second.outcome
    else {
        panic!("{second:?}")
    };
    assert_eq!(second.wait, Duration::from_secs(2));

    // Asked again before its time, the slot stands and nothing new is booked.
    clock.set(UNIX_EPOCH + Duration::from_secs(T0 + 1));
    for _ in 0..3 {
        let again = ask("http://pace.test/b").await;
        assert_eq!(
            again.outcome,
            Outcome::Wait {
                id,
                at: (T0 + 2) * 1000,
                booked: false
            }
        );
        assert_eq!(again.wait, Duration::from_secs(1));
    }
    let next = ask("http://pace.test/c").await;
    assert_eq!(since_t0(next.at + next.wait), 4.0);

    // A 429 with Retry-After: 5 at 1 s reaches the slot at 2 s before it comes: void, and the
    // new slot lies after the backoff (6 s), which is after the one booked at 4 s too.
    let origin = Origin::from_url("http://pace.test/").expect("origin");
    let rfc = cache.retry_after("5").expect("seconds");
    assert_eq!(
        cache.record_fetch(&origin, 429, Some(rfc)).await,
        Recorded::BackedOff(Duration::from_secs(5))
    );
    assert_eq!(
        cache.backoff_left(&second.key).await,
        Duration::from_secs(5)
    );
    let void = ask("http://pace.test/b").await;
    assert!(
        matches!(void.outcome, Outcome::Wait { booked: true, id: new, .. } if new != id),
        "{void:?}"
    );
    assert_eq!(since_t0(void.at + void.wait), 6.0);

    // At its time, with the backoff over, the new slot stands: fetch now.
    clock.set(void.at + void.wait);
    assert_eq!(cache.backoff_left(&second.key).await, Duration::ZERO);
    let now = ask("http://pace.test/b").await;
    assert!(matches!(now.outcome, Outcome::Permit { .. }), "{now:?}");
    assert_eq!(now.wait, Duration::ZERO);

    // Long past its time, a slot has expired: c books anew (a permit, the key being idle).
    clock.set(UNIX_EPOCH + Duration::from_secs(T0 + 60));
    let stale = ask("http://pace.test/c").await;
    assert!(matches!(stale.outcome, Outcome::Permit { .. }), "{stale:?}");

    // An HTTP-date is read on the engine's clock: 30 s from now.
    let date = cache
        .retry_after("Fri, 15 Jan 2027 08:01:30 GMT")
        .expect("an HTTP-date");
    assert_eq!(date, Duration::from_secs(30));
    // What asks for no wait, or cannot be read, is not taken: the default backoff stands in.
    for (value, why) in [
        ("soon", RetryAfterIgnored::Unreadable),
        ("2.5", RetryAfterIgnored::Unreadable),
        ("120s", RetryAfterIgnored::Unreadable),
        ("-1", RetryAfterIgnored::Unreadable),
        ("", RetryAfterIgnored::Unreadable),
        ("0", RetryAfterIgnored::NoWait),
        ("Fri, 15 Jan 2027 08:00:00 GMT", RetryAfterIgnored::NoWait),
    ] {
        assert_eq!(cache.retry_after(value), Err(why), "{value:?}");
    }
}
