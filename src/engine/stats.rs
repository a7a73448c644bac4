//! The engine's counters: robots.txt fetches by outcome, where lookups were answered from
//! (memory, the store, a fetch), and the fetch leases of a fleet. Relaxed atomics, bumped
//! where the engine classifies what happened; [`RobotsCache::stats`](super::RobotsCache::stats)
//! reads them as one [`CacheStats`] snapshot (a service exports it, as `crawlgate serve`'s
//! `/metrics` does).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::policy::{FetchOutcome, Unreachable};

/// The classes a robots.txt fetch falls in, as [`CacheStats::fetches`] counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FetchClass {
    /// A 2xx: the file was read and parsed.
    Ok,
    /// A 304 to a conditional request: the last good file is current.
    NotModified,
    /// No robots.txt: a 4xx other than 429, or too many redirects (everything allowed).
    Status4xx,
    /// A 5xx, a 429 or a status that gives nothing usable: the failure ladder applies.
    Status5xx,
    /// No usable answer: DNS, connection, TLS, timeout, a broken or undecodable body, an HTML
    /// page in place of the file.
    Unreachable,
    /// A bot-protection challenge answered in the site's place.
    Challenge,
    /// A 402: crawling offered for a price.
    PaymentRequired,
    /// The fetch failed on this side (descriptors, memory, too busy): nothing was recorded.
    LocalFailure,
}

impl FetchClass {
    /// Every class, in the order [`CacheStats::fetches`] lists them.
    pub const ALL: [FetchClass; 8] = [
        FetchClass::Ok,
        FetchClass::NotModified,
        FetchClass::Status4xx,
        FetchClass::Status5xx,
        FetchClass::Unreachable,
        FetchClass::Challenge,
        FetchClass::PaymentRequired,
        FetchClass::LocalFailure,
    ];

    /// The class's stable name: `ok`, `not-modified`, `4xx`, `5xx`, `unreachable`,
    /// `challenge`, `payment-required`, `local-failure` (a metrics label).
    pub fn as_str(self) -> &'static str {
        match self {
            FetchClass::Ok => "ok",
            FetchClass::NotModified => "not-modified",
            FetchClass::Status4xx => "4xx",
            FetchClass::Status5xx => "5xx",
            FetchClass::Unreachable => "unreachable",
            FetchClass::Challenge => "challenge",
            FetchClass::PaymentRequired => "payment-required",
            FetchClass::LocalFailure => "local-failure",
        }
    }

    /// The class of a fetch's outcome.
    pub fn of(outcome: &FetchOutcome) -> FetchClass {
        match outcome {
            FetchOutcome::Rules { .. } => FetchClass::Ok,
            FetchOutcome::NotModified { .. } => FetchClass::NotModified,
            FetchOutcome::Unavailable(_) => FetchClass::Status4xx,
            FetchOutcome::Unreachable(Unreachable::Status(_)) => FetchClass::Status5xx,
            FetchOutcome::Unreachable(Unreachable::Challenge { .. }) => FetchClass::Challenge,
            FetchOutcome::Unreachable(_) => FetchClass::Unreachable,
            FetchOutcome::PaymentRequired(_) => FetchClass::PaymentRequired,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A snapshot of the engine's counters since it started ([`RobotsCache::stats`]).
///
/// [`RobotsCache::stats`]: super::RobotsCache::stats
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// robots.txt fetches by class, in the order of [`FetchClass::ALL`]. A fetch that failed
    /// on this side counts once however often it was retried.
    /// Read one with [`CacheStats::fetches_of`].
    pub fetches: [u64; 8],
    /// Lookups of an origin answered from memory (every check, judgement or rules lookup of
    /// an origin in memory counts one).
    pub memory_hits: u64,
    /// Origins not in memory whose state was read from the store (one per load, however many
    /// callers waited for it).
    pub store_hits: u64,
    /// Origins not in memory that the store did not know (or could not answer for): fetched.
    pub fetched: u64,
    /// Fetch leases taken: this process fetched for the fleet.
    pub leases_taken: u64,
    /// Fetches that waited for another process's lease (its result, read from the store).
    pub leases_waited: u64,
    /// Waits for another process's lease that ran out (the holder may have died): this
    /// process answered from its copy, or fetched without the lease.
    pub leases_lost: u64,
}

impl CacheStats {
    /// The fetches of one class.
    pub fn fetches_of(&self, class: FetchClass) -> u64 {
        self.fetches[class.index()]
    }
}

/// The counters themselves, in the engine.
#[derive(Debug, Default)]
pub(super) struct Stats {
    fetches: [AtomicU64; 8],
    memory_hits: AtomicU64,
    store_hits: AtomicU64,
    fetched: AtomicU64,
    leases_taken: AtomicU64,
    leases_waited: AtomicU64,
    leases_lost: AtomicU64,
}

fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

impl Stats {
    pub(super) fn fetch(&self, class: FetchClass) {
        bump(&self.fetches[class.index()]);
    }

    pub(super) fn memory_hit(&self) {
        bump(&self.memory_hits);
    }

    pub(super) fn store_hit(&self) {
        bump(&self.store_hits);
    }

    pub(super) fn miss(&self) {
        bump(&self.fetched);
    }

    pub(super) fn lease_taken(&self) {
        bump(&self.leases_taken);
    }

    pub(super) fn lease_waited(&self) {
        bump(&self.leases_waited);
    }

    pub(super) fn lease_lost(&self) {
        bump(&self.leases_lost);
    }

    pub(super) fn snapshot(&self) -> CacheStats {
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
        CacheStats {
            fetches: FetchClass::ALL.map(|c| load(&self.fetches[c.index()])),
            memory_hits: load(&self.memory_hits),
            store_hits: load(&self.store_hits),
            fetched: load(&self.fetched),
            leases_taken: load(&self.leases_taken),
            leases_waited: load(&self.leases_waited),
            leases_lost: load(&self.leases_lost),
        }
    }
}
