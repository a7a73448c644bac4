//! The in-memory store: tests, one-shot runs, crawlers that keep nothing. Gone with the process.
//!
//! [`MemoryStore::new`] keeps every origin it is told of; [`MemoryStore::bounded`] keeps at
//! most a given number, dropping the least recently used (read or written) first, for a
//! long-running process that keeps nothing (`crawlgate serve --no-state`): an origin dropped
//! is fetched again when it is next checked, as after a restart.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use super::{
    LocalLeases, LocalSchedules, Plan, Pruned, Reservation, Store, StoreFuture, StoreUsage,
    TdmRecord, Updated,
};
use crate::policy::{Ask, Asked, BackoffRules, GateState, LedgerBounds, PoliteKey};
use crate::policy::{Change, Digest, OriginState};
use crate::Origin;

/// States and bodies in a map. Cheap to clone: clones share the map.
#[derive(Debug, Clone)]
pub struct MemoryStore {
    inner: Arc<Mutex<Maps>>,
    leases: Arc<LocalLeases>,
    schedules: Arc<LocalSchedules>,
    /// TDMRep records, apart from the states.
    tdm: Arc<Mutex<HashMap<Origin, TdmRecord>>>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::with_limit(usize::MAX)
    }
}

/// One map, keyed once per origin. Its values are boxed: a map keeps an eighth to a half of
/// its slots empty, and a state inline would make each empty slot cost ~300 B.
#[derive(Debug)]
struct Maps {
    origins: HashMap<Origin, Box<Entry>>,
    /// The most origins kept.
    max_origins: usize,
    /// Counts reads and writes: an entry's `used` is the count at its last one.
    clock: u64,
}

impl Maps {
    /// The entry of `origin`, marked as just used.
    fn touch(&mut self, origin: &Origin) -> Option<&mut Entry> {
        self.clock += 1;
        let clock = self.clock;
        let entry = self.origins.get_mut(origin)?;
        entry.used = clock;
        Some(entry)
    }

    /// Drops the least recently used origins when there are more than `max_origins`: an
    /// eighth of them at once, so that a full store sorts its entries once per eighth of its
    /// size, not once per new origin.
    fn evict(&mut self) {
        if self.origins.len() <= self.max_origins {
            return;
        }
        let keep = self.max_origins - self.max_origins / 8;
        let drop = self.origins.len() - keep;
        let mut ages: Vec<u64> = self.origins.values().map(|e| e.used).collect();
        let (_, &mut newest_dropped, _) = ages.select_nth_unstable(drop - 1);
        // `used` values are distinct (one tick per use): exactly `drop` entries go.
        self.origins.retain(|_, e| e.used > newest_dropped);
    }
}

#[derive(Debug, Default)]
struct Entry {
    /// When the entry was last read or written ([`Maps::clock`]).
    used: u64,
    state: OriginState,
    /// The bodies the state refers to (one, mostly), each once.
    bodies: Vec<(Digest, Arc<[u8]>)>,
}

impl Entry {
    /// Adds the bodies `plan` puts, drops those it drops.
    fn apply(&mut self, plan: &Plan) {
        self.bodies.retain(|(d, _)| !plan.drop.contains(d));
        self.bodies.reserve_exact(plan.put.len());
        for (digest, body) in &plan.put {
            if !self.bodies.iter().any(|(d, _)| d == digest) {
                self.bodies.push((*digest, body.clone()));
            }
        }
        // The list grows by one a new file and shrinks as old ones go: keep no spare room.
        self.bodies.shrink_to_fit();
    }
}

impl MemoryStore {
    /// An empty store that keeps every origin it is told of.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// An empty store that keeps at most `max_origins` origins (at least one), dropping the
    /// least recently read or written first (an eighth of them at a time): the store's memory
    /// stays bounded however many origins a long-running process sees. A dropped origin's
    /// state is gone, as after a restart: it is fetched again when next checked.
    pub fn bounded(max_origins: usize) -> MemoryStore {
        MemoryStore::with_limit(max_origins.max(1))
    }

    fn with_limit(max_origins: usize) -> MemoryStore {
        MemoryStore {
            inner: Arc::new(Mutex::new(Maps {
                origins: HashMap::new(),
                max_origins,
                clock: 0,
            })),
            leases: Arc::default(),
            schedules: Arc::default(),
            tdm: Arc::default(),
        }
    }

    fn maps(&self) -> MutexGuard<'_, Maps> {
        // The maps hold plain values, consistent even if a holder panicked.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Store for MemoryStore {
    fn load<'a>(&'a self, origin: &'a Origin) -> StoreFuture<'a, Option<OriginState>> {
        let state = self.maps().touch(origin).map(|e| e.state.clone());
        Box::pin(async move { Ok(state) })
    }

    fn load_tdm<'a>(&'a self, origin: &'a Origin) -> StoreFuture<'a, Option<TdmRecord>> {
        let record = self
            .tdm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(origin)
            .cloned();
        Box::pin(async move { Ok(record) })
    }

    fn save_tdm<'a>(&'a self, origin: &'a Origin, record: &'a TdmRecord) -> StoreFuture<'a, ()> {
        self.tdm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(origin.clone(), record.clone());
        Box::pin(async { Ok(()) })
    }

    fn update<'a>(&'a self, origin: &'a Origin, changes: &'a [Change]) -> StoreFuture<'a, Updated> {
        let mut maps = self.maps();
        let plan = Plan::new(maps.origins.get(origin).map(|e| &e.state), changes);
        // The key is cloned only for a new origin.
        if !maps.origins.contains_key(origin) {
            maps.origins.insert(origin.clone(), Box::default());
        }
        if let Some(entry) = maps.touch(origin) {
            entry.apply(&plan);
            entry.state = plan.state.clone();
        }
        maps.evict();
        drop(maps);
        Box::pin(async move { Ok(plan.updated()) })
    }

    fn body<'a>(
        &'a self,
        origin: &'a Origin,
        digest: &'a Digest,
    ) -> StoreFuture<'a, Option<Arc<[u8]>>> {
        let body = self.maps().touch(origin).and_then(|e| {
            e.bodies
                .iter()
                .find(|(d, _)| d == digest)
                .map(|(_, b)| b.clone())
        });
        Box::pin(async move { Ok(body) })
    }

    fn origins(&self) -> StoreFuture<'_, Vec<Origin>> {
        let all = self.maps().origins.keys().cloned().collect();
        Box::pin(async move { Ok(all) })
    }

    fn try_lease<'a>(
        &'a self,
        origin: &'a Origin,
        owner: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        let taken = self.leases.try_take(origin, owner, ttl);
        Box::pin(async move { Ok(taken) })
    }

    fn release_lease<'a>(&'a self, origin: &'a Origin, owner: &'a str) -> StoreFuture<'a, ()> {
        self.leases.release(origin, owner);
        Box::pin(async move { Ok(()) })
    }

    fn keeps_schedule(&self) -> bool {
        true
    }

    fn reserve<'a>(
        &'a self,
        key: &'a PoliteKey,
        now: SystemTime,
        spacing: Duration,
    ) -> StoreFuture<'a, Reservation> {
        let r = self.schedules.reserve(key, now, spacing);
        Box::pin(async move { Ok(r) })
    }

    fn back_off<'a>(
        &'a self,
        key: &'a PoliteKey,
        now: SystemTime,
        retry_after: Option<Duration>,
        rules: BackoffRules,
    ) -> StoreFuture<'a, Duration> {
        let (wait, _) = self.schedules.back_off(key, now, retry_after, &rules);
        Box::pin(async move { Ok(wait) })
    }

    fn recovered<'a>(&'a self, key: &'a PoliteKey) -> StoreFuture<'a, ()> {
        self.schedules.recovered(key);
        Box::pin(async move { Ok(()) })
    }

    fn ask_slot<'a>(
        &'a self,
        key: &'a PoliteKey,
        ask: Ask,
        bounds: LedgerBounds,
    ) -> StoreFuture<'a, Asked> {
        let asked = self.schedules.ask(key, &ask, &bounds);
        Box::pin(async move { Ok(asked) })
    }

    fn backed_off<'a>(&'a self, key: &'a PoliteKey, now: SystemTime) -> StoreFuture<'a, Duration> {
        let wait = self.schedules.backed_off(key, now);
        Box::pin(async move { Ok(wait) })
    }

    fn schedule<'a>(&'a self, key: &'a PoliteKey) -> StoreFuture<'a, Option<GateState>> {
        let state = self.schedules.get(key);
        Box::pin(async move { Ok(state) })
    }

    fn release<'a>(
        &'a self,
        key: &'a PoliteKey,
        slot: Reservation,
        spacing: Duration,
    ) -> StoreFuture<'a, ()> {
        self.schedules.release(key, &slot, spacing);
        Box::pin(async move { Ok(()) })
    }

    fn prune(&self, now: SystemTime) -> StoreFuture<'_, Pruned> {
        let origins: Vec<Origin> = self.maps().origins.keys().cloned().collect();
        let change = [Change::Prune { at: now }];
        let mut pruned = Pruned::default();
        for origin in &origins {
            let mut maps = self.maps();
            let Some(entry) = maps.origins.get_mut(origin) else {
                continue;
            };
            let before = entry.state.history().len();
            let plan = Plan::new(Some(&entry.state), &change);
            pruned.versions += (before - plan.state.history().len()) as u64;
            let bodies = entry.bodies.len();
            entry.apply(&plan);
            pruned.bodies += (bodies - entry.bodies.len()) as u64;
            entry.state = plan.state;
        }
        // TDMRep records keep their last good body apart from the history: only versions go.
        for record in self
            .tdm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values_mut()
        {
            pruned.versions += record.state.prune(now) as u64;
        }
        Box::pin(async move { Ok(pruned) })
    }

    fn usage(&self) -> StoreFuture<'_, StoreUsage> {
        let maps = self.maps();
        let bodies = || maps.origins.values().flat_map(|e| e.bodies.iter());
        let usage = StoreUsage {
            origins: maps.origins.len() as u64,
            // Not encoded here: the states' in-memory size is what `benches/tools/engine_memory.rs`
            // measures.
            state_bytes: 0,
            bodies: bodies().count() as u64,
            body_bytes: bodies().map(|(_, b)| b.len() as u64).sum(),
        };
        Box::pin(async move { Ok(usage) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::SiteReport;

    fn origin(i: usize) -> Origin {
        Origin::from_url(&format!("http://o{i}.example/")).expect("origin")
    }

    async fn write(store: &MemoryStore, i: usize) {
        let change = Change::SiteAvailability(SiteReport {
            at: SystemTime::UNIX_EPOCH,
            up: true,
        });
        store.update(&origin(i), &[change]).await.expect("update");
    }

    async fn kept(store: &MemoryStore, i: usize) -> bool {
        store.load(&origin(i)).await.expect("load").is_some()
    }

    #[tokio::test]
    async fn a_bounded_store_drops_the_least_recently_used() {
        let store = MemoryStore::bounded(80);
        for i in 0..80 {
            write(&store, i).await;
        }
        // Origin 0 is read: it becomes the most recently used.
        assert!(kept(&store, 0).await);
        for i in 80..1000 {
            write(&store, i).await;
            assert!(store.maps().origins.len() <= 80, "after {i}");
        }
        let usage = store.usage().await.expect("usage");
        assert!((70..=80).contains(&usage.origins), "{usage:?}");
        // The newest are kept, the oldest gone.
        assert!(kept(&store, 999).await);
        assert!(!kept(&store, 1).await);
        assert!(!kept(&store, 0).await, "read long ago, dropped since");
    }

    #[tokio::test]
    async fn a_read_keeps_an_origin() {
        let store = MemoryStore::bounded(8);
        write(&store, 0).await;
        for i in 1..100 {
            assert!(
                kept(&store, 0).await,
                "read before each write: never the oldest"
            );
            write(&store, i).await;
        }
    }

    #[tokio::test]
    async fn an_unbounded_store_keeps_everything() {
        let store = MemoryStore::new();
        for i in 0..2000 {
            write(&store, i).await;
        }
        assert_eq!(store.usage().await.expect("usage").origins, 2000);
    }
}
