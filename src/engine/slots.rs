//! The gate's state in the process ([`Gate`]): its options, each politeness key's concurrency
//! semaphore, the resolved addresses of the IP key, and the schedule kept here when the store
//! keeps none or fails.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::lock;
use crate::http::AddressPolicy;
use crate::policy::{GateOptions, PoliteKey};
use crate::store::LocalSchedules;

/// How long a host's resolved IP key is kept (resolvers cache for about as long; a server
/// that moves is keyed by its new address within this).
const RESOLVED_TTL: Duration = Duration::from_secs(60);
/// Hosts whose IP key is kept.
const RESOLVED_MAX: u64 = 10_000;

/// The gate's part of the engine: options, per-key concurrency, and the schedule kept in the
/// process when the store keeps none or fails.
pub(crate) struct Gate {
    pub options: GateOptions,
    concurrency: Mutex<HashMap<PoliteKey, Arc<Semaphore>>>,
    pub local: LocalSchedules,
    /// Hosts' IP keys, for [`KeyKind::Ip`](crate::policy::KeyKind::Ip).
    pub resolved: Resolved,
    /// Which addresses fetches may use: the others are not IP keys.
    pub addresses: AddressPolicy,
    /// Numbers this process's in-flight places (their holder names).
    pub next_place: std::sync::atomic::AtomicU64,
    /// The jitter's random source (splitmix64), seeded by [`GateOptions::jitter_seed`].
    jitter: Mutex<u64>,
}

impl fmt::Debug for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gate")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Gate {
    pub fn new(options: GateOptions, addresses: AddressPolicy) -> Gate {
        let seed = options.jitter_seed.unwrap_or_else(|| {
            use std::collections::hash_map::RandomState;
            use std::hash::{BuildHasher, Hasher};
            RandomState::new().build_hasher().finish()
        });
        Gate {
            options,
            concurrency: Mutex::new(HashMap::new()),
            local: LocalSchedules::default(),
            resolved: Resolved::default(),
            addresses,
            next_place: std::sync::atomic::AtomicU64::new(1),
            jitter: Mutex::new(seed),
        }
    }

    /// The next number of the jitter's source (splitmix64: deterministic for a seed).
    pub fn draw(&self) -> u64 {
        let mut state = lock(&self.jitter);
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The key's concurrency semaphore (made on first use; dropped with its last holder).
    pub fn semaphore(&self, key: &PoliteKey) -> Arc<Semaphore> {
        let permits = self
            .options
            .max_concurrency
            .clamp(1, Semaphore::MAX_PERMITS);
        lock(&self.concurrency)
            .entry(key.clone())
            .or_insert_with(|| Arc::new(Semaphore::new(permits)))
            .clone()
    }

    /// The key's permits held in this process now (a peek: no semaphore is made).
    pub fn in_flight(&self, key: &PoliteKey) -> usize {
        let permits = self
            .options
            .max_concurrency
            .clamp(1, Semaphore::MAX_PERMITS);
        lock(&self.concurrency)
            .get(key)
            .map_or(0, |s| permits.saturating_sub(s.available_permits()))
    }

    /// Frees a concurrency slot, and forgets the semaphore when nobody else holds or waits on
    /// it. Every clone is made under the map's lock, so the count read under it is exact.
    pub fn release(&self, key: &PoliteKey, held: Held) {
        let mut map = lock(&self.concurrency);
        let Held { semaphore, permit } = held;
        drop(permit);
        if Arc::strong_count(&semaphore) == 2
            && map.get(key).is_some_and(|s| Arc::ptr_eq(s, &semaphore))
        {
            map.remove(key);
        }
    }
}

/// A concurrency slot: the semaphore and the permit taken from it.
pub(crate) struct Held {
    pub semaphore: Arc<Semaphore>,
    pub permit: OwnedSemaphorePermit,
}

/// Hosts' IP keys (or their host key when they did not resolve), kept [`RESOLVED_TTL`].
pub(crate) struct Resolved(pub(super) moka::future::Cache<Box<str>, PoliteKey>);

impl Default for Resolved {
    fn default() -> Resolved {
        Resolved(
            moka::future::Cache::builder()
                .max_capacity(RESOLVED_MAX)
                .time_to_live(RESOLVED_TTL)
                .build(),
        )
    }
}
