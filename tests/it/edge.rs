//! Refusals at the edge, against real servers on 127.0.0.1 with an injected clock: a challenge
//! (`cf-mitigated: challenge`, …) is unreachable, never "no robots.txt"; a 402 disallows and
//! keeps its price; an HTML page served with 200 as robots.txt is recognised, parsed by default
//! and unreachable when asked. The new outcomes round-trip through the stores.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::support::{Reply, TestServer};
use crawlgate::engine::{Answer, CacheOptions, ManualClock, RobotsCache};
use crawlgate::http::{FetchOptions, Fetcher, HtmlRobotsTxt, CHALLENGE_MARKERS};
use crawlgate::policy::{Content, Fetch, FetchOutcome, OriginState, Unreachable, VerdictReason};
use crawlgate::{Origin, ProductToken};

const HOUR: Duration = Duration::from_secs(3600);
const RULES: &str = "User-agent: *\nDisallow: /private\n";
const CHALLENGE_PAGE: &str =
    "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body></body></html>";

fn bot() -> ProductToken {
    ProductToken::new("testbot").expect("token")
}

async fn check(cache: &RobotsCache, url: &str) -> Answer {
    cache.check(&bot(), url).await.expect("check")
}

fn engine_with(html: HtmlRobotsTxt) -> (RobotsCache, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
    ));
    let mut options = CacheOptions::default();
    options.fetch = {
        let mut fetch = FetchOptions::default();
        fetch.timeout = Duration::from_secs(5);
        fetch.html = html;
        fetch
    };
    let cache = RobotsCache::with_clock(options, clock.clone()).expect("engine");
    (cache, clock)
}

fn engine() -> (RobotsCache, Arc<ManualClock>) {
    engine_with(HtmlRobotsTxt::default())
}

fn origin(server: &TestServer) -> Origin {
    Origin::from_url(&server.url("/")).expect("origin")
}

async fn fetch(server: &TestServer, html: HtmlRobotsTxt) -> Fetch {
    let mut options = FetchOptions::default();
    options.timeout = Duration::from_secs(5);
    options.html = html;
    Fetcher::new(options)
        .expect("fetcher")
        .fetch(&origin(server))
        .await
        .expect("no local failure")
}

/// An HTML reply, as a challenge or a soft 404 is served.
fn html(status: u16, body: &str) -> Reply {
    Reply::Full {
        status,
        headers: vec![("content-type".into(), "text/html; charset=UTF-8".into())],
        body: body.as_bytes().to_vec(),
    }
}

#[tokio::test]
async fn every_challenge_marker_is_unreachable_whatever_the_status() {
    // Each marker of the table, on the statuses its vendor uses and on a 200 that carries a
    // robots.txt-looking body: the body is never read as the file.
    for marker in CHALLENGE_MARKERS {
        for status in [200, 202, 403, 405, 429, 503] {
            let (header, value) = (marker.header, marker.value.to_ascii_uppercase());
            let server = TestServer::start(move |_| {
                Reply::text(status, RULES).with_header(header, &format!(" {value} "))
            })
            .await;
            let f = fetch(&server, HtmlRobotsTxt::default()).await;
            match &f.outcome {
                FetchOutcome::Unreachable(Unreachable::Challenge {
                    status: s,
                    marker: m,
                }) => {
                    assert_eq!(*s, status);
                    assert_eq!(*m, format!("{}: {}", marker.header, marker.value));
                }
                other => panic!("{header} on {status}: {other:?}"),
            }
            assert_eq!(f.status, Some(status));
        }
    }
    // Another value of a marker header is no challenge.
    let server =
        TestServer::start(|_| Reply::status(403).with_header("cf-mitigated", "block")).await;
    assert!(matches!(
        fetch(&server, HtmlRobotsTxt::default()).await.outcome,
        FetchOutcome::Unavailable(_)
    ));
}

#[tokio::test]
async fn a_challenged_robots_txt_disallows_then_the_last_good_version_applies() {
    let challenged = Arc::new(AtomicU16::new(0));
    let switch = challenged.clone();
    let server = TestServer::start(move |_| match switch.load(Ordering::SeqCst) {
        0 => Reply::text(200, RULES),
        status => html(status, CHALLENGE_PAGE).with_header("cf-mitigated", "challenge"),
    })
    .await;
    let (cache, clock) = engine();
    let o = origin(&server);

    // Never fetched before: a 403 challenge is not "no robots.txt" (which would allow all).
    challenged.store(403, Ordering::SeqCst);
    let a = check(&cache, &server.url("/public")).await;
    assert!(!a.allowed, "a challenge is not allow-all");
    match &a.reason {
        VerdictReason::Unreachable { cause, .. } => assert_eq!(
            cause,
            &Unreachable::Challenge {
                status: 403,
                marker: "cf-mitigated: challenge".into()
            }
        ),
        other => panic!("{other:?}"),
    }
    assert!(a.reason.to_string().contains("challenged at the edge"));

    // A good file, then a challenge: 12 hours' stop, then the last good version.
    challenged.store(0, Ordering::SeqCst);
    clock.advance(HOUR);
    cache.request_recrawl(&o).await;
    assert!(check(&cache, &server.url("/public")).await.allowed);
    challenged.store(403, Ordering::SeqCst);
    clock.advance(HOUR);
    cache.request_recrawl(&o).await;
    let a = check(&cache, &server.url("/public")).await;
    assert!(!a.allowed);
    assert!(matches!(a.reason, VerdictReason::Unreachable { .. }));
    clock.advance(13 * HOUR);
    cache.request_recrawl(&o).await;
    let a = check(&cache, &server.url("/public")).await;
    assert!(a.allowed, "after 12 hours, the last good version");
    assert!(matches!(a.reason, VerdictReason::LastGoodVersion { .. }));
    assert!(!check(&cache, &server.url("/private")).await.allowed);
}

#[tokio::test]
async fn payment_required_disallows_and_keeps_the_price() {
    let paying = Arc::new(AtomicU16::new(402));
    let switch = paying.clone();
    let server = TestServer::start(move |_| match switch.load(Ordering::SeqCst) {
        402 => Reply::status(402)
            .with_header("crawler-price", "USD 0.01")
            .with_header("x-other", "not kept"),
        _ => Reply::text(200, RULES),
    })
    .await;
    let f = fetch(&server, HtmlRobotsTxt::default()).await;
    match &f.outcome {
        FetchOutcome::PaymentRequired(p) => {
            assert_eq!(p.price(), Some("USD 0.01"));
            assert_eq!(p.headers, [("crawler-price".into(), "USD 0.01".into())]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(f.outcome.as_str(), "payment-required");

    let (cache, clock) = engine();
    let o = origin(&server);
    let a = check(&cache, &server.url("/public")).await;
    assert!(!a.allowed, "a 402 is not a 4xx allow-all");
    match &a.reason {
        VerdictReason::PaymentRequired(p) => assert_eq!(p.price(), Some("USD 0.01")),
        other => panic!("{other:?}"),
    }
    assert_eq!(a.reason.as_str(), "payment-required");
    assert!(a.reason.to_string().contains("crawler-price: USD 0.01"));
    // Not the failure ladder: still disallowed after 12 hours and after 30 days.
    for wait in [13 * HOUR, 31 * 24 * HOUR] {
        clock.advance(wait);
        cache.request_recrawl(&o).await;
        assert!(!check(&cache, &server.url("/public")).await.allowed);
    }
    let state = cache.state(&o).await.expect("state");
    assert_eq!(
        state.failing_since(),
        None,
        "a refusal is not a failure run"
    );
    // The price is dropped: the file's rules apply at once.
    paying.store(200, Ordering::SeqCst);
    cache.request_recrawl(&o).await;
    let a = check(&cache, &server.url("/public")).await;
    assert!(a.allowed);
    assert_eq!(a.reason, VerdictReason::Fetched);
}

#[tokio::test]
async fn an_html_page_served_as_robots_txt_is_recognised() {
    // By its content type, and by its body under a text/plain type.
    let typed = TestServer::start(|_| html(200, "<p>Not found</p>")).await;
    let sniffed = TestServer::start(|_| {
        Reply::text(200, "\n  <!doctype HTML>\n<html><body>Sorry</body></html>")
    })
    .await;
    let plain = TestServer::start(|_| Reply::text(200, RULES)).await;
    for (server, why) in [
        (&typed, "Content-Type text/html; charset=UTF-8"),
        (&sniffed, "the body starts as HTML"),
    ] {
        // Parsed by default, as Google and RFC 9309 do, and marked.
        let f = fetch(server, HtmlRobotsTxt::Parse).await;
        assert!(f.html, "{f:?}");
        assert!(matches!(f.outcome, FetchOutcome::Rules { .. }));
        let mut state = OriginState::new();
        state.record(SystemTime::UNIX_EPOCH, &f);
        match state.last_fetch().map(|v| &v.content) {
            Some(Content::Rules(file)) => assert!(file.html),
            other => panic!("{other:?}"),
        }
        // Unreachable when asked.
        let f = fetch(server, HtmlRobotsTxt::Unreachable).await;
        match &f.outcome {
            FetchOutcome::Unreachable(Unreachable::HtmlPage(detail)) => assert_eq!(detail, why),
            other => panic!("{other:?}"),
        }
        assert!(f.html);
    }
    let f = fetch(&plain, HtmlRobotsTxt::Unreachable).await;
    assert!(!f.html);
    assert!(matches!(f.outcome, FetchOutcome::Rules { .. }));

    // Through the engine: allowed by default (the page has no rules), stopped when asked.
    let (cache, _) = engine();
    let a = check(&cache, &typed.url("/x")).await;
    assert!(a.allowed);
    assert_eq!(a.reason, VerdictReason::Fetched);
    let (cache, _) = engine_with(HtmlRobotsTxt::Unreachable);
    let a = check(&cache, &typed.url("/x")).await;
    assert!(!a.allowed);
    assert!(matches!(
        a.reason,
        VerdictReason::Unreachable {
            cause: Unreachable::HtmlPage(_),
            ..
        }
    ));
}

/// The new outcomes through the persistent stores.
#[cfg(any(feature = "redb", feature = "redis"))]
mod stores {
    use super::*;
    use crawlgate::policy::{Change, FetchRecord, Payment, PolicyOptions};
    use crawlgate::store::{MemoryStore, Store};

    /// Every new outcome recorded in a state at successive times.
    fn changes(o: &Origin) -> Vec<Change> {
        let url = o.robots_txt_url();
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let body: &[u8] = b"<html>soft 404</html>";
        let mut html = Fetch::new(
            url.clone(),
            Some(200),
            FetchOutcome::Rules {
                body: body.into(),
                parsed: Arc::new(crawlgate::Robots::parse(body)),
            },
        );
        html.html = true;
        let outcomes = [
            html,
            Fetch::new(
                url.clone(),
                Some(403),
                FetchOutcome::Unreachable(Unreachable::Challenge {
                    status: 403,
                    marker: "cf-mitigated: challenge".into(),
                }),
            ),
            Fetch::new(
                url.clone(),
                Some(200),
                FetchOutcome::Unreachable(Unreachable::HtmlPage("the body starts as HTML".into())),
            ),
            Fetch::new(
                url,
                Some(402),
                FetchOutcome::PaymentRequired(Payment::new([("Crawler-Price", "USD 0.01")])),
            ),
        ];
        let mut state = OriginState::new();
        let mut out = Vec::new();
        for (i, f) in outcomes.iter().enumerate() {
            let at = t + HOUR * u32::try_from(i).expect("few");
            let change = Change::Fetched(FetchRecord::new(f, &state, at, at, at));
            state.apply(&change);
            out.push(change);
        }
        out
    }

    /// The new outcomes written to `store` and read back, as the memory store keeps them.
    async fn round_trip(store: &dyn Store) {
        let o = Origin::from_url("https://edge.example/").expect("origin");
        let changes = changes(&o);
        let written = store.update(&o, &changes).await.expect("update").state;
        let expected = MemoryStore::new()
            .update(&o, &changes)
            .await
            .expect("memory")
            .state;
        assert_eq!(written, expected);
        let loaded = store.load(&o).await.expect("load").expect("state");
        assert_eq!(loaded, expected);
        let kinds: Vec<&str> = loaded.history().map(|v| v.content.as_str()).collect();
        assert_eq!(
            kinds,
            ["fetched", "unreachable", "unreachable", "payment-required"]
        );
        let j = loaded.verdict_at(
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_900_000_000),
            &PolicyOptions::default(),
        );
        assert!(matches!(j.reason, VerdictReason::PaymentRequired(_)));
    }

    #[cfg(feature = "redb")]
    #[tokio::test]
    async fn the_new_outcomes_round_trip_in_redb() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = crawlgate::store::EmbeddedStore::open(dir.path().join("s.redb")).expect("open");
        round_trip(&store).await;
    }

    #[cfg(feature = "redis")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_new_outcomes_round_trip_in_redis() {
        let server = crate::support::redis_server::RedisServer::start();
        let store = crawlgate::store::RedisStore::connect(crawlgate::store::RedisOptions::new(
            server.url(),
        ))
        .await
        .expect("connect");
        round_trip(&store).await;
    }
}
