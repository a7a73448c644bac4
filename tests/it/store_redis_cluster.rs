//! The Redis store on a real Redis Cluster (three `redis-server --cluster-enabled yes` masters
//! started by the test): the same answers as the in-memory store for origins spread over every
//! master, listings and measures that walk every master, no lost update under concurrent
//! writers, exclusive leases, and a multi-key update script that stays in one slot.
use std::time::Duration;

use crate::store_redis::{fetched, origin, t0, update_at_once, DAY};
use crate::support::redis_cluster::RedisCluster;
use crawlgate::policy::{Digest, OriginState};
use crawlgate::store::{MemoryStore, RedisOptions, RedisStore, Store};
use crawlgate::Origin;

async fn store(cluster: &RedisCluster) -> RedisStore {
    RedisStore::connect(RedisOptions::new(cluster.url()))
        .await
        .expect("connect to the cluster")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_store_answers_as_the_memory_store_across_every_master() {
    let cluster = RedisCluster::start();
    let redis = store(&cluster).await;
    let memory = MemoryStore::new();
    // Enough origins that every master holds some (16,384 slots in three ranges).
    let origins: Vec<Origin> = (0..24)
        .map(|i| origin(&format!("https://site-{i}.example")))
        .collect();
    let first: &[u8] = b"User-agent: *\nDisallow: /private\n";
    let second: &[u8] = b"User-agent: *\nDisallow: /\n";
    for o in &origins {
        let change = [fetched(o, first, &OriginState::new(), t0())];
        let updated = redis.update(o, &change).await.expect("update");
        let expected = memory.update(o, &change).await.expect("memory update");
        assert_eq!(updated.state, expected.state);
        assert_eq!(redis.load(o).await.expect("load"), Some(updated.state));
        assert_eq!(
            redis
                .body(o, &Digest::of(first))
                .await
                .expect("body")
                .as_deref(),
            Some(first)
        );
    }
    let counts = cluster.key_counts();
    assert!(
        counts.iter().all(|&n| n > 0),
        "every master holds keys: {counts:?}"
    );

    // A second version 31 days later: the update script writes the state and a body and
    // deletes nothing yet; all of one origin's keys are in one slot, so it runs.
    let later = t0() + 31 * DAY;
    for o in &origins {
        let before = redis.load(o).await.expect("load").expect("state");
        let change = [fetched(o, second, &before, later)];
        let updated = redis.update(o, &change).await.expect("second update");
        let expected = memory.update(o, &change).await.expect("memory update");
        assert_eq!(updated.state, expected.state);
    }

    // Listing and measuring walk every master.
    let mut listed = redis.origins().await.expect("origins");
    let mut expected = memory.origins().await.expect("memory origins");
    listed.sort();
    expected.sort();
    assert_eq!(listed, expected);
    assert_eq!(listed.len(), origins.len());
    let usage = redis.usage().await.expect("usage");
    let expected = memory.usage().await.expect("memory usage");
    assert_eq!(usage.origins, origins.len() as u64);
    assert!(usage.bodies >= origins.len() as u64, "{usage:?}");
    assert_eq!(
        (usage.origins, usage.bodies, usage.body_bytes),
        (expected.origins, expected.bodies, expected.body_bytes)
    );
    assert!(usage.state_bytes > 0);

    // Pruning on every master, as the memory store prunes.
    let pruned = redis.prune(later + DAY).await.expect("prune");
    let expected = memory.prune(later + DAY).await.expect("memory prune");
    assert_eq!(pruned, expected);
    for o in &origins {
        assert_eq!(
            redis.load(o).await.expect("load"),
            memory.load(o).await.expect("memory load")
        );
        for digest in [Digest::of(first), Digest::of(second)] {
            assert_eq!(
                redis.body(o, &digest).await.expect("body"),
                memory.body(o, &digest).await.expect("memory body")
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_store_loses_no_update_and_leases_are_exclusive() {
    const STORES: usize = 3;
    const TASKS: usize = 4;
    const UPDATES: usize = 10;
    let cluster = RedisCluster::start();
    let o = origin("https://contended.example");
    let mut stores = Vec::new();
    for _ in 0..STORES {
        stores.push(store(&cluster).await);
    }
    update_at_once(stores, &o, TASKS, UPDATES).await;
    let store = store(&cluster).await;
    let state = store.load(&o).await.expect("load").expect("a state");
    let last = state.history().last().expect("a version");
    assert_eq!(last.count as usize, STORES * TASKS * UPDATES);

    let ttl = Duration::from_secs(30);
    let other = RedisStore::connect(RedisOptions::new(cluster.url()))
        .await
        .expect("connect");
    assert!(store.try_lease(&o, "a", ttl).await.expect("lease"));
    assert!(!other.try_lease(&o, "b", ttl).await.expect("lease"));
    assert!(store.try_lease(&o, "a", ttl).await.expect("renewal"));
    other.release_lease(&o, "b").await.expect("release");
    assert!(!other.try_lease(&o, "b", ttl).await.expect("lease"));
    store.release_lease(&o, "a").await.expect("release");
    assert!(other.try_lease(&o, "b", ttl).await.expect("lease"));
}

/// The durability warning asks every master: one without persistence is named, the others
/// are not; with persistence on all of them there is nothing to say.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_master_without_persistence_is_named_at_connect() {
    let cluster = RedisCluster::start();
    let addresses = cluster.addresses();
    // The test's masters keep nothing on disk (`--save '' --appendonly no`): an AOF on all
    // but the first.
    for node in 1..addresses.len() {
        assert_eq!(
            cluster.command(node, &[b"CONFIG", b"SET", b"appendonly", b"yes"]),
            "OK"
        );
    }
    let warning = store(&cluster)
        .await
        .durability_warning()
        .expect("a warning");
    assert!(
        warning.contains(&format!("master {}:", addresses[0])),
        "{warning}"
    );
    assert!(warning.contains("keeps nothing on disk"), "{warning}");
    for other in &addresses[1..] {
        assert!(!warning.contains(other.as_str()), "{other}: {warning}");
    }

    assert_eq!(
        cluster.command(0, &[b"CONFIG", b"SET", b"appendonly", b"yes"]),
        "OK"
    );
    assert_eq!(store(&cluster).await.durability_warning(), None);
}

/// The slot ledger on a cluster: its keys (the schedule, the pending slots, a caller's last
/// permit) share the politeness key's hash tag, so its one script per ask runs on one node; the
/// rule is the same as on one server, through two connections.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_slot_ledger_keeps_its_rule_on_a_cluster() {
    let cluster = RedisCluster::start();
    let one: std::sync::Arc<dyn Store> = std::sync::Arc::new(store(&cluster).await);
    let two: std::sync::Arc<dyn Store> = std::sync::Arc::new(store(&cluster).await);
    crate::store_ledger::the_rule([one, two]).await;
}
