//! The in-memory store: tests, one-shot runs, crawlers that keep nothing. Gone with the process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use super::{
    LocalLeases, LocalSchedules, Plan, Pruned, Reservation, Store, StoreFuture, StoreUsage,
    TdmRecord, Updated,
};
use crate::policy::{BackoffRules, GateState, PoliteKey};
use crate::policy::{Change, Digest, OriginState};
use crate::Origin;

/// States and bodies in a map. Cheap to clone: clones share the map.
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    inner: Arc<Mutex<Maps>>,
    leases: Arc<LocalLeases>,
    schedules: Arc<LocalSchedules>,
    /// TDMRep records, apart from the states.
    tdm: Arc<Mutex<HashMap<Origin, TdmRecord>>>,
}

/// One map, keyed once per origin. Its values are boxed: a map keeps an eighth to a half of
/// its slots empty, and a state inline would make each empty slot cost ~300 B.
#[derive(Debug, Default)]
struct Maps {
    origins: HashMap<Origin, Box<Entry>>,
}

#[derive(Debug, Default)]
struct Entry {
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
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn maps(&self) -> MutexGuard<'_, Maps> {
        // The maps hold plain values, consistent even if a holder panicked.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Store for MemoryStore {
    fn load<'a>(&'a self, origin: &'a Origin) -> StoreFuture<'a, Option<OriginState>> {
        let state = self.maps().origins.get(origin).map(|e| e.state.clone());
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
        if let Some(entry) = maps.origins.get_mut(origin) {
            entry.apply(&plan);
            entry.state = plan.state.clone();
        }
        drop(maps);
        Box::pin(async move { Ok(plan.updated()) })
    }

    fn body<'a>(
        &'a self,
        origin: &'a Origin,
        digest: &'a Digest,
    ) -> StoreFuture<'a, Option<Arc<[u8]>>> {
        let body = self.maps().origins.get(origin).and_then(|e| {
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
