//! The crawl-policy engine end to end: real HTTP servers on 127.0.0.1, an injected clock.

mod support;

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crawlgate::fetch::{CacheOptions, CheckError, FetchOptions, ManualClock, RobotsCache};
use crawlgate::policy::{Unavailable, VerdictReason};
use crawlgate::{Origin, ProductToken};
use support::{Reply, TestServer};

const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(86_400);
const RULES: &str = "User-agent: *\nDisallow: /private\n";

fn bot() -> ProductToken {
    ProductToken::new("testbot").expect("token")
}

fn engine() -> (RobotsCache, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
    ));
    let options = CacheOptions {
        fetch: FetchOptions {
            timeout: Duration::from_secs(5),
            ..FetchOptions::default()
        },
        ..CacheOptions::default()
    };
    let cache = RobotsCache::with_clock(options, clock.clone()).expect("engine");
    (cache, clock)
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
    let a = cache
        .check(&bot(), &server.url("/private/x"))
        .await
        .expect("check");
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
    let a = cache
        .check(&bot(), &server.url("/private"))
        .await
        .expect("check");
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
    assert!(
        !cache
            .check(&bot(), &server.url("/private"))
            .await
            .expect("check")
            .allowed
    );
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
    let status = Arc::new(AtomicU16::new(200));
    let st = status.clone();
    let server = TestServer::start(move |_| match st.load(Ordering::SeqCst) {
        200 => Reply::text(200, "User-agent: *\nDisallow: /other\n"),
        s => Reply::status(s),
    })
    .await;
    let (cache, clock) = engine();
    let origin = Origin::from_url(&server.url("/")).expect("origin");
    let private = server.url("/private");
    assert!(cache.check(&bot(), &private).await.expect("check").allowed);

    // The server starts failing.
    status.store(503, Ordering::SeqCst);
    clock.advance(DAY);
    cache.request_recrawl(&origin).await;
    let a = cache.check(&bot(), &private).await.expect("check");
    assert!(!a.allowed, "first 12 hours: stop");
    assert!(matches!(a.reason, VerdictReason::Unreachable { .. }));
    assert!(
        cache
            .check(&bot(), &server.url("/robots.txt"))
            .await
            .expect("check")
            .allowed
    );

    clock.advance(13 * HOUR);
    cache.request_recrawl(&origin).await;
    let a = cache.check(&bot(), &private).await.expect("check");
    assert!(a.allowed, "12 hours to 30 days: the last good version");
    assert!(matches!(a.reason, VerdictReason::LastGoodVersion { .. }));
    assert!(
        !cache
            .check(&bot(), &server.url("/other"))
            .await
            .expect("check")
            .allowed
    );

    clock.advance(30 * DAY);
    cache.request_recrawl(&origin).await;
    let a = cache.check(&bot(), &private).await.expect("check");
    assert!(!a.allowed, "after 30 days, site not known to be up: stop");
    cache.record_page_fetch(&origin, true).await;
    let a = cache.check(&bot(), &private).await.expect("check");
    assert!(a.allowed, "after 30 days, site up: no robots.txt");
    assert!(matches!(
        a.reason,
        VerdictReason::LongUnreachableSiteUp { .. }
    ));

    // Recovery.
    status.store(200, Ordering::SeqCst);
    cache.request_recrawl(&origin).await;
    let a = cache
        .check(&bot(), &server.url("/other"))
        .await
        .expect("check");
    assert!(!a.allowed);
    assert_eq!(a.reason, VerdictReason::Fetched);
    // History: the 503 run was one version (repeats are not new versions) and is now over
    // 30 days old, so only the recovered version remains.
    let state = cache.state(&origin).await.expect("state");
    let history: Vec<_> = state.history().map(|e| e.fetch.status).collect();
    assert_eq!(history, [Some(200)]);
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
    cache.check(&bot(), &url).await.expect("check");
    clock.advance(30 * 60 * Duration::from_secs(1));
    cache.check(&bot(), &url).await.expect("check");
    assert_eq!(server.hits(), 1, "fresh for max-age");
    clock.advance(31 * 60 * Duration::from_secs(1));
    cache.check(&bot(), &url).await.expect("check");
    wait_for_hits(&server, 2).await;

    let down = TestServer::start(|_| Reply::status(503).with_header("retry-after", "7200")).await;
    let url = down.url("/x");
    assert!(!cache.check(&bot(), &url).await.expect("check").allowed);
    clock.advance(HOUR);
    cache.check(&bot(), &url).await.expect("check");
    assert_eq!(down.hits(), 1, "Retry-After: 2 hours not yet passed");
    clock.advance(HOUR + Duration::from_secs(1));
    cache.check(&bot(), &url).await.expect("check");
    wait_for_hits(&down, 2).await;
}
