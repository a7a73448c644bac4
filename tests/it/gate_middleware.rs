//! `GateMiddleware` in real time against real servers on 127.0.0.1: a wrapped
//! `reqwest::Client`'s requests reach the server spaced by the site's `Crawl-delay`, a 429's
//! `Retry-After` holds the next request back, a disallowed URL never reaches the server, and
//! another origin is not held back meanwhile.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{Reply, TestServer};
use crawlgate::engine::{refusal, GateMiddleware, Refused};
use crawlgate::engine::{CacheOptions, Clock, RobotsCache, Sleep, SystemClock};
use crawlgate::ProductToken;
use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};

/// The site's `Crawl-delay`.
const DELAY: Duration = Duration::from_millis(200);

/// Arrival times of the page requests (not robots.txt) a server saw.
type Arrivals = Arc<Mutex<Vec<(Instant, String)>>>;

/// A site with `robots` and pages answered by `page`, noting when each page request arrived.
async fn site(
    robots: &'static str,
    page: impl Fn(&str) -> Reply + Send + Sync + 'static,
) -> (TestServer, Arrivals) {
    let arrivals: Arrivals = Arc::default();
    let seen = arrivals.clone();
    let server = TestServer::start(move |r| {
        if r.path == "/robots.txt" {
            return Reply::text(200, robots);
        }
        seen.lock()
            .expect("arrivals")
            .push((Instant::now(), r.path.clone()));
        page(&r.path)
    })
    .await;
    (server, arrivals)
}

fn client() -> ClientWithMiddleware {
    let cache = RobotsCache::new({
        let mut options = CacheOptions::default();
        options.gate.default_delay = Duration::ZERO;
        options
    })
    .expect("engine");
    let bot = ProductToken::new("testbot").expect("token");
    ClientBuilder::new(reqwest::Client::new())
        .with(GateMiddleware::new(cache, bot))
        .build()
}

/// The arrival times, in order.
fn times(arrivals: &Arrivals) -> Vec<Instant> {
    let mut times: Vec<Instant> = arrivals
        .lock()
        .expect("arrivals")
        .iter()
        .map(|(t, _)| *t)
        .collect();
    times.sort();
    times
}

fn gaps(arrivals: &Arrivals) -> Vec<Duration> {
    times(arrivals).windows(2).map(|w| w[1] - w[0]).collect()
}

/// Slots are whole milliseconds of the system clock: one can be this much before the instant
/// measured when the crawl began.
const ROUNDING: Duration = Duration::from_millis(2);

/// Slots are whole milliseconds, and a request reaches the server a little after its permit
/// (loopback, scheduling): two consecutive arrivals can be closer than their slots by the
/// difference of those latencies, without bound on a loaded machine (one late request makes
/// the next gap short). So gaps are not the test: the k-th request no sooner than k delays
/// after the crawl began is what one schedule guarantees whatever the load.
const JITTER: Duration = Duration::from_millis(20);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_reach_the_server_spaced_by_the_crawl_delay() {
    let (server, arrivals) = site("User-agent: *\nCrawl-delay: 0.2\n", |_| {
        Reply::text(200, "ok")
    })
    .await;
    let client = client();
    // Ten requests at once, as a crawler's workers would send them. No slot comes before this.
    let began = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for k in 0..10 {
        let (client, url) = (client.clone(), server.url(&format!("/p{k}")));
        tasks.spawn(async move { client.get(url).send().await.expect("fetch").status() });
    }
    while let Some(status) = tasks.join_next().await {
        assert_eq!(status.expect("task").as_u16(), 200);
    }
    let times = times(&arrivals);
    assert_eq!(times.len(), 10);
    // Without the gate all ten come at once, and this fails from the second on.
    for (k, t) in times.iter().enumerate() {
        assert!(
            *t + ROUNDING >= began + DELAY * k as u32,
            "request {k} came {:?} after the crawl began; gaps {:?}",
            *t - began,
            gaps(&arrivals)
        );
    }
    eprintln!("smallest gap: {:?}", gaps(&arrivals).iter().min());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_with_retry_after_holds_the_next_request_back() {
    let (server, arrivals) = site("User-agent: *\nCrawl-delay: 0.2\n", |path| {
        if path == "/busy" {
            Reply::status(429).with_header("retry-after", "1")
        } else {
            Reply::text(200, "ok")
        }
    })
    .await;
    let client = client();
    let busy = client.get(server.url("/busy")).send().await.expect("fetch");
    assert_eq!(busy.status().as_u16(), 429);
    let next = client.get(server.url("/next")).send().await.expect("fetch");
    assert_eq!(next.status().as_u16(), 200);
    let gaps = gaps(&arrivals);
    assert_eq!(gaps.len(), 1);
    assert!(gaps[0] + JITTER >= Duration::from_secs(1), "{gaps:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disallowed_url_is_refused_and_never_sent_while_other_origins_proceed() {
    let (strict, strict_arrivals) = site(
        "User-agent: *\nDisallow: /private\nCrawl-delay: 30\n",
        |_| Reply::text(200, "ok"),
    )
    .await;
    let (other, other_arrivals) = site("User-agent: *\n", |_| Reply::text(200, "ok")).await;
    let client = client();
    let err = client
        .get(strict.url("/private/x"))
        .send()
        .await
        .expect_err("refused");
    match refusal(&err) {
        Some(Refused::Disallowed { answer, .. }) => {
            assert_eq!(answer.rule.as_ref().map(|r| r.line), Some(2));
        }
        other => panic!("{other:?} from {err}"),
    }
    assert!(strict_arrivals.lock().expect("arrivals").is_empty());
    // The strict site's 30 s delay: its second page waits, the other origin does not.
    client.get(strict.url("/a")).send().await.expect("fetch");
    let slow = tokio::spawn({
        let (client, url) = (client.clone(), strict.url("/b"));
        async move { client.get(url).send().await.expect("fetch") }
    });
    for k in 0..3 {
        client
            .get(other.url(&format!("/{k}")))
            .send()
            .await
            .expect("fetch");
    }
    assert_eq!(other_arrivals.lock().expect("arrivals").len(), 3);
    assert_eq!(
        strict_arrivals.lock().expect("arrivals").len(),
        1,
        "/b still waits for its slot"
    );
    slow.abort();
}

/// With `with_page_policy`, an HTML response carries its directives (header and `<meta>`) and
/// the URL's crawl policy in its extensions, and the caller still reads the whole body, byte
/// for byte; a response that is not HTML carries its header directives, its body unread.
#[tokio::test]
async fn page_policy_rides_on_the_response() {
    use crawlgate::engine::{CrawlPolicy, TdmReservation, TdmSource};
    use crawlgate::page::PageDirectives;

    let mut page = String::from(
        "<!doctype html><html><head><title>t</title>\
         <meta name=\"robots\" content=\"noindex, max-snippet:20\">\
         <meta name=\"tdm-reservation\" content=\"1\"></head><body>",
    );
    while page.len() < 300_000 {
        page.push_str("<p>some text of the page, long enough to come in many frames</p>\n");
    }
    page.push_str("</body></html>");
    let body = page.clone();
    let server = TestServer::start(move |r| match r.path.as_str() {
        "/robots.txt" => Reply::text(200, "User-agent: *\nDisallow: /private\n"),
        "/page" => Reply::Full {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/html; charset=utf-8".into()),
                ("x-robots-tag".into(), "noarchive".into()),
            ],
            body: body.as_bytes().to_vec(),
        },
        "/data.json" => Reply::text(200, "{}").with_header("x-robots-tag", "nofollow"),
        _ => Reply::status(404),
    })
    .await;
    let cache = RobotsCache::new({
        let mut options = CacheOptions::default();
        options.gate.default_delay = Duration::ZERO;
        options
    })
    .expect("engine");
    let bot = ProductToken::new("testbot").expect("token");
    let client = ClientBuilder::new(reqwest::Client::new())
        .with(GateMiddleware::new(cache, bot).with_page_policy())
        .build();

    let response = client
        .get(server.url("/page"))
        .send()
        .await
        .expect("response");
    let directives = response
        .extensions()
        .get::<PageDirectives>()
        .expect("directives attached")
        .clone();
    assert!(!directives.rules.index && !directives.rules.archive);
    assert_eq!(directives.rules.max_snippet, Some(20));
    // The head was read, not the page: the scan stopped where the head ends.
    assert!(
        directives.html_scanned < 1_000,
        "{}",
        directives.html_scanned
    );
    let policy = response
        .extensions()
        .get::<CrawlPolicy>()
        .expect("policy attached")
        .clone();
    assert!(policy.allowed() && policy.warnings.is_empty());
    assert_eq!(policy.tdm.reservation, TdmReservation::Reserved);
    assert_eq!(policy.tdm.source, TdmSource::Meta);
    assert!(policy.page.is_some_and(|p| p.status == 200));
    assert_eq!(
        response.content_length(),
        Some(page.len() as u64),
        "the length is kept"
    );
    let text = response.text().await.expect("body");
    assert_eq!(text.len(), page.len());
    assert!(text == page, "the body is handed back whole");

    let json = client
        .get(server.url("/data.json"))
        .send()
        .await
        .expect("response");
    let directives = json
        .extensions()
        .get::<PageDirectives>()
        .expect("directives attached")
        .clone();
    assert!(!directives.rules.follow && directives.html_scanned == 0);
    assert_eq!(json.text().await.expect("body"), "{}");
    // One request for the page, one for the JSON, one robots.txt, one tdmrep.json.
    assert_eq!(server.hits_on("/page"), 1);
    assert_eq!(server.hits_on("/robots.txt"), 1);
    assert_eq!(server.hits_on("/.well-known/tdmrep.json"), 1);
}

/// The system clock, counting the gate's sleeps: a waiter that has reserved its slot sleeps.
#[derive(Default)]
struct CountingClock(std::sync::atomic::AtomicUsize);

impl Clock for CountingClock {
    fn now(&self) -> std::time::SystemTime {
        SystemClock.now()
    }

    fn sleep(&self, duration: Duration) -> Sleep {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        SystemClock.sleep(duration)
    }
}

/// A dropped `acquire` gives back the slot it had reserved: the next waiter's request reaches
/// the server one spacing after the first, not two. The spacing is 2 s, so that the two
/// cases stay apart on a loaded machine (the first request and the next's way to the server
/// would have to take a spacing); the virtual-clock version is in `gate.rs`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_acquire_gives_its_slot_to_the_next_waiter() {
    let spacing = Duration::from_secs(2);
    let (server, arrivals) = site("User-agent: *\nCrawl-delay: 2\n", |_| {
        Reply::text(200, "ok")
    })
    .await;
    let clock = Arc::new(CountingClock::default());
    let cache = RobotsCache::with_clock(
        {
            let mut options = CacheOptions::default();
            options.gate.default_delay = Duration::ZERO;
            options
        },
        clock.clone(),
    )
    .expect("engine");
    let bot = ProductToken::new("testbot").expect("token");
    let client = reqwest::Client::new();
    let url = server.url("/page");
    // No slot comes before this.
    let began = Instant::now();
    let first = cache.acquire(&bot, &url).await.expect("allowed");
    client.get(&url).send().await.expect("fetch");
    drop(first);
    // The second reserves the slot a spacing after the first and sleeps for it: dropped then.
    let slept = clock.0.load(std::sync::atomic::Ordering::SeqCst);
    let second = tokio::time::timeout(spacing, async {
        tokio::select! {
            biased;
            () = async {
                while clock.0.load(std::sync::atomic::Ordering::SeqCst) == slept {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            } => true,
            _ = cache.acquire(&bot, &url) => false,
        }
    })
    .await;
    assert_eq!(
        second,
        Ok(true),
        "the second waited for its slot and was dropped"
    );
    let third = cache.acquire(&bot, &url).await.expect("allowed");
    client.get(&url).send().await.expect("fetch");
    drop(third);
    let times = times(&arrivals);
    assert_eq!(times.len(), 2);
    let came = times[1] - began;
    eprintln!("  the next waiter came {came:?} after the first acquire began");
    // Its slot is the given-back one (a spacing after the first), not the one after it (two).
    assert!(came + ROUNDING >= spacing, "{came:?}");
    assert!(
        came + ROUNDING < spacing * 2,
        "{came:?}: the dropped slot was kept"
    );
}
