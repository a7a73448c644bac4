//! The slot ledger ([`Store::ask_slot`]) through each store: the same rule on memory, redb and
//! a real `redis-server` (two connections, as two replicas), at the same spacing.
use std::sync::Arc;
use std::time::SystemTime;

use crate::support::redis_server::RedisServer;
use crawlgate::policy::{
    Ask, Asked, Caller, GateOptions, LaterWhy, LedgerBounds, Outcome, PoliteKey,
};
#[cfg(feature = "redb")]
use crawlgate::store::EmbeddedStore;
use crawlgate::store::{MemoryStore, RedisOptions, RedisStore, Store};
use crawlgate::Origin;

/// Long enough that the test's own pace never reaches a slot.
const SPACING: u64 = 60_000;

fn key() -> PoliteKey {
    PoliteKey::of(
        Default::default(),
        &Origin::from_url("http://ledger.test").expect("origin"),
    )
}

fn caller(n: u8, agent: u64) -> Caller {
    Caller {
        url: [n; 32],
        agent,
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64
}

async fn ask(store: &dyn Store, who: Caller, fresh: u128, bounds: LedgerBounds) -> Asked {
    let ask = Ask {
        caller: who,
        now: now_ms(),
        spacing_ms: SPACING,
        closed_ms: 0,
        fresh,
    };
    store.ask_slot(&key(), ask, bounds).await.expect("ask")
}

/// The rule as every store must keep it; `stores` are views of one store (two connections to
/// one Redis server, or the same store twice).
pub(crate) async fn the_rule(stores: [Arc<dyn Store>; 2]) {
    // The default bounds (two minutes ahead) hold two slots at this spacing: roomier ones, and
    // tight ones where the bounds are the point.
    let defaults = GateOptions::default().ledger_bounds();
    assert_eq!(defaults.ahead_ms, 120_000);
    let bounds = LedgerBounds {
        ahead_ms: 3_600_000,
        per_agent: 32,
    };
    let [one, two] = stores;
    // A first ask on a free key: a permit, once; asking again (on the other view) books
    // nothing and says when to come back.
    let a = caller(1, 1);
    let first = ask(&*one, a, 1, bounds).await;
    assert_eq!(first.outcome, Outcome::Permit { id: 1 });
    let again = ask(&*two, a, 2, bounds).await;
    assert_eq!(
        again.outcome,
        Outcome::Later {
            at: first.now + SPACING,
            why: LaterWhy::JustServed
        }
    );
    // Ten simultaneous first asks of one caller, across both views: one slot, repeated.
    let b = caller(2, 1);
    let asks = (0..10u128).map(|n| {
        let store = if n % 2 == 0 { one.clone() } else { two.clone() };
        async move { ask(&*store, b, 100 + n, bounds).await }
    });
    let answers = futures_join_all(asks).await;
    let mut booked = 0;
    let mut ids = std::collections::BTreeSet::new();
    for asked in &answers {
        match asked.outcome {
            Outcome::Wait { id, at, booked: b } => {
                assert_eq!(at, first.now + SPACING, "{asked:?}");
                booked += usize::from(b);
                ids.insert(id);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((booked, ids.len()), (1, 1), "{answers:?}");
    // The schedule moved by that one slot: the next caller's slot is a spacing after it.
    let c = caller(3, 2);
    let third = ask(&*two, c, 200, bounds).await;
    assert!(
        matches!(third.outcome, Outcome::Wait { id: 200, at, booked: true } if at == first.now + 2 * SPACING),
        "{third:?}"
    );
    // Past the bound ahead, nothing is booked and the answer says when to come back.
    let tight = LedgerBounds {
        ahead_ms: 2 * SPACING + 30_000,
        per_agent: 32,
    };
    let late = ask(&*one, caller(4, 3), 300, tight).await;
    assert_eq!(
        late.outcome,
        Outcome::Later {
            at: first.now + 3 * SPACING - tight.ahead_ms,
            why: LaterWhy::Ahead
        }
    );
    let next = ask(&*two, caller(5, 3), 400, bounds).await;
    assert!(
        matches!(next.outcome, Outcome::Wait { at, .. } if at == first.now + 3 * SPACING),
        "the refused ask booked nothing: {next:?}"
    );
    // One agent's pending slots are bounded: agent 1 holds one (b's), so a bound of 1 is full
    // until it comes.
    let one_each = LedgerBounds {
        ahead_ms: 3_600_000,
        per_agent: 1,
    };
    let full = ask(&*one, caller(6, 1), 500, one_each).await;
    assert_eq!(
        full.outcome,
        Outcome::Later {
            at: first.now + SPACING,
            why: LaterWhy::AgentFull
        }
    );
}

/// `join_all` without a dependency: each future on its own task.
async fn futures_join_all<F>(futures: impl Iterator<Item = F>) -> Vec<Asked>
where
    F: std::future::Future<Output = Asked> + Send + 'static,
{
    let tasks: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.expect("task"));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_memory_store_keeps_the_ledger_rule() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    the_rule([store.clone(), store]).await;
}

#[cfg(feature = "redb")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_store_keeps_the_ledger_rule() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store: Arc<dyn Store> =
        Arc::new(EmbeddedStore::open(dir.path().join("state.redb")).expect("open"));
    the_rule([store.clone(), store]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_store_keeps_the_ledger_rule_across_connections() {
    let server = RedisServer::start();
    let connect = || async {
        Arc::new(
            RedisStore::connect(RedisOptions::new(server.url()))
                .await
                .expect("connect"),
        ) as Arc<dyn Store>
    };
    let (one, two) = (connect().await, connect().await);
    the_rule([one, two]).await;
    // Its keys carry the politeness key's hash tag, so that a cluster keeps them in one slot.
    let pending = format!("crawlgate:{{{}}}:ledger", key());
    assert_eq!(server.command(&[b"TYPE", pending.as_bytes()]), "hash");
    let ttl = server.command(&[b"PTTL", pending.as_bytes()]);
    assert!(
        ttl.parse::<i64>().expect("a TTL") > 0,
        "the pending slots expire: {ttl}"
    );
}
