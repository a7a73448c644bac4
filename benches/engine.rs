//! Cached checks through the crawl-policy engine: 10,000 warm origins, the bench corpus's
//! robots.txt files spread over them, every corpus URL moved onto its origin, checked by two
//! tasks on a two-worker tokio runtime (the machine has 2 cores). Criterion reports checks/s.
//!
//! The origins are warmed with `RobotsCache::insert` (as a crawler restoring persisted copies
//! would), so the timed loop is the cached path only: origin resolution, the moka lookup, the
//! verdict and the match. No network.
//!
//! Run: `cargo bench --bench engine -- --warm-up-time 1 --measurement-time 3`.

mod common;

use std::hint::black_box;
use std::sync::Arc;

use crawlgate::fetch::{CacheOptions, RobotsCache};
use crawlgate::policy::{Fetch, FetchOutcome};
use crawlgate::{request_path, Origin, ProductToken, Robots};
use criterion::Throughput;

const ORIGINS: usize = 10_000;

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
    let cache = RobotsCache::new(CacheOptions {
        max_origins: ORIGINS as u64 * 2,
        ..CacheOptions::default()
    })
    .expect("engine");

    // Origin i serves the robots.txt of site i % n; the site's URLs move onto it.
    let sites = &corpus.sites;
    let mut urls: Vec<String> = Vec::new();
    rt.block_on(async {
        for i in 0..ORIGINS {
            let site = &sites[i % sites.len()];
            let host = format!("https://o{i}.bench.example");
            let origin = Origin::from_url(&host).expect("origin");
            let parsed = Robots::parse(&site.robots);
            let fetch = Fetch {
                url: origin.robots_txt_url(),
                final_url: origin.robots_txt_url(),
                redirects: 0,
                status: Some(200),
                max_age: None,
                retry_after: None,
                outcome: FetchOutcome::Rules {
                    body: site.robots.as_slice().into(),
                    parsed: Arc::new(parsed),
                },
            };
            cache.insert(&origin, fetch).await;
            // A tenth of each site's URLs per origin keeps the workload near 111k checks.
            for u in site
                .urls
                .iter()
                .skip(i / sites.len())
                .step_by(ORIGINS / sites.len() + 1)
            {
                urls.push(format!("{host}{}", request_path(u)));
            }
        }
    });
    let urls = Arc::new(urls);
    let token = ProductToken::new(common::AGENT).expect("token");

    let mut c = common::criterion();
    let mut group = c.benchmark_group("engine");
    group.throughput(Throughput::Elements(urls.len() as u64));
    group.bench_function(format!("cached-check/{ORIGINS}-origins/2-tasks"), |b| {
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
    });
    group.finish();
    eprintln!(
        "engine bench: {} origins, {} URLs per iteration",
        ORIGINS,
        urls.len()
    );
    c.final_summary();
}
