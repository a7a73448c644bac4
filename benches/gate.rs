//! The gate beside the check, in one run: permits/s of `RobotsCache::acquire` on uncontended
//! origins (no spacing asked, so no waiting: the cost of the gate itself) next to checks/s of
//! `RobotsCache::check` on the same URLs.
//!
//! - `check/memory`: the check alone (what `acquire` starts with).
//! - `acquire/memory`: check, the origin's concurrency slot, a slot reserved in the memory
//!   store, the permit dropped unrecorded.
//! - `acquire+record/memory`: the same, the permit recorded as a 200 (backoff reset skipped,
//!   availability report throttled: one store write per origin in the run).
//! - `acquire/redb`: slots reserved in the embedded store (in memory; the file is written
//!   when the store is closed).
//! - `acquire/redis`: slots reserved on a real `redis-server`: per permit the slot (a Lua
//!   script), the fleet-wide in-flight lease (another), the backoff looked at once the lease
//!   is held, and the lease's release when the permit is dropped (in the background): the
//!   price of a fleet-wide schedule and limit.
//! - `acquire+record/redis/max-concurrency-4`: four tasks at once, each permit recorded as a
//!   200 (the lease released before the next acquire), with `max_concurrency` 4.
//!
//! 1,000 origins, one URL each, one task on a two-worker runtime. Run:
//! `cargo bench --bench gate -- --warm-up-time 1 --measurement-time 3`.
//! Needs `redis-server` on PATH.

#[path = "../tests/support/redis_server.rs"]
mod redis_server;

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use crawlgate::engine::{CacheOptions, RobotsCache, SystemClock};
use crawlgate::policy::{Fetch, FetchOutcome};
use crawlgate::store::{EmbeddedStore, MemoryStore, RedisOptions, RedisStore, Store};
use crawlgate::{Origin, ProductToken, Robots};
use criterion::{Criterion, Throughput};
use redis_server::RedisServer;

const ORIGINS: usize = 1000;
const ROBOTS: &str =
    "User-agent: *\nDisallow: /private\nAllow: /private/ok\nSitemap: https://example.com/s.xml\n";

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let redis = RedisServer::start();
    let redis_store = rt
        .block_on(RedisStore::connect(RedisOptions::new(redis.url())))
        .expect("redis store");
    let urls: Vec<String> = (0..ORIGINS)
        .map(|i| format!("https://o{i}.bench.example/page/{i}"))
        .collect();
    let token = ProductToken::new("benchbot").expect("token");
    let mut options = CacheOptions::default();
    // Uncontended: no spacing, so a permit never waits; the gate's own cost.
    options.gate.default_delay = Duration::ZERO;
    let engine = |store: Arc<dyn Store>, max_concurrency: usize| {
        let mut options = options.clone();
        options.gate.max_concurrency = max_concurrency;
        let cache = RobotsCache::with_store(options, store, Arc::new(SystemClock)).expect("engine");
        rt.block_on(async {
            for url in &urls {
                let origin = Origin::from_url(url).expect("origin");
                let outcome = FetchOutcome::Rules {
                    body: Arc::from(ROBOTS.as_bytes()),
                    parsed: Arc::new(Robots::parse(ROBOTS.as_bytes())),
                };
                cache
                    .insert(
                        &origin,
                        Fetch::new(origin.robots_txt_url(), Some(200), outcome),
                    )
                    .await;
            }
        });
        cache
    };
    let memory = engine(Arc::new(MemoryStore::new()), 1);
    let on_redis = engine(Arc::new(redis_store.clone()), 1);
    let on_redis_4 = engine(Arc::new(redis_store), 4);
    let dir = tempfile::tempdir().expect("tempdir");
    let on_redb = engine(
        Arc::new(EmbeddedStore::open(dir.path().join("bench.redb")).expect("redb store")),
        1,
    );

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let mut group = c.benchmark_group("gate");
    group.throughput(Throughput::Elements(ORIGINS as u64));
    group.bench_function(format!("check/memory/{ORIGINS}-origins"), |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut allowed = 0usize;
                for url in &urls {
                    allowed += usize::from(memory.check(&token, url).await.expect("check").allowed);
                }
                black_box(allowed)
            })
        })
    });
    for (name, cache, record) in [
        ("acquire/memory", &memory, false),
        ("acquire+record/memory", &memory, true),
        ("acquire/redb", &on_redb, false),
        ("acquire/redis", &on_redis, false),
    ] {
        group.bench_function(format!("{name}/{ORIGINS}-origins"), |b| {
            b.iter(|| {
                rt.block_on(async {
                    for url in &urls {
                        let permit = cache.acquire(&token, url).await.expect("allowed");
                        assert!(permit.waited().is_zero(), "uncontended");
                        if record {
                            black_box(permit.record(200, None).await);
                        } else {
                            drop(black_box(permit));
                        }
                    }
                })
            })
        });
    }
    let urls = Arc::new(urls);
    group.bench_function(
        format!("acquire+record/redis/max-concurrency-4/{ORIGINS}-origins"),
        |b| {
            b.iter(|| {
                rt.block_on(async {
                    let mut tasks = tokio::task::JoinSet::new();
                    for t in 0..4 {
                        let (cache, token, urls) =
                            (on_redis_4.clone(), token.clone(), urls.clone());
                        tasks.spawn(async move {
                            for url in urls.iter().skip(t).step_by(4) {
                                let permit = cache.acquire(&token, url).await.expect("allowed");
                                black_box(permit.record(200, None).await);
                            }
                        });
                    }
                    while let Some(done) = tasks.join_next().await {
                        done.expect("task");
                    }
                })
            })
        },
    );
    group.finish();
    c.final_summary();
}
