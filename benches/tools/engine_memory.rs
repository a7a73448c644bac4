//! Where the engine's memory goes, per cached origin: the bytes the allocator holds for each
//! part, counted by a counting global allocator (`stats_alloc`), for the memory store and the
//! embedded (redb) store.
//!
//! The set-up is `benches/engine.rs`'s: 10,000 origins (override with the first argument),
//! origin *i* serving the robots.txt of corpus site *i* mod the number of sites, each recorded
//! with `RobotsCache::insert` from a fetch of its own (a body and its parse). The parts:
//!
//! - **body**: the robots.txt bodies (the memory store holds them, sharing the fetch's `Arc`;
//!   redb keeps them on disk);
//! - **parse**: what each `Arc<Parsed>` holds (`Robots::heap_size`, the diagnostics the engine
//!   kept, the `Parsed` itself), measured as each fetch is built; the engine keeps it as the
//!   origin's rules;
//! - **store**: a fresh store given the same changes on its own (`Store::update`): for the
//!   memory store its map, keys and states (a state's heap is shown apart), for redb its page
//!   cache, which is bounded (64 MiB in all, so less per origin as origins grow);
//! - **moka entry**: a moka cache built as the engine builds its own, its keys' and values'
//!   allocations taken off;
//! - **engine**: the view's copy of the state, the moka key's host string, and what is left:
//!   the slot and the view (answers read the sitemap URLs from the parse: no copy).
//!
//! Bytes are those asked of the allocator; each live allocation costs about 8–16 B more in
//! glibc's malloc (a header and rounding), shown as a count of live allocations per origin.
//! The resident-set growth of the whole run is printed too; it also counts what was freed but
//! not given back to the system.
//!
//! Run: `cargo run --release --example engine_memory` (`-- 20000` for another count). Needs the
//! robots-bench corpus (`CRAWLGATE_BENCH_CORPUS`, or `../shared/corpus/robots-bench`); exits
//! successfully, doing nothing, without it.

#[path = "../common/mod.rs"]
mod common;

use std::alloc::System;
use std::sync::Arc;

use crawlgate::engine::{CacheOptions, RobotsCache, SystemClock};
use crawlgate::policy::{Change, Fetch, FetchOutcome, FetchRecord, OriginState};
use crawlgate::store::{EmbeddedStore, MemoryStore, Store};
use crawlgate::{Origin, Parsed, Robots};
use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Bytes and allocations the allocator holds now.
fn live() -> (isize, isize) {
    let s = GLOBAL.stats();
    // A reallocation is already counted in the byte totals (its growth or its shrinkage).
    (
        s.bytes_allocated as isize - s.bytes_deallocated as isize,
        s.allocations as isize - s.deallocations as isize,
    )
}

/// What was allocated since `before`: (bytes, allocations).
fn since(before: (isize, isize)) -> (isize, isize) {
    let now = live();
    (now.0 - before.0, now.1 - before.1)
}

/// Resident set size of this process, from /proc (Linux).
fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// One origin's fetch, and what its parts cost.
struct Made {
    origin: Origin,
    fetch: Fetch,
}

#[derive(Default)]
struct Parts {
    body: isize,
    parse: isize,
    rules: isize,
    diagnostics: isize,
    parse_allocs: isize,
    /// Host strings: each copy of an origin as a key costs one.
    hosts: isize,
}

fn make(n: usize, corpus: &common::Corpus, parts: &mut Parts) -> Vec<Made> {
    let sites = &corpus.sites;
    (0..n)
        .map(|i| {
            let bytes = &sites[i % sites.len()].robots;
            let origin =
                Origin::from_url(&format!("https://o{i}.bench.example")).expect("bench origin");
            let before = live();
            let body: Arc<[u8]> = Arc::from(bytes.as_slice());
            parts.body += since(before).0;
            let before = live();
            let parsed = Arc::new(Robots::parse(bytes));
            let (b, a) = since(before);
            parts.parse += b;
            parts.parse_allocs += a;
            parts.rules += parsed.robots.heap_size() as isize;
            parts.diagnostics += diagnostics_heap(&parsed);
            parts.hosts += origin.host().len() as isize;
            let fetch = Fetch::new(
                origin.robots_txt_url(),
                Some(200),
                FetchOutcome::Rules { body, parsed },
            );
            Made { origin, fetch }
        })
        .collect()
}

fn main() {
    let Some(corpus) = common::corpus() else {
        eprintln!("Nothing to measure.");
        return;
    };
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let per = |b: isize| b as f64 / n as f64;
    println!("{n} origins, {} corpus sites", corpus.sites.len());

    // The moka entry alone: a cache built as the engine builds its own, keyed by origin, of
    // one small `Arc` value per origin (its allocation and the key's host string taken off).
    let moka_entry = {
        let origins: Vec<Origin> = (0..n)
            .map(|i| Origin::from_url(&format!("https://o{i}.bench.example")).expect("origin"))
            .collect();
        let host_bytes: isize = origins.iter().map(|o| o.host().len() as isize).sum();
        let before = live();
        let cache: moka::future::Cache<Origin, Arc<u64>> = moka::future::Cache::builder()
            .max_capacity(n as u64 * 2)
            .eviction_policy(moka::policy::EvictionPolicy::lru())
            .build();
        let empty = since(before);
        rt.block_on(async {
            for o in &origins {
                cache.insert(o.clone(), Arc::new(0)).await;
            }
            cache.run_pending_tasks().await;
        });
        let (b, a) = since(before);
        // Each value is an `Arc<u64>` of 24 B, each key a host string.
        let entry = b - empty.0 - n as isize * 24 - host_bytes;
        println!(
            "moka entry (LRU, key and value not counted): {:.0} B, {:.1} allocations per origin",
            per(entry),
            (a - empty.1 - 2 * n as isize) as f64 / n as f64
        );
        entry
    };

    for store_name in ["memory", "embedded"] {
        let rss_before = rss_kib();
        let base = live();
        let mut parts = Parts::default();
        let made = make(n, corpus, &mut parts);
        let new_store = || -> Arc<dyn Store> {
            match store_name {
                "memory" => Arc::new(MemoryStore::new()),
                _ => Arc::new(
                    EmbeddedStore::open(dir.path().join(format!("{}.redb", rand_name())))
                        .expect("embedded store"),
                ),
            }
        };

        // The store alone, given the changes `insert` gives it. (The memory store keeps the
        // fetches' own body `Arc`s: no new bytes for them.)
        let (store_alone, state_heap) = {
            let store = new_store();
            let before = live();
            rt.block_on(async {
                for m in &made {
                    let now = std::time::SystemTime::now();
                    let record = FetchRecord::new(&m.fetch, &OriginState::new(), now, now, now);
                    let updated = store
                        .update(&m.origin, &[Change::Fetched(record)])
                        .await
                        .expect("update");
                    drop(updated);
                }
            });
            let (b, a) = since(before);
            // A state's heap, as read back.
            let sample = made.len().min(1000);
            let loaded: Vec<OriginState> = rt.block_on(async {
                let mut states = Vec::with_capacity(sample);
                for m in made.iter().take(sample) {
                    states.push(
                        store
                            .load(&m.origin)
                            .await
                            .expect("load")
                            .unwrap_or_default(),
                    );
                }
                states
            });
            // A clone, as both hold one (a decoded state may have spare room a clone has not).
            let before = live();
            let states = loaded.clone();
            let state_heap = (since(before).0
                - (sample * std::mem::size_of::<OriginState>()) as isize)
                / sample as isize;
            drop((states, loaded));
            println!(
                "\n[{store_name}] the store alone: {:.0} B/origin ({:.1} allocations); a state's \
                 heap (a clone, as the engine's view and the memory store hold it): {state_heap} B",
                per(b),
                a as f64 / n as f64
            );
            drop(store);
            (b, state_heap)
        };

        let store = new_store();
        let before = live();
        let cache = RobotsCache::with_store(
            {
                let mut options = CacheOptions::default();
                options.max_origins = n as u64 * 2;
                options
            },
            store,
            Arc::new(SystemClock),
        )
        .expect("engine");
        let fixed = since(before);
        // Kept to look an origin up; taken off the count below.
        let before_origins = live();
        let origins: Vec<Origin> = made.iter().map(|m| m.origin.clone()).collect();
        let origins_bytes = since(before_origins).0;
        rt.block_on(async {
            for m in made {
                cache.insert(&m.origin, m.fetch).await;
            }
            // Settles moka's bookkeeping (its write log), as a running engine would.
            cache.in_memory(&origins[0]).await;
        });
        // Counted from before the fetches were built (`insert` consumed them): what is held
        // now is the engine's and the store's.
        let (total, allocs) = since(base);
        // The diagnostics the engine kept of them (none, unless `keep_diagnostics`).
        let kept_diagnostics: isize = rt.block_on(async {
            let mut sum = 0;
            for o in &origins {
                sum += cache.rules(o).await.map_or(0, |p| diagnostics_heap(&p));
            }
            sum
        });
        let dropped_diagnostics = parts.diagnostics - kept_diagnostics;
        let parse = parts.parse - dropped_diagnostics;
        let total = total - fixed.0 - origins_bytes;
        let allocs = allocs - fixed.1 - since(before_origins).1.min(n as isize + 1);
        let held_bodies = if store_name == "memory" {
            parts.body
        } else {
            0
        };
        let engine = total - held_bodies - parse - store_alone - moka_entry;
        let state_copy = state_heap * n as isize;
        let slot_view = engine - state_copy - parts.hosts;
        let rss = rss_kib()
            .zip(rss_before)
            .map(|(a, b)| (a.saturating_sub(b) * 1024) as f64 / n as f64);
        println!(
            "[{store_name}] engine and store hold {:.0} B/origin ({:.1} live allocations/origin; resident set +{} B/origin for the whole step, \
             engine fixed cost {} B):",
            per(total),
            allocs as f64 / n as f64,
            rss.map_or("?".into(), |r| format!("{r:.0}")),
            fixed.0,
        );
        println!("  body (in the store)            {:>7.0}", per(held_bodies));
        println!(
            "  parse (Arc<Parsed>)            {:>7.0}  = rules (heap_size) {:.0} + diagnostics \
             {:.0} (of {:.0} the parse made) + Parsed and rest {:.0}",
            per(parse),
            per(parts.rules),
            per(kept_diagnostics),
            per(parts.diagnostics),
            per(parts.parse - parts.rules - parts.diagnostics)
        );
        if store_name == "memory" {
            println!(
                "  store: maps, keys, states      {:>7.0}  (each state's heap {state_heap})",
                per(store_alone)
            );
        } else {
            // redb keeps pages in a cache bounded at 64 MiB: per origin it shrinks as origins
            // grow past some 20,000.
            println!(
                "  store: redb's page cache       {:>7.0}  (bounded: 64 MiB in all)",
                per(store_alone)
            );
        }
        println!("  moka entry                     {:>7.0}", per(moka_entry));
        println!(
            "  engine: the view's state       {:>7.0}\n  engine: moka key's host       {:>7.0}\n  \
             engine: slot, view (the rest)  {:>7.0}",
            per(state_copy),
            per(parts.hosts),
            per(slot_view)
        );
        drop(cache);
    }
}

/// Heap bytes of a parse's diagnostics.
fn diagnostics_heap(parsed: &Parsed) -> isize {
    let messages: usize = parsed
        .diagnostics
        .iter()
        .map(|d| match &d.message {
            std::borrow::Cow::Owned(s) => s.capacity(),
            std::borrow::Cow::Borrowed(_) => 0,
        })
        .sum();
    (parsed.diagnostics.capacity() * std::mem::size_of::<crawlgate::Diagnostic>() + messages)
        as isize
}

/// A file name of its own per store opened.
fn rand_name() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("state-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}
