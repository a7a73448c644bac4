//! `crawlgate serve` under load, beside the engine in process, in one run: 10,000 warm origins
//! (one local server answering on loopback addresses `127.b.c.d`, one robots.txt per host),
//! 64 keep-alive clients on the same machine.
//!
//! Prints: single-URL `POST /v1/check` requests/s with p50/p99 latency; URL checks/s in
//! batches of 1,000; single-URL `POST /v1/acquire` requests/s (each books a slot); with
//! `SERVE_LOAD_BASELINE=/path/to/crawlgate`, the same service figures (memory per warm origin
//! too) for that binary before and after this build's, in the same run, and this build's as
//! fractions of their mean; in-process `RobotsCache::check` calls/s on one thread; the
//! service's figures as fractions of the in-process one (the measure to compare); resident memory
//! per warm origin of the service and of the engine alone. Both memory figures are taken the
//! same way, like with like: a fresh process (the service; this bench run again as a child
//! holding nothing but the engine), the same engine options (`--max-origins` room for every
//! origin), the same origins and files, `VmRSS` before and after warming them with the same
//! batches of URLs. The engine is measured in a process of its own because this one has
//! served and freed the load phases' buffers, which the allocator keeps and would hand to the
//! engine unseen. The client shares the machine's cores with the server: on a 2-core machine
//! the figures are the pair's, not the server's alone.
//!
//! Run: `cargo bench -p crawlgate-cli --bench serve_load` (`SERVE_LOAD_SECONDS`, default 10 per
//! phase; `SERVE_LOAD_ORIGINS`, default 10,000; `SERVE_LOAD_BASELINE`, a binary to compare).

#[path = "../../tests/support/mod.rs"]
mod support;

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crawlgate::engine::{CacheOptions, RobotsCache};
use crawlgate::ProductToken;
use futures_util::StreamExt;

const CLIENTS: usize = 64;
const BATCH: usize = 1000;

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn host(i: u64) -> String {
    format!(
        "127.{}.{}.{}",
        1 + i / 62_500,
        1 + i / 250 % 250,
        1 + i % 250
    )
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// Resident memory gained per origin, in bytes, from `VmRSS` figures in KiB.
fn per_origin(before_kib: u64, after_kib: u64, origins: u64) -> f64 {
    after_kib.saturating_sub(before_kib) as f64 * 1024.0 / origins.max(1) as f64
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

/// The engine's options in both processes: room for every origin (the service gets the
/// same through `--max-origins`).
fn engine_options(origins: u64) -> CacheOptions {
    let mut options = CacheOptions::default();
    options.max_origins = origins.max(1) * 2;
    options
}

/// The child's side of the memory figure: the engine alone in a fresh process, warmed on the
/// parent's server as the service was (the same URLs in the same batches, answered 64 at a
/// time as `/v1/check` answers them); prints `VmRSS` before and after, in KiB.
fn engine_memory(port: u16, origins: u64) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let me = std::process::id();
    let token = ProductToken::new("bot").expect("token");
    rt.block_on(async {
        let cache = RobotsCache::new(engine_options(origins)).expect("engine");
        let before = rss_kib(me);
        for chunk in (0..origins).collect::<Vec<_>>().chunks(BATCH) {
            let urls: Vec<String> = chunk
                .iter()
                .map(|i| format!("http://{}:{port}/", host(*i)))
                .collect();
            let answers: Vec<_> = futures_util::stream::iter(&urls)
                .map(|u| cache.check(&token, u))
                .buffered(64)
                .collect()
                .await;
            assert!(answers.iter().all(Result::is_ok));
        }
        println!("engine-rss {before} {}", rss_kib(me));
    });
}

/// One binary's service figures.
struct Figures {
    warm_s: f64,
    check_rps: f64,
    check_p50: f64,
    check_p99: f64,
    batch_rps: f64,
    batch_ups: f64,
    batch_p50: f64,
    batch_p99: f64,
    acquire_rps: f64,
    acquire_p50: f64,
    acquire_p99: f64,
    rss_before: u64,
    rss_after: u64,
}

/// The route a load phase drives.
#[derive(Clone, Copy)]
enum Route {
    /// `POST /v1/check` with this many URLs a request.
    Check(usize),
    /// `POST /v1/acquire`, one URL a request, never the same URL twice (each books a slot).
    Acquire,
}

/// A service's process, stopped when dropped: after its phases, and when a phase fails, so
/// that a failed run leaves no server behind.
struct Service(std::process::Child);

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `bin serve` on a fresh state, warms every origin through it, then drives each phase
/// for `seconds` with [`CLIENTS`] keep-alive clients; the service is stopped after.
fn service_phases(
    rt: &tokio::runtime::Runtime,
    bin: &str,
    port: u16,
    origins: u64,
    seconds: u64,
) -> Figures {
    let url = |i: u64, path: &str| format!("http://{}:{port}{path}", host(i));
    let dir = tempfile::tempdir().expect("temp dir");
    let mut service = Service(
        Command::new(bin)
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--no-state",
                "--allow-private",
                "--max-in-flight",
                "1024",
                "--max-origins",
                &engine_options(origins).max_origins.to_string(),
            ])
            .env("HOME", dir.path())
            .env("XDG_STATE_HOME", dir.path())
            .stdout(Stdio::piped())
            .spawn()
            .expect("crawlgate serve"),
    );
    let mut first = String::new();
    std::io::BufReader::new(service.0.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("listening line");
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .expect("address")
        .to_owned();
    let base = format!("http://{addr}");
    // Connections idle for less than the service's `--idle-timeout` (60 s): a pooled one kept
    // longer (reqwest's default, 90 s) can be picked just as the service closes it, and its
    // request then fails with a reset that is the pair's race, not the service's fault.
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(CLIENTS)
        .pool_idle_timeout(Duration::from_secs(30))
        .build()
        .expect("client");
    let rss_before = rss_kib(service.0.id());

    // Warm: every origin fetched once by the service.
    let warm = Instant::now();
    rt.block_on(async {
        for chunk in (0..origins).collect::<Vec<_>>().chunks(BATCH) {
            let urls: Vec<String> = chunk.iter().map(|i| url(*i, "/")).collect();
            let body = serde_json::json!({"agent": "bot", "urls": urls});
            let r = client
                .post(format!("{base}/v1/check"))
                .json(&body)
                .send()
                .await
                .expect("warm request");
            assert!(
                r.status().is_success(),
                "{}",
                r.text().await.unwrap_or_default()
            );
        }
    });
    let warm_s = warm.elapsed().as_secs_f64();
    let rss_after = rss_kib(service.0.id());

    // `CLIENTS` clients, for `seconds`: requests/s, URLs/s, p50 and p99 in ms.
    let phase = |route: Route| {
        let stop = Arc::new(AtomicBool::new(false));
        let done = Arc::new(AtomicU64::new(0));
        let started = Instant::now();
        let latencies = rt.block_on(async {
            let mut tasks = Vec::new();
            for c in 0..CLIENTS {
                let (client, base, stop, done) =
                    (client.clone(), base.clone(), stop.clone(), done.clone());
                let urls: Vec<String> = (0..BATCH as u64 * 4)
                    .map(|k| {
                        let i = (k * 7919 + c as u64 * 104_729) % origins;
                        let path = match k % 4 {
                            0 => "/private/x",
                            1 => "/private/open/y",
                            2 => "/doc.pdf",
                            _ => "/page?q=1",
                        };
                        format!("http://{}:{port}{path}", host(i))
                    })
                    .collect();
                tasks.push(tokio::spawn(async move {
                    let mut lat = Vec::new();
                    let mut k = 0;
                    while !stop.load(Ordering::Relaxed) {
                        let (path, body, n) = match route {
                            Route::Check(batch) => {
                                let slice: Vec<&String> =
                                    (0..batch).map(|j| &urls[(k + j) % urls.len()]).collect();
                                k += batch;
                                let body = serde_json::json!({"agent": "bot", "urls": slice});
                                ("/v1/check", body, batch)
                            }
                            Route::Acquire => {
                                // A page of its own each time (an allowed one), so that every
                                // request books a slot rather than finding its pending one.
                                let i = (k as u64 * 7919 + c as u64 * 104_729) % origins;
                                let u = format!("http://{}:{port}/page/{c}/{k}", host(i));
                                k += 1;
                                let body = serde_json::json!({"agent": "bot", "url": u});
                                ("/v1/acquire", body, 1)
                            }
                        };
                        let t = Instant::now();
                        let r = client
                            .post(format!("{base}{path}"))
                            .json(&body)
                            .send()
                            .await;
                        // What failed, and how, so that a failure under load can be told
                        // from a slow machine.
                        let failed = match r {
                            Ok(r) if r.status().is_success() => {
                                r.bytes().await.err().map(|e| format!("body: {e}"))
                            }
                            Ok(r) => {
                                let status = r.status();
                                Some(format!("{status}: {}", r.text().await.unwrap_or_default()))
                            }
                            Err(e) => Some(format!("{e:?}")),
                        };
                        if let Some(why) = failed {
                            panic!("POST {path} failed under load: {why}");
                        }
                        lat.push(t.elapsed().as_micros() as u64);
                        done.fetch_add(n as u64, Ordering::Relaxed);
                    }
                    lat
                }));
            }
            tokio::time::sleep(Duration::from_secs(seconds)).await;
            stop.store(true, Ordering::Relaxed);
            let mut all = Vec::new();
            for t in tasks {
                all.extend(t.await.expect("client task"));
            }
            all
        });
        let took = started.elapsed().as_secs_f64();
        let mut lat = latencies;
        lat.sort_unstable();
        (
            lat.len() as f64 / took,
            done.load(Ordering::Relaxed) as f64 / took,
            percentile(&lat, 0.5),
            percentile(&lat, 0.99),
        )
    };
    let (check_rps, _, check_p50, check_p99) = phase(Route::Check(1));
    let (batch_rps, batch_ups, batch_p50, batch_p99) = phase(Route::Check(BATCH));
    let (acquire_rps, _, acquire_p50, acquire_p99) = phase(Route::Acquire);
    drop(service);
    Figures {
        warm_s,
        check_rps,
        check_p50,
        check_p99,
        batch_rps,
        batch_ups,
        batch_p50,
        batch_p99,
        acquire_rps,
        acquire_p50,
        acquire_p99,
        rss_before,
        rss_after,
    }
}

fn main() {
    let origins = env_num("SERVE_LOAD_ORIGINS", 10_000);
    if let Some(port) = std::env::var("SERVE_LOAD_ENGINE_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
    {
        engine_memory(port, origins);
        return;
    }
    let seconds = env_num("SERVE_LOAD_SECONDS", 10);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    // One server for every loopback host; the robots.txt names its host in a comment.
    let server = rt.block_on(support::TestServer::start_on("0.0.0.0", |req| {
        if req.path == "/robots.txt" {
            support::Reply::text(
                200,
                "User-agent: *\nDisallow: /private\nAllow: /private/open\nDisallow: /*.pdf$\n",
            )
        } else {
            support::Reply::status(404)
        }
    }));
    let port = server.addr.port();
    let url = |i: u64, path: &str| format!("http://{}:{port}{path}", host(i));

    // The service phases for each binary, in this run. With a baseline
    // (`SERVE_LOAD_BASELINE=/path/to/crawlgate`, say the last release), the baseline runs
    // before and after this build (A-B-A), and this build is compared with the mean of the
    // two, so that a drift of the machine during the run does not pass for a difference.
    let baseline = std::env::var("SERVE_LOAD_BASELINE").ok();
    let mut runs = Vec::new();
    if let Some(b) = &baseline {
        runs.push(("baseline", service_phases(&rt, b, port, origins, seconds)));
    }
    let this = service_phases(&rt, env!("CARGO_BIN_EXE_crawlgate"), port, origins, seconds);
    let (single_rps, batched_ups, rss_before, rss_after) = (
        this.check_rps,
        this.batch_ups,
        this.rss_before,
        this.rss_after,
    );
    runs.push(("this build", this));
    if let Some(b) = &baseline {
        runs.push((
            "baseline again",
            service_phases(&rt, b, port, origins, seconds),
        ));
    }
    for (name, f) in &runs {
        println!("== {name}");
        println!(
            "warm: {origins} origins fetched through the service in {:.1} s",
            f.warm_s
        );
        println!(
            "single-URL POST /v1/check, {CLIENTS} keep-alive clients: {:.0} requests/s, p50 {:.2} ms, p99 {:.2} ms",
            f.check_rps, f.check_p50, f.check_p99
        );
        println!(
            "batches of {BATCH} URLs, {CLIENTS} clients: {:.0} URL checks/s ({:.0} requests/s), p50 {:.2} ms, p99 {:.2} ms",
            f.batch_ups, f.batch_rps, f.batch_p50, f.batch_p99
        );
        println!(
            "single-URL POST /v1/acquire, {CLIENTS} keep-alive clients: {:.0} requests/s, p50 {:.2} ms, p99 {:.2} ms",
            f.acquire_rps, f.acquire_p50, f.acquire_p99
        );
        println!(
            "resident memory per warm origin (service): {:.0} bytes",
            per_origin(f.rss_before, f.rss_after, origins)
        );
    }
    if let [(_, a), (_, this), (_, b)] = &runs[..] {
        let ratio = |f: fn(&Figures) -> f64| f(this) / ((f(a) + f(b)) / 2.0);
        println!(
            "this build / baseline (mean of both runs): single-URL checks {:.3}, batched URL checks {:.3}, acquires {:.3}",
            ratio(|f| f.check_rps),
            ratio(|f| f.batch_ups),
            ratio(|f| f.acquire_rps)
        );
    }

    // The engine in this process on the same origins: check() on one thread.
    let token = ProductToken::new("bot").expect("token");
    let (calls, took) = rt.block_on(async {
        let cache = RobotsCache::new(engine_options(origins)).expect("engine");
        for i in 0..origins {
            let _ = cache.check(&token, &url(i, "/")).await;
        }
        let urls: Vec<String> = (0..4096u64)
            .map(|k| url((k * 7919) % origins, "/private/x"))
            .collect();
        let t = Instant::now();
        let mut calls = 0u64;
        while t.elapsed() < Duration::from_secs(seconds.min(5)) {
            for u in &urls {
                let a = cache.check(&token, u).await.expect("check");
                std::hint::black_box(a);
            }
            calls += urls.len() as u64;
        }
        (calls, t.elapsed().as_secs_f64())
    });
    let in_process = calls as f64 / took;
    println!("in process: RobotsCache::check {in_process:.0} calls/s on one thread");
    // The measure to compare across machines and runs: the service against the engine it
    // wraps, both on this machine in this run.
    println!(
        "service / in process: single-URL requests {:.4}, batched URL checks {:.3}",
        single_rps / in_process,
        batched_ups / in_process
    );
    // The engine alone, in a fresh process: this bench again, as a child.
    let output = Command::new(std::env::current_exe().expect("this bench"))
        .env("SERVE_LOAD_ENGINE_PORT", port.to_string())
        .env("SERVE_LOAD_ORIGINS", origins.to_string())
        .stderr(Stdio::inherit())
        .output()
        .expect("the engine's process");
    let text = String::from_utf8_lossy(&output.stdout);
    let figures: Vec<u64> = text
        .lines()
        .find_map(|l| l.strip_prefix("engine-rss "))
        .map(|l| {
            l.split_whitespace()
                .filter_map(|n| n.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    let [rss_engine_before, rss_engine_after] = figures[..] else {
        panic!("no memory figures from the engine's process: {text}");
    };
    let (service, engine) = (
        per_origin(rss_before, rss_after, origins),
        per_origin(rss_engine_before, rss_engine_after, origins),
    );
    println!(
        "resident memory per warm origin: service {service:.0} bytes, engine alone {engine:.0} bytes (service / engine {:.2})",
        service / engine.max(1.0)
    );
}
