//! Limits of this machine, not of the site: running out of file descriptors, and the memory a
//! fetch may cost whatever the server sends.
//!
//! A failure on this side (`EMFILE`, `ENOMEM`…) says nothing about the site, so the engine must
//! not record it, nor lose the state it had; and a compression bomb must not cost more than a
//! bounded amount of memory per fetch in flight. Descriptor limits (`RLIMIT_NOFILE`) and peak
//! RSS (`VmHWM` in `/proc/self/status`) belong to a process, so every scenario runs in a child
//! process of this binary (`harness = false`). With `CRAWLGATE_LIMITS_CHILD=<role>` set it is a
//! child: it lowers its own soft descriptor limit (before it builds a runtime) when the role
//! needs it, does its part and reports JSON lines on stdout. Run by `cargo test`, it is the
//! parent: it serves HTTP on 127.0.0.1, counts the requests, and asserts on what the children
//! report.
//!
//! 1. `a_local_failure_leaves_the_state_as_it_was`: a child with 64 descriptors fetches one
//!    origin, then uses up its descriptors; the refresh that follows fails locally, is retried,
//!    and leaves the stored state exactly as it was until descriptors are free again.
//! 2. `two_thousand_origins_under_ulimit_256`: a child with 256 descriptors checks 2,000 origins
//!    at once, with the default cap on fetches in flight and with a cap of 2,000 (which runs it
//!    out of descriptors): every origin ends fetched, none is recorded unreachable.
//! 3. `memory_per_fetch_is_bounded`: brotli, gzip, deflate and gzip-over-gzip bombs, and a
//!    stalled brotli stream, fetched once and 50 at a time: at most 2 MiB of peak RSS per fetch.
//!    The server holds the 50 in flight together, each with a body decoded nearly to the cap
//!    (a loopback answer would otherwise be decoded in one go, one fetch after another).
//!
//! Linux only (`/proc/self/status`).

mod support;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant, UNIX_EPOCH};

use crawlgate::engine::{CacheOptions, ManualClock, RobotsCache, SystemClock};

use crawlgate::http::{FetchOptions, Fetcher, LocalError};
use crawlgate::policy::{Content, Fetch, FetchOutcome, OriginState, Unreachable};
use crawlgate::store::MemoryStore;
use crawlgate::{Code, Origin, ProductToken};
use flate2::write::{GzDecoder, GzEncoder, ZlibDecoder, ZlibEncoder};
use flate2::Compression;
use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
use serde_json::{json, Value};
use support::gzip::gzip_at;
use support::{Reply, TestServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// Set in a child process: its role.
const CHILD_ENV: &str = "CRAWLGATE_LIMITS_CHILD";
const RULES: &str = "User-agent: *\nDisallow: /private\n";
/// The body cap of a fetch: the 512,000-byte parsing limit plus one byte.
const BODY_CAP: usize = 512_001;
const ORIGINS: usize = 2_000;
/// "≤ 2 MB per fetch in flight, whatever the encoding."
const MAX_KIB_PER_FETCH: u64 = 2 * 1024;
const CONCURRENT: usize = 50;
/// How long the bomb server waits, once a batch of fetches got the first part of the answer,
/// before it sends the rest.
const SETTLE: Duration = Duration::from_millis(300);
/// The pause between the pieces of the first part of an answer.
const PIECE_PAUSE: Duration = Duration::from_millis(50);

fn main() {
    if let Ok(role) = std::env::var(CHILD_ENV) {
        match role.as_str() {
            "state-kept" => child_state_kept(),
            "many-origins" => child_many_origins(),
            "memory" => child_memory(),
            other => panic!("unknown child role {other:?}"),
        }
        return;
    }
    let tests: [(&str, fn()); 3] = [
        (
            "a_local_failure_leaves_the_state_as_it_was",
            local_failure_leaves_state,
        ),
        ("two_thousand_origins_under_ulimit_256", many_origins),
        ("memory_per_fetch_is_bounded", memory_per_fetch),
    ];
    support::process::run_tests(&tests);
}

// ---------------------------------------------------------------------------------------------
// Shared by both sides.

/// Sets the soft open-file limit of this process (the hard one stays).
fn set_soft_nofile(soft: u64) {
    let hard = getrlimit(Resource::Nofile).maximum;
    setrlimit(
        Resource::Nofile,
        Rlimit {
            current: Some(soft),
            maximum: hard,
        },
    )
    .expect("set the soft open-file limit");
}

fn bot() -> ProductToken {
    ProductToken::new("testbot").expect("token")
}

/// Reads one request head; `false` if the stream ended (or sent nonsense) first.
async fn read_head(stream: &mut TcpStream) -> bool {
    let mut head = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => head.extend_from_slice(&chunk[..n]),
        }
        if head.len() > 64 * 1024 {
            return false;
        }
    }
    true
}

/// Accepts connections for ever, each served by `serve`. An accept error (the parent out of
/// descriptors, say) is waited out, not the end of the listener.
fn serve_forever<F, Fut>(listener: TcpListener, serve: F)
where
    F: Fn(TcpStream) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    tokio::spawn(async move {
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    tokio::spawn(serve(stream));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            }
        }
    });
}

/// A response head with `Connection: close`.
fn head(length: usize, encoding: Option<&str>) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {length}\r\nconnection: close\r\n"
    );
    if let Some(e) = encoding {
        out.push_str(&format!("content-encoding: {e}\r\n"));
    }
    out.push_str("\r\n");
    out.into_bytes()
}

// ---------------------------------------------------------------------------------------------
// The parent's view of a child.

/// A child process of this binary in some role, reporting JSON lines.
struct Kid {
    role: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Kid {
    fn start(role: &str, env: &[(&str, String)]) -> Kid {
        let mut cmd = Command::new(std::env::current_exe().expect("current exe"));
        cmd.env(CHILD_ENV, role)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (name, value) in env {
            cmd.env(name, value);
        }
        let mut child = cmd.spawn().expect("spawn a child process");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("child stdout");
        let lines = support::process::lines(stdout);
        Kid {
            role: role.to_owned(),
            child,
            stdin,
            lines,
        }
    }

    /// The next line the child reports, within `within`.
    fn next(&mut self, within: Duration) -> Value {
        let line = match self.lines.recv_timeout(within) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("child {:?} reported nothing within {within:?}", self.role)
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!(
                "child {:?} ended without reporting ({:?}); see its output above",
                self.role,
                self.child.wait()
            ),
        };
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("child {:?} reported {line:?}: {e}", self.role))
    }

    /// Tells a child waiting on stdin to go on.
    fn go(&mut self) {
        let stdin = self.stdin.as_mut().expect("child stdin");
        writeln!(stdin, "go").expect("write to the child");
        stdin.flush().expect("flush the child's stdin");
    }

    /// Waits (bounded) for the child to exit, and checks that it succeeded.
    fn finish(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match self.child.try_wait().expect("wait for the child") {
                Some(status) => {
                    assert!(status.success(), "child {:?}: {status}", self.role);
                    return;
                }
                None if Instant::now() > deadline => {
                    panic!("child {:?} did not exit within 30 s", self.role)
                }
                None => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }
}

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------------
// 1. A local failure leaves the state as it was.

/// The child side: a child with 64 descriptors, on a manual clock, reporting after each phase
/// and waiting for the parent (which counts requests) to say "go".
fn child_state_kept() {
    // Before the runtime: every descriptor it opens counts against the limit.
    set_soft_nofile(64);
    let url = std::env::var("CRAWLGATE_LIMITS_URL").expect("CRAWLGATE_LIMITS_URL");
    let origin = Origin::from_url(&url).expect("origin");
    let rt = support::runtime(2);
    rt.block_on(async {
        let clock = Arc::new(ManualClock::new(
            UNIX_EPOCH + Duration::from_secs(1_800_000_000),
        ));
        let cache = RobotsCache::with_store(
            CacheOptions::default(),
            Arc::new(MemoryStore::new()),
            clock.clone(),
        )
        .expect("engine");
        let answer = cache.check(&bot(), &url).await.expect("check");
        let before = cache.state(&origin).await.expect("a state after the fetch");
        report(json!({
            "step": "fetched",
            "allowed": answer.allowed,
            "reason": answer.reason.as_str(),
            "state": summary(&before),
        }));
        wait_for_go();

        // A day and an hour later the origin is due. Use up every descriptor, then check.
        clock.advance(Duration::from_secs(25 * 3600));
        let mut hog = Vec::new();
        let exhausted = loop {
            match File::open("/dev/null") {
                Ok(f) => hog.push(f),
                Err(e) => break e,
            }
        };
        let answer = cache.check(&bot(), &url).await.expect("check");
        // The refresh runs in the background: wait until it failed locally and was retried
        // twice (50 ms, then 100 ms later).
        let waited = Instant::now();
        while cache.local_failures().count < 3 && waited.elapsed() < Duration::from_secs(10) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let failures = cache.local_failures().count;
        let during = cache.state(&origin).await.expect("a state");
        report(json!({
            "step": "failed-locally",
            "hogged": hog.len(),
            "exhausted_by": exhausted.to_string(),
            "allowed": answer.allowed,
            "reason": answer.reason.as_str(),
            "local_failures": failures,
            "unchanged": during == before,
            "state": summary(&during),
            "before": format!("{before:?}"),
            "during": format!("{during:?}"),
        }));
        wait_for_go();

        // Descriptors back: the running flight's next retry succeeds, and flush waits for it.
        drop(hog);
        let flushed = tokio::time::timeout(Duration::from_secs(60), cache.flush()).await;
        let after = cache.state(&origin).await.expect("a state");
        let failures = cache.local_failures();
        let (last_kind, last_text) = match &failures.last {
            Some(LocalError::Resources(m)) => ("resources", m.clone()),
            Some(LocalError::ShuttingDown(m)) => ("shutting-down", m.clone()),
            Some(other) => ("other", other.to_string()),
            None => ("none", String::new()),
        };
        let answer = cache.check(&bot(), &url).await.expect("check");
        report(json!({
            "step": "recovered",
            "flushed": matches!(flushed, Ok(Ok(()))),
            "allowed": answer.allowed,
            "reason": answer.reason.as_str(),
            "local_failures": failures.count,
            "last_kind": last_kind,
            "last_text": last_text,
            "same_file": after.good_file().map(|f| f.digest) == before.good_file().map(|f| f.digest),
            "state": summary(&after),
        }));
    });
}

/// What test 1 looks at in a state: its versions, the count of the last, the failure run.
fn summary(state: &OriginState) -> Value {
    json!({
        "versions": state.history().len(),
        "last_count": state.last_fetch().map(|v| v.count),
        "last": state.last_fetch().map(|v| v.content.as_str()),
        "failing": state.failing_since().is_some(),
    })
}

fn report(value: Value) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{value}").expect("stdout");
    out.flush().expect("stdout");
}

fn wait_for_go() {
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .expect("read the parent's go");
    assert_eq!(line.trim(), "go", "the parent said {line:?}");
}

fn local_failure_leaves_state() {
    let rt = support::runtime(2);
    let server = rt.block_on(TestServer::start(|_| Reply::text(200, RULES)));
    let mut kid = Kid::start(
        "state-kept",
        &[("CRAWLGATE_LIMITS_URL", server.url("/private"))],
    );
    let minute = Duration::from_secs(60);

    let fetched = kid.next(minute);
    assert_eq!(fetched["allowed"], json!(false), "{fetched}");
    assert_eq!(fetched["reason"], json!("fetched"), "{fetched}");
    assert_eq!(
        fetched["state"],
        json!({"versions": 1, "last_count": 1, "last": "fetched", "failing": false}),
        "{fetched}"
    );
    assert_eq!(server.hits(), 1);
    kid.go();

    let failed = kid.next(minute);
    assert!(
        failed["exhausted_by"]
            .as_str()
            .is_some_and(|e| e.contains("os error 24")),
        "descriptors used up by EMFILE: {failed}"
    );
    // Answered from the last good version while the refresh fails.
    assert_eq!(failed["allowed"], json!(false), "{failed}");
    assert_eq!(failed["reason"], json!("fetched"), "{failed}");
    assert_eq!(
        failed["unchanged"],
        json!(true),
        "the stored state is the same as before the failure:\nbefore {}\nduring {}",
        failed["before"],
        failed["during"]
    );
    assert_eq!(
        failed["state"],
        json!({"versions": 1, "last_count": 1, "last": "fetched", "failing": false}),
        "{failed}"
    );
    assert!(
        failed["local_failures"].as_u64().unwrap_or(0) >= 3,
        "the refresh failed on this side and was retried twice within 10 s: {failed}"
    );
    assert_eq!(server.hits(), 1, "no request left the child");
    kid.go();

    let recovered = kid.next(minute);
    assert_eq!(recovered["flushed"], json!(true), "{recovered}");
    assert_eq!(
        server.hits(),
        2,
        "the flight's retry reached the server once descriptors were free"
    );
    assert_eq!(
        recovered["state"],
        json!({"versions": 1, "last_count": 2, "last": "fetched", "failing": false}),
        "a second fetch of the same version: {recovered}"
    );
    assert_eq!(recovered["same_file"], json!(true), "{recovered}");
    assert_eq!(recovered["allowed"], json!(false), "{recovered}");
    assert_eq!(recovered["reason"], json!("fetched"), "{recovered}");
    assert_eq!(recovered["last_kind"], json!("resources"), "{recovered}");
    let text = recovered["last_text"].as_str().unwrap_or("");
    assert!(
        text.contains("Too many open files") || text.contains("os error 24"),
        "the last local failure names EMFILE: {text:?}"
    );
    eprintln!(
        "    {} local failures before descriptors came back; last: {text}",
        recovered["local_failures"]
    );
    kid.finish();
}

// ---------------------------------------------------------------------------------------------
// 2. Two thousand origins under ulimit -n 256.

/// The child side: one engine, every origin checked at once, then re-checked until fetched.
fn child_many_origins() {
    set_soft_nofile(256);
    let ports: Vec<u16> = std::env::var("CRAWLGATE_LIMITS_PORTS")
        .expect("CRAWLGATE_LIMITS_PORTS")
        .split(',')
        .map(|p| p.parse().expect("port"))
        .collect();
    let mut fetch = FetchOptions::default();
    if let Ok(n) = std::env::var("CRAWLGATE_LIMITS_IN_FLIGHT") {
        fetch.max_in_flight = n.parse().expect("max in flight");
    }
    let max_in_flight = fetch.max_in_flight;
    let mut options = CacheOptions::default();
    options.fetch = fetch;
    options.max_origins = 4 * ORIGINS as u64;
    let rt = support::runtime(2);
    rt.block_on(async {
        let cache =
            RobotsCache::with_store(options, Arc::new(MemoryStore::new()), Arc::new(SystemClock))
                .expect("engine");
        let url = |port: u16| format!("http://127.0.0.1:{port}/private");
        let origin = |port: u16| Origin::from_url(&url(port)).expect("origin");

        let mut checks = tokio::task::JoinSet::new();
        for &port in &ports {
            let (cache, url) = (cache.clone(), url(port));
            checks.spawn(async move { cache.check(&bot(), &url).await });
        }
        let mut first_answers: BTreeMap<&'static str, usize> = BTreeMap::new();
        let mut allowed = 0;
        while let Some(joined) = checks.join_next().await {
            let answer = joined.expect("check task").expect("check");
            *first_answers.entry(answer.reason.as_str()).or_default() += 1;
            allowed += usize::from(answer.allowed);
        }
        cache.flush().await.expect("flush");

        // A flight that met local failures for 30 s gave up, leaving "not fetched yet": a new
        // check starts another. Every origin must end fetched, possibly late. (An origin with
        // a fetch recorded is not re-checked: a recorded failure is not retried for minutes.)
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut rechecks = 0;
        loop {
            let mut never_fetched = Vec::new();
            for &port in &ports {
                let state = cache.state(&origin(port)).await;
                if state.as_ref().and_then(OriginState::last_fetch).is_none() {
                    never_fetched.push(port);
                }
            }
            if never_fetched.is_empty() || Instant::now() > deadline {
                break;
            }
            rechecks += never_fetched.len();
            for port in never_fetched {
                cache.check(&bot(), &url(port)).await.expect("check");
            }
            cache.flush().await.expect("flush");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }

        for &port in &ports {
            let state = cache.state(&origin(port)).await;
            let unreachable = state.as_ref().is_some_and(|s| {
                s.history()
                    .any(|v| matches!(v.content, Content::Unreachable(_)))
            });
            report(json!({
                "port": port,
                "fetched": is_fetched(state.as_ref()),
                "unreachable": unreachable,
            }));
        }
        report(json!({
            "done": true,
            "max_in_flight": max_in_flight,
            "first_answers": first_answers,
            "allowed": allowed,
            "rechecks": rechecks,
            "local_failures": cache.local_failures().count,
            "last_local_failure": cache.local_failures().last.map(|e| e.to_string()),
        }));
    });
}

/// Whether the last fetch recorded gave a file.
fn is_fetched(state: Option<&OriginState>) -> bool {
    state
        .and_then(OriginState::last_fetch)
        .is_some_and(|v| matches!(v.content, Content::Rules(_)))
}

/// 2,000 listeners on 127.0.0.1, each an origin serving `RULES`; requests counted per port.
struct Farm {
    ports: Vec<u16>,
    hits: Arc<Vec<AtomicUsize>>,
}

impl Farm {
    async fn start(n: usize) -> Farm {
        let hits: Arc<Vec<AtomicUsize>> = Arc::new((0..n).map(|_| AtomicUsize::new(0)).collect());
        let mut ports = Vec::with_capacity(n);
        let mut response = head(RULES.len(), None);
        response.extend_from_slice(RULES.as_bytes());
        let response: Arc<[u8]> = response.into();
        for i in 0..n {
            let listener = TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind a listener (is the open-file limit high enough?)");
            ports.push(listener.local_addr().expect("local addr").port());
            let (hits, response) = (hits.clone(), response.clone());
            serve_forever(listener, move |mut stream| {
                let (hits, response) = (hits.clone(), response.clone());
                async move {
                    if read_head(&mut stream).await {
                        hits[i].fetch_add(1, Ordering::SeqCst);
                        let _ = stream.write_all(&response).await;
                        let _ = stream.shutdown().await;
                    }
                }
            });
        }
        Farm { ports, hits }
    }

    fn counts(&self) -> Vec<usize> {
        self.hits.iter().map(|h| h.load(Ordering::SeqCst)).collect()
    }
}

fn many_origins() {
    // The parent holds 2,000 listeners and up to 2,000 accepted connections at once.
    let hard = getrlimit(Resource::Nofile).maximum;
    let want = hard.map_or(8192, |h| h.min(8192));
    assert!(
        want >= 4096,
        "the hard open-file limit is {hard:?}: this test needs at least 4096 (2,000 listeners \
         and their connections); raise it (ulimit -Hn, or LimitNOFILE in CI)"
    );
    set_soft_nofile(want);
    let rt = support::runtime(2);
    let farm = rt.block_on(Farm::start(ORIGINS));
    let ports: Vec<String> = farm.ports.iter().map(u16::to_string).collect();
    let ports = ports.join(",");

    for (label, in_flight) in [
        ("default max_in_flight", None),
        ("max_in_flight 2000", Some(2000)),
    ] {
        let before = farm.counts();
        let started = Instant::now();
        let mut env = vec![("CRAWLGATE_LIMITS_PORTS", ports.clone())];
        if let Some(n) = in_flight {
            env.push(("CRAWLGATE_LIMITS_IN_FLIGHT", n.to_string()));
        }
        let mut kid = Kid::start("many-origins", &env);
        let mut fetched = 0;
        let mut not_fetched = Vec::new();
        let mut unreachable = Vec::new();
        let done = loop {
            let line = kid.next(Duration::from_secs(240));
            if line["done"] == json!(true) {
                break line;
            }
            let port = line["port"].as_u64().expect("port");
            if line["fetched"] == json!(true) {
                fetched += 1;
            } else {
                not_fetched.push(port);
            }
            if line["unreachable"] == json!(true) {
                unreachable.push(port);
            }
        };
        kid.finish();
        let wall = started.elapsed();
        let after = farm.counts();
        let unvisited = (0..ORIGINS).filter(|&i| after[i] == before[i]).count();
        let requests: usize = (0..ORIGINS).map(|i| after[i] - before[i]).sum();
        eprintln!(
            "    {label}: {:.1} s wall, {requests} requests, {} local failures, first answers {}, \
             {} re-checks, max_in_flight {}",
            wall.as_secs_f64(),
            done["local_failures"],
            done["first_answers"],
            done["rechecks"],
            done["max_in_flight"],
        );
        assert_eq!(
            fetched,
            ORIGINS,
            "{label}: every origin ends fetched; not fetched: {} ({:?}…); {done}",
            not_fetched.len(),
            &not_fetched[..not_fetched.len().min(10)]
        );
        assert!(
            unreachable.is_empty(),
            "{label}: a local failure was recorded as the site's for {} origins ({:?}…)",
            unreachable.len(),
            &unreachable[..unreachable.len().min(10)]
        );
        assert_eq!(unvisited, 0, "{label}: every origin got a request");
        assert_eq!(
            done["allowed"],
            json!(0),
            "/private is never allowed: {done}"
        );
        match in_flight {
            None => assert_eq!(
                done["max_in_flight"],
                json!(64),
                "the default cap under 256 descriptors is a quarter of them"
            ),
            Some(_) => assert!(
                done["local_failures"].as_u64().unwrap_or(0) > 0,
                "{label}: 2,000 fetches in flight under 256 descriptors never failed locally, so \
                 the retry path was not exercised and this test proves nothing: {done}"
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 3. Memory per fetch.

/// The kinds of bombs, with what a fetch of each must give.
const KINDS: [(&str, &str); 5] = [
    ("br", "encoding"),
    ("br-stalled", "encoding"),
    ("gzip", "rules"),
    ("deflate", "rules"),
    ("gzip-gzip", "rules"),
];

/// The child side: a warm-up fetch, then one fetch of the kind, then 50 at once; the peak RSS
/// after each.
fn child_memory() {
    let port = |name| -> u16 {
        std::env::var(name)
            .unwrap_or_else(|_| panic!("{name}"))
            .parse()
            .expect("port")
    };
    let (plain, bomb) = (
        port("CRAWLGATE_LIMITS_PLAIN"),
        port("CRAWLGATE_LIMITS_BOMB"),
    );
    let timeout_ms: u64 = std::env::var("CRAWLGATE_LIMITS_TIMEOUT_MS")
        .expect("CRAWLGATE_LIMITS_TIMEOUT_MS")
        .parse()
        .expect("timeout");
    let rt = support::runtime(2);
    rt.block_on(async {
        let fetcher = Fetcher::new({
            let mut fetch = FetchOptions::default();
            fetch.timeout = Duration::from_millis(timeout_ms);
            fetch.max_in_flight = 64;
            fetch
        })
        .expect("fetcher");
        let origin =
            |port: u16| Origin::from_url(&format!("http://127.0.0.1:{port}/")).expect("origin");
        let (plain, bomb) = (origin(plain), origin(bomb));
        // Warm up rustls, the runtime's threads, the allocator's arenas.
        let warm = outcome(fetcher.fetch(&plain).await);
        let baseline = peak_rss_kib();

        let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
        *outcomes
            .entry(outcome(fetcher.fetch(&bomb).await))
            .or_default() += 1;
        let one = peak_rss_kib();

        let mut fetches = tokio::task::JoinSet::new();
        for _ in 0..CONCURRENT {
            let (fetcher, bomb) = (fetcher.clone(), bomb.clone());
            // Only the outcome's summary outlives the task: what is measured is in flight.
            fetches.spawn(async move { outcome(fetcher.fetch(&bomb).await) });
        }
        while let Some(o) = fetches.join_next().await {
            *outcomes.entry(o.expect("fetch task")).or_default() += 1;
        }
        let fifty = peak_rss_kib();
        report(json!({
            "warm": warm,
            "baseline_kib": baseline,
            "one_kib": one - baseline,
            "fifty_kib": fifty - baseline,
            "outcomes": outcomes,
        }));
    });
}

/// A short description of a fetch's outcome.
fn outcome(result: Result<Fetch, LocalError>) -> String {
    let fetch = match result {
        Ok(f) => f,
        Err(e) => return format!("local failure: {e}"),
    };
    match &fetch.outcome {
        FetchOutcome::Rules { body, parsed } => {
            let cut = parsed
                .diagnostics
                .iter()
                .any(|d| d.code == Code::ContentAfterLimit);
            format!(
                "rules {} bytes{}",
                body.len(),
                if cut { ", content-after-limit" } else { "" }
            )
        }
        FetchOutcome::Unreachable(Unreachable::Encoding(why)) => format!("encoding: {why}"),
        other => format!("{}: {other:?}", other.as_str()),
    }
}

/// The process's peak resident set (`VmHWM`), in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .expect("VmHWM in /proc/self/status")
}

/// `size` zeros through `encoder`, one MiB at a time.
fn zeros_into<W: Write>(mut encoder: W, size: usize) -> W {
    let mib = vec![0u8; 1 << 20];
    for _ in 0..size >> 20 {
        encoder.write_all(&mib).expect("compress");
    }
    encoder
}

/// How many bytes the first bytes of a `kind` body (`prefix`) decode to in decoders that
/// write, as the fetcher's do, when the prefix arrives in two reads: all but its last byte,
/// then that byte. (A write decoder keeps the output of its last write until the next; two
/// stacked keep back much of a bomb's output: the last byte pushes the rest through, as the
/// server's nudge does.) Stops past the cap.
fn decoded_len(kind: &str, prefix: &[u8]) -> usize {
    let counted = Rc::new(Cell::new(0));
    let count = Count(counted.clone());
    let mut decoder: Box<dyn Write> = match kind {
        "gzip" => Box::new(GzDecoder::new(count)),
        "deflate" => Box::new(ZlibDecoder::new(count)),
        "gzip-gzip" => Box::new(GzDecoder::new(GzDecoder::new(count))),
        other => unreachable!("{other}"),
    };
    let (most, last) = prefix.split_at(prefix.len().saturating_sub(1));
    // A cut stream, or the cap, ends in an error: what came out before it is what counts.
    let _ = decoder
        .write_all(most)
        .and_then(|()| decoder.write_all(last));
    // Read before the decoder goes: dropping it finishes it, which writes out what it kept.
    counted.get()
}

/// A writer that counts bytes and refuses them past the cap, as the fetcher's body does.
struct Count(Rc<Cell<usize>>);

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.get() > BODY_CAP {
            return Err(std::io::Error::other("past the cap"));
        }
        self.0.set(self.0.get() + buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The longest prefix of a `kind` body that decodes to less than `below` bytes.
fn prefix_below(kind: &str, body: &[u8], below: usize) -> usize {
    // decoded_len grows with the prefix: binary search for the first prefix at `below` or more.
    let (mut lo, mut hi) = (0, body.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if decoded_len(kind, &body[..mid]) < below {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo.saturating_sub(1)
}

/// A response in parts: `before`, each piece after a pause (so that each arrives in a read of
/// its own); then, once every connection of its batch got `before`, `after`; with `stall`,
/// then silence until the client goes.
struct Scripted {
    before: Vec<Vec<u8>>,
    after: Vec<u8>,
    stall: bool,
}

/// The child's schedule: connection 0 is the single fetch, 1 to 50 the fetches at once.
fn batch_end(connection: usize) -> usize {
    if connection < 1 {
        1
    } else {
        1 + CONCURRENT
    }
}

/// Serves `script` on 127.0.0.1. The gate makes the 50 fetches really be in flight together,
/// each holding what `before` gave it, when they would otherwise run one after another (a
/// loopback answer is decoded in one go). Returns the port and the count of gates that timed
/// out (a batch that never filled: the figures would not be those of 50 fetches in flight).
async fn serve_scripted(script: Scripted) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("local addr").port();
    let script = Arc::new(script);
    let next = Arc::new(AtomicUsize::new(0));
    let (arrived, _) = watch::channel(0usize);
    let arrived = Arc::new(arrived);
    let timeouts = Arc::new(AtomicUsize::new(0));
    let timed_out = timeouts.clone();
    serve_forever(listener, move |mut stream| {
        let (script, next, arrived) = (script.clone(), next.clone(), arrived.clone());
        let timed_out = timed_out.clone();
        async move {
            if !read_head(&mut stream).await {
                return;
            }
            for (i, piece) in script.before.iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(PIECE_PAUSE).await;
                }
                if stream.write_all(piece).await.is_err() || stream.flush().await.is_err() {
                    return;
                }
            }
            let end = batch_end(next.fetch_add(1, Ordering::SeqCst));
            let mut gate = arrived.subscribe();
            arrived.send_modify(|n| *n += 1);
            let all_in = gate.wait_for(|&n| n >= end);
            if tokio::time::timeout(Duration::from_secs(10), all_in)
                .await
                .is_err()
            {
                timed_out.fetch_add(1, Ordering::SeqCst);
            }
            // Time for every client to read and decode `before` (a slow one only makes the
            // figures smaller, never the test flaky).
            tokio::time::sleep(SETTLE).await;
            if stream.write_all(&script.after).await.is_err() {
                return;
            }
            if script.stall {
                let _ = stream.flush().await;
                let mut sink = [0u8; 256];
                let until_closed =
                    async { while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {} };
                let _ = tokio::time::timeout(Duration::from_secs(120), until_closed).await;
            } else {
                let _ = stream.shutdown().await;
            }
        }
    });
    (port, timeouts)
}

fn memory_per_fetch() {
    const BOMB: usize = 64 << 20;
    let br = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/bombs/zeros.br"
    ))
    .expect("testdata/bombs/zeros.br");
    let gz = zeros_into(GzEncoder::new(Vec::new(), Compression::best()), BOMB)
        .finish()
        .expect("gzip");
    let zlib = zeros_into(ZlibEncoder::new(Vec::new(), Compression::best()), BOMB)
        .finish()
        .expect("zlib");
    // The outer layer stored: a compressed one turns a single byte into some 800 bytes of the
    // inner stream (650 KB of zeros), so no cut of it would hold a body just under the cap.
    let gz_gz = gzip_at(Compression::none(), &gz);
    eprintln!(
        "    bombs: br {} B, gzip {} B, deflate {} B, gzip-gzip {} B ({} MiB of zeros each)",
        br.len(),
        gz.len(),
        zlib.len(),
        gz_gz.len(),
        BOMB >> 20
    );
    let rt = support::runtime(2);
    let mut plain = head(RULES.len(), None);
    plain.extend_from_slice(RULES.as_bytes());
    let (plain_port, _) = rt.block_on(serve_scripted(Scripted {
        before: vec![plain],
        after: Vec::new(),
        stall: false,
    }));

    eprintln!(
        "    {:<11} {:>12} {:>13} {:>14} {:>14}",
        "kind", "held KiB", "1 fetch KiB", "50 fetches KiB", "per fetch KiB"
    );
    for (kind, expect) in KINDS {
        let (script, held) = match kind {
            // Nothing before the gate: the 50 requests are all waiting for an answer.
            "br" => {
                let mut after = head(br.len(), Some("br"));
                after.extend_from_slice(&br);
                let script = Scripted {
                    before: Vec::new(),
                    after,
                    stall: false,
                };
                (script, 0)
            }
            // The head announces the whole stream; half of it comes, then nothing.
            "br-stalled" => {
                let mut after = head(br.len(), Some("br"));
                after.extend_from_slice(&br[..br.len() / 2]);
                let script = Scripted {
                    before: Vec::new(),
                    after,
                    stall: true,
                };
                (script, 0)
            }
            // Before the gate, as much of the bomb as decodes to just under 450,000 bytes, its
            // last byte apart to push it through: each fetch in flight then holds a body nearly
            // at the cap (the worst moment to be many).
            _ => {
                let (encoding, body) = match kind {
                    "gzip" => ("gzip", &gz),
                    "deflate" => ("deflate", &zlib),
                    _ => ("gzip, gzip", &gz_gz),
                };
                let cut = prefix_below(kind, body, 450_000);
                let mut first = head(body.len(), Some(encoding));
                first.extend_from_slice(&body[..cut - 1]);
                let script = Scripted {
                    before: vec![first, body[cut - 1..cut].to_vec()],
                    after: body[cut..].to_vec(),
                    stall: false,
                };
                (script, decoded_len(kind, &body[..cut]))
            }
        };
        assert!(
            expect == "encoding" || held > 256 * 1024,
            "{kind}: the first part of the answer decodes to {held} bytes only: the fetches at \
             once would not each hold a body near the cap"
        );
        let stall = script.stall;
        let (bomb_port, gate_timeouts) = rt.block_on(serve_scripted(script));
        // A short total timeout, so that a stalled body cannot hold a fetch for 30 s.
        let timeout_ms = if stall { 3_000 } else { 30_000 };
        // One child per kind: VmHWM only grows, so each starts from a clean baseline.
        let mut kid = Kid::start(
            "memory",
            &[
                ("CRAWLGATE_LIMITS_PLAIN", plain_port.to_string()),
                ("CRAWLGATE_LIMITS_BOMB", bomb_port.to_string()),
                ("CRAWLGATE_LIMITS_TIMEOUT_MS", timeout_ms.to_string()),
            ],
        );
        let r = kid.next(Duration::from_secs(120));
        kid.finish();
        let one = r["one_kib"].as_u64().expect("one_kib");
        let fifty = r["fifty_kib"].as_u64().expect("fifty_kib");
        eprintln!(
            "    {kind:<11} {:>12} {one:>13} {fifty:>14} {:>14.1}",
            held / 1024,
            fifty as f64 / CONCURRENT as f64
        );
        assert_eq!(
            r["warm"],
            json!(format!("rules {} bytes", RULES.len())),
            "{r}"
        );
        assert_eq!(
            gate_timeouts.load(Ordering::SeqCst),
            0,
            "{kind}: the {CONCURRENT} fetches were not all in flight together"
        );
        let outcomes = r["outcomes"].as_object().expect("outcomes");
        let total: u64 = outcomes.values().filter_map(Value::as_u64).sum();
        assert_eq!(total, 1 + CONCURRENT as u64, "{kind}: {r}");
        for seen in outcomes.keys() {
            let ok = match expect {
                "encoding" => seen.starts_with("encoding: "),
                _ => *seen == format!("rules {BODY_CAP} bytes, content-after-limit"),
            };
            assert!(ok, "{kind}: expected {expect}, got {seen:?} ({r})");
        }
        assert!(
            one <= MAX_KIB_PER_FETCH,
            "{kind}: one fetch raised the peak RSS by {one} KiB (at most {MAX_KIB_PER_FETCH})"
        );
        assert!(
            fifty <= CONCURRENT as u64 * MAX_KIB_PER_FETCH,
            "{kind}: {CONCURRENT} fetches at once raised the peak RSS by {fifty} KiB (at most \
             {MAX_KIB_PER_FETCH} each)"
        );
    }
}
