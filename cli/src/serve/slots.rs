//! `/v1/acquire`'s slots: their ids, and the replica's memory of the slots it handed out.
//!
//! An id is self-describing, so that any replica on the same store honours it:
//! `v1.AT.RESERVED.CHECK`, the slot's time and when it was reserved (Unix milliseconds, the
//! engine's clock), and 16 hex digits of SHA-256 over those, the agent's product token and the
//! URL, so that an id is bound to its agent and URL. It is not a secret nor a capability: a
//! client can always fetch without asking; the check only catches a garbled or misplaced id.
//!
//! Without an id, the [`Ledger`] finds the caller's pending slot by (product token, URL), so
//! that asking again books nothing new; and it remembers the slots whose permit was handed out,
//! so that each gives one permit. Both are bounded and per replica.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crawlgate::ProductToken;
use sha2::{Digest, Sha256};

/// The ids' version prefix.
const VERSION: &str = "v1";

/// Entries each table keeps (the oldest go first).
const CAPACITY: usize = 4096;

/// A slot of `/v1/acquire`: when it comes and when it was reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotId {
    at_ms: u64,
    reserved_ms: u64,
}

impl SlotId {
    /// The slot coming at `at`, reserved at `reserved`.
    pub fn new(at: SystemTime, reserved: SystemTime) -> SlotId {
        SlotId {
            at_ms: unix_ms(at),
            reserved_ms: unix_ms(reserved),
        }
    }

    /// When the slot comes.
    pub fn at(self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.at_ms)
    }

    /// The id as the answer carries it, bound to `token` and `url`.
    pub fn encode(self, token: &ProductToken, url: &str) -> String {
        let check = check(self.at_ms, self.reserved_ms, token, url);
        format!("{VERSION}.{}.{}.{check}", self.at_ms, self.reserved_ms)
    }

    /// The slot of an id from [`SlotId::encode`] for the same `token` and `url`; `None` for
    /// anything else (garbled, another version, another agent's or URL's).
    pub fn decode(id: &str, token: &ProductToken, url: &str) -> Option<SlotId> {
        let mut parts = id.split('.');
        let (Some(VERSION), Some(at), Some(reserved), Some(given), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return None;
        };
        let digits =
            |s: &str| !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(at) || !digits(reserved) {
            return None;
        }
        let slot = SlotId {
            at_ms: at.parse().ok()?,
            reserved_ms: reserved.parse().ok()?,
        };
        (slot.reserved_ms <= slot.at_ms && given == check(slot.at_ms, slot.reserved_ms, token, url))
            .then_some(slot)
    }
}

fn unix_ms(t: SystemTime) -> u64 {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

/// 16 hex digits of SHA-256 over the slot's times, the token and the URL.
fn check(at_ms: u64, reserved_ms: u64, token: &ProductToken, url: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(VERSION.as_bytes());
    hash.update(at_ms.to_be_bytes());
    hash.update(reserved_ms.to_be_bytes());
    // Lengths first, so that no two (token, URL) pairs hash the same bytes.
    hash.update((token.as_str().len() as u64).to_be_bytes());
    hash.update(token.as_str().as_bytes());
    hash.update(url.as_bytes());
    let digest = hash.finalize();
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// The caller a pending slot belongs to: SHA-256 of (token, URL), so that a long URL costs
/// the table no more than a short one.
type Caller = [u8; 32];

fn caller(token: &ProductToken, url: &str) -> Caller {
    let mut hash = Sha256::new();
    hash.update((token.as_str().len() as u64).to_be_bytes());
    hash.update(token.as_str().as_bytes());
    hash.update(url.as_bytes());
    hash.finalize().into()
}

/// The replica's slots: pending ones by caller, and the ones whose permit was handed out.
#[derive(Default)]
pub struct Ledger {
    pending: Mutex<Bounded<Caller, SlotId>>,
    spent: Mutex<Bounded<String, ()>>,
}

impl Ledger {
    /// The caller's pending slot, if it has one.
    pub fn pending(&self, token: &ProductToken, url: &str) -> Option<SlotId> {
        lock(&self.pending).get(&caller(token, url))
    }

    /// The caller's slot is `slot` now (a new one, or one that replaced a void one).
    pub fn book(&self, token: &ProductToken, url: &str, slot: SlotId) {
        lock(&self.pending).insert(caller(token, url), slot);
    }

    /// The permit of `id` was handed out: the caller has no pending slot, and `id` gives no
    /// other permit here.
    pub fn spend(&self, token: &ProductToken, url: &str, id: &str) {
        lock(&self.pending).remove(&caller(token, url));
        lock(&self.spent).insert(id.to_owned(), ());
    }

    /// Whether the permit of `id` was handed out here.
    pub fn spent(&self, id: &str) -> bool {
        lock(&self.spent).get(id).is_some()
    }

    /// The caller has no slot (its URL is disallowed now).
    pub fn forget(&self, token: &ProductToken, url: &str) {
        lock(&self.pending).remove(&caller(token, url));
    }
}

/// A table is only ever left whole (each change is one call), so a poisoned lock's data is good.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A map of at most [`CAPACITY`] entries; the oldest inserted goes first.
struct Bounded<K, V> {
    map: HashMap<K, (u64, V)>,
    order: BTreeMap<u64, K>,
    next: u64,
}

impl<K, V> Default for Bounded<K, V> {
    fn default() -> Self {
        Bounded {
            map: HashMap::new(),
            order: BTreeMap::new(),
            next: 0,
        }
    }
}

impl<K: Hash + Eq + Clone, V: Copy> Bounded<K, V> {
    fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.map.get(key).map(|(_, v)| *v)
    }

    fn insert(&mut self, key: K, value: V) {
        self.remove(&key);
        while self.map.len() >= CAPACITY {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            self.map.remove(&oldest);
        }
        let seq = self.next;
        self.next += 1;
        self.order.insert(seq, key.clone());
        self.map.insert(key, (seq, value));
    }

    fn remove(&mut self, key: &K) {
        if let Some((seq, _)) = self.map.remove(key) {
            self.order.remove(&seq);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_bound_to_its_agent_and_url() {
        let bot = ProductToken::new("bot").expect("token");
        let other = ProductToken::new("other").expect("token");
        let slot = SlotId::new(
            UNIX_EPOCH + Duration::from_millis(2_000_500),
            UNIX_EPOCH + Duration::from_millis(1_000_000),
        );
        let id = slot.encode(&bot, "http://a.test/x");
        assert!(id.starts_with("v1.2000500.1000000."), "{id}");
        assert_eq!(SlotId::decode(&id, &bot, "http://a.test/x"), Some(slot));
        assert_eq!(SlotId::decode(&id, &other, "http://a.test/x"), None);
        assert_eq!(SlotId::decode(&id, &bot, "http://a.test/y"), None);
        for garbled in [
            "",
            "v1",
            "v2.2000500.1000000.00",
            &id[..id.len() - 1],
            &format!("{id}.0"),
        ] {
            assert_eq!(
                SlotId::decode(garbled, &bot, "http://a.test/x"),
                None,
                "{garbled}"
            );
        }
    }

    #[test]
    fn the_tables_keep_the_newest_entries() {
        let mut table = Bounded::<u32, u32>::default();
        for i in 0..(CAPACITY as u32 + 10) {
            table.insert(i, i);
        }
        assert_eq!(table.map.len(), CAPACITY);
        assert_eq!(table.get(&0), None);
        assert_eq!(table.get(&(CAPACITY as u32 + 9)), Some(CAPACITY as u32 + 9));
        table.insert(10, 1);
        table.insert(CAPACITY as u32 + 10, 0);
        assert_eq!(table.get(&10), Some(1), "a re-inserted entry is the newest");
    }
}
