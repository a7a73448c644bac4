//! The in-memory store: tests, one-shot runs, crawlers that keep nothing. Gone with the process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use super::{
    LocalLeases, LocalSchedules, Plan, Pruned, Reservation, Store, StoreFuture, Updated, Usage,
};
use crate::gate::BackoffRules;
use crate::policy::{Change, Digest, OriginState};
use crate::Origin;

/// States and bodies in a map. Cheap to clone: clones share the map.
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    inner: Arc<Mutex<Maps>>,
    leases: Arc<LocalLeases>,
    schedules: Arc<LocalSchedules>,
}

#[derive(Debug, Default)]
struct Maps {
    states: HashMap<Origin, OriginState>,
    bodies: HashMap<(Origin, Digest), Arc<[u8]>>,
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
        let state = self.maps().states.get(origin).cloned();
        Box::pin(async move { Ok(state) })
    }

    fn update<'a>(&'a self, origin: &'a Origin, changes: &'a [Change]) -> StoreFuture<'a, Updated> {
        let mut maps = self.maps();
        let plan = Plan::new(maps.states.get(origin), changes);
        for (digest, body) in &plan.put {
            maps.bodies.insert((origin.clone(), *digest), body.clone());
        }
        for digest in &plan.drop {
            maps.bodies.remove(&(origin.clone(), *digest));
        }
        maps.states.insert(origin.clone(), plan.state.clone());
        drop(maps);
        Box::pin(async move { Ok(plan.updated()) })
    }

    fn body<'a>(
        &'a self,
        origin: &'a Origin,
        digest: &'a Digest,
    ) -> StoreFuture<'a, Option<Arc<[u8]>>> {
        let body = self.maps().bodies.get(&(origin.clone(), *digest)).cloned();
        Box::pin(async move { Ok(body) })
    }

    fn origins(&self) -> StoreFuture<'_, Vec<Origin>> {
        let all = self.maps().states.keys().cloned().collect();
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
        origin: &'a Origin,
        now: SystemTime,
        spacing: Duration,
    ) -> StoreFuture<'a, Reservation> {
        let r = self.schedules.reserve(origin, now, spacing);
        Box::pin(async move { Ok(r) })
    }

    fn back_off<'a>(
        &'a self,
        origin: &'a Origin,
        now: SystemTime,
        retry_after: Option<Duration>,
        rules: BackoffRules,
    ) -> StoreFuture<'a, Duration> {
        let (wait, _) = self.schedules.back_off(origin, now, retry_after, &rules);
        Box::pin(async move { Ok(wait) })
    }

    fn recovered<'a>(&'a self, origin: &'a Origin) -> StoreFuture<'a, ()> {
        self.schedules.recovered(origin);
        Box::pin(async move { Ok(()) })
    }

    fn prune(&self, now: SystemTime) -> StoreFuture<'_, Pruned> {
        let origins: Vec<Origin> = self.maps().states.keys().cloned().collect();
        let change = [Change::Prune { at: now }];
        let mut pruned = Pruned::default();
        for origin in &origins {
            let mut maps = self.maps();
            let before = maps.states.get(origin).map_or(0, |s| s.history().len());
            let plan = Plan::new(maps.states.get(origin), &change);
            pruned.versions += (before - plan.state.history().len()) as u64;
            for digest in &plan.drop {
                if maps.bodies.remove(&(origin.clone(), *digest)).is_some() {
                    pruned.bodies += 1;
                }
            }
            maps.states.insert(origin.clone(), plan.state);
        }
        Box::pin(async move { Ok(pruned) })
    }

    fn usage(&self) -> StoreFuture<'_, Usage> {
        let maps = self.maps();
        let usage = Usage {
            origins: maps.states.len() as u64,
            // Not encoded here: the states' in-memory size is what the memory example measures.
            state_bytes: 0,
            bodies: maps.bodies.len() as u64,
            body_bytes: maps.bodies.values().map(|b| b.len() as u64).sum(),
        };
        Box::pin(async move { Ok(usage) })
    }
}
