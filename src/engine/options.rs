//! The engine's options ([`CacheOptions`]): fetching, freshness, the failure ladder, the
//! gate, what is kept in memory. Read by the cache and by the TDMRep cache beside it.

use std::time::{Duration, SystemTime};

use crate::http::FetchOptions;
use crate::policy::{Fetch, FetchOutcome, GateOptions, PolicyOptions};

/// Options of a [`RobotsCache`](super::RobotsCache).
///
/// Start from `CacheOptions::default()` and set the fields you need (`let mut options = CacheOptions::default();`
/// then `options.max_origins = …`): the type is `#[non_exhaustive]`, so a new option is not a
/// breaking change.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CacheOptions {
    /// How to fetch.
    pub fetch: FetchOptions,
    /// The failure ladder.
    pub policy: PolicyOptions,
    /// Freshness of a robots.txt without `Cache-Control: max-age`, and of a 4xx: 24 hours.
    pub default_ttl: Duration,
    /// `max-age` is clamped to at least this (default 1 minute)…
    pub min_ttl: Duration,
    /// …and at most this (default 7 days).
    pub max_ttl: Duration,
    /// When to retry after a failure without `Retry-After` (default 5 minutes).
    pub retry_interval: Duration,
    /// The shortest wait before retrying a failure, whatever `Retry-After` says (default
    /// 1 minute), so that a loop of checks on a failing site is never a loop of fetches.
    pub min_retry_interval: Duration,
    /// `Retry-After` is honoured up to this (default 24 hours).
    pub max_retry_after: Duration,
    /// How many origins' compiled rules are kept in memory; the least recently used go first
    /// (default 10,000). Their states stay in the store.
    pub max_origins: u64,
    /// With a shared store (Redis), how old the copy of a state in memory may get before it is
    /// read again in the background, so that what other processes record is seen (default
    /// 30 seconds). Not used with stores that only this process writes.
    pub sync_interval: Duration,
    /// How long a fetch lease lasts if its holder never releases it (it died): default the
    /// fetch timeout plus 10 seconds.
    pub lease_ttl: Option<Duration>,
    /// The longest a check waits for another process's fetch (default 5 seconds): then it
    /// answers from the copy it has (the origin stays due and is refreshed later), or, with no
    /// copy, fetches without the lease (one more fetch; the holder may have died holding it).
    pub lease_wait: Duration,
    /// How [`RobotsCache::acquire`](super::RobotsCache::acquire) spaces requests and backs off ([`RobotsCache::acquire`](super::RobotsCache::acquire)'s module docs).
    pub gate: GateOptions,
    /// Keep each file's parse diagnostics with its rules in memory, as
    /// [`RobotsCache::rules`](super::RobotsCache::rules) returns them (default `false`: memory holds compiled rules only;
    /// on the bench corpus the diagnostics cost 1.3 KB per origin, 40% of the rules, and a file
    /// read back from the store is parsed without looking for problems, about 30% faster: see
    /// [`Options::diagnostics`](crate::Options::diagnostics)). For tools that show a fetched
    /// file's problems; a crawler does not read them.
    pub keep_diagnostics: bool,
    /// How much of a fetched page is read for its directives
    /// ([`RobotsCache::page_directives`](super::RobotsCache::page_directives), the middleware): the per-field limit and the HTML
    /// byte budget (default 8 KiB and 512 KiB).
    pub page: crate::page::Options,
}

impl Default for CacheOptions {
    fn default() -> Self {
        CacheOptions {
            fetch: FetchOptions::default(),
            policy: PolicyOptions::default(),
            default_ttl: Duration::from_secs(24 * 3600),
            min_ttl: Duration::from_secs(60),
            max_ttl: Duration::from_secs(7 * 86_400),
            retry_interval: Duration::from_secs(300),
            min_retry_interval: Duration::from_secs(60),
            max_retry_after: Duration::from_secs(24 * 3600),
            max_origins: 10_000,
            sync_interval: Duration::from_secs(30),
            lease_ttl: None,
            lease_wait: Duration::from_secs(5),
            gate: GateOptions::default(),
            keep_diagnostics: false,
            page: crate::page::Options::default(),
        }
    }
}

impl CacheOptions {
    /// When the fetch after `fetch`, completed at `at`, is due.
    pub fn next_due(&self, fetch: &Fetch, at: SystemTime) -> SystemTime {
        let wait = match &fetch.outcome {
            FetchOutcome::Rules { .. } | FetchOutcome::NotModified { .. } => fetch
                .max_age
                .map_or(self.default_ttl, |a| a.clamp(self.min_ttl, self.max_ttl)),
            FetchOutcome::Unavailable(_) => self.default_ttl,
            // A refusal is asked again as often as a failure: a price may be dropped.
            FetchOutcome::Unreachable(_) | FetchOutcome::PaymentRequired(_) => fetch
                .retry_after
                .unwrap_or(self.retry_interval)
                .min(self.max_retry_after)
                .max(self.min_retry_interval),
        };
        at.checked_add(wait).unwrap_or(at)
    }

    /// How long a fetch lease lasts: [`CacheOptions::lease_ttl`], else the fetch timeout plus
    /// 10 seconds.
    pub(crate) fn lease_ttl(&self) -> Duration {
        self.lease_ttl
            .unwrap_or(self.fetch.timeout + Duration::from_secs(10))
    }
}
