//! Crawl state across processes: restart after SIGKILL on the embedded store, a fleet of three
//! processes on a real `redis-server`, and a Redis that dies mid-run.
//!
//! One binary (`harness = false`) plays both parts: run by `cargo test`, it is the parent; with
//! `CRAWLGATE_CHILD` set it is a crawler process that takes commands on stdin and answers one
//! JSON line each. The parent starts real HTTP servers and `redis-server` on 127.0.0.1, and
//! counts what reaches them.

mod support;

use std::io::{BufRead, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use crawlgate::engine::{CacheOptions, Clock, ManualClock, RobotsCache, SystemClock};
use crawlgate::store::{EmbeddedStore, RedisOptions, RedisStore, Store};
use crawlgate::{Origin, ProductToken};
use serde_json::{json, Value};
use support::redis_server::RedisServer;
use support::{Reply, TestServer};

const RULES: &str = "User-agent: *\nDisallow: /private\n";
const T0: u64 = 1_800_000_000;
const HOUR: u64 = 3600;

fn main() {
    support::process::main(
        "CRAWLGATE_CHILD",
        child_main,
        &[
            ("restart_after_sigkill_answers_from_the_store", restart),
            ("a_fleet_fetches_once_and_shares_the_ladder", fleet),
            ("redis_killed_mid_run", redis_killed),
            (
                "redis_restarted_empty_keeps_the_last_good_version",
                redis_lost,
            ),
            (
                "a_lease_left_by_a_killed_process_delays_a_cold_check_briefly",
                dead_lease_holder,
            ),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// The child: a crawler process driven over stdin.

/// Runs commands until stdin closes: `check URL`, `checks N URL` (N concurrent checks),
/// `recrawl URL`, `site-up URL`, `advance SECONDS`, `flush`, `status`.
fn child_main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let store: Arc<dyn Store> = match std::env::var("CRAWLGATE_STORE").expect("store") {
            s if s.starts_with("redis://") => Arc::new(
                RedisStore::connect(RedisOptions::new(s))
                    .await
                    .expect("connect to redis"),
            ),
            path => Arc::new(EmbeddedStore::open(path).expect("open the embedded store")),
        };
        let manual = std::env::var("CRAWLGATE_CLOCK").ok().map(|s| {
            Arc::new(ManualClock::new(
                UNIX_EPOCH + Duration::from_secs(s.parse().expect("clock")),
            ))
        });
        let clock: Arc<dyn Clock> = match &manual {
            Some(m) => m.clone(),
            None => Arc::new(SystemClock),
        };
        let sync_ms: u64 = std::env::var("CRAWLGATE_SYNC_MS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(30_000);
        let mut options = CacheOptions::default();
        options.fetch.timeout = Duration::from_secs(5);
        options.sync_interval = Duration::from_millis(sync_ms);
        if let Some(ms) = env_ms("CRAWLGATE_LEASE_TTL_MS") {
            options.lease_ttl = Some(ms);
        }
        if let Some(ms) = env_ms("CRAWLGATE_LEASE_WAIT_MS") {
            options.lease_wait = ms;
        }
        let cache = RobotsCache::with_store(options, store, clock).expect("engine");
        let bot = ProductToken::new("testbot").expect("token");
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let line = line.expect("stdin");
            let words: Vec<&str> = line.split_whitespace().collect();
            let reply = match words.as_slice() {
                ["check", url] => {
                    let a = cache.check(&bot, url).await.expect("check");
                    json!({"allowed": a.allowed, "reason": a.reason.as_str()})
                }
                ["checks", n, url] => {
                    let n: usize = n.parse().expect("count");
                    let mut tasks = tokio::task::JoinSet::new();
                    for _ in 0..n {
                        let (cache, bot, url) = (cache.clone(), bot.clone(), url.to_string());
                        tasks.spawn(async move { cache.check(&bot, &url).await.expect("check") });
                    }
                    let (mut answered, mut allowed) = (0, 0);
                    let mut reasons = std::collections::BTreeSet::new();
                    while let Some(a) = tasks.join_next().await {
                        let a = a.expect("task");
                        answered += 1;
                        allowed += usize::from(a.allowed);
                        reasons.insert(a.reason.as_str());
                    }
                    json!({"answered": answered, "allowed": allowed, "reasons": reasons})
                }
                ["recrawl", url] => {
                    let origin = Origin::from_url(url).expect("origin");
                    let j = cache.request_recrawl(&origin).await;
                    json!({"reason": j.reason.as_str()})
                }
                ["site-up", url] => {
                    let origin = Origin::from_url(url).expect("origin");
                    cache.record_page_fetch(&origin, true).await;
                    json!({"ok": true})
                }
                ["advance", secs] => {
                    let m = manual.as_ref().expect("a manual clock");
                    m.advance(Duration::from_secs(secs.parse().expect("seconds")));
                    json!({"ok": true})
                }
                ["flush"] => json!({"ok": cache.flush().await.is_ok()}),
                ["status"] => {
                    let s = cache.store_status();
                    json!({"available": s.available, "errors": s.errors,
                           "pending": s.pending, "last_error": s.last_error,
                           "lost": s.lost, "durability_warning": s.durability_warning})
                }
                other => json!({"error": format!("unknown command {other:?}")}),
            };
            println!("{reply}");
            std::io::stdout().flush().expect("stdout");
        }
    });
}

/// A duration in milliseconds from the environment.
fn env_ms(name: &str) -> Option<Duration> {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .map(Duration::from_millis)
}

// ---------------------------------------------------------------------------------------------
// The parent side.

/// A crawler child process.
struct Crawler {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Crawler {
    fn start(store: &str, clock: Option<u64>, sync_ms: Option<u64>) -> Crawler {
        Self::start_with(store, clock, sync_ms, &[])
    }

    /// [`Crawler::start`] with more environment variables.
    fn start_with(
        store: &str,
        clock: Option<u64>,
        sync_ms: Option<u64>,
        env: &[(&str, &str)],
    ) -> Crawler {
        let mut cmd = Command::new(std::env::current_exe().expect("current exe"));
        cmd.env("CRAWLGATE_CHILD", "1")
            .env("CRAWLGATE_STORE", store)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(t) = clock {
            cmd.env("CRAWLGATE_CLOCK", t.to_string());
        }
        if let Some(ms) = sync_ms {
            cmd.env("CRAWLGATE_SYNC_MS", ms.to_string());
        }
        cmd.envs(env.iter().copied());
        let mut child = cmd.spawn().expect("spawn a crawler process");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let lines = support::process::lines(stdout);
        Crawler {
            child,
            stdin,
            lines,
        }
    }

    /// Sends a command without waiting for its answer.
    fn send(&mut self, command: &str) {
        writeln!(self.stdin, "{command}").expect("write to the crawler");
        self.stdin.flush().expect("flush");
    }

    /// The answer to the oldest command sent.
    fn answer(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .expect("the crawler answers within a minute");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    }

    fn ask(&mut self, command: &str) -> Value {
        self.send(command);
        let v = self.answer();
        assert!(v.get("error").is_none(), "{command}: {v}");
        v
    }

    /// SIGKILL: no chance to flush or close anything.
    fn kill(mut self) {
        self.child.kill().expect("kill");
        self.child.wait().expect("wait");
    }
}

impl Drop for Crawler {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server whose answer is switched by the test: 200 with `RULES`, or that status.
fn switchable(rt: &tokio::runtime::Runtime, status: Arc<AtomicU16>, delay: Duration) -> TestServer {
    rt.block_on(TestServer::start(move |_| {
        let reply = match status.load(Ordering::SeqCst) {
            200 => Reply::text(200, RULES),
            s => Reply::status(s).with_header("retry-after", "86400"),
        };
        if delay.is_zero() {
            reply
        } else {
            Reply::Delayed(delay, Box::new(reply))
        }
    }))
}

fn restart() {
    let rt = support::runtime(2);
    let status = Arc::new(AtomicU16::new(200));
    let server = switchable(&rt, status.clone(), Duration::ZERO);
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("state.redb");
    let store = store.to_str().expect("utf-8 path");
    let private = server.url("/private");

    let mut a = Crawler::start(store, Some(T0), None);
    assert_eq!(
        a.ask(&format!("check {private}")),
        json!({"allowed": false, "reason": "fetched"})
    );
    // A day later the site answers 503 (Retry-After: a day).
    status.store(503, Ordering::SeqCst);
    a.ask(&format!("advance {}", 25 * HOUR));
    a.ask(&format!("check {private}")); // due: refreshed in the background
    a.ask("flush");
    assert_eq!(
        a.ask(&format!("check {private}")),
        json!({"allowed": false, "reason": "unreachable"})
    );
    assert_eq!(server.hits(), 2);
    a.kill();

    // A new process on the same store, 13 hours into the failure run.
    let mut b = Crawler::start(store, Some(T0 + 25 * HOUR + 13 * HOUR), None);
    assert_eq!(
        b.ask(&format!("check {private}")),
        json!({"allowed": false, "reason": "last-good-version"}),
        "the last good version, read back after SIGKILL"
    );
    assert!(b.ask(&format!("check {}", server.url("/public")))["allowed"] == json!(true));
    b.ask("flush");
    assert_eq!(server.hits(), 2, "answered from the store, no fetch");
}

fn fleet() {
    let rt = support::runtime(2);
    let redis = RedisServer::start();
    let status = Arc::new(AtomicU16::new(200));
    // Slow enough that the three processes' checks overlap the fetch.
    let server = switchable(&rt, status.clone(), Duration::from_millis(300));
    let private = server.url("/private");
    let mut crawlers: Vec<Crawler> = (0..3)
        .map(|_| Crawler::start(&redis.url(), None, Some(200)))
        .collect();
    // Every process is up (connected to Redis) before the checks go out together.
    for c in &mut crawlers {
        c.ask("status");
    }
    for c in &mut crawlers {
        c.send(&format!("checks 1000 {private}"));
    }
    for c in &mut crawlers {
        let v = c.answer();
        assert_eq!(
            v,
            json!({"answered": 1000, "allowed": 0, "reasons": ["fetched"]})
        );
    }
    assert_eq!(server.hits(), 1, "one request for the whole fleet");

    // One process records a failure; the others see it.
    status.store(503, Ordering::SeqCst);
    assert_eq!(
        crawlers[0].ask(&format!("recrawl {private}")),
        json!({"reason": "unreachable"})
    );
    assert_eq!(server.hits(), 2);
    // A process that has the origin in memory re-reads it once its copy is older than the
    // sync interval (200 ms here); the first check after that starts the re-read.
    std::thread::sleep(Duration::from_millis(300));
    crawlers[1].ask(&format!("check {private}"));
    crawlers[1].ask("flush");
    assert_eq!(
        crawlers[1].ask(&format!("check {private}")),
        json!({"allowed": false, "reason": "unreachable"})
    );
    // A new process reads it from the store.
    let mut fresh = Crawler::start(&redis.url(), None, None);
    assert_eq!(
        fresh.ask(&format!("check {}", server.url("/public"))),
        json!({"allowed": false, "reason": "unreachable"})
    );
    fresh.ask("flush");
    assert_eq!(
        server.hits(),
        2,
        "no process fetched again: Retry-After is a day"
    );
}

fn redis_killed() {
    let rt = support::runtime(2);
    let mut redis = RedisServer::start();
    let status = Arc::new(AtomicU16::new(200));
    let warm = switchable(&rt, status.clone(), Duration::ZERO);
    let cold = switchable(&rt, Arc::new(AtomicU16::new(200)), Duration::ZERO);
    let mut c = Crawler::start(&redis.url(), None, Some(200));
    assert_eq!(
        c.ask(&format!("check {}", warm.url("/private"))),
        json!({"allowed": false, "reason": "fetched"})
    );
    redis.kill();
    // Warm origins are answered from memory, even after the sync interval passed.
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..3 {
        assert_eq!(
            c.ask(&format!("check {}", warm.url("/private"))),
            json!({"allowed": false, "reason": "fetched"})
        );
    }
    // A new origin is fetched without a lease and answered.
    assert_eq!(
        c.ask(&format!("check {}", cold.url("/private"))),
        json!({"allowed": false, "reason": "fetched"})
    );
    assert_eq!(cold.hits(), 1);
    // A change while Redis is down is kept.
    c.ask(&format!("site-up {}", warm.url("/")));
    let s = c.ask("status");
    assert_eq!(s["available"], json!(false), "{s}");
    assert!(s["pending"].as_u64().unwrap_or(0) >= 1, "{s}");
    assert!(
        s["last_error"].as_str().is_some_and(|e| !e.is_empty()),
        "{s}"
    );

    // Back (empty: the test server keeps nothing on disk): pending writes go out.
    redis.restart();
    let mut written = false;
    for _ in 0..50 {
        c.ask("flush");
        let s = c.ask("status");
        if s["available"] == json!(true) && s["pending"] == json!(0) {
            written = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(written, "pending changes written once Redis is back");
    let origin = Origin::from_url(&warm.url("/")).expect("origin");
    let state = rt.block_on(async {
        let store = RedisStore::connect(RedisOptions::new(redis.url()))
            .await
            .expect("connect");
        store.load(&origin).await.expect("load")
    });
    let state = state.expect("the state written after the outage");
    assert!(
        state.site_report().is_some_and(|r| r.up),
        "the site-up report made while Redis was down reached it"
    );
    assert!(
        state.good_file().is_some(),
        "the good version the restarted server lost was written back with the pending changes"
    );
}

/// The repro on a real `redis-server` without persistence: a good version, then 503s
/// (last good version after 12 hours), then the server restarts empty. The process that knew
/// keeps disallowing after its re-sync and 12 hours later, and writes its copy back, so that a
/// new process 12 hours later disallows too.
fn redis_lost() {
    let rt = support::runtime(2);
    let mut redis = RedisServer::start();
    let status = Arc::new(AtomicU16::new(200));
    let server = switchable(&rt, status.clone(), Duration::ZERO);
    let private = server.url("/private");
    let mut a = Crawler::start(&redis.url(), Some(T0), Some(200));
    let s = a.ask("status");
    assert!(
        s["durability_warning"]
            .as_str()
            .is_some_and(|w| w.contains("keeps nothing on disk")),
        "a server without persistence is reported at connect: {s}"
    );
    assert_eq!(
        a.ask(&format!("check {private}")),
        json!({"allowed": false, "reason": "fetched"})
    );
    status.store(503, Ordering::SeqCst);
    a.ask(&format!("advance {}", 24 * HOUR + 1));
    a.ask(&format!("check {private}"));
    a.ask("flush");
    a.ask(&format!("advance {}", 12 * HOUR + 1));
    assert_eq!(
        a.ask(&format!("check {private}")),
        json!({"allowed": false, "reason": "last-good-version"})
    );
    redis.restart(); // SIGKILL, then a new empty server on the same port
                     // Past the copy's sync interval (200 ms, by the manual clock) it is re-read.
    let mut settled = false;
    for _ in 0..50 {
        a.ask("advance 1");
        a.ask(&format!("check {private}"));
        a.ask("flush");
        if a.ask("status")["lost"].as_u64().unwrap_or(0) >= 1 {
            settled = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(settled, "the re-read found the store empty");
    assert_eq!(
        a.ask(&format!("check {private}")),
        json!({"allowed": false, "reason": "last-good-version"}),
        "memory's knowledge is kept over the empty store's"
    );
    a.ask(&format!("advance {}", 12 * HOUR + 1));
    a.ask(&format!("check {private}"));
    a.ask("flush");
    assert_eq!(
        a.ask(&format!("check {private}")),
        json!({"allowed": false, "reason": "last-good-version"}),
        "12 hours after the loss"
    );
    // A new process 12 hours later reads the copy written back.
    let mut b = Crawler::start(&redis.url(), Some(T0 + 61 * HOUR), Some(200));
    let answer = b.ask(&format!("check {private}"));
    assert_eq!(answer["allowed"], json!(false), "{answer}");
}

/// A process killed with SIGKILL while it holds an origin's fetch lease (its fetch is stuck in
/// a tarpit): another process's cold check on that origin waits the lease wait (5 s by
/// default), not the lease's life (here 120 s), then fetches on its own and answers.
fn dead_lease_holder() {
    let rt = support::runtime(2);
    let redis = RedisServer::start();
    let first = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let server = rt.block_on(TestServer::start(move |_| {
        if first.swap(false, Ordering::SeqCst) {
            Reply::Delayed(Duration::from_secs(600), Box::new(Reply::text(200, RULES)))
        } else {
            Reply::text(200, RULES)
        }
    }));
    let private = server.url("/private");
    let env = [("CRAWLGATE_LEASE_TTL_MS", "120000")];
    let mut holder = Crawler::start_with(&redis.url(), None, None, &env);
    let mut waiter = Crawler::start_with(&redis.url(), None, None, &env);
    waiter.ask("status");
    holder.send(&format!("check {private}"));
    for _ in 0..500 {
        if server.hits() == 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(server.hits(), 1, "the holder's fetch is in the tarpit");
    holder.kill();
    let started = std::time::Instant::now();
    assert_eq!(
        waiter.ask(&format!("check {private}")),
        json!({"allowed": false, "reason": "fetched"})
    );
    eprintln!(
        "cold answer with a dead lease holder after {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(server.hits(), 2, "one fetch more than the dead holder's");
}
