//! The gate's rules at real servers on 127.0.0.1, in real time, with arrival times recorded by
//! the server: the backoff curve of a site that answers 429 without `Retry-After` five times
//! (steps doubling within the jitter, the cap, forgiveness after a quiet spell), on options
//! scaled down from seconds to milliseconds; and, on a real `redis-server`, an `acquire`
//! cancelled while its in-flight lease request is under way frees that place at once, not at
//! the lease's expiry (a minute). (Spacing across processes and runs is in `../gate_fleet.rs`.)

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{Reply, TestServer};
use crawlgate::engine::{CacheOptions, Recorded, RobotsCache};
use crawlgate::ProductToken;

fn bot() -> ProductToken {
    ProductToken::new("testbot").expect("token")
}

/// The schedule's unit: a backoff's end is kept in whole milliseconds of the engine's clock, so a
/// request may come up to this much before the exact end measured from the record.
const MS: Duration = Duration::from_millis(1);

/// What a gap between two spaced requests may fall short of the spacing (their ways from slot
/// to server differ: loopback and scheduling on two shared cores).
const JITTER: Duration = Duration::from_millis(20);

/// The backoff's options scaled down: base 100 ms, cap 800 ms, forgiven 3 s after a
/// backoff's end (longer than [`LATE`]: a request late by a loaded machine must not have the
/// run forgiven, which 300 ms did not ensure), ±10 % jitter from a fixed seed; spacing 20 ms.
const BASE: Duration = Duration::from_millis(100);
const CAP: Duration = Duration::from_millis(800);
const FORGIVE: Duration = Duration::from_secs(3);
const SPACING: Duration = Duration::from_millis(20);
/// How much later than its slot a request may reach the server: a wake-up and a loopback
/// request on two shared cores (a few ms measured, more under load); generous, since only the
/// lower bound says whether the gate was polite (the steps themselves are the recorded
/// backoffs, asserted exactly, and `gate.rs` measures the waits exactly on a virtual clock).
const LATE: Duration = Duration::from_secs(2);

/// A site whose page requests are answered by `statuses` in turn (then 200), with the arrival
/// time of each.
async fn scripted_site(statuses: &'static [u16]) -> (TestServer, Arc<Mutex<Vec<Instant>>>) {
    let arrivals: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let seen = arrivals.clone();
    let server = TestServer::start(move |r| {
        if r.path == "/robots.txt" {
            return Reply::text(200, "User-agent: *\nDisallow: /private\n");
        }
        let mut seen = seen.lock().expect("arrivals");
        seen.push(Instant::now());
        let status = statuses.get(seen.len() - 1).copied().unwrap_or(200);
        Reply::text(status, "page")
    })
    .await;
    (server, arrivals)
}

/// `d` × `permille` / 1000.
fn per_mille(d: Duration, permille: u32) -> Duration {
    d * permille / 1000
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backoff_curve_at_a_real_server_has_its_steps_cap_jitter_and_forgiveness() {
    // Five 429s without Retry-After, then (after a quiet spell longer than the forgiveness)
    // one more, then 200s.
    const STATUSES: &[u16] = &[429, 429, 429, 429, 429, 429];
    let (server, arrivals) = scripted_site(STATUSES).await;
    let mut options = CacheOptions::default();
    options.gate.default_delay = SPACING;
    options.gate.backoff_base = BASE;
    options.gate.backoff_max = CAP;
    options.gate.backoff_forgive = FORGIVE;
    options.gate.backoff_jitter_percent = 10;
    options.gate.jitter_seed = Some(36);
    let cache = RobotsCache::new(options).expect("engine");
    let client = reqwest::Client::new();
    let mut waits = Vec::new();
    for k in 0..8 {
        if k == 5 {
            // Quiet: no request from the backoff's end until the forgiveness has passed.
            let last: Duration = waits.last().copied().unwrap_or_default();
            tokio::time::sleep(last + FORGIVE + Duration::from_millis(50)).await;
        }
        let url = server.url(&format!("/page{k}"));
        let permit = cache.acquire(&bot(), &url).await.expect("allowed");
        let response = client.get(&url).send().await.expect("fetch");
        let recorded = permit
            .record_response(response.status().as_u16(), response.headers())
            .await;
        match recorded {
            Recorded::BackedOff(wait) => waits.push(wait),
            Recorded::Served => {}
            other => panic!("page {k}: {other:?}"),
        }
    }
    let times = arrivals.lock().expect("arrivals").clone();
    assert_eq!(times.len(), 8);
    assert_eq!(waits.len(), 6);
    let gaps: Vec<Duration> = times.windows(2).map(|w| w[1] - w[0]).collect();
    eprintln!("  backoffs {waits:?}\n  gaps at the server {gaps:?}");
    // The steps: 100, 200, 400, 800 ms, then the cap (800), each within ±10 % and never above
    // the cap; after the quiet spell the run is forgiven: the first step again.
    let nominal = [100u64, 200, 400, 800, 800, 100].map(Duration::from_millis);
    for (k, (wait, step)) in waits.iter().zip(nominal).enumerate() {
        assert!(
            *wait >= per_mille(step, 900) && *wait <= per_mille(step, 1100).min(CAP),
            "backoff {k}: {wait:?} for a step of {step:?}"
        );
    }
    // At the server: no request before the backoff's end (the backoff starts when the 429 is
    // recorded, after it arrived), nor long after it.
    for k in 0..4 {
        assert!(gaps[k] + MS >= waits[k], "gap {k}: {gaps:?} {waits:?}");
        assert!(gaps[k] <= waits[k] + LATE, "gap {k}: {gaps:?} {waits:?}");
    }
    assert!(gaps[4] + MS >= waits[4] + FORGIVE, "{gaps:?}");
    assert!(gaps[5] + MS >= waits[5], "{gaps:?} {waits:?}");
    assert!(gaps[5] <= waits[5] + LATE, "{gaps:?} {waits:?}");
    // Then the spacing alone. Its slots are taken before the requests go (a backoff starts
    // after the answer came): the second request's way from its slot to the server may be
    // shorter than the first's, by a few ms (`JITTER`, as in `gate_keys`).
    assert!(gaps[6] + JITTER >= SPACING, "{gaps:?}");
    assert!(gaps[6] <= SPACING + LATE, "{gaps:?}");
}

#[cfg(feature = "redis")]
mod cancelled_lease {
    use std::net::SocketAddr;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};

    use super::bot;
    use crate::support::redis_server::RedisServer;
    use crawlgate::engine::{CacheOptions, RobotsCache, SystemClock};
    use crawlgate::policy::{Fetch, FetchOutcome};
    use crawlgate::store::{RedisOptions, RedisStore};
    use crawlgate::{Origin, Robots};

    /// How long the proxy holds the first in-flight lease request: the time the test has to
    /// see it held and cancel the `acquire`.
    const HOLD: Duration = Duration::from_secs(2);
    /// The lease's expiry: what a place lost to a cancellation would cost. A minute, so that
    /// a lost place is unmistakable (the next permit then a minute later, against a few
    /// seconds at most), however loaded the machine.
    const EXPIRY: Duration = Duration::from_secs(60);

    /// A TCP proxy in front of the Redis server that, while `armed`, holds the first chunk
    /// of commands naming an in-flight set (`…:inflight`) for [`HOLD`] before passing it on:
    /// a lease request under way. Order on each connection is kept, so what the client sends
    /// after it reaches the server after it.
    async fn holding_proxy(target: SocketAddr, armed: Arc<AtomicBool>) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(target).await else {
                    continue;
                };
                let armed = armed.clone();
                let (mut client_read, mut client_write) = client.into_split();
                let (mut server_read, mut server_write) = server.into_split();
                tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
                });
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 64 * 1024];
                    loop {
                        let n = match client_read.read(&mut buf).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => n,
                        };
                        let chunk = &buf[..n];
                        let names_a_set = chunk.windows(9).any(|w| w == b":inflight");
                        if names_a_set && armed.swap(false, Ordering::SeqCst) {
                            tokio::time::sleep(HOLD).await;
                        }
                        if server_write.write_all(chunk).await.is_err() {
                            break;
                        }
                    }
                });
            }
        });
        addr
    }

    /// An engine on the Redis server behind `proxy`, one request in flight per origin across
    /// the fleet, `robots.txt` put in for `origins`.
    async fn engine(proxy: SocketAddr, origins: &[&str]) -> RobotsCache {
        let store = RedisStore::connect(RedisOptions::new(format!("redis://{proxy}/")))
            .await
            .expect("connect");
        let mut options = CacheOptions::default();
        options.gate.default_delay = Duration::ZERO;
        options.gate.max_concurrency = 1;
        options.gate.in_flight_expiry = EXPIRY;
        let cache = RobotsCache::with_store(options, Arc::new(store), Arc::new(SystemClock))
            .expect("engine");
        for origin in origins {
            let body = "User-agent: *\nDisallow: /private\n";
            let outcome = FetchOutcome::Rules {
                body: Arc::from(body.as_bytes()),
                parsed: Arc::new(Robots::parse(body.as_bytes())),
            };
            let o = Origin::from_url(origin).expect("origin");
            let fetch = Fetch::new(format!("{origin}/robots.txt"), Some(200), outcome);
            cache.insert(&o, fetch).await;
        }
        cache
    }

    /// An `acquire` cancelled (dropped) while its request for the key's one
    /// in-flight place is on its way to Redis: the place the script then gives it is freed
    /// behind it, so the next `acquire` gets its permit as soon as Redis answers, not after the
    /// lease's expiry (a minute).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_cancelled_acquire_frees_the_place_its_lease_request_took() {
        let redis = RedisServer::start();
        let armed = Arc::new(AtomicBool::new(false));
        let target: SocketAddr = format!("127.0.0.1:{}", redis.port())
            .parse()
            .expect("address");
        let proxy = holding_proxy(target, armed.clone()).await;
        let cache = engine(proxy, &["http://warm.test", "http://cancel.test"]).await;
        // The scripts loaded (a script's first call may be sent twice) and the connection open.
        let warm = cache
            .acquire(&bot(), "http://warm.test/page")
            .await
            .expect("allowed");
        warm.record(200, None).await;
        armed.store(true, Ordering::SeqCst);
        // Cancelled once the proxy holds its lease request (not after a fixed time, which a
        // loaded machine may spend before the request is sent).
        let token = bot();
        let first = cache.acquire(&token, "http://cancel.test/first");
        let held = async {
            while armed.load(Ordering::SeqCst) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        let cancelled = tokio::time::timeout(EXPIRY, async {
            tokio::select! {
                biased;
                () = held => true,
                _ = first => false,
            }
        })
        .await
        .expect("the lease request was sent");
        assert!(cancelled, "cancelled while the lease request was held");
        let start = Instant::now();
        let permit = tokio::time::timeout(
            EXPIRY * 2,
            cache.acquire(&bot(), "http://cancel.test/second"),
        )
        .await
        .expect("a permit before twice the expiry")
        .expect("allowed");
        let took = start.elapsed();
        eprintln!(
            "  the next permit after {took:?} (lease request held {HOLD:?}, expiry {EXPIRY:?})"
        );
        // Its requests queue behind the held one (at most HOLD), then a round trip or two: a
        // few seconds, where the cancelled place kept would have cost the minute's expiry.
        assert!(took < EXPIRY / 2, "{took:?}: the cancelled place was kept");
        let set = b"crawlgate:{http://cancel.test}:inflight";
        assert_eq!(
            redis.command(&[b"ZCARD", set]),
            "1",
            "only the permit's own place"
        );
        permit.record(200, None).await;
        assert_eq!(redis.command(&[b"ZCARD", set]), "0");
    }
}
