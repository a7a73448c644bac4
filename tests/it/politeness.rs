//! `RobotsCache::politeness` on a virtual clock: the spacing in force and why (crawl-delay,
//! request-rate, the configured default, the floor, the cap), the backoff a run of 429s leaves
//! (its step, its end, when it is forgiven), the next slot, and that reading it reserves
//! nothing; `Store::schedule` in the three stores (the Redis one on a real `redis-server`).

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crawlgate::engine::{CacheOptions, ManualClock, RobotsCache, ScheduleSource};
use crawlgate::policy::{
    Fetch, FetchOutcome, GateOptions, LaterWhy, Outcome, PoliteKey, SpacingReason,
};
use crawlgate::store::{EmbeddedStore, MemoryStore, RedisOptions, RedisStore, Store};
use crawlgate::{Origin, ProductToken, Robots};

use crate::support::redis_server::RedisServer;

/// 2027-01-15 08:00:00 UTC.
const T0: u64 = 1_800_000_000;

fn t0() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(T0)
}

fn engine_on(store: Arc<dyn Store>) -> (RobotsCache, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(t0()));
    let mut options = CacheOptions::default();
    options.gate = GateOptions::default();
    options.gate.jitter_seed = Some(7);
    let cache = RobotsCache::with_store(options, store, clock.clone()).expect("engine");
    (cache, clock)
}

fn bot() -> ProductToken {
    ProductToken::new("testbot").expect("token")
}

/// Gives `origin` the robots.txt `body`, as if fetched now.
async fn rules(cache: &RobotsCache, origin: &str, body: &str) {
    let origin = Origin::from_url(origin).expect("origin");
    let outcome = FetchOutcome::Rules {
        body: Arc::from(body.as_bytes()),
        parsed: Arc::new(Robots::parse(body.as_bytes())),
    };
    let url = format!("{origin}/robots.txt");
    cache
        .insert(&origin, Fetch::new(url, Some(200), outcome))
        .await;
}

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

#[tokio::test]
async fn the_spacing_in_force_says_what_set_it() {
    let (cache, _clock) = engine_on(Arc::new(MemoryStore::new()));
    let cases = [
        (
            "http://slow.test",
            "User-agent: *\nCrawl-delay: 2.5\n",
            2.5,
            SpacingReason::CrawlDelay,
            Some(2.5),
        ),
        (
            "http://eager.test",
            "User-agent: *\nCrawl-delay: 0.2\n",
            1.0,
            SpacingReason::Floor,
            Some(0.2),
        ),
        (
            "http://quiet.test",
            "User-agent: *\nDisallow: /x\n",
            1.0,
            SpacingReason::Default,
            None,
        ),
        (
            "http://day.test",
            "User-agent: *\nCrawl-delay: 86400\n",
            60.0,
            SpacingReason::Cap,
            Some(86_400.0),
        ),
        (
            "http://rate.test",
            "User-agent: *\nRequest-rate: 1/5s\n",
            5.0,
            SpacingReason::RequestRate,
            Some(5.0),
        ),
    ];
    for (origin, body, delay, reason, asked) in cases {
        rules(&cache, origin, body).await;
        let p = cache
            .politeness(&bot(), &format!("{origin}/page"))
            .await
            .expect("politeness");
        assert_eq!(p.pacing.spacing.delay, secs(delay), "{origin}");
        assert_eq!(p.pacing.reason, reason, "{origin}");
        assert_eq!(p.pacing.asked, asked.map(secs), "{origin}");
        assert_eq!(p.pacing.backoff, None, "{origin}");
        assert_eq!(p.pacing.next_slot, t0(), "{origin}: nothing reserved yet");
        assert_eq!(p.schedule, ScheduleSource::None, "{origin}");
        assert_eq!(
            p.key,
            PoliteKey::of(
                Default::default(),
                &Origin::from_url(origin).expect("origin")
            )
        );
    }
    assert_eq!(SpacingReason::Floor.as_str(), "floor");
    assert_eq!(
        crawlgate::policy::DelaySource::RequestRate.as_str(),
        "request-rate"
    );
}

#[tokio::test]
async fn two_429s_show_as_step_two_until_its_end_then_forgiven_half_an_hour_later() {
    let store = Arc::new(MemoryStore::new());
    let (cache, clock) = engine_on(store.clone());
    rules(
        &cache,
        "http://busy.test",
        "User-agent: *\nCrawl-delay: 3\n",
    )
    .await;
    let origin = Origin::from_url("http://busy.test").expect("origin");
    let url = "http://busy.test/a";

    // A permit reserves the first slot: the next one is the crawl-delay later.
    let permit = cache.acquire(&bot(), url).await.expect("allowed");
    drop(permit);
    let p = cache.politeness(&bot(), url).await.expect("politeness");
    assert_eq!(p.pacing.next_slot, t0() + secs(3.0));
    assert_eq!(p.schedule, ScheduleSource::Store);
    assert_eq!((p.in_flight, p.max_concurrency), (0, 1));

    // Two 429s without Retry-After: the second doubles the first (60 s, then ~120 s ±10 %).
    cache.record_fetch(&origin, 429, None).await;
    cache.record_fetch(&origin, 429, None).await;
    let key = PoliteKey::of(Default::default(), &origin);
    let before = store.schedule(&key).await.expect("schedule");
    let p = cache.politeness(&bot(), url).await.expect("politeness");
    let b = p.pacing.backoff.expect("a backoff");
    assert_eq!(b.step, 2);
    let length = b.until.duration_since(t0()).expect("after t0");
    assert!(
        (secs(108.0)..=secs(132.0)).contains(&length),
        "the second step is 120 s ±10 %: {length:?}"
    );
    assert_eq!(b.last_failure, t0());
    assert_eq!(b.forgiven_at, b.until + Duration::from_secs(1800));
    assert!(b.holds(t0()));
    assert_eq!(
        p.pacing.next_slot, b.until,
        "no slot before the backoff's end"
    );
    // The spacing's why is unchanged by the backoff.
    assert_eq!(p.pacing.reason, SpacingReason::CrawlDelay);

    // Reading it changed nothing: the schedule is as it was, and a permit still waits for
    // the backoff's end.
    assert_eq!(store.schedule(&key).await.expect("schedule"), before);
    let again = cache.politeness(&bot(), url).await.expect("politeness");
    assert_eq!(again.pacing, p.pacing);

    // After the backoff: remembered (a third 429 would double again) until forgiven.
    clock.set(b.until + Duration::from_secs(60));
    let p = cache.politeness(&bot(), url).await.expect("politeness");
    let remembered = p.pacing.backoff.expect("still remembered");
    assert!(!remembered.holds(clock_now(&cache)));
    assert_eq!(remembered.step, 2);
    assert_eq!(p.pacing.next_slot, clock_now(&cache));
    clock.set(b.forgiven_at);
    let p = cache.politeness(&bot(), url).await.expect("politeness");
    assert_eq!(p.pacing.backoff, None, "forgiven after 30 quiet minutes");
}

fn clock_now(cache: &RobotsCache) -> SystemTime {
    cache.now()
}

#[tokio::test]
async fn a_retry_after_backoff_ends_when_the_site_said() {
    let (cache, _clock) = engine_on(Arc::new(MemoryStore::new()));
    rules(&cache, "http://told.test", "User-agent: *\n").await;
    let origin = Origin::from_url("http://told.test").expect("origin");
    cache
        .record_fetch(&origin, 503, Some(Duration::from_secs(7)))
        .await;
    let p = cache
        .politeness(&bot(), "http://told.test/")
        .await
        .expect("politeness");
    let b = p.pacing.backoff.expect("a backoff");
    assert_eq!((b.step, b.until), (1, t0() + Duration::from_secs(7)));
    // A 200 ends the run: nothing is remembered once the backoff is over.
    cache.record_fetch(&origin, 200, None).await;
    let p = cache
        .politeness(&bot(), "http://told.test/")
        .await
        .expect("politeness");
    let b = p.pacing.backoff.expect("still holding until its end");
    assert_eq!(b.step, 0);
}

#[tokio::test]
async fn the_embedded_store_shows_a_backoff_recorded_by_an_earlier_process() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("state.redb");
    let origin = Origin::from_url("http://busy.test").expect("origin");
    {
        let store = Arc::new(EmbeddedStore::open(&path).expect("open"));
        let (cache, _clock) = engine_on(store);
        rules(&cache, "http://busy.test", "User-agent: *\n").await;
        cache.record_fetch(&origin, 429, None).await;
    }
    let store = Arc::new(EmbeddedStore::open(&path).expect("reopen"));
    let key = PoliteKey::of(Default::default(), &origin);
    let state = store.schedule(&key).await.expect("schedule").expect("kept");
    assert_eq!(state.strikes, 1);
    let (cache, _clock) = engine_on(store);
    let p = cache
        .politeness(&bot(), "http://busy.test/")
        .await
        .expect("politeness");
    let b = p
        .pacing
        .backoff
        .expect("the backoff, read back from the file");
    assert_eq!(b.step, 1);
    let length = b.until.duration_since(t0()).expect("after t0");
    assert!((secs(54.0)..=secs(66.0)).contains(&length), "{length:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_store_reads_the_gate_hash_without_changing_it() {
    let server = RedisServer::start();
    let store = RedisStore::connect(RedisOptions::new(server.url()))
        .await
        .expect("connect");
    let origin = Origin::from_url("http://busy.test").expect("origin");
    let key = PoliteKey::of(Default::default(), &origin);
    assert_eq!(store.schedule(&key).await.expect("schedule"), None);
    let rules = GateOptions::default().backoff(100); // the draw without jitter
    let now = SystemTime::now();
    store
        .back_off(&key, now, None, rules)
        .await
        .expect("back off");
    store
        .back_off(&key, now, None, rules)
        .await
        .expect("back off");
    let state = store.schedule(&key).await.expect("schedule").expect("kept");
    assert_eq!(state.strikes, 2);
    assert_eq!(state.backoff_until - state.last_failure, 120_000);
    // Read twice, the same: nothing was reserved.
    assert_eq!(store.schedule(&key).await.expect("schedule"), Some(state));
    let b = state
        .backoff_at(state.last_failure, Duration::from_secs(1800))
        .expect("a backoff");
    assert_eq!(b.step, 2);
}

/// `RobotsCache::ask_slot` on a virtual clock, through the memory and embedded stores: the
/// first ask is a permit, asking again books nothing, a late confirmation waits for the
/// spacing after the last permit, a backoff voids a booked slot, robots.txt is read each time.
#[tokio::test]
async fn asking_the_ledger_through_the_engine_keeps_the_rule() {
    let dir = tempfile::tempdir().expect("tempdir");
    let embedded: Arc<dyn Store> =
        Arc::new(EmbeddedStore::open(dir.path().join("state.redb")).expect("open"));
    for store in [Arc::new(MemoryStore::new()) as Arc<dyn Store>, embedded] {
        let (cache, clock) = engine_on(store);
        rules(
            &cache,
            "http://slow.test",
            "User-agent: *\nCrawl-delay: 2\nDisallow: /private\n",
        )
        .await;
        let ask = |url: &'static str| {
            let cache = cache.clone();
            async move { cache.ask_slot(&bot(), url).await }
        };
        let a = ask("http://slow.test/a").await.expect("allowed");
        assert!(matches!(a.outcome, Outcome::Permit { .. }), "{a:?}");
        assert_eq!(a.spacing.delay, secs(2.0));
        let again = ask("http://slow.test/a").await.expect("allowed");
        assert!(
            matches!(
                again.outcome,
                Outcome::Later {
                    why: LaterWhy::JustServed,
                    ..
                }
            ),
            "{again:?}"
        );
        // b and c book the next two slots.
        let b = ask("http://slow.test/b").await.expect("allowed");
        assert!(
            matches!(b.outcome, Outcome::Wait { booked: true, .. }),
            "{b:?}"
        );
        assert_eq!(b.wait, secs(2.0));
        let c = ask("http://slow.test/c").await.expect("allowed");
        assert_eq!(c.wait, secs(4.0));
        // b confirms 1.9 s late (within a spacing): a permit; c's slot then waits for the
        // spacing after it.
        clock.advance(secs(3.9));
        let b2 = ask("http://slow.test/b").await.expect("allowed");
        assert!(matches!(b2.outcome, Outcome::Permit { .. }), "{b2:?}");
        clock.advance(secs(0.1));
        let c2 = ask("http://slow.test/c").await.expect("allowed");
        assert!(
            matches!(c2.outcome, Outcome::Wait { booked: false, .. }),
            "{c2:?}"
        );
        assert_eq!(c2.wait, secs(1.9));
        // A 429 voids c's slot: a new one after the backoff.
        let origin = Origin::from_url("http://slow.test").expect("origin");
        cache
            .record_fetch(&origin, 429, Some(Duration::from_secs(30)))
            .await;
        let c3 = ask("http://slow.test/c").await.expect("allowed");
        assert!(
            matches!(c3.outcome, Outcome::Wait { booked: true, .. }),
            "{c3:?}"
        );
        assert_eq!(c3.wait, secs(30.0));
        // robots.txt is read on every ask.
        assert!(ask("http://slow.test/private").await.is_err());
    }
}
