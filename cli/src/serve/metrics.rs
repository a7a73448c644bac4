//! `GET /metrics`: the service's counters in the Prometheus text format (0.0.4), hand-written:
//! requests by route and status, a latency histogram per route, robots.txt fetches by outcome,
//! cache lookups by source, fetch leases and store health from the engine, and the slots
//! reserved.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crawlgate::engine::{FetchClass, RobotsCache};

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// One route's latency histogram.
#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    sum: f64,
    count: u64,
}

/// What the service counts itself (the engine counts the rest).
#[derive(Default)]
pub struct Metrics {
    /// (route, status) → requests.
    requests: Mutex<BTreeMap<(&'static str, u16), u64>>,
    latency: Mutex<BTreeMap<&'static str, Histogram>>,
    /// Requests being answered now.
    pub in_flight: AtomicU64,
    /// URLs answered by /v1/check.
    pub urls_checked: AtomicU64,
    /// Slots reserved by /v1/acquire.
    pub slots: AtomicU64,
    /// Responses recorded by /v1/record, by what they did.
    pub backoffs: AtomicU64,
    /// Requests refused for a missing or wrong token.
    pub unauthorized: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Metrics {
    /// Counts one request of `route` answered with `status` after `took`.
    pub fn observe(&self, route: &'static str, status: u16, took: Duration) {
        *lock(&self.requests).entry((route, status)).or_default() += 1;
        let secs = took.as_secs_f64();
        let mut latency = lock(&self.latency);
        let h = latency.entry(route).or_default();
        for (i, bound) in BUCKETS.iter().enumerate() {
            if secs <= *bound {
                h.counts[i] += 1;
            }
        }
        h.sum += secs;
        h.count += 1;
    }

    /// The text exposition, with the engine's own counters.
    pub fn render(&self, cache: &RobotsCache) -> String {
        let mut s = String::new();
        let _ = self.write(&mut s, cache);
        s
    }

    fn write(&self, s: &mut String, cache: &RobotsCache) -> std::fmt::Result {
        writeln!(
            s,
            "# HELP crawlgate_http_requests_total HTTP requests answered, by route and status."
        )?;
        writeln!(s, "# TYPE crawlgate_http_requests_total counter")?;
        for ((route, status), n) in lock(&self.requests).iter() {
            writeln!(
                s,
                "crawlgate_http_requests_total{{route=\"{route}\",code=\"{status}\"}} {n}"
            )?;
        }
        writeln!(
            s,
            "# HELP crawlgate_http_request_duration_seconds Time to answer, by route."
        )?;
        writeln!(
            s,
            "# TYPE crawlgate_http_request_duration_seconds histogram"
        )?;
        for (route, h) in lock(&self.latency).iter() {
            for (bound, n) in BUCKETS.iter().zip(h.counts) {
                writeln!(
                    s,
                    "crawlgate_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {n}"
                )?;
            }
            let (sum, count) = (h.sum, h.count);
            writeln!(
                s,
                "crawlgate_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {count}"
            )?;
            writeln!(
                s,
                "crawlgate_http_request_duration_seconds_sum{{route=\"{route}\"}} {sum}"
            )?;
            writeln!(
                s,
                "crawlgate_http_request_duration_seconds_count{{route=\"{route}\"}} {count}"
            )?;
        }
        let counter = |s: &mut String, name: &str, help: &str, n: u64| {
            writeln!(s, "# HELP {name} {help}")?;
            writeln!(s, "# TYPE {name} counter")?;
            writeln!(s, "{name} {n}")
        };
        let gauge = |s: &mut String, name: &str, help: &str, n: u64| {
            writeln!(s, "# HELP {name} {help}")?;
            writeln!(s, "# TYPE {name} gauge")?;
            writeln!(s, "{name} {n}")
        };
        gauge(
            s,
            "crawlgate_http_requests_in_flight",
            "Requests being answered now (this one included).",
            self.in_flight.load(Ordering::Relaxed),
        )?;
        counter(
            s,
            "crawlgate_urls_checked_total",
            "URLs answered by /v1/check.",
            self.urls_checked.load(Ordering::Relaxed),
        )?;
        counter(
            s,
            "crawlgate_slots_reserved_total",
            "Fetch slots booked ahead by /v1/acquire (a permit given at once books none).",
            self.slots.load(Ordering::Relaxed),
        )?;
        counter(
            s,
            "crawlgate_backoffs_total",
            "429 and 503 answers recorded by /v1/record.",
            self.backoffs.load(Ordering::Relaxed),
        )?;
        counter(
            s,
            "crawlgate_unauthorized_total",
            "Requests refused for a missing or unknown token.",
            self.unauthorized.load(Ordering::Relaxed),
        )?;
        let store = cache.store_status();
        counter(
            s,
            "crawlgate_store_errors_total",
            "State store operations that failed.",
            store.errors,
        )?;
        gauge(
            s,
            "crawlgate_store_up",
            "1 while the last state store operation succeeded.",
            u64::from(store.available),
        )?;
        gauge(
            s,
            "crawlgate_store_pending_changes",
            "Changes held in memory, not yet written to the store.",
            store.pending,
        )?;
        counter(
            s,
            "crawlgate_robots_fetch_local_failures_total",
            "robots.txt fetches that failed on this side (not the site's answer).",
            cache.local_failures().count,
        )?;
        let stats = cache.stats();
        writeln!(
            s,
            "# HELP crawlgate_robots_fetches_total robots.txt fetches, by outcome."
        )?;
        writeln!(s, "# TYPE crawlgate_robots_fetches_total counter")?;
        for class in FetchClass::ALL {
            writeln!(
                s,
                "crawlgate_robots_fetches_total{{outcome=\"{}\"}} {}",
                class.as_str(),
                stats.fetches_of(class)
            )?;
        }
        writeln!(
            s,
            "# HELP crawlgate_cache_lookups_total Origin lookups, by where they were answered from (memory; the store, for an origin not in memory; a fetch, for one the store did not know)."
        )?;
        writeln!(s, "# TYPE crawlgate_cache_lookups_total counter")?;
        for (source, n) in [
            ("memory", stats.memory_hits),
            ("store", stats.store_hits),
            ("fetch", stats.fetched),
        ] {
            writeln!(
                s,
                "crawlgate_cache_lookups_total{{source=\"{source}\"}} {n}"
            )?;
        }
        writeln!(
            s,
            "# HELP crawlgate_fetch_leases_total Fleet fetch leases: taken (this process fetched), waited (for another's fetch), lost (the wait ran out)."
        )?;
        writeln!(s, "# TYPE crawlgate_fetch_leases_total counter")?;
        for (event, n) in [
            ("taken", stats.leases_taken),
            ("waited", stats.leases_waited),
            ("lost", stats.leases_lost),
        ] {
            writeln!(s, "crawlgate_fetch_leases_total{{event=\"{event}\"}} {n}")?;
        }
        gauge(
            s,
            "crawlgate_origins_cached",
            "Origins held in memory.",
            cache.origin_count(),
        )?;
        Ok(())
    }
}
