//! Where crawl state lives (feature `fetch`): one [`Store`] trait, three implementations.
//!
//! A store keeps, per origin, the [`OriginState`] (versions, last good version, failure run,
//! availability reports, next due time, recrawl epoch) and the robots.txt bodies it refers to,
//! each once, under its [`Digest`]. It changes a state only through [`Store::update`], which
//! applies a list of [`Change`]s atomically: read, [`OriginState::apply`] each, write, with no
//! update lost when two processes record at once. It also hands out fetch leases, so that a
//! fleet fetches each robots.txt once.
//!
//! | store | for | sharing | durability |
//! |---|---|---|---|
//! | [`MemoryStore`] | tests, one-shot runs | one process | none |
//! | [`EmbeddedStore`] (feature `redb`) | the CLI, a single crawler | one process at a time (a file lock) | ACID, crash-safe ([redb]) |
//! | [`RedisStore`] (feature `redis`) | a fleet of crawlers | every process that uses the same server and prefix | as the server is configured |
//!
//! The engine ([`crate::engine::RobotsCache`]) never reads a store on the hot path: it keeps
//! compiled rules in memory and goes to the store when an origin is new to it, evicted, due,
//! or (for a shared store) when its copy is older than
//! [`CacheOptions::sync_interval`](crate::engine::CacheOptions::sync_interval).
//!
//! [redb]: https://www.redb.org

#[cfg(feature = "serde")]
pub mod codec;
#[cfg(feature = "redb")]
mod embedded;
mod memory;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
mod redis_conn;

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

#[cfg(feature = "redb")]
pub use embedded::EmbeddedStore;
pub use memory::MemoryStore;

/// An origin's TDMRep `/.well-known/tdmrep.json` as stored, apart from its robots.txt state:
/// the file's ladder (its fetches, as an [`OriginState`]) and the body of its last good
/// version, so that a restart answers TDMRep without fetching the file again.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct TdmRecord {
    /// The file's fetches through robots.txt's ladder.
    pub state: OriginState,
    /// The last good file's body, if there is one.
    pub body: Option<Vec<u8>>,
}

impl TdmRecord {
    /// A record of `state` and the last good file's `body`.
    pub fn new(state: OriginState, body: Option<Vec<u8>>) -> TdmRecord {
        TdmRecord { state, body }
    }
}
#[cfg(feature = "redis")]
pub use redis::{RedisOptions, RedisStore};

use crate::policy::{
    ms, unix_ms, Ask, Asked, BackoffRules, GateState, Ledger, LedgerBounds, PoliteKey,
};
use crate::policy::{Applied, Change, Digest, OriginState};
use crate::Origin;

/// The future a [`Store`] method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a store could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store could not be opened or created.
    #[error("cannot open the state store {location}: {message}")]
    Open {
        /// A path or URL.
        location: String,
        /// What went wrong.
        message: String,
    },
    /// Another process has the embedded store open.
    #[error(
        "the state store {location} is in use by another process (use another --state, or --no-state)"
    )]
    Locked {
        /// The path.
        location: String,
    },
    /// The backend failed (disk, network, server).
    #[error("state store failure: {0}")]
    Backend(String),
    /// A stored state could not be decoded.
    #[error("the stored state of {origin} cannot be read: {message}")]
    Corrupt {
        /// Whose state.
        origin: String,
        /// What is wrong with it.
        message: String,
    },
    /// The store does not do this (a store of another crate that keeps no request schedule).
    #[error("the state store does not keep {0}")]
    Unsupported(&'static str),
    /// Concurrent updates of one origin kept conflicting.
    #[error("the state of {origin} kept changing under {attempts} attempts to update it")]
    Contention {
        /// Whose state.
        origin: String,
        /// Attempts made.
        attempts: u32,
    },
}

/// What an update did.
#[derive(Debug, Clone)]
pub struct Updated {
    /// The state after the changes.
    pub state: OriginState,
    /// What each change did, in order.
    pub applied: Vec<Applied>,
}

/// How much a store holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoreUsage {
    /// Origins with a state.
    pub origins: u64,
    /// Bytes of encoded states.
    pub state_bytes: u64,
    /// Bodies stored.
    pub bodies: u64,
    /// Bytes of bodies.
    pub body_bytes: u64,
}

/// What [`Store::prune`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// History entries older than 30 days (of robots.txt states and TDMRep records).
    pub versions: u64,
    /// Bodies no longer referred to.
    pub bodies: u64,
}

/// Per-origin crawl state that outlives the process. See the module docs.
///
/// Methods return boxed futures so that the engine can hold any store as
/// `Arc<dyn Store>`.
pub trait Store: Send + Sync + fmt::Debug + 'static {
    /// The origin's state, if anything was recorded.
    fn load<'a>(&'a self, origin: &'a Origin) -> StoreFuture<'a, Option<OriginState>>;

    /// Applies `changes` in order, atomically, to the stored state (an empty one if there is
    /// none), stores the bodies of new files and drops those no longer referred to.
    fn update<'a>(&'a self, origin: &'a Origin, changes: &'a [Change]) -> StoreFuture<'a, Updated>;

    /// A stored body.
    fn body<'a>(
        &'a self,
        origin: &'a Origin,
        digest: &'a Digest,
    ) -> StoreFuture<'a, Option<Arc<[u8]>>>;

    /// Every origin with a state, in no particular order. An origin with only a TDMRep record
    /// ([`Store::save_tdm`]) and no robots.txt state is not one: the record is kept and read
    /// when asked for, but not listed.
    fn origins(&self) -> StoreFuture<'_, Vec<Origin>>;

    /// Takes the origin's fetch lease for `owner` unless someone else holds it. A lease ends
    /// when released or after `ttl`, so that a holder that dies does not block the others.
    fn try_lease<'a>(
        &'a self,
        origin: &'a Origin,
        owner: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, bool>;

    /// Ends `owner`'s lease (nothing if it no longer holds it).
    fn release_lease<'a>(&'a self, origin: &'a Origin, owner: &'a str) -> StoreFuture<'a, ()>;

    /// Drops, in every state, the versions older than 30 days at `now`, and the bodies no
    /// longer referred to; and the versions older than 30 days of every TDMRep record's history
    /// (its last good body, kept apart, stays).
    fn prune(&self, now: SystemTime) -> StoreFuture<'_, Pruned>;

    /// What the store holds.
    fn usage(&self) -> StoreFuture<'_, StoreUsage>;

    /// The origin's TDMRep record ([`TdmRecord`]), if one was saved. The stores of this crate
    /// keep them (a record of its own per origin, [`codec::TDM_FORMAT`]); by default a store
    /// keeps none and the engine holds TDMRep in memory only.
    fn load_tdm<'a>(&'a self, origin: &'a Origin) -> StoreFuture<'a, Option<TdmRecord>> {
        let _ = origin;
        Box::pin(async { Ok(None) })
    }

    /// Replaces the origin's TDMRep record (by default, keeps nothing).
    fn save_tdm<'a>(&'a self, origin: &'a Origin, record: &'a TdmRecord) -> StoreFuture<'a, ()> {
        let _ = (origin, record);
        Box::pin(async { Ok(()) })
    }

    /// Whether the store keeps request schedules ([`Store::reserve`], [`Store::back_off`],
    /// [`Store::recovered`]). The stores of this crate do; for one that does not, the gate
    /// keeps the schedule in the process.
    fn keeps_schedule(&self) -> bool {
        false
    }

    /// Reserves the next request slot of a politeness key, atomically: the slot is the latest
    /// of now, the end of the last slot's spacing, and the end of a backoff; the one after it
    /// is `spacing` later. Returns how long to wait for it. Callers served one after the other
    /// get slots in that order.
    ///
    /// `now` is the caller's clock; a shared store may use its own instead (the Redis store
    /// uses the server's, so that processes on machines whose clocks disagree share one
    /// schedule), which is why the answer is a wait, not a time.
    fn reserve<'a>(
        &'a self,
        key: &'a PoliteKey,
        now: SystemTime,
        spacing: Duration,
    ) -> StoreFuture<'a, Reservation> {
        let _ = (key, now, spacing);
        Box::pin(async { Err(StoreError::Unsupported("request schedules")) })
    }

    /// Records a 429 or 503 for a politeness key: no slot before `now` + [`backoff_delay`] (an
    /// earlier backoff that ends later stands). Returns the wait from now.
    ///
    /// [`backoff_delay`]: crate::policy::backoff_delay
    fn back_off<'a>(
        &'a self,
        key: &'a PoliteKey,
        now: SystemTime,
        retry_after: Option<Duration>,
        rules: BackoffRules,
    ) -> StoreFuture<'a, Duration> {
        let _ = (key, now, retry_after, rules);
        Box::pin(async { Err(StoreError::Unsupported("request schedules")) })
    }

    /// How long from now the key is still backed off (zero: not). A waiter checks this when
    /// its slot comes, so that a backoff begun after it reserved reaches it too.
    fn backed_off<'a>(&'a self, key: &'a PoliteKey, now: SystemTime) -> StoreFuture<'a, Duration> {
        let _ = (key, now);
        Box::pin(async { Err(StoreError::Unsupported("request schedules")) })
    }

    /// A politeness key's schedule as stored ([`GateState`]: next slot, backoff end, backoff
    /// statuses in a row, the last one), read without changing it; `None` when nothing is
    /// kept for it. Times are on the store's clock (the Redis server's for the Redis store).
    fn schedule<'a>(&'a self, key: &'a PoliteKey) -> StoreFuture<'a, Option<GateState>> {
        let _ = key;
        Box::pin(async { Err(StoreError::Unsupported("request schedules")) })
    }

    /// Gives back a slot from [`Store::reserve`] whose permit was never handed out (its
    /// `acquire` was dropped): when no slot was reserved after it, the next one is that slot
    /// again, so that the next waiter does not wait a spacing for nothing.
    fn release<'a>(
        &'a self,
        key: &'a PoliteKey,
        slot: Reservation,
        spacing: Duration,
    ) -> StoreFuture<'a, ()> {
        let _ = (key, slot, spacing);
        Box::pin(async { Err(StoreError::Unsupported("request schedules")) })
    }

    /// Records an answer that was not a 429 or 503: the key's exponential backoff starts over.
    fn recovered<'a>(&'a self, key: &'a PoliteKey) -> StoreFuture<'a, ()> {
        let _ = key;
        Box::pin(async { Err(StoreError::Unsupported("request schedules")) })
    }

    /// Answers an ask of a politeness key's slot ledger ([`Ledger::ask`]: the caller's pending
    /// slot, a permit when it has come, a new booking, or "come back later"), atomically with
    /// the key's schedule. The stores of this crate keep a ledger per key (the Redis store one
    /// that every process on it shares, on the server's clock: `ask.now` is then ignored); by
    /// default a store keeps none and the engine keeps the ledger in the process.
    fn ask_slot<'a>(
        &'a self,
        key: &'a PoliteKey,
        ask: Ask,
        bounds: LedgerBounds,
    ) -> StoreFuture<'a, Asked> {
        let _ = (key, ask, bounds);
        Box::pin(async { Err(StoreError::Unsupported("slot ledgers")) })
    }

    /// Whether the store counts requests in flight across processes ([`Store::take_in_flight`],
    /// [`Store::release_in_flight`]): the Redis store does; a store only one process uses
    /// does not need to (the engine counts them in the process).
    fn counts_in_flight(&self) -> bool {
        false
    }

    /// Takes one of a key's `limit` in-flight places for `holder`, unless `limit` are held:
    /// places not released within `expiry` of being taken are freed (their holder died).
    /// A holder that already has a place keeps it and its expiry starts again. Returns whether
    /// `holder` has a place now.
    fn take_in_flight<'a>(
        &'a self,
        key: &'a PoliteKey,
        holder: &'a str,
        limit: usize,
        expiry: Duration,
    ) -> StoreFuture<'a, bool> {
        let _ = (key, holder, limit, expiry);
        Box::pin(async { Err(StoreError::Unsupported("in-flight limits")) })
    }

    /// Frees `holder`'s in-flight place of a key (nothing if it has none).
    fn release_in_flight<'a>(&'a self, key: &'a PoliteKey, holder: &'a str) -> StoreFuture<'a, ()> {
        let _ = (key, holder);
        Box::pin(async { Err(StoreError::Unsupported("in-flight limits")) })
    }

    /// Whether other processes write to this store, so that copies of its states go stale.
    fn is_shared(&self) -> bool {
        false
    }

    /// Why this store may lose what it is told, found when it was opened (for Redis: a server
    /// without persistence, or with an `allkeys-*` eviction policy), if it may. The engine
    /// shows it in [`StoreStatus`](crate::engine::StoreStatus).
    fn durability_warning(&self) -> Option<String> {
        None
    }

    /// The origins a listing shows at `now`: every origin with a fetch recorded, except those
    /// that have answered "not found" for 30 days ([`OriginState::is_dormant`]; they are still
    /// checked when asked), sorted.
    fn listed(&self, now: SystemTime) -> StoreFuture<'_, Vec<Origin>> {
        Box::pin(async move {
            let mut listed = Vec::new();
            for origin in self.origins().await? {
                if let Some(state) = self.load(&origin).await? {
                    if state.last_fetch().is_some() && !state.is_dormant(now) {
                        listed.push(origin);
                    }
                }
            }
            listed.sort_by_key(|o| o.to_string());
            Ok(listed)
        })
    }
}

/// An update worked out before it is written: the new state, and the bodies to add and drop.
/// Every store plans its updates here, so the rules of what is kept live in one place.
#[derive(Debug)]
pub(crate) struct Plan {
    pub state: OriginState,
    pub applied: Vec<Applied>,
    /// Bodies the new state refers to that the old one did not.
    pub put: Vec<(Digest, Arc<[u8]>)>,
    /// Bodies the old state referred to that the new one does not.
    pub drop: Vec<Digest>,
}

impl Plan {
    pub fn new(before: Option<&OriginState>, changes: &[Change]) -> Plan {
        let mut state = before.cloned().unwrap_or_default();
        let old = state.digests();
        let mut applied = Vec::with_capacity(changes.len());
        let mut bodies: Vec<(Digest, Arc<[u8]>)> = Vec::new();
        for change in changes {
            let a = state.apply(change);
            if let (Change::Fetched(r), Applied::Recorded { .. }) = (change, a) {
                if let (Some(d), Some(body)) = (r.content.digest(), &r.body) {
                    bodies.push((d, body.clone()));
                }
            }
            applied.push(a);
        }
        let new = state.digests();
        let mut put: Vec<(Digest, Arc<[u8]>)> = Vec::new();
        for (d, body) in bodies {
            if new.binary_search(&d).is_ok()
                && old.binary_search(&d).is_err()
                && !put.iter().any(|(p, _)| *p == d)
            {
                put.push((d, body));
            }
        }
        let drop = old
            .iter()
            .filter(|d| new.binary_search(d).is_err())
            .copied()
            .collect();
        Plan {
            state,
            applied,
            put,
            drop,
        }
    }

    pub fn updated(&self) -> Updated {
        Updated {
            state: self.state.clone(),
            applied: self.applied.clone(),
        }
    }
}

/// Fetch leases for stores that only one process uses (memory, embedded): a map with
/// deadlines. The same rules as Redis's `SET NX PX`: free when absent or expired, re-taken by
/// its holder, released only by its holder.
#[derive(Debug, Default)]
pub(crate) struct LocalLeases(Mutex<HashMap<Origin, (String, Instant)>>);

impl LocalLeases {
    pub fn try_take(&self, origin: &Origin, owner: &str, ttl: Duration) -> bool {
        let now = Instant::now();
        // Plain values, consistent even if a holder panicked.
        let mut leases = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let free = leases
            .get(origin)
            .is_none_or(|(holder, until)| holder == owner || *until <= now);
        if free {
            leases.insert(origin.clone(), (owner.to_owned(), now + ttl));
        }
        free
    }

    pub fn release(&self, origin: &Origin, owner: &str) {
        let mut leases = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if leases
            .get(origin)
            .is_some_and(|(holder, _)| holder == owner)
        {
            leases.remove(origin);
        }
    }
}

/// A reserved request slot ([`Store::reserve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reservation {
    /// How long to wait for the slot.
    pub wait: Duration,
    /// 429s and 503s in a row the origin had answered when the slot was taken: a success
    /// after them must call [`Store::recovered`].
    pub strikes: u32,
    /// The slot, ms since the epoch on the store's clock (the Redis server's for the Redis
    /// store): what [`Store::release`] gives back.
    pub slot_ms: u64,
}

/// Request schedules kept in the process (memory and embedded stores, and the gate's own when
/// the store keeps none or fails): one [`GateState`] per politeness key, changed under a lock. Idle
/// schedules are dropped now and then, so that the map holds the keys being crawled.
#[derive(Debug, Default)]
pub(crate) struct LocalSchedules(Mutex<Schedules>);

#[derive(Debug, Default)]
struct Schedules {
    map: HashMap<PoliteKey, GateState>,
    /// The slot ledgers, beside the schedules they book (kept in the process only).
    ledgers: HashMap<PoliteKey, Ledger>,
    /// The map is swept of idle schedules when it grows past this.
    sweep_at: usize,
}

/// The smallest map swept.
const SWEEP_MIN: usize = 1024;

impl LocalSchedules {
    fn with<T>(&self, key: &PoliteKey, now: u64, f: impl FnOnce(&mut GateState) -> T) -> T {
        // Plain values, consistent even if a holder panicked.
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if s.map.len() >= s.sweep_at.max(SWEEP_MIN) {
            s.map.retain(|_, g| !g.is_idle(now));
            s.ledgers.retain(|_, l| !l.is_idle(now));
            s.sweep_at = (s.map.len() + s.ledgers.len()) * 2;
        }
        f(s.map.entry(key.clone()).or_default())
    }

    /// Puts a schedule in (read back from disk).
    #[cfg(feature = "redb")]
    pub fn seed(&self, key: PoliteKey, state: GateState) {
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        s.map.entry(key).or_insert(state);
    }

    /// [`Store::reserve`] in the process.
    pub fn reserve(&self, key: &PoliteKey, now: SystemTime, spacing: Duration) -> Reservation {
        let now = unix_ms(now);
        self.with(key, now, |g| {
            let wait = g.reserve(now, ms(spacing));
            Reservation {
                wait: Duration::from_millis(wait),
                strikes: g.strikes,
                slot_ms: now.saturating_add(wait),
            }
        })
    }

    /// [`Store::ask_slot`] in the process: the key's ledger and schedule under one lock.
    pub fn ask(&self, key: &PoliteKey, ask: &Ask, bounds: &LedgerBounds) -> Asked {
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let s = &mut *s;
        if s.map.len() + s.ledgers.len() >= s.sweep_at.max(SWEEP_MIN) {
            s.map.retain(|_, g| !g.is_idle(ask.now));
            s.ledgers.retain(|_, l| !l.is_idle(ask.now));
            s.sweep_at = (s.map.len() + s.ledgers.len()) * 2;
        }
        let gate = s.map.entry(key.clone()).or_default();
        let ledger = s.ledgers.entry(key.clone()).or_default();
        ledger.ask(gate, ask, bounds)
    }

    /// [`Store::back_off`] in the process; also returns the schedule after it.
    pub fn back_off(
        &self,
        key: &PoliteKey,
        now: SystemTime,
        retry_after: Option<Duration>,
        rules: &BackoffRules,
    ) -> (Duration, GateState) {
        let now = unix_ms(now);
        self.with(key, now, |g| {
            let wait = g.back_off(now, retry_after, rules);
            (Duration::from_millis(wait), *g)
        })
    }

    /// Notes a slot at `slot` taken from a shared store: the process's own next slot is at
    /// least `spacing` after it.
    pub fn follow(&self, key: &PoliteKey, slot: SystemTime, spacing: Duration) {
        let slot = unix_ms(slot);
        self.with(key, slot, |g| {
            g.next_free = g.next_free.max(slot.saturating_add(ms(spacing)));
        });
    }

    /// [`Store::schedule`] in the process.
    pub fn get(&self, key: &PoliteKey) -> Option<GateState> {
        let s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        s.map.get(key).copied()
    }

    /// [`Store::backed_off`] in the process.
    pub fn backed_off(&self, key: &PoliteKey, now: SystemTime) -> Duration {
        let now = unix_ms(now);
        let s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        Duration::from_millis(s.map.get(key).map_or(0, |g| g.backed_off(now)))
    }

    /// [`Store::release`] in the process; the schedule after it.
    pub fn release(&self, key: &PoliteKey, slot: &Reservation, spacing: Duration) -> GateState {
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match s.map.get_mut(key) {
            Some(g) => {
                g.release(slot.slot_ms, ms(spacing));
                *g
            }
            None => GateState::default(),
        }
    }

    /// Every schedule (to save them).
    #[cfg(feature = "redb")]
    pub fn all(&self) -> Vec<(PoliteKey, GateState)> {
        let s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        s.map.iter().map(|(o, g)| (o.clone(), *g)).collect()
    }

    /// [`Store::recovered`] in the process; the schedule after it.
    pub fn recovered(&self, key: &PoliteKey) -> GateState {
        let mut s = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match s.map.get_mut(key) {
            Some(g) => {
                g.recovered();
                *g
            }
            None => GateState::default(),
        }
    }
}

/// A random token naming one lease holder.
pub(crate) fn owner_token() -> String {
    format!("{:032x}", random_u128())
}

/// 128 random bits (a lease holder's name, a slot's id), without a `rand` dependency: two
/// SipHashes under the standard library's randomly seeded keys, with the process id and a
/// counter hashed in.
pub(crate) fn random_u128() -> u128 {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut a = RandomState::new().build_hasher();
    a.write_u64(n);
    let mut b = RandomState::new().build_hasher();
    b.write_u32(std::process::id());
    b.write_u64(n);
    (u128::from(a.finish()) << 64) | u128::from(b.finish())
}
