//! The Redis store against a real `redis-server` started by each test (random port, temp dir):
//! the same semantics as the in-memory store, no lost update under concurrent writers, leases,
//! a server that dies and comes back, listings and corrupt states.
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::support::redis_server::RedisServer;
use crawlgate::policy::{Change, Digest, Fetch, FetchOutcome, FetchRecord, OriginState};
use crawlgate::store::{MemoryStore, Pruned, RedisOptions, RedisStore, Store, StoreError};
use crawlgate::{Origin, Robots};

pub(super) const DAY: Duration = Duration::from_secs(86_400);

pub(super) fn t0() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

pub(super) fn origin(url: &str) -> Origin {
    Origin::from_url(url).expect("origin")
}

/// A 200 with `body`, recorded against `state` at `at`.
pub(super) fn fetched(origin: &Origin, body: &[u8], state: &OriginState, at: SystemTime) -> Change {
    let fetch = Fetch::new(
        origin.robots_txt_url(),
        Some(200),
        FetchOutcome::Rules {
            body: body.into(),
            parsed: Arc::new(Robots::parse(body)),
        },
    );
    Change::Fetched(FetchRecord::new(&fetch, state, at, at, at))
}

async fn store(server: &RedisServer) -> RedisStore {
    RedisStore::connect(RedisOptions::new(server.url()))
        .await
        .expect("connect")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round_trip_bodies_and_prune_match_the_memory_store() {
    let server = RedisServer::start();
    let redis = store(&server).await;
    let memory = MemoryStore::new();
    let o = origin("https://example.com:8443/x");
    let first: &[u8] = b"User-agent: *\nDisallow: /private\n";
    let second: &[u8] = b"User-agent: *\nDisallow: /\n";
    let (d1, d2) = (Digest::of(first), Digest::of(second));

    let change = [fetched(&o, first, &OriginState::new(), t0())];
    let updated = redis.update(&o, &change).await.expect("update");
    let expected = memory.update(&o, &change).await.expect("memory update");
    assert_eq!(updated.state, expected.state);
    assert_eq!(updated.applied, expected.applied);
    assert_eq!(
        redis.load(&o).await.expect("load"),
        Some(updated.state.clone())
    );
    assert_eq!(
        redis.body(&o, &d1).await.expect("body").as_deref(),
        Some(first)
    );
    assert_eq!(redis.body(&o, &d2).await.expect("body"), None);
    let usage = redis.usage().await.expect("usage");
    assert_eq!(
        (usage.origins, usage.bodies, usage.body_bytes),
        (1, 1, first.len() as u64)
    );
    assert!(usage.state_bytes > 0);

    // The same body again: one more fetch in the same version, no second copy.
    let again = [fetched(
        &o,
        first,
        &updated.state,
        t0() + Duration::from_secs(60),
    )];
    let updated = redis.update(&o, &again).await.expect("update");
    memory.update(&o, &again).await.expect("memory update");
    assert_eq!(updated.state.history().len(), 1);
    assert_eq!(redis.usage().await.expect("usage").bodies, 1);

    // A new body a day later: both kept while the history refers to the first.
    let change = [fetched(&o, second, &updated.state, t0() + DAY)];
    let updated = redis.update(&o, &change).await.expect("update");
    let expected = memory.update(&o, &change).await.expect("memory update");
    assert_eq!(updated.state, expected.state);
    assert_eq!(updated.state.history().len(), 2);
    let usage = redis.usage().await.expect("usage");
    assert_eq!(
        (usage.bodies, usage.body_bytes),
        (2, (first.len() + second.len()) as u64)
    );

    // 31 days on, the first version and its body go.
    let later = t0() + 31 * DAY;
    let pruned = redis.prune(later).await.expect("prune");
    let expected = memory.prune(later).await.expect("memory prune");
    assert_eq!(
        pruned,
        Pruned {
            versions: 1,
            bodies: 1
        }
    );
    assert_eq!(pruned, expected);
    let state = redis.load(&o).await.expect("load").expect("a state");
    assert_eq!(
        Some(state.clone()),
        memory.load(&o).await.expect("memory load")
    );
    assert_eq!(state.history().len(), 1);
    assert_eq!(redis.body(&o, &d1).await.expect("body"), None);
    assert_eq!(
        redis.body(&o, &d2).await.expect("body").as_deref(),
        Some(second)
    );
    let usage = redis.usage().await.expect("usage");
    assert_eq!(
        (usage.origins, usage.bodies, usage.body_bytes),
        (1, 1, second.len() as u64)
    );

    // Nothing left to prune.
    assert_eq!(redis.prune(later).await.expect("prune"), Pruned::default());
}

/// Records `updates` fetches of `o` from `tasks` tasks on each of `stores` at once (each store
/// its own connection, as separate processes would have), and waits for them all.
pub(crate) async fn update_at_once(
    stores: Vec<RedisStore>,
    o: &Origin,
    tasks: usize,
    updates: usize,
) {
    let body: &'static [u8] = b"User-agent: *\nAllow: /\n";
    let mut handles = Vec::new();
    for store in stores {
        for _ in 0..tasks {
            let (store, o) = (store.clone(), o.clone());
            handles.push(tokio::spawn(async move {
                for _ in 0..updates {
                    let change = [fetched(&o, body, &OriginState::new(), t0())];
                    store.update(&o, &change).await.expect("update");
                }
            }));
        }
    }
    for handle in handles {
        handle.await.expect("task");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_updates_from_separate_connections_lose_nothing() {
    const STORES: usize = 4;
    const TASKS: usize = 8;
    const UPDATES: usize = 25;
    let server = RedisServer::start();
    let o = origin("https://contended.example");
    let mut stores = Vec::new();
    for _ in 0..STORES {
        stores.push(store(&server).await);
    }
    update_at_once(stores, &o, TASKS, UPDATES).await;
    let state = store(&server)
        .await
        .load(&o)
        .await
        .expect("load")
        .expect("a state");
    assert_eq!(state.history().len(), 1);
    let last = state.history().last().expect("a version");
    assert_eq!(last.count as usize, STORES * TASKS * UPDATES);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leases_are_exclusive_renewable_and_expire() {
    let server = RedisServer::start();
    let store = store(&server).await;
    let o = origin("https://leased.example");
    let ttl = Duration::from_secs(30);

    assert!(store.try_lease(&o, "a", ttl).await.expect("lease"));
    assert!(!store.try_lease(&o, "b", ttl).await.expect("lease"));
    // The holder takes it again (a renewal).
    assert!(store.try_lease(&o, "a", ttl).await.expect("lease"));
    // Someone else's release does nothing.
    store.release_lease(&o, "b").await.expect("release");
    assert!(!store.try_lease(&o, "b", ttl).await.expect("lease"));
    // The holder's release frees it.
    store.release_lease(&o, "a").await.expect("release");
    assert!(store.try_lease(&o, "b", ttl).await.expect("lease"));
    store.release_lease(&o, "b").await.expect("release");

    // A short lease runs out. Short, but not so short that a loaded machine lets it run out
    // before "b" asks (300 ms could).
    let short = origin("https://short.example");
    let short_ttl = Duration::from_secs(2);
    assert!(store
        .try_lease(&short, "a", short_ttl)
        .await
        .expect("lease"));
    assert!(!store.try_lease(&short, "b", ttl).await.expect("lease"));
    tokio::time::sleep(short_ttl + Duration::from_millis(400)).await;
    assert!(store.try_lease(&short, "b", ttl).await.expect("lease"));
    // Leases are per origin.
    assert!(store.try_lease(&o, "c", ttl).await.expect("lease"));
}

/// Runs `call` with a generous bound and expects a backend error.
async fn fails<T: std::fmt::Debug>(
    what: &str,
    call: impl std::future::Future<Output = Result<T, StoreError>>,
) {
    match tokio::time::timeout(Duration::from_secs(10), call).await {
        Ok(Err(StoreError::Backend(message))) => assert!(!message.is_empty(), "{what}"),
        Ok(other) => panic!("{what}: expected a backend error, got {other:?}"),
        Err(_) => panic!("{what}: still waiting after 10 s"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_server_gives_errors_and_a_restarted_one_is_used_again() {
    let mut server = RedisServer::start();
    let store = store(&server).await;
    let o = origin("https://down.example");
    let body: &[u8] = b"User-agent: *\nDisallow: /tmp\n";
    let digest = Digest::of(body);
    store
        .update(&o, &[fetched(&o, body, &OriginState::new(), t0())])
        .await
        .expect("update");

    server.kill();
    let change = [fetched(&o, body, &OriginState::new(), t0())];
    fails("load", store.load(&o)).await;
    fails("update", store.update(&o, &change)).await;
    fails("body", store.body(&o, &digest)).await;
    fails("origins", store.origins()).await;
    fails("try_lease", store.try_lease(&o, "a", DAY)).await;
    fails("release_lease", store.release_lease(&o, "a")).await;
    fails("prune", store.prune(t0())).await;
    fails("usage", store.usage()).await;
    // Still failing, not hanging, on a second round.
    fails("load again", store.load(&o)).await;

    // A store that cannot reach its server at all cannot be opened.
    let refused = tokio::time::timeout(
        Duration::from_secs(15),
        RedisStore::connect(RedisOptions::new(server.url())),
    )
    .await
    .expect("connect gives up");
    assert!(
        matches!(refused, Err(StoreError::Open { .. })),
        "{refused:?}"
    );

    server.restart();
    // The connection manager reconnects in the background; give it a few tries.
    let started = Instant::now();
    loop {
        match store.load(&o).await {
            // The server keeps nothing across restarts here (--save "").
            Ok(state) => {
                assert_eq!(state, None);
                break;
            }
            Err(e) => {
                assert!(
                    started.elapsed() < Duration::from_secs(15),
                    "not back after 15 s: {e}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
    let updated = store
        .update(&o, &change)
        .await
        .expect("update after restart");
    assert_eq!(store.load(&o).await.expect("load"), Some(updated.state));
    assert_eq!(
        store.body(&o, &digest).await.expect("body").as_deref(),
        Some(body)
    );
    assert!(store.try_lease(&o, "a", DAY).await.expect("lease"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_server_gives_errors_within_the_timeouts() {
    let server = RedisServer::start();
    let store = RedisStore::connect({
        let mut redis = RedisOptions::new(server.url());
        // 1 s: short, for a test of eight calls that each wait it out, but long enough for
        // the calls before the freeze on a loaded machine (300 ms may not be).
        redis.connect_timeout = Duration::from_secs(1);
        redis.response_timeout = Duration::from_secs(1);
        redis
    })
    .await
    .expect("connect");
    let o = origin("https://hung.example");
    let body: &[u8] = b"User-agent: *\nDisallow: /tmp\n";
    let change = [fetched(&o, body, &OriginState::new(), t0())];
    store.update(&o, &change).await.expect("update");

    // Connected, but nothing answers: the timeouts, not the kernel, end each call.
    server.freeze();
    fails("load", store.load(&o)).await;
    fails("update", store.update(&o, &change)).await;
    fails("body", store.body(&o, &Digest::of(body))).await;
    fails("origins", store.origins()).await;
    fails("try_lease", store.try_lease(&o, "a", DAY)).await;
    fails("release_lease", store.release_lease(&o, "a")).await;
    fails("prune", store.prune(t0())).await;
    fails("usage", store.usage()).await;

    server.thaw();
    let started = Instant::now();
    let state = loop {
        match store.load(&o).await {
            Ok(state) => break state,
            Err(e) => {
                assert!(
                    started.elapsed() < Duration::from_secs(15),
                    "not back after 15 s: {e}"
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    };
    // The update made while frozen failed at its read: nothing was written.
    let state = state.expect("a state");
    assert_eq!(state.history().last().expect("a version").count, 1);
    // Commands sent while frozen may still run after the thaw (the lease taken for "a", say):
    // check the leases on another origin.
    let after = origin("https://after.example");
    assert!(store.try_lease(&after, "b", DAY).await.expect("lease"));
    assert!(!store.try_lease(&after, "c", DAY).await.expect("lease"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn origins_sharing_and_corrupt_states() {
    let server = RedisServer::start();
    let store = store(&server).await;
    assert!(store.is_shared());
    assert_eq!(
        store.origins().await.expect("origins"),
        Vec::<Origin>::new()
    );

    let mut written = vec![
        origin("https://a.example"),
        origin("http://b.example:8080"),
        origin("http://[::1]:8443"),
        origin("https://xn--exmple-cua.com"),
    ];
    for o in &written {
        store
            .update(
                o,
                &[fetched(o, b"User-agent: *\n", &OriginState::new(), t0())],
            )
            .await
            .expect("update");
    }
    // Another prefix on the same server is another store.
    let other = RedisStore::connect({
        let mut redis = RedisOptions::new(server.url());
        redis.prefix = "other".into();
        redis
    })
    .await
    .expect("connect");
    let elsewhere = origin("https://elsewhere.example");
    other
        .update(
            &elsewhere,
            &[fetched(&elsewhere, b"", &OriginState::new(), t0())],
        )
        .await
        .expect("update");
    assert_eq!(other.origins().await.expect("origins"), vec![elsewhere]);
    // A key that does not name an origin is skipped.
    server.command(&[b"HSET", b"crawlgate:{not an origin}:state", b"rev", b"1"]);

    let mut listed = store.origins().await.expect("origins");
    listed.sort();
    written.sort();
    assert_eq!(listed, written);
    // Each origin keeps its own copy of the (same) body; the stray key is not an origin.
    let usage = store.usage().await.expect("usage");
    assert_eq!((usage.origins, usage.bodies), (4, 4));

    // Garbage in place of a state: reported as corrupt, never overwritten.
    let victim = origin("https://a.example");
    let key = format!("crawlgate:{{{victim}}}:state");
    assert_eq!(
        server.command(&[b"HSET", key.as_bytes(), b"state", b"garbage"]),
        "0"
    );
    match store.load(&victim).await {
        Err(StoreError::Corrupt { origin, message }) => {
            assert_eq!(origin, victim.to_string());
            assert!(!message.is_empty());
        }
        other => panic!("expected a corrupt state, got {other:?}"),
    }
    let change = [fetched(&victim, b"x", &OriginState::new(), t0())];
    assert!(matches!(
        store.update(&victim, &change).await,
        Err(StoreError::Corrupt { .. })
    ));
    assert_eq!(
        server.command(&[b"HGET", key.as_bytes(), b"state"]),
        "garbage"
    );

    // A prefix with a brace would break the cluster hash tag.
    let refused = RedisStore::connect({
        let mut redis = RedisOptions::new(server.url());
        redis.prefix = "a{b".into();
        redis
    })
    .await;
    assert!(
        matches!(refused, Err(StoreError::Open { .. })),
        "{refused:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_may_lose_states_is_reported_at_connect() {
    let server = RedisServer::start();
    // The test server keeps nothing on disk.
    let warning = store(&server)
        .await
        .durability_warning()
        .expect("a warning");
    assert!(warning.contains("keeps nothing on disk"), "{warning}");
    assert!(!warning.contains("maxmemory-policy"), "{warning}");

    // An AOF, but an eviction policy that drops any key.
    assert_eq!(
        server.command(&[b"CONFIG", b"SET", b"appendonly", b"yes"]),
        "OK"
    );
    assert_eq!(
        server.command(&[b"CONFIG", b"SET", b"maxmemory-policy", b"allkeys-lru"]),
        "OK"
    );
    let warning = store(&server)
        .await
        .durability_warning()
        .expect("a warning");
    assert!(warning.contains("allkeys-lru"), "{warning}");
    assert!(!warning.contains("nothing on disk"), "{warning}");

    // Persistent and never evicting: nothing to say.
    assert_eq!(
        server.command(&[b"CONFIG", b"SET", b"maxmemory-policy", b"noeviction"]),
        "OK"
    );
    assert_eq!(store(&server).await.durability_warning(), None);
}

/// TDMRep records on a real server: the contract every store keeps (a record apart from the
/// state, not listed, pruned), under `prefix:{origin}:tdm`; a record that is not one is
/// `Corrupt`, and a key that names no origin is skipped by the prune.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tdm_records_keep_the_stores_contract() {
    let server = RedisServer::start();
    let store = store(&server).await;
    server.command(&[b"SET", b"crawlgate:{not an origin}:tdm", b"junk"]);
    crate::store_tdm::tdm_records(&store).await;
    let key = b"crawlgate:{https://tdm-only.example}:tdm";
    assert_eq!(server.command(&[b"EXISTS", key]), "1");
    assert_eq!(
        server.command(&[b"EXISTS", b"crawlgate:{https://tdm-only.example}:state"]),
        "0"
    );

    server.command(&[b"SET", key, b"not a record"]);
    let err = store
        .load_tdm(&origin("https://tdm-only.example"))
        .await
        .expect_err("corrupt");
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
}
