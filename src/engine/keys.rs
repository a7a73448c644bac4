//! Politeness keys in the engine: the key an origin's requests are scheduled under (its host
//! resolved for [`KeyKind::Ip`]), and the fleet-wide in-flight places a shared store counts.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::cache::RobotsCache;
use crate::origin::{Origin, Scheme};
use crate::policy::{KeyKind, PoliteKey};

/// The longest a resolution may take; then the host is the key.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);
/// The first pause before asking again for an in-flight place when all are held…
const PLACE_POLL_MIN: Duration = Duration::from_millis(5);
/// …doubling up to this.
const PLACE_POLL_MAX: Duration = Duration::from_millis(100);

impl RobotsCache {
    /// The politeness key of `origin`'s requests under the gate's [`KeyKind`]. For
    /// [`KeyKind::Ip`] the host is resolved (by the system's resolver, on tokio's blocking
    /// pool), the addresses the fetcher's address policy refuses are dropped, and the lowest
    /// IPv4 address (else IPv6 /64) is the key; a host that does not resolve is its own key.
    pub(crate) async fn politeness_key(&self, origin: &Origin) -> PoliteKey {
        let gate = self.gate();
        let kind = gate.options.key;
        let key = PoliteKey::of(kind, origin);
        if kind != KeyKind::Ip || key.kind() == KeyKind::Ip {
            return key;
        }
        if let Some(known) = gate.resolved.0.get(origin.host()).await {
            return known;
        }
        let port = origin.port().unwrap_or(match origin.scheme() {
            Scheme::Http => 80,
            Scheme::Https => 443,
        });
        let policy = gate.addresses;
        let lookup = tokio::net::lookup_host((origin.host(), port));
        let resolved = match tokio::time::timeout(RESOLVE_TIMEOUT, lookup).await {
            Ok(Ok(addresses)) => PoliteKey::from_addresses(
                addresses
                    .map(|a| a.ip())
                    .filter(|ip| policy.allows(ip.to_canonical())),
            ),
            _ => None,
        };
        if resolved.is_none() {
            tracing::debug!(target: "crawlgate::gate", host = origin.host(), "no address to key by: the host is the key");
        }
        let key = resolved.unwrap_or(key);
        gate.resolved
            .0
            .insert(origin.host().into(), key.clone())
            .await;
        key
    }

    /// Waits for one of `key`'s fleet-wide in-flight places when the store counts them
    /// ([`Store::counts_in_flight`](crate::store::Store::counts_in_flight)): the place, freed
    /// when dropped. `None` when the store does not count them, or fails (then the process's
    /// own limit is the only one, as with a store of one process).
    ///
    /// Cancellation-safe: the holder's name is a [`Place`] from the first request on, so that
    /// a future dropped while its request to the store is under way (or a request whose
    /// answer is lost) frees the place the store may have given it; the release goes after
    /// the request on the store's connection.
    pub(crate) async fn take_place(&self, key: &PoliteKey) -> Option<Place> {
        let store = self.store();
        if !store.counts_in_flight() {
            return None;
        }
        let gate = self.gate();
        let n = gate.next_place.fetch_add(1, Ordering::Relaxed);
        let holder = format!("{}:{n}", self.owner());
        let place = Place {
            cache: self.clone(),
            key: key.clone(),
            holder: Some(holder.clone()),
        };
        let limit = gate.options.max_concurrency.max(1);
        let expiry = gate.options.in_flight_expiry;
        let mut pause = PLACE_POLL_MIN;
        loop {
            match store.take_in_flight(key, &holder, limit, expiry).await {
                Ok(true) => {
                    self.store_ok();
                    return Some(place);
                }
                Ok(false) => {
                    self.store_ok();
                    self.clock().sleep(pause).await;
                    pause = (pause * 2).min(PLACE_POLL_MAX);
                }
                Err(e) => {
                    self.store_failed(&e);
                    // The request may have been carried out and its answer lost: `place`, dropped
                    // here, frees it in the background; the process's own limit applies.
                    return None;
                }
            }
        }
    }

    /// Frees an in-flight place taken by [`RobotsCache::take_place`].
    pub(crate) async fn release_place(&self, key: &PoliteKey, holder: &str) {
        match self.store().release_in_flight(key, holder).await {
            Ok(()) => self.store_ok(),
            Err(e) => self.store_failed(&e),
        }
    }
}

/// A fleet-wide in-flight place, asked for or held: released when dropped (in the background,
/// on the runtime it is dropped on; without one the place ends at its expiry), or at once by
/// [`Place::release`].
pub(crate) struct Place {
    cache: RobotsCache,
    key: PoliteKey,
    /// The holder's name; `None` once released.
    holder: Option<String>,
}

impl Place {
    /// Frees the place now.
    pub(crate) async fn release(mut self) {
        if let Some(holder) = self.holder.take() {
            self.cache.release_place(&self.key, &holder).await;
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some(holder) = self.holder.take() {
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                let (cache, key) = (self.cache.clone(), self.key.clone());
                runtime.spawn(async move { cache.release_place(&key, &holder).await });
            }
        }
    }
}
