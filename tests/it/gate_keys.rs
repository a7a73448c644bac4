//! Politeness keys at a real server on 127.0.0.1, in real time: two host names of one server
//! (`localhost` and `127.0.0.1`) are spaced as one under the IP key and independently under
//! the origin key (the default); two subdomains of one registrable domain are spaced as one
//! under the domain key. Arrival times are recorded by the server. (The fleet-wide in-flight
//! limit, with processes on a real Redis, is in `../gate_fleet.rs`.)

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{Reply, TestServer};
use crawlgate::engine::{CacheOptions, RobotsCache};
use crawlgate::policy::{Fetch, FetchOutcome, KeyKind};
use crawlgate::{Origin, ProductToken, Robots};

/// The site's `Crawl-delay`.
const DELAY: Duration = Duration::from_millis(200);
/// Pages fetched from each host name.
const PAGES: usize = 4;
/// What an arrival may come before its slot: the schedule counts whole milliseconds.
const ROUNDING: Duration = Duration::from_millis(2);

/// Host (the `Host` header) and arrival time of every page request.
type Arrivals = Arc<Mutex<Vec<(Instant, String)>>>;

async fn site() -> (TestServer, Arrivals) {
    let arrivals: Arrivals = Arc::default();
    let seen = arrivals.clone();
    let server = TestServer::start(move |r| {
        if r.path == "/robots.txt" {
            return Reply::text(200, "User-agent: *\nCrawl-delay: 0.2\n");
        }
        let host = r.header("host").unwrap_or("").to_owned();
        seen.lock().expect("arrivals").push((Instant::now(), host));
        Reply::text(200, "ok")
    })
    .await;
    (server, arrivals)
}

fn engine(key: KeyKind) -> RobotsCache {
    let mut options = CacheOptions::default();
    options.gate.default_delay = Duration::ZERO;
    options.gate.key = key;
    RobotsCache::new(options).expect("engine")
}

fn bot() -> ProductToken {
    ProductToken::new("testbot").expect("token")
}

/// Fetches `PAGES` pages from each of `bases` at once (a task per host name, as a crawler's
/// workers would), each through `acquire` with `client`; returns the permits' keys and the
/// moment the crawl began (no slot can come before it).
async fn crawl(
    cache: &RobotsCache,
    client: &reqwest::Client,
    bases: &[String],
) -> (Vec<String>, Instant) {
    let (keys, began, _) = crawl_waits(cache, client, bases).await;
    (keys, began)
}

/// [`crawl`], with how long each host's first permit waited, in the order of `bases`.
async fn crawl_waits(
    cache: &RobotsCache,
    client: &reqwest::Client,
    bases: &[String],
) -> (Vec<String>, Instant, Vec<Duration>) {
    let began = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for base in bases {
        let (cache, client, base) = (cache.clone(), client.clone(), base.clone());
        tasks.spawn(async move {
            let mut keys = Vec::new();
            let mut first_wait = None;
            for k in 0..PAGES {
                let url = format!("{base}/page{k}");
                let permit = cache.acquire(&bot(), &url).await.expect("allowed");
                first_wait.get_or_insert(permit.waited());
                keys.push(permit.key().to_string());
                let response = client.get(&url).send().await.expect("fetch");
                permit
                    .record_response(response.status().as_u16(), response.headers())
                    .await;
            }
            (base, keys, first_wait.unwrap_or_default())
        });
    }
    let mut keys = Vec::new();
    let mut first_waits = Vec::new();
    while let Some(done) = tasks.join_next().await {
        let (base, done, first_wait) = done.expect("task");
        keys.extend(done);
        first_waits.push((base, first_wait));
    }
    keys.sort();
    keys.dedup();
    first_waits.sort_by_key(|(base, _)| bases.iter().position(|b| *b == *base));
    let first_waits = first_waits.into_iter().map(|(_, w)| w).collect();
    (keys, began, first_waits)
}

/// Arrival times of `host`'s requests (every host's with `None`), in time order.
fn times(arrivals: &Arrivals, host: Option<&str>) -> Vec<Instant> {
    let mut times: Vec<Instant> = arrivals
        .lock()
        .expect("arrivals")
        .iter()
        .filter(|(_, h)| host.is_none_or(|host| h == host))
        .map(|(t, _)| *t)
        .collect();
    times.sort();
    times
}

/// Asserts that the k-th of `times` came no sooner than `k` delays after `began`: what one
/// schedule guarantees whatever the load. (A gap between two arrivals can be shorter than the
/// delay when the first request was late to the server and the second on time, so the gaps
/// themselves are not the test.)
fn assert_spaced(times: &[Instant], began: Instant, what: &str) {
    for (k, t) in times.iter().enumerate() {
        let due = began + DELAY * k as u32;
        assert!(
            *t + ROUNDING >= due,
            "{what}: request {k} came {:?} after the crawl began, before {:?}",
            *t - began,
            due - began
        );
    }
}

/// The host names that reached the server.
fn hosts(arrivals: &Arrivals) -> std::collections::HashSet<String> {
    arrivals
        .lock()
        .expect("arrivals")
        .iter()
        .map(|(_, h)| h.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_host_names_of_one_address_are_spaced_as_one_under_the_ip_key() {
    let (server, arrivals) = site().await;
    let port = server.addr.port();
    let bases = [
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}"),
    ];
    let client = reqwest::Client::new();
    let (keys, began) = crawl(&engine(KeyKind::Ip), &client, &bases).await;
    assert_eq!(keys, ["ip:127.0.0.1"]);
    let times = times(&arrivals, None);
    assert_eq!(times.len(), 2 * PAGES);
    assert_spaced(&times, began, "both names as one");
    let hosts = hosts(&arrivals);
    assert_eq!(hosts.len(), 2, "both names reached the server: {hosts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_host_names_of_one_address_are_independent_under_the_origin_key() {
    let (server, arrivals) = site().await;
    let port = server.addr.port();
    let bases = [
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}"),
    ];
    let client = reqwest::Client::new();
    let (keys, began, first_waits) = crawl_waits(&engine(KeyKind::Origin), &client, &bases).await;
    assert_eq!(keys, [bases[1].clone(), bases[0].clone()]);
    // Two schedules side by side: neither host's first request waited for the other's (under
    // one schedule, one of them waits a delay), and each host's own requests a delay apart.
    // (Not "the last request sooner than one schedule allows" in wall time: a loaded machine
    // could make it late.)
    assert_eq!(first_waits, [Duration::ZERO; 2], "{bases:?}");
    let all = times(&arrivals, None);
    assert_eq!(all.len(), 2 * PAGES);
    for base in &bases {
        let host = base.trim_start_matches("http://");
        let own = times(&arrivals, Some(host));
        assert_eq!(own.len(), PAGES, "{host}");
        assert_spaced(&own, began, host);
    }
}

/// `a.example.test` and `b.example.test` (no DNS needed: the engine's key is the registrable
/// domain, worked out from the name; the pages are fetched by a client that resolves both
/// names to the test server, and robots.txt is put in as if fetched).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_subdomains_are_spaced_as_one_under_the_domain_key() {
    let (server, arrivals) = site().await;
    let cache = engine(KeyKind::Domain);
    let body = "User-agent: *\nCrawl-delay: 0.2\n";
    let mut client = reqwest::Client::builder();
    let mut bases = Vec::new();
    for name in ["a.example.test", "b.example.test"] {
        let base = format!("http://{name}:{}", server.addr.port());
        let origin = Origin::from_url(&base).expect("origin");
        let outcome = FetchOutcome::Rules {
            body: Arc::from(body.as_bytes()),
            parsed: Arc::new(Robots::parse(body.as_bytes())),
        };
        cache
            .insert(
                &origin,
                Fetch::new(origin.robots_txt_url(), Some(200), outcome),
            )
            .await;
        client = client.resolve(name, server.addr);
        bases.push(base);
    }
    let client = client.build().expect("client");
    let (keys, began) = crawl(&cache, &client, &bases).await;
    assert_eq!(keys, ["domain:example.test"]);
    let times = times(&arrivals, None);
    assert_eq!(times.len(), 2 * PAGES);
    assert_spaced(&times, began, "both subdomains as one");
    let hosts = hosts(&arrivals);
    assert_eq!(hosts.len(), 2, "{hosts:?}");
}
