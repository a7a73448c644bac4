//! `crawlgate serve`'s politeness as a fleet meets it: arrival times recorded at a test site,
//! two workers, two replicas on one redis-server.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::serve::Serve;
use crate::support::{redis_server::RedisServer, Reply, TestServer};

/// What each page request reached the site at, with its path.
type Arrivals = Arc<Mutex<Vec<(Instant, String)>>>;

/// A site whose robots.txt says `Crawl-delay: 1` and whose third page request answers 429
/// with `Retry-After: 2`; every page request's arrival is logged.
fn limited_site(rt: &tokio::runtime::Runtime) -> (TestServer, Arrivals) {
    let arrivals: Arrivals = Arc::default();
    let log = arrivals.clone();
    let site = rt.block_on(TestServer::start(move |req| {
        if req.path == "/robots.txt" {
            return Reply::text(200, "User-agent: *\nCrawl-delay: 1\n");
        }
        let mut log = log.lock().expect("log");
        log.push((Instant::now(), req.path.clone()));
        if log.len() == 3 {
            Reply::status(429).with_header("Retry-After", "2")
        } else {
            Reply::text(200, "a page")
        }
    }));
    (site, arrivals)
}

/// One HTTP/1.1 exchange on a connection of its own: status, head (lower case), body.
pub(crate) fn exchange(
    addr: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if method == "POST" {
        head.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("write head");
    stream.write_all(body.as_bytes()).expect("write body");
    // Read up to the body's declared length: the test site keeps its connections open.
    let mut raw = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).unwrap_or(0);
        raw.extend_from_slice(&chunk[..n]);
        if n == 0 || complete(&raw) {
            break;
        }
    }
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    (status, head.to_ascii_lowercase(), body.to_owned())
}

/// Whether `raw` holds a whole response with a `Content-Length`.
fn complete(raw: &[u8]) -> bool {
    let text = String::from_utf8_lossy(raw);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    let head = head.to_ascii_lowercase();
    header(&head, "content-length")
        .and_then(|n| n.parse::<usize>().ok())
        .is_some_and(|n| body.len() >= n)
}

/// A header's value from a lower-cased head.
pub(crate) fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .map(str::trim)
}

/// POSTs `body` to the service, expecting `status`: the answer's head and JSON.
#[track_caller]
pub(crate) fn post(serve: &Serve, path: &str, body: Value, status: u16) -> (String, Value) {
    let (code, head, text) = exchange(&serve.addr, "POST", path, Some(&body));
    assert_eq!(code, status, "{path} {body}: {text}");
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"));
    (head, v)
}

/// A worker of the fleet: for each page, acquires with `wait: true` (sending back its slot
/// id), fetches the page once it has the permit, and records the status and `Retry-After`.
fn worker(addr: String, site: String, name: &'static str, pages: usize) {
    let started = Instant::now();
    for i in 0..pages {
        let url = format!("{site}/{name}/{i}");
        let mut slot = Value::Null;
        loop {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{name}: no permit"
            );
            let mut body = json!({"agent": "bot", "url": url, "wait": true});
            if slot.is_string() {
                body["slot"] = slot.clone();
            }
            let (code, _, text) = exchange(&addr, "POST", "/v1/acquire", Some(&body));
            assert_eq!(code, 200, "{text}");
            let v: Value = serde_json::from_str(&text).expect("JSON");
            if v["permit"] == true {
                break;
            }
            slot = v["slot"].clone();
            let wait = v["wait_ms"].as_u64().expect("wait_ms");
            std::thread::sleep(Duration::from_millis(wait.min(5_000)));
        }
        let page = url.split_once("//").map_or("", |(_, rest)| rest);
        let (host, path) = page.split_at(page.find('/').unwrap_or(page.len()));
        let (status, head, _) = exchange(host, "GET", path, None);
        let mut record = json!({"url": url, "status": status});
        if let Some(seconds) = header(&head, "retry-after").and_then(|s| s.parse::<u64>().ok()) {
            record["retry_after"] = json!(seconds);
        }
        let (code, _, text) = exchange(&addr, "POST", "/v1/record", Some(&record));
        assert_eq!(code, 200, "{text}");
    }
}

/// Two workers, one per address, three pages each; then the site's arrival log must show no
/// page within 2 s after the 429 and the pages spaced by the crawl-delay.
fn two_workers_at_a_limited_site(addrs: [String; 2]) {
    let rt = crate::support::runtime(1);
    let (site, arrivals) = limited_site(&rt);
    let base = site.url("");
    let base = base.trim_end_matches('/').to_owned();
    let workers: Vec<_> = addrs
        .into_iter()
        .zip(["one", "two"])
        .map(|(addr, name)| {
            let base = base.clone();
            std::thread::spawn(move || worker(addr, base, name, 3))
        })
        .collect();
    for w in workers {
        w.join().expect("worker");
    }
    let log = arrivals.lock().expect("log").clone();
    assert_eq!(log.len(), 6, "{log:?}");
    let first = log[0].0;
    for (i, (at, path)) in log.iter().enumerate() {
        let status = if i == 2 { " 429 Retry-After: 2" } else { "" };
        eprintln!(
            "arrival {i}: {:>6.3} s {path}{status}",
            at.duration_since(first).as_secs_f64()
        );
    }
    let limited = log[2].0;
    for (at, path) in &log[3..] {
        let after = at.duration_since(limited);
        assert!(
            after >= Duration::from_millis(1_950),
            "{path} reached the site {after:?} after the 429 with Retry-After: 2"
        );
    }
    // Slots are 1 s apart; a permit handed out late shortens the next gap by as much.
    for pair in log.windows(2) {
        let gap = pair[1].0.duration_since(pair[0].0);
        assert!(
            gap >= Duration::from_millis(750),
            "{} came {gap:?} after {}",
            pair[1].1,
            pair[0].1
        );
    }
}

#[test]
fn a_429_reaches_the_slot_another_worker_holds() {
    let serve = Serve::start(&["--no-state", "--allow-private"]);
    two_workers_at_a_limited_site([serve.addr.clone(), serve.addr.clone()]);
}

#[test]
fn a_429_on_one_replica_reaches_the_slot_held_on_the_other() {
    let redis = RedisServer::start();
    let state = redis.url();
    let a = Serve::start(&["--state", &state, "--allow-private"]);
    let b = Serve::start(&["--state", &state, "--allow-private"]);
    two_workers_at_a_limited_site([a.addr.clone(), b.addr.clone()]);
}

/// A site of one robots.txt with `Crawl-delay: 2`.
fn paced_site(rt: &tokio::runtime::Runtime) -> TestServer {
    rt.block_on(TestServer::start(|req| {
        if req.path == "/robots.txt" {
            Reply::text(200, "User-agent: *\nCrawl-delay: 2\nDisallow: /private\n")
        } else {
            Reply::status(404)
        }
    }))
}

#[test]
fn asking_again_books_no_other_slot() {
    let rt = crate::support::runtime(1);
    let site = paced_site(&rt);
    let serve = Serve::start(&["--no-state", "--allow-private"]);
    let acquire = |url: &str, slot: Option<&Value>| {
        let mut body = json!({"agent": "bot", "url": url});
        if let Some(s) = slot {
            body["slot"] = s.clone();
        }
        post(&serve, "/v1/acquire", body, 200).1
    };
    let a = acquire(&site.url("/a"), None);
    assert_eq!(a["permit"], true, "{a}");
    assert!(a["slot"].is_string(), "{a}");
    // The first worker's slot (2 s), then the second's (4 s).
    let b = acquire(&site.url("/b"), None);
    let c = acquire(&site.url("/c"), None);
    assert_eq!(
        (b["permit"].clone(), c["permit"].clone()),
        (json!(false), json!(false))
    );
    assert_ne!(b["not_before"], c["not_before"]);
    // The first worker asks again and again, with its id and without: the same slot, and the
    // second worker's slot stays where it was.
    for slot in [None, Some(&b["slot"]), None, Some(&b["slot"])] {
        let again = acquire(&site.url("/b"), slot);
        assert_eq!(
            (
                again["slot"].clone(),
                again["not_before"].clone(),
                again["permit"].clone()
            ),
            (b["slot"].clone(), b["not_before"].clone(), json!(false)),
            "{again}"
        );
        let c_again = acquire(&site.url("/c"), Some(&c["slot"]));
        assert_eq!(c_again["not_before"], c["not_before"], "{c_again}");
    }
    // Nothing was booked meanwhile: the next new slot is one spacing after the second's.
    let d = acquire(&site.url("/d"), None);
    let ms = |v: &Value| v["wait_ms"].as_u64().expect("wait_ms");
    let gaps = (ms(&c) - ms(&b), ms(&d) - ms(&c));
    assert!(
        (1_900..=2_000).contains(&gaps.0) && (1_900..=2_000).contains(&gaps.1),
        "{gaps:?}: {b} {c} {d}"
    );

    // An id is no key: a made-up one, or one of another URL, gets the caller's own slot (what
    // asking without it gets); an over-long one is a 400 naming `slot`.
    for (url, slot, own) in [
        (site.url("/b"), json!("v1.1.1.0123456789abcdef"), &b),
        (
            site.url("/b"),
            json!("00000000000000000000000000000000"),
            &b,
        ),
        (site.url("/c"), b["slot"].clone(), &c),
    ] {
        let again = acquire(&url, Some(&slot));
        assert_eq!(
            (again["slot"].clone(), again["permit"].clone()),
            (own["slot"].clone(), json!(false)),
            "{again}"
        );
    }
    let long = json!({"agent": "bot", "url": site.url("/b"), "slot": "0".repeat(65)});
    let (_, v) = post(&serve, "/v1/acquire", long, 400);
    assert_eq!(v["error"]["field"], "slot", "{v}");

    // At its time the slot is the permit, once: asked again within a spacing, nothing is
    // booked and the answer says when to come back.
    std::thread::sleep(Duration::from_millis(ms(&b) + 20));
    let now = acquire(&site.url("/b"), Some(&b["slot"]));
    assert_eq!(
        (now["permit"].clone(), now["slot"].clone()),
        (json!(true), b["slot"].clone()),
        "{now}"
    );
    let next = acquire(&site.url("/b"), Some(&b["slot"]));
    assert_eq!(
        (
            next["permit"].clone(),
            next["slot"].clone(),
            next["later"].clone()
        ),
        (json!(false), Value::Null, json!("just-served")),
        "{next}"
    );
    assert!((1..=2_000).contains(&ms(&next)), "{next}");
    // Another agent with b's id: a slot of its own (after d's), not b's.
    let other = json!({"agent": "other", "url": site.url("/b"), "slot": b["slot"]});
    let (_, o) = post(&serve, "/v1/acquire", other, 200);
    assert_eq!(o["permit"], false, "{o}");
    assert_ne!(o["slot"], b["slot"], "{o}");
    // A disallowed URL: no slot.
    let p = acquire(&site.url("/private/x"), None);
    assert_eq!(
        (p["allowed"].clone(), p["slot"].clone()),
        (json!(false), Value::Null),
        "{p}"
    );
}

#[test]
fn a_wait_past_max_wait_is_answered_at_once() {
    let rt = crate::support::runtime(1);
    let site = rt.block_on(TestServer::start(|req| {
        if req.path == "/robots.txt" {
            Reply::text(200, "User-agent: *\nCrawl-delay: 5\n")
        } else {
            Reply::status(404)
        }
    }));
    let serve = Serve::start(&["--no-state", "--allow-private", "--max-wait", "1"]);
    let body = |path: &str| json!({"agent": "bot", "url": site.url(path), "wait": true});
    let (_, a) = post(&serve, "/v1/acquire", body("/a"), 200);
    assert_eq!(a["permit"], true, "{a}");
    let asked = Instant::now();
    let (head, b) = post(&serve, "/v1/acquire", body("/b"), 200);
    let took = asked.elapsed();
    assert!(
        took < Duration::from_millis(700),
        "held {took:?} for a slot 5 s out"
    );
    assert_eq!(b["permit"], false, "{b}");
    assert!(b["slot"].is_string(), "{b}");
    let wait = b["wait_ms"].as_u64().expect("wait_ms");
    assert!((4_000..=5_000).contains(&wait), "{b}");
    assert_eq!(header(&head, "retry-after"), Some("5"), "{head}");
}

/// `t` as an HTTP-date (IMF-fixdate).
fn http_date(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).expect("after 1970").as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][(days % 7) as usize];
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{weekday}, {day:02} {} {year} {:02}:{:02}:{:02} GMT",
        months[(month - 1) as usize],
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[test]
fn record_reads_retry_after_as_servers_send_it_and_backs_off_whatever_it_says() {
    let rt = crate::support::runtime(1);
    let sites: Vec<TestServer> = (0..4).map(|_| paced_site(&rt)).collect();
    let serve = Serve::start(&["--no-state", "--allow-private"]);
    let acquire = |url: String| {
        post(
            &serve,
            "/v1/acquire",
            json!({"agent": "bot", "url": url}),
            200,
        )
        .1
    };

    // Seconds as a string, and an HTTP-date 10 s out: the origin backed off that long.
    let date = http_date(SystemTime::now() + Duration::from_secs(10));
    for (site, retry_after, low, high) in [
        (&sites[0], json!("5"), 5_000, 5_000),
        (&sites[1], json!(date), 8_000, 10_000),
    ] {
        assert_eq!(acquire(site.url("/a"))["permit"], true);
        let record = json!({"url": site.url("/a"), "status": 429, "retry_after": retry_after});
        let (_, r) = post(&serve, "/v1/record", record, 200);
        let backoff = r["backoff_ms"].as_u64().expect("backoff_ms");
        assert!((low..=high).contains(&backoff), "{retry_after}: {r}");
        assert_eq!(r["warning"], Value::Null, "{r}");
        let next = acquire(site.url("/b"));
        assert!(
            next["wait_ms"].as_u64().is_some_and(|w| w + 1_000 >= low),
            "{next}"
        );
    }

    // What servers send and is not a wait: recorded all the same, with the default backoff
    // (60 s ±10 %, doubling per repeat) and a warning; the next acquire waits.
    let past = http_date(SystemTime::now() - Duration::from_secs(60));
    let site = &sites[2];
    assert_eq!(acquire(site.url("/a"))["permit"], true);
    for odd in [
        json!("2.5"),
        json!("120s"),
        json!(""),
        json!(-1),
        json!(2.5),
        json!("0"),
        json!(0),
        json!(past),
        json!(true),
    ] {
        for status in [429, 503] {
            let record = json!({"url": site.url("/a"), "status": status, "retry_after": odd});
            let (_, r) = post(&serve, "/v1/record", record, 200);
            assert_eq!(r["recorded"], "backed-off", "{odd}: {r}");
            assert!(
                r["backoff_ms"].as_u64().is_some_and(|b| b >= 54_000),
                "{odd}: {r}"
            );
            let warning = r["warning"].as_str().unwrap_or_default();
            assert!(warning.contains("default backoff"), "{odd}: {r}");
        }
        let next = acquire(site.url("/b"));
        assert_eq!(next["permit"], false, "{odd}: {next}");
        assert!(
            next["wait_ms"].as_u64().is_some_and(|w| w >= 50_000),
            "{odd}: {next}"
        );
    }
    // Not the status of a final response: 400 naming `status`.
    for status in [99, 100, 101, 199, 1000] {
        let record = json!({"url": sites[0].url("/a"), "status": status});
        let (_, v) = post(&serve, "/v1/record", record, 400);
        assert_eq!(v["error"]["field"], "status", "{status}: {v}");
    }

    // An origin never checked: a 200 is 409, and nothing written; a 503 backs it off, and
    // writes no state: a check still fetches robots.txt.
    let fresh = &sites[3];
    let record = json!({"url": fresh.url("/a"), "status": 200});
    let (_, v) = post(&serve, "/v1/record", record, 409);
    assert_eq!(
        (v["error"]["code"].clone(), v["error"]["field"].clone()),
        (json!("not-checked"), json!("url")),
        "{v}"
    );
    let record = json!({"url": fresh.url("/a"), "status": 503, "retry_after": 60});
    let (_, r) = post(&serve, "/v1/record", record, 200);
    assert_eq!(r["backoff_ms"], 60_000, "{r}");
    assert_eq!(fresh.hits_on("/robots.txt"), 0);
    let (_, v) = post(
        &serve,
        "/v1/check",
        json!({"agent": "bot", "urls": [fresh.url("/a")]}),
        200,
    );
    assert_eq!(
        (
            v["results"][0]["allowed"].clone(),
            v["results"][0]["reason"].clone()
        ),
        (json!(true), json!("fetched")),
        "{v}"
    );
    assert_eq!(fresh.hits_on("/robots.txt"), 1);
    // And the backoff holds.
    let next = acquire(fresh.url("/b"));
    assert_eq!(next["permit"], false, "{next}");
    assert!(
        next["wait_ms"].as_u64().is_some_and(|w| w >= 55_000),
        "{next}"
    );
}

#[test]
fn an_origin_evicted_from_a_service_without_state_is_still_backed_off() {
    let rt = crate::support::runtime(1);
    let sites: Vec<TestServer> = (0..4).map(|_| paced_site(&rt)).collect();
    // One origin's rules in memory, two origins' states in the store.
    let serve = Serve::start(&["--no-state", "--allow-private", "--max-origins", "1"]);
    let acquire = |url: String| {
        post(
            &serve,
            "/v1/acquire",
            json!({"agent": "bot", "url": url}),
            200,
        )
        .1
    };
    assert_eq!(acquire(sites[0].url("/a"))["permit"], true);
    for site in &sites[1..] {
        assert_eq!(acquire(site.url("/a"))["permit"], true);
    }
    // Evicted: the service holds nothing of it (a 200 is refused, as for an origin never
    // checked)…
    let record = json!({"url": sites[0].url("/a"), "status": 200});
    let (_, v) = post(&serve, "/v1/record", record, 409);
    assert_eq!(v["error"]["code"], "not-checked", "{v}");
    // …and its 429 is recorded all the same.
    let record = json!({"url": sites[0].url("/a"), "status": 429, "retry_after": 120});
    let (_, r) = post(&serve, "/v1/record", record, 200);
    assert_eq!(
        (r["recorded"].clone(), r["backoff_ms"].clone()),
        (json!("backed-off"), json!(120_000)),
        "{r}"
    );
    let next = acquire(sites[0].url("/b"));
    assert_eq!(next["permit"], false, "{next}");
    assert!(
        next["wait_ms"].as_u64().is_some_and(|w| w >= 115_000),
        "{next}"
    );
}
