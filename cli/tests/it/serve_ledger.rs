//! One slot ledger for every replica: two `crawlgate serve` processes on one real
//! redis-server, asked in turn, and a loopback site that records when each page request
//! arrives. A spent slot id gives no second permit on the other replica; simultaneous first
//! asks book one slot; a made-up id gets nothing; a late confirmation does not crowd the next
//! permit; booking ahead past the bound books nothing and says when to come back.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::serve::Serve;
use crate::serve_pace::{exchange, post};
use crate::support::{redis_server::RedisServer, Reply, TestServer};

/// Page requests' arrivals at the site, with their paths.
type Arrivals = Arc<Mutex<Vec<(Instant, String)>>>;

/// A site whose robots.txt says `Crawl-delay: DELAY`; every page request's arrival is logged.
fn site(rt: &tokio::runtime::Runtime, delay: u32) -> (TestServer, Arrivals) {
    let arrivals: Arrivals = Arc::default();
    let log = arrivals.clone();
    let site = rt.block_on(TestServer::start(move |req| {
        if req.path == "/robots.txt" {
            return Reply::text(200, &format!("User-agent: *\nCrawl-delay: {delay}\n"));
        }
        log.lock()
            .expect("log")
            .push((Instant::now(), req.path.clone()));
        Reply::text(200, "a page")
    }));
    (site, arrivals)
}

/// Two replicas on one redis-server (kept alive with them).
struct Fleet {
    _redis: RedisServer,
    replicas: [Serve; 2],
}

impl Fleet {
    fn start() -> Fleet {
        let redis = RedisServer::start();
        let state = redis.url();
        let replicas = [
            Serve::start(&["--state", &state, "--allow-private"]),
            Serve::start(&["--state", &state, "--allow-private"]),
        ];
        Fleet {
            _redis: redis,
            replicas,
        }
    }

    /// `/v1/acquire` on replica `n` (0 or 1) for `agent` and `url`, sending `slot` back if
    /// given.
    fn acquire(&self, n: usize, agent: &str, url: &str, slot: Option<&Value>) -> Value {
        let mut body = json!({"agent": agent, "url": url});
        if let Some(s) = slot {
            body["slot"] = s.clone();
        }
        post(&self.replicas[n % 2], "/v1/acquire", body, 200).1
    }

    /// The replicas' addresses.
    fn addrs(&self) -> [String; 2] {
        [self.replicas[0].addr.clone(), self.replicas[1].addr.clone()]
    }
}

/// `/v1/acquire` at `addr` for `agent` and `url` (from a thread of its own).
fn acquire_at(addr: &str, agent: &str, url: &str) -> Value {
    let body = json!({"agent": agent, "url": url});
    let (code, _, text) = exchange(addr, "POST", "/v1/acquire", Some(&body));
    assert_eq!(code, 200, "{text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Fetches `url` from the site (its arrival is logged there).
fn fetch(url: &str) {
    let page = url.split_once("//").map_or("", |(_, rest)| rest);
    let (host, path) = page.split_at(page.find('/').unwrap_or(page.len()));
    let (status, _, _) = exchange(host, "GET", path, None);
    assert_eq!(status, 200, "{url}");
}

fn wait_ms(v: &Value) -> u64 {
    v["wait_ms"]
        .as_u64()
        .unwrap_or_else(|| panic!("wait_ms: {v}"))
}

/// The smallest gap between two arrivals, and the pair.
fn closest(log: &[(Instant, String)]) -> (Duration, String) {
    let mut sorted = log.to_vec();
    sorted.sort_by_key(|(at, _)| *at);
    sorted
        .windows(2)
        .map(|w| (w[1].0 - w[0].0, format!("{} then {}", w[0].1, w[1].1)))
        .min()
        .unwrap_or((Duration::MAX, String::new()))
}

/// (a) A slot id whose permit was given on one replica, sent to the other again and again for
/// three spacings: never a second permit of that id, and the site sees the spacing.
#[test]
fn a_spent_slot_id_gives_no_second_permit_on_the_other_replica() {
    let rt = crate::support::runtime(1);
    let (site, arrivals) = site(&rt, 1);
    let fleet = Fleet::start();
    let url = site.url("/page");
    let first = fleet.acquire(0, "bot", &url, None);
    assert_eq!(first["permit"], true, "{first}");
    let spent = first["slot"].clone();
    assert!(spent.is_string(), "{first}");
    fetch(&url);
    let mut permits_of_spent = 1;
    let started = Instant::now();
    let mut n = 1;
    while started.elapsed() < Duration::from_secs(3) {
        let v = fleet.acquire(n, "bot", &url, Some(&spent));
        if v["permit"] == true {
            // A permit of a new slot (a new fetch of the URL, a spacing on) is fair; one of
            // the spent id is not.
            if v["slot"] == spent {
                permits_of_spent += 1;
            }
            fetch(&url);
        }
        n += 1;
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(permits_of_spent, 1, "the spent id gave a second permit");
    let (gap, pair) = closest(&arrivals.lock().expect("log"));
    assert!(
        gap >= Duration::from_millis(950),
        "{pair}: {gap:?} apart at Crawl-delay: 1"
    );
}

/// (b) Ten simultaneous first asks for one (agent, URL), five on each replica, on a busy
/// origin: one slot, one id; the next caller's slot is one spacing after it, not ten.
#[test]
fn simultaneous_first_asks_book_one_slot() {
    let rt = crate::support::runtime(1);
    let (site, _) = site(&rt, 1);
    let fleet = Fleet::start();
    let warm = fleet.acquire(0, "bot", &site.url("/warm"), None);
    assert_eq!(warm["permit"], true, "{warm}");
    let url = site.url("/x");
    let start = Arc::new(std::sync::Barrier::new(10));
    let asks: Vec<_> = (0..10)
        .map(|n| {
            let (addr, url, start) = (fleet.addrs()[n % 2].clone(), url.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                acquire_at(&addr, "bot", &url)
            })
        })
        .collect();
    let answers: Vec<Value> = asks.into_iter().map(|t| t.join().expect("ask")).collect();
    let mut ids: Vec<&Value> = answers.iter().map(|v| &v["slot"]).collect();
    ids.sort_by_key(|v| v.to_string());
    ids.dedup();
    assert_eq!(ids.len(), 1, "one slot: {answers:?}");
    assert!(answers.iter().all(|v| v["permit"] == false), "{answers:?}");
    let next = fleet.acquire(1, "bot", &site.url("/y"), None);
    assert!(
        (1_000..=2_000).contains(&wait_ms(&next)),
        "the next slot is a spacing after the one booked: {next}"
    );
}

/// The id a client could compute before ids were random: `v1.AT.RESERVED.CHECK`, CHECK 16 hex
/// digits of SHA-256 over the times, the token and the URL.
fn computed_id(token: &str, url: &str, at_ms: u64) -> String {
    let mut hash = Sha256::new();
    hash.update(b"v1");
    hash.update(at_ms.to_be_bytes());
    hash.update(at_ms.to_be_bytes());
    hash.update((token.len() as u64).to_be_bytes());
    hash.update(token.as_bytes());
    hash.update(url.as_bytes());
    let check: String = hash.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("v1.{at_ms}.{at_ms}.{check}")
}

/// (c) Right after a permit, ids made up for a slot "now" (computed as the old ids were, or
/// random hex) get no permit on either replica: the caller's own booking, a spacing on.
#[test]
fn a_made_up_slot_id_gets_nothing() {
    let rt = crate::support::runtime(1);
    let (site, _) = site(&rt, 1);
    let fleet = Fleet::start();
    let a = fleet.acquire(0, "bot", &site.url("/a"), None);
    assert_eq!(a["permit"], true, "{a}");
    let url = site.url("/b");
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64;
    for (n, id) in [
        computed_id("bot", &url, now),
        computed_id("bot", &url, now - 500),
        "0123456789abcdef0123456789abcdef".to_owned(),
    ]
    .into_iter()
    .enumerate()
    {
        let v = fleet.acquire(n, "bot", &url, Some(&json!(id)));
        assert_eq!(v["permit"], false, "{id}: {v}");
        assert_ne!(v["slot"], json!(id), "{v}");
        assert!(wait_ms(&v) >= 500, "{id}: {v}");
    }
}

/// (d) A slot confirmed 950 ms late (spacing 1 s) on one replica, the next slot confirmed on
/// time on the other: the two fetches reach the site a spacing apart, not 50 ms.
#[test]
fn a_late_confirmation_does_not_crowd_the_next_permit() {
    let rt = crate::support::runtime(1);
    let (site, arrivals) = site(&rt, 1);
    let fleet = Fleet::start();
    let warm = site.url("/warm");
    assert_eq!(fleet.acquire(0, "bot", &warm, None)["permit"], true);
    fetch(&warm);
    let (late, next) = (site.url("/late"), site.url("/next"));
    let l = fleet.acquire(0, "bot", &late, None);
    let n = fleet.acquire(1, "bot", &next, None);
    let asked = Instant::now();
    let (l_wait, n_wait) = (wait_ms(&l), wait_ms(&n));
    assert!(n_wait > l_wait, "{l} {n}");
    // The late one: 950 ms after its slot.
    std::thread::sleep(Duration::from_millis(l_wait + 950).saturating_sub(asked.elapsed()));
    let v = fleet.acquire(0, "bot", &late, Some(&l["slot"]));
    assert_eq!(v["permit"], true, "late by less than a spacing: {v}");
    fetch(&late);
    // The next one at its time, on the other replica, until its permit.
    std::thread::sleep(Duration::from_millis(n_wait).saturating_sub(asked.elapsed()));
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let v = fleet.acquire(1, "bot", &next, Some(&n["slot"]));
        if v["permit"] == true {
            break;
        }
        assert!(Instant::now() < deadline, "no permit: {v}");
        std::thread::sleep(Duration::from_millis(wait_ms(&v).max(1)));
    }
    fetch(&next);
    let (gap, pair) = closest(&arrivals.lock().expect("log"));
    assert!(
        gap >= Duration::from_millis(950),
        "{pair}: {gap:?} apart at Crawl-delay: 1"
    );
}

/// (e) At `Crawl-delay: 10` the default bound ahead (2 minutes) holds twelve slots behind a
/// permit: the next ask books nothing and says when to come back, on either replica and for
/// any agent; one agent's pending slots are bounded too (32, at `Crawl-delay: 1`).
#[test]
fn booking_ahead_past_the_bound_books_nothing_and_says_when() {
    let rt = crate::support::runtime(1);
    let (slow, _) = site(&rt, 10);
    let fleet = Fleet::start();
    let first = fleet.acquire(0, "greedy", &slow.url("/0"), None);
    assert_eq!(first["permit"], true, "{first}");
    for i in 1..=12 {
        let v = fleet.acquire(i, "greedy", &slow.url(&format!("/{i}")), None);
        assert!(v["slot"].is_string() && v["later"].is_null(), "{i}: {v}");
    }
    for (n, agent) in [(0, "greedy"), (1, "greedy"), (0, "other"), (1, "other")] {
        let url = slow.url(&format!("/{agent}-{n}"));
        let v = fleet.acquire(n, agent, &url, None);
        assert_eq!(
            (v["permit"].clone(), v["slot"].clone(), v["later"].clone()),
            (json!(false), Value::Null, json!("ahead")),
            "{v}"
        );
        // The 13th slot would come at 130 s: come back at 10 s, when it is 120 s out.
        assert!((9_000..=10_000).contains(&wait_ms(&v)), "{v}");
    }

    let (fast, _) = site(&rt, 1);
    for i in 0..33 {
        let v = fleet.acquire(i, "greedy", &fast.url(&format!("/{i}")), None);
        assert!(v["later"].is_null(), "{i}: {v}");
    }
    let full = fleet.acquire(0, "greedy", &fast.url("/33"), None);
    assert_eq!(
        (full["slot"].clone(), full["later"].clone()),
        (Value::Null, json!("agent-full")),
        "{full}"
    );
    // Another agent still books, right after the 32 pending slots.
    let other = fleet.acquire(1, "other", &fast.url("/other"), None);
    assert!(other["slot"].is_string(), "{other}");
    assert!((32_000..=33_000).contains(&wait_ms(&other)), "{other}");
}

/// A round-robin TCP proxy in front of `backends` (no affinity: each connection goes to the
/// next), as an ordinary load balancer. Runs until the test process ends.
fn round_robin(backends: [String; 2]) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    std::thread::spawn(move || {
        for (n, client) in listener.incoming().enumerate() {
            let Ok(client) = client else { continue };
            let Ok(server) = std::net::TcpStream::connect(&backends[n % 2]) else {
                continue;
            };
            let (mut c_read, mut s_write) = match (client.try_clone(), server.try_clone()) {
                (Ok(c), Ok(s)) => (c, s),
                _ => continue,
            };
            let (mut s_read, mut c_write) = (server, client);
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut c_read, &mut s_write);
                let _ = s_write.shutdown(std::net::Shutdown::Write);
            });
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut s_read, &mut c_write);
                let _ = c_write.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    addr
}

/// The fleet run: six workers asking with `wait: false` and 0–0.5 s of jitter before asking
/// again, six with `wait: true`, all through a round-robin proxy to two replicas on one
/// redis-server, 18 pages of one origin at `Crawl-delay: 1`. The table (on standard error)
/// gives the smallest and the 1st-percentile gap at the site against the spacing; every
/// permit's slot id is given once.
#[test]
fn a_fleet_behind_a_round_robin_proxy_keeps_the_spacing() {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    const PAGES: usize = 18;
    let rt = crate::support::runtime(1);
    let (site, arrivals) = site(&rt, 1);
    let fleet = Fleet::start();
    let proxy = round_robin(fleet.addrs());
    let next_page = Arc::new(AtomicUsize::new(0));
    let permits: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let base = site.url("");
    let base = base.trim_end_matches('/').to_owned();
    let workers: Vec<_> = (0..12u64)
        .map(|w| {
            let (proxy, base) = (proxy.clone(), base.clone());
            let (next_page, permits) = (next_page.clone(), permits.clone());
            std::thread::spawn(move || {
                let long_poll = w >= 6;
                // A small LCG per worker: jitter without a dependency.
                let mut seed = w.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let started = Instant::now();
                loop {
                    let page = next_page.fetch_add(1, Ordering::SeqCst);
                    if page >= PAGES {
                        return;
                    }
                    let url = format!("{base}/p{page}");
                    let mut slot = Value::Null;
                    loop {
                        assert!(started.elapsed() < Duration::from_secs(60), "stuck");
                        let mut body = json!({"agent": "bot", "url": url, "wait": long_poll});
                        if slot.is_string() {
                            body["slot"] = slot.clone();
                        }
                        let (code, _, text) = exchange(&proxy, "POST", "/v1/acquire", Some(&body));
                        assert_eq!(code, 200, "{text}");
                        let v: Value = serde_json::from_str(&text).expect("JSON");
                        if v["permit"] == true {
                            let id = v["slot"].as_str().expect("a permit's slot").to_owned();
                            *permits.lock().expect("permits").entry(id).or_default() += 1;
                            break;
                        }
                        if !v["slot"].is_null() {
                            slot = v["slot"].clone();
                        }
                        seed = seed
                            .wrapping_mul(6_364_136_223_846_793_005)
                            .wrapping_add(1_442_695_040_888_963_407);
                        let jitter = if long_poll { 0 } else { (seed >> 33) % 500 };
                        std::thread::sleep(Duration::from_millis(wait_ms(&v) + jitter));
                    }
                    fetch(&url);
                    let record = json!({"url": url, "status": 200});
                    let (code, _, text) = exchange(&proxy, "POST", "/v1/record", Some(&record));
                    assert_eq!(code, 200, "{text}");
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker");
    }
    let permits = permits.lock().expect("permits").clone();
    assert_eq!(permits.len(), PAGES, "{permits:?}");
    assert!(permits.values().all(|n| *n == 1), "{permits:?}");
    let mut log = arrivals.lock().expect("log").clone();
    log.sort_by_key(|(at, _)| *at);
    assert_eq!(log.len(), PAGES);
    let mut gaps: Vec<Duration> = log.windows(2).map(|w| w[1].0 - w[0].0).collect();
    gaps.sort();
    let p1 = gaps[(gaps.len() - 1) / 100];
    eprintln!("| spacing | gaps | min gap | 1st percentile | permits per slot id |");
    eprintln!("|---|---|---|---|---|");
    eprintln!(
        "| 1.000 s | {} | {:.3} s | {:.3} s | 1 (of {} ids) |",
        gaps.len(),
        gaps[0].as_secs_f64(),
        p1.as_secs_f64(),
        permits.len()
    );
    assert!(
        gaps[0] >= Duration::from_millis(900),
        "two fetches {:?} apart at Crawl-delay: 1",
        gaps[0]
    );
}

/// `--book-ahead` and `--max-pending-per-agent` set the bounds (here 2.5 s and 1, at
/// `Crawl-delay: 1`).
#[test]
fn the_bounds_on_booking_ahead_are_flags() {
    let rt = crate::support::runtime(1);
    let (site, _) = site(&rt, 1);
    let serve = Serve::start(&[
        "--no-state",
        "--allow-private",
        "--book-ahead",
        "2.5",
        "--max-pending-per-agent",
        "1",
    ]);
    let acquire = |agent: &str, path: &str| {
        let body = json!({"agent": agent, "url": site.url(path)});
        post(&serve, "/v1/acquire", body, 200).1
    };
    assert_eq!(acquire("bot", "/0")["permit"], true);
    let one = acquire("bot", "/1");
    assert!(one["slot"].is_string(), "{one}");
    // bot holds its one pending slot; another agent books the next (2 s out).
    let full = acquire("bot", "/2");
    assert_eq!(full["later"], "agent-full", "{full}");
    let other = acquire("other", "/o");
    assert!(other["slot"].is_string(), "{other}");
    // The next slot would be 3 s out, past 2.5 s.
    let ahead = acquire("third", "/t");
    assert_eq!(ahead["later"], "ahead", "{ahead}");
    assert!(
        (1..=500).contains(&wait_ms(&ahead)),
        "the 3 s slot is within 2.5 s in half a second: {ahead}"
    );
}
