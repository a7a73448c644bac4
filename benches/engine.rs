//! The crawl-policy engine, measured in one run:
//!
//! - **warm checks/s** with each store (memory, embedded redb, Redis): 10,000 origins, the
//!   bench corpus's robots.txt files spread over them, every corpus URL moved onto its origin,
//!   checked by two tasks on a two-worker tokio runtime (the machine has 2 cores). The hot path
//!   is memory only (moka lookup, verdict, match), so the three should be close.
//! - **cold-origin fetches/s**: 200 origins never seen (distinct 127.x.y.z addresses of one
//!   local server), checked at once through a fresh engine: fetch, parse, store, answer.
//! - **bytes per origin**: resident memory of the engine with its compiled rules, and what each
//!   store holds (encoded states and bodies; the redb file; Redis's `used_memory`).
//! - **reloads/s** (memory store): a new engine on the store of the 10,000 origins answers a URL
//!   of each, reading its state and body back and parsing it, as after a restart; by default
//!   (no diagnostics kept, so none looked for) and with `keep_diagnostics`.
//!
//! The origins are warmed with `RobotsCache::insert` (the record path a fetch takes, minus the
//! network), so the timed loop is the cached path only.
//!
//! Run: `cargo bench --bench engine -- --warm-up-time 1 --measurement-time 3`.
//! Needs `redis-server` on PATH (`bash scripts/test.sh` installs it).

mod common;
#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crawlgate::engine::{CacheOptions, RobotsCache, SystemClock};
use crawlgate::policy::{Fetch, FetchOutcome};
use crawlgate::store::{EmbeddedStore, MemoryStore, RedisOptions, RedisStore, Store};
use crawlgate::{request_path, Origin, ProductToken, Robots};
use criterion::Throughput;

const ORIGINS: usize = 10_000;
const COLD: usize = 200;

fn main() {
    let Some(corpus) = common::corpus() else {
        eprintln!("Skipping the engine bench.");
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let redis = RedisServer::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let redb_path = dir.path().join("state.redb");
    let embedded = EmbeddedStore::open(&redb_path).expect("embedded store");
    let redis_store = rt
        .block_on(RedisStore::connect(RedisOptions::new(redis.url())))
        .expect("redis store");
    let redis_before = used_memory(&redis);

    // Origin i serves the robots.txt of site i % n; a tenth of the site's URLs move onto it.
    let sites = &corpus.sites;
    let mut urls: Vec<String> = Vec::new();
    let mut origins: Vec<Origin> = Vec::new();
    for i in 0..ORIGINS {
        let site = &sites[i % sites.len()];
        let host = format!("https://o{i}.bench.example");
        origins.push(Origin::from_url(&host).expect("origin"));
        for u in site
            .urls
            .iter()
            .skip(i / sites.len())
            .step_by(ORIGINS / sites.len() + 1)
        {
            urls.push(format!("{host}{}", request_path(u)));
        }
    }
    // What a fetch gives: a body of its own and its parse (built inside the measurement, so that
    // resident memory counts what an engine really keeps).
    let fetch = |i: usize, origin: &Origin| {
        let body = &sites[i % sites.len()].robots;
        Fetch::new(
            origin.robots_txt_url(),
            Some(200),
            FetchOutcome::Rules {
                body: Arc::from(body.as_slice()),
                parsed: Arc::new(Robots::parse(body)),
            },
        )
    };
    let urls = Arc::new(urls);
    let token = ProductToken::new(common::AGENT).expect("token");

    let all: [(&str, Arc<dyn Store>); 3] = [
        ("memory", Arc::new(MemoryStore::new())),
        ("embedded", Arc::new(embedded.clone())),
        ("redis", Arc::new(redis_store.clone())),
    ];
    // One engine at a time (built, measured, dropped), in the order given, so that no store
    // is measured in a heap crowded by another's 10,000 origins.
    let order = std::env::var("CRAWLGATE_BENCH_STORES")
        .unwrap_or_else(|_| "memory,embedded,redis".to_owned());
    // Room for every origin; `keep_diagnostics` as given.
    let engine_options = |keep_diagnostics: bool| {
        let mut options = CacheOptions::default();
        options.max_origins = ORIGINS as u64 * 2;
        options.keep_diagnostics = keep_diagnostics;
        options
    };
    // A URL on each origin, for the reloads.
    let roots: Vec<String> = origins.iter().map(|o| format!("{o}/")).collect();
    let mut c = common::criterion();
    for name in order.split(',') {
        let Some((name, store)) = all.iter().find(|(n, _)| *n == name) else {
            panic!("unknown store {name:?} in CRAWLGATE_BENCH_STORES");
        };
        let rss_before = rss_kib();
        let started = Instant::now();
        let cache =
            RobotsCache::with_store(engine_options(false), store.clone(), Arc::new(SystemClock))
                .expect("engine");
        let mut rules_heap = 0;
        rt.block_on(async {
            for (i, origin) in origins.iter().enumerate() {
                cache.insert(origin, fetch(i, origin)).await;
            }
            for origin in &origins {
                rules_heap += cache
                    .rules(origin)
                    .await
                    .map_or(0, |p| p.robots.heap_size());
            }
        });
        let rss = rss_kib().zip(rss_before).map(|(a, b)| a.saturating_sub(b));
        let usage = rt.block_on(store.usage()).expect("usage");
        eprintln!(
            "{name}: {ORIGINS} origins parsed and recorded in {:.1} s; resident memory +{} KiB \
             ({} B/origin, engine and {name} store; compiled rules {} B/origin); store: {} B \
             of states + {} B of bodies ({} B/origin)",
            started.elapsed().as_secs_f64(),
            rss.map_or("?".into(), |k| k.to_string()),
            rss.map_or("?".into(), |k| (k * 1024 / ORIGINS as u64).to_string()),
            rules_heap / ORIGINS,
            usage.state_bytes,
            usage.body_bytes,
            (usage.state_bytes + usage.body_bytes) / ORIGINS as u64,
        );
        let mut group = c.benchmark_group("engine");
        group.throughput(Throughput::Elements(urls.len() as u64));
        group.bench_function(
            format!("warm-check/{name}/{ORIGINS}-origins/2-tasks"),
            |b| {
                b.iter(|| {
                    rt.block_on(async {
                        let mut tasks = tokio::task::JoinSet::new();
                        for part in 0..2 {
                            let (cache, urls, token) = (cache.clone(), urls.clone(), token.clone());
                            tasks.spawn(async move {
                                let mut allowed = 0usize;
                                for url in urls.iter().skip(part).step_by(2) {
                                    let a = cache.check(&token, url).await.expect("check");
                                    allowed += usize::from(a.allowed);
                                }
                                allowed
                            });
                        }
                        let mut total = 0;
                        while let Some(n) = tasks.join_next().await {
                            total += n.expect("task");
                        }
                        black_box(total)
                    })
                })
            },
        );
        if *name == "memory" {
            // A restart: a new engine on the same store answers a URL of each origin, and so
            // reads each origin's state and body back and parses it (no fetch: the states are
            // fresh). By default without diagnostics; `keep_diagnostics` parses with them.
            group.throughput(Throughput::Elements(ORIGINS as u64));
            for keep in [false, true] {
                let what = if keep { "keep-diagnostics" } else { "default" };
                group.bench_function(format!("reload/{name}/{ORIGINS}-origins/{what}"), |b| {
                    b.iter_custom(|iters| {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            let fresh = RobotsCache::with_store(
                                engine_options(keep),
                                store.clone(),
                                Arc::new(SystemClock),
                            )
                            .expect("engine");
                            let started = Instant::now();
                            rt.block_on(async {
                                for url in &roots {
                                    let a = fresh.check(&token, url).await.expect("check");
                                    black_box(a.allowed);
                                }
                            });
                            total += started.elapsed();
                        }
                        total
                    })
                });
            }
        }
        group.finish();
    }
    let file = embedded.file_size().expect("file size");
    eprintln!(
        "embedded: redb file {file} B ({} B/origin)",
        file / ORIGINS as u64
    );
    if let (Some(before), Some(after)) = (redis_before, used_memory(&redis)) {
        eprintln!(
            "redis: used_memory +{} B ({} B/origin)",
            after.saturating_sub(before),
            after.saturating_sub(before) / ORIGINS as u64
        );
    }

    // Cold origins: one server on all loopback addresses, a new address per origin.
    let body = sites[0].robots.clone();
    let server = rt.block_on(support::TestServer::start_on("0.0.0.0", move |_| {
        support::Reply::Full {
            status: 200,
            headers: Vec::new(),
            body: body.clone(),
        }
    }));
    let port = server.addr.port();
    let mut group = c.benchmark_group("engine");
    group.throughput(Throughput::Elements(COLD as u64));
    let mut next = 0u32;
    group.bench_function(format!("cold-fetch/memory/{COLD}-origins"), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let cache = RobotsCache::new(CacheOptions::default()).expect("engine");
                let urls: Vec<String> = (0..COLD)
                    .map(|_| {
                        next = next.wrapping_add(1);
                        let [_, b, c, d] = (next % (1 << 24)).to_be_bytes();
                        format!("http://127.{b}.{c}.{}:{port}/x", d.max(1))
                    })
                    .collect();
                let started = Instant::now();
                rt.block_on(async {
                    let mut tasks = tokio::task::JoinSet::new();
                    for url in urls {
                        let (cache, token) = (cache.clone(), token.clone());
                        tasks.spawn(async move { cache.check(&token, &url).await.is_ok() });
                    }
                    while let Some(ok) = tasks.join_next().await {
                        assert!(ok.expect("task"));
                    }
                });
                total += started.elapsed();
            }
            total
        })
    });
    // The same fetches with a bare reqwest client: what the engine adds to the network part.
    group.bench_function(format!("cold-fetch/bare-reqwest/{COLD}-origins"), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let client = reqwest::Client::new();
                let urls: Vec<String> = (0..COLD)
                    .map(|_| {
                        next = next.wrapping_add(1);
                        let [_, b, c, d] = (next % (1 << 24)).to_be_bytes();
                        format!("http://127.{b}.{c}.{}:{port}/robots.txt", d.max(1))
                    })
                    .collect();
                let started = Instant::now();
                rt.block_on(async {
                    let mut tasks = tokio::task::JoinSet::new();
                    for url in urls {
                        let client = client.clone();
                        tasks.spawn(async move {
                            let r = client.get(url).send().await.expect("get");
                            r.bytes().await.expect("body").len()
                        });
                    }
                    while let Some(n) = tasks.join_next().await {
                        black_box(n.expect("task"));
                    }
                });
                total += started.elapsed();
            }
            total
        })
    });
    group.finish();
    eprintln!(
        "engine bench: {ORIGINS} warm origins, {} URLs per iteration",
        urls.len()
    );
    c.final_summary();
}

use support::redis_server::RedisServer;

/// Resident set size of this process, from /proc (Linux).
fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Redis's `used_memory`.
fn used_memory(redis: &RedisServer) -> Option<u64> {
    let info = redis.command(&[b"INFO", b"memory"]);
    info.lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .and_then(|v| v.trim().parse().ok())
}
