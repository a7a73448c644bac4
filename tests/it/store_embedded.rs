//! The `Store` contract, checked on the in-memory store and on the embedded (redb) store alike,
//! and what only the embedded store promises: the data outlives the process, one process at a
//! time, a clear error for a file that is not a store.
use crate::support::assert_has;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crawlgate::policy::{Change, Digest, Fetch, FetchOutcome, FetchRecord, OriginState};
use crawlgate::store::{EmbeddedStore, MemoryStore, Pruned, Store, StoreError};
use crawlgate::{Origin, Robots};

const DAY: Duration = Duration::from_secs(86_400);

fn t0() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

fn origin(url: &str) -> Origin {
    Origin::from_url(url).expect("a valid origin")
}

/// A 200 with `body`, completed at `t`, as a change to `state`.
fn fetched(state: &OriginState, body: &[u8], t: SystemTime) -> Change {
    let body: Arc<[u8]> = body.into();
    let fetch = Fetch::new(
        "https://a.example/robots.txt",
        Some(200),
        FetchOutcome::Rules {
            parsed: Arc::new(Robots::parse(&body)),
            body,
        },
    );
    Change::Fetched(FetchRecord::new(&fetch, state, t, t, t))
}

/// Applies a fetch of `body` at `t` on top of what the store holds.
async fn fetch_into(store: &dyn Store, o: &Origin, body: &[u8], t: SystemTime) -> OriginState {
    let before = store.load(o).await.expect("load").unwrap_or_default();
    store
        .update(o, &[fetched(&before, body, t)])
        .await
        .expect("update")
        .state
}

// --- The contract, for any store. -----------------------------------------------------------

async fn round_trip(store: &dyn Store) {
    let o = origin("https://a.example");
    assert_eq!(store.load(&o).await.expect("load"), None);
    let body = b"User-agent: *\nDisallow: /private\n";
    let updated = store
        .update(&o, &[fetched(&OriginState::new(), body, t0())])
        .await
        .expect("update");
    assert_eq!(updated.applied.len(), 1);
    let loaded = store.load(&o).await.expect("load").expect("a state");
    assert_eq!(loaded, updated.state);
    let digest = Digest::of(body);
    assert_eq!(loaded.digests(), vec![digest]);
    let stored = store
        .body(&o, &digest)
        .await
        .expect("body")
        .expect("stored");
    assert_eq!(&stored[..], body);
    assert_eq!(
        store.body(&o, &Digest::of(b"other")).await.expect("body"),
        None
    );
    assert_eq!(
        store
            .body(&origin("https://b.example"), &digest)
            .await
            .expect("body"),
        None,
        "bodies belong to their origin"
    );
    // The same file again is a repeat: still one body.
    fetch_into(store, &o, body, t0() + DAY).await;
    let usage = store.usage().await.expect("usage");
    assert_eq!(usage.origins, 1);
    assert_eq!(usage.bodies, 1);
    assert_eq!(usage.body_bytes, body.len() as u64);
}

async fn replaced_body_is_pruned(store: &dyn Store) {
    let o = origin("https://a.example");
    let (old, new): (&[u8], &[u8]) = (
        b"User-agent: *\nDisallow: /a\n",
        b"User-agent: *\nDisallow: /b\n",
    );
    fetch_into(store, &o, old, t0()).await;
    let state = fetch_into(store, &o, new, t0() + DAY).await;
    assert_eq!(state.history().len(), 2);
    assert_eq!(
        store.usage().await.expect("usage").bodies,
        2,
        "history keeps the old file"
    );
    // Not yet 30 days: nothing goes.
    let pruned = store.prune(t0() + 10 * DAY).await.expect("prune");
    assert_eq!(pruned, Pruned::default());
    let pruned = store.prune(t0() + DAY + 31 * DAY).await.expect("prune");
    assert_eq!(
        pruned,
        Pruned {
            versions: 1,
            bodies: 1
        }
    );
    let state = store.load(&o).await.expect("load").expect("a state");
    assert_eq!(state.history().len(), 1);
    assert_eq!(store.body(&o, &Digest::of(old)).await.expect("body"), None);
    assert_eq!(
        store
            .body(&o, &Digest::of(new))
            .await
            .expect("body")
            .as_deref(),
        Some(new)
    );
    let usage = store.usage().await.expect("usage");
    assert_eq!((usage.bodies, usage.body_bytes), (1, new.len() as u64));
    // Pruning again finds nothing.
    assert_eq!(
        store.prune(t0() + 40 * DAY).await.expect("prune"),
        Pruned::default()
    );
}

async fn identical_fetches_coalesce(store: &dyn Store) {
    let o = origin("https://a.example");
    let body = b"User-agent: *\nAllow: /\n";
    for i in 0..200 {
        fetch_into(store, &o, body, t0() + Duration::from_secs(60 * i)).await;
    }
    let state = store.load(&o).await.expect("load").expect("a state");
    assert_eq!(state.history().len(), 1);
    let version = state.last_fetch().expect("a version");
    assert_eq!(version.count, 200);
    assert_eq!(version.first_at, t0());
    assert_eq!(version.last_at, t0() + Duration::from_secs(60 * 199));
    assert_eq!(store.usage().await.expect("usage").bodies, 1);
}

async fn origins_lists_what_was_written(store: &dyn Store) {
    assert!(store.origins().await.expect("origins").is_empty());
    let mut written = vec![
        origin("https://a.example"),
        origin("http://b.example:8080"),
        origin("https://[::1]:8443"),
        origin("https://xn--exmple-cua.com"),
    ];
    for o in &written {
        fetch_into(store, o, b"User-agent: *\nDisallow:\n", t0()).await;
    }
    let mut listed = store.origins().await.expect("origins");
    listed.sort();
    written.sort();
    assert_eq!(listed, written);
    assert_eq!(store.usage().await.expect("usage").origins, 4);
}

async fn dormant_origins_leave_listings(store: &dyn Store) {
    let (gone, live) = (
        origin("https://gone.example"),
        origin("https://live.example"),
    );
    let not_found = |state: &OriginState, t| {
        let fetch = Fetch::new(
            "https://gone.example/robots.txt",
            Some(404),
            FetchOutcome::Unavailable(crawlgate::policy::Unavailable::Status(404)),
        );
        Change::Fetched(FetchRecord::new(&fetch, state, t, t, t))
    };
    fetch_into(store, &live, b"User-agent: *\nDisallow:\n", t0()).await;
    for day in 0..=30 {
        let before = store.load(&gone).await.expect("load").unwrap_or_default();
        store
            .update(&gone, &[not_found(&before, t0() + DAY * day)])
            .await
            .expect("update");
    }
    let day29 = t0() + DAY * 29;
    assert_eq!(
        store.listed(day29).await.expect("listed"),
        [gone.clone(), live.clone()]
    );
    // 404 for 30 days: out of the listing, still stored (and still checked by the engine).
    let day30 = t0() + DAY * 30;
    assert_eq!(store.listed(day30).await.expect("listed"), [live]);
    assert_eq!(store.origins().await.expect("origins").len(), 2);
    let state = store.load(&gone).await.expect("load").expect("kept");
    assert_eq!(state.history().map(|v| v.count).collect::<Vec<_>>(), [31]);
}

async fn leases(store: &dyn Store) {
    let o = origin("https://a.example");
    let other = origin("https://b.example");
    let long = Duration::from_secs(60);
    assert!(store.try_lease(&o, "A", long).await.expect("lease"));
    assert!(!store.try_lease(&o, "B", long).await.expect("lease"));
    assert!(
        store.try_lease(&other, "B", long).await.expect("lease"),
        "leases are per origin"
    );
    assert!(
        store.try_lease(&o, "A", long).await.expect("lease"),
        "the owner re-takes it"
    );
    store.release_lease(&o, "B").await.expect("release");
    assert!(
        !store.try_lease(&o, "B", long).await.expect("lease"),
        "a non-owner's release does nothing"
    );
    store.release_lease(&o, "A").await.expect("release");
    assert!(
        store.try_lease(&o, "B", long).await.expect("lease"),
        "released"
    );
    store.release_lease(&o, "B").await.expect("release");

    // Short, but not so short that a loaded machine lets it run out before B asks (300 ms
    // could).
    let short = Duration::from_secs(2);
    assert!(store.try_lease(&o, "A", short).await.expect("lease"));
    assert!(!store.try_lease(&o, "B", long).await.expect("lease"));
    tokio::time::sleep(short + Duration::from_millis(50)).await;
    assert!(
        store.try_lease(&o, "B", long).await.expect("lease"),
        "an expired lease is free"
    );
}

/// A fresh store of each kind, in a directory that lives as long as the returned guard.
fn both() -> (tempfile::TempDir, [Box<dyn Store>; 2]) {
    let dir = tempfile::tempdir().expect("tempdir");
    let embedded = EmbeddedStore::open(dir.path().join("state.redb")).expect("open");
    (dir, [Box::new(MemoryStore::new()), Box::new(embedded)])
}

macro_rules! contract {
    ($($check:ident),* $(,)?) => {$(
        #[tokio::test]
        async fn $check() {
            let (_dir, stores) = super::both();
            for store in &stores {
                eprintln!("{}: {store:?}", stringify!($check));
                super::$check(store.as_ref()).await;
            }
        }
    )*};
}

mod contract {
    contract!(
        round_trip,
        replaced_body_is_pruned,
        identical_fetches_coalesce,
        origins_lists_what_was_written,
        dormant_origins_leave_listings,
        leases,
    );
}

// --- The embedded store only. ---------------------------------------------------------------

/// `RobotsCache::durable`: the durable setup in one call. What one engine records, the next
/// one on the same file answers from, without fetching (the host does not exist); a path that
/// cannot be a store is an `OpenError::Store`.
#[tokio::test]
async fn durable_engine_in_one_call_keeps_its_state() {
    use crawlgate::engine::{CacheOptions, OpenError, RobotsCache};
    use crawlgate::ProductToken;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("state.redb");
    let o = origin("https://durable.invalid");
    let bot = ProductToken::new("mybot").expect("token");
    let url = "https://durable.invalid/private/x";
    let body: Arc<[u8]> = b"User-agent: *\nDisallow: /private\n"[..].into();
    let mut options = CacheOptions::default();
    options.fetch.user_agent = "MyBot/1.0".into();
    {
        let engine = RobotsCache::durable(&path, options.clone()).expect("durable engine");
        let fetch = Fetch::new(
            o.robots_txt_url(),
            Some(200),
            FetchOutcome::Rules {
                parsed: Arc::new(Robots::parse(&body)),
                body: body.clone(),
            },
        );
        engine.insert(&o, fetch).await;
        engine.flush().await.expect("flush");
    }
    let not_a_dir = dir.path().join("file");
    std::fs::write(&not_a_dir, b"x").expect("write");
    assert!(matches!(
        RobotsCache::durable(not_a_dir.join("state.redb"), options.clone()),
        Err(OpenError::Store(_))
    ));
    let engine = RobotsCache::durable(&path, options).expect("reopen");
    let answer = engine.check(&bot, url).await.expect("check");
    assert!(!answer.allowed);
    assert_eq!(
        answer.rule.map(|r| (r.line, r.text)),
        Some((2, "Disallow: /private".to_owned())),
        "answered from the stored file"
    );
}

#[tokio::test]
async fn data_survives_closing_and_reopening() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Parent directories are created.
    let path = dir.path().join("nested/deeper/state.redb");
    let o = origin("https://a.example");
    let body = b"User-agent: *\nDisallow: /kept\n";
    let state = {
        let store = EmbeddedStore::open(&path).expect("open");
        assert_eq!(store.path(), path);
        assert!(!store.is_shared());
        let state = fetch_into(&store, &o, body, t0()).await;
        let usage = store.usage().await.expect("usage");
        assert!(usage.state_bytes > 0);
        assert!(store.file_size().expect("size") > 0);
        state
    };
    let store = EmbeddedStore::open(&path).expect("reopen");
    assert_eq!(store.load(&o).await.expect("load"), Some(state));
    assert_eq!(
        store
            .body(&o, &Digest::of(body))
            .await
            .expect("body")
            .as_deref(),
        Some(&body[..])
    );
    assert_eq!(store.origins().await.expect("origins"), vec![o]);
}

#[test]
fn a_second_open_is_refused_while_the_first_lives() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("state.redb");
    let first = EmbeddedStore::open(&path).expect("open");
    let started = std::time::Instant::now();
    let second = EmbeddedStore::open_with(&path, Duration::from_millis(300));
    match second {
        Err(StoreError::Locked { location }) => assert_eq!(location, path.display().to_string()),
        other => panic!("expected Locked, got {other:?}"),
    }
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "it waited for the holder to finish"
    );
    let message = EmbeddedStore::open_with(&path, Duration::ZERO)
        .expect_err("still locked")
        .to_string();
    assert_has(&message, "in use by another process");
    // A clone keeps the file open; the last one closes it.
    let clone = first.clone();
    drop(first);
    assert!(matches!(
        EmbeddedStore::open_with(&path, Duration::ZERO),
        Err(StoreError::Locked { .. })
    ));
    drop(clone);
    EmbeddedStore::open_with(&path, Duration::ZERO).expect("free once closed");
}

#[test]
fn the_lock_is_waited_for() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("state.redb");
    let first = EmbeddedStore::open(&path).expect("open");
    let closer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        drop(first);
    });
    EmbeddedStore::open_with(&path, Duration::from_secs(5)).expect("opened once the first closed");
    closer.join().expect("closer");
}

#[test]
fn a_file_of_garbage_is_a_clear_open_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("state.redb");
    // Deterministic noise, more than a header's worth.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let garbage: Vec<u8> = (0..65_536)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(&path, &garbage).expect("write");
    match EmbeddedStore::open_with(&path, Duration::ZERO) {
        Err(e @ StoreError::Open { .. }) => {
            let message = e.to_string();
            assert!(message.contains(&path.display().to_string()), "{message}");
            assert_has(&message, "not a crawlgate state file");
        }
        other => panic!("expected Open, got {other:?}"),
    }
    // A text file too.
    std::fs::write(&path, b"User-agent: *\nDisallow: /\n").expect("write");
    assert!(matches!(
        EmbeddedStore::open_with(&path, Duration::ZERO),
        Err(StoreError::Open { .. })
    ));
    // The garbage is left alone, not overwritten.
    assert_eq!(
        std::fs::read(&path).expect("read"),
        b"User-agent: *\nDisallow: /\n"
    );
}

#[test]
fn a_path_that_cannot_be_created_is_an_open_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").expect("write");
    assert!(matches!(
        EmbeddedStore::open_with(file.join("state.redb"), Duration::ZERO),
        Err(StoreError::Open { .. })
    ));
}

#[test]
fn works_outside_an_async_runtime() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = EmbeddedStore::open(dir.path().join("state.redb")).expect("open");
    let o = origin("https://a.example");
    // A non-Tokio executor: the store runs the transaction inline instead of panicking.
    let state = futures_lite_block_on(fetch_into(&store, &o, b"User-agent: *\n", t0()));
    assert_eq!(state.history().len(), 1);
}

/// A minimal executor, enough for futures that never wait on anything.
fn futures_lite_block_on<F: std::future::Future>(future: F) -> F::Output {
    use std::task::{Context, Poll, Waker};
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::yield_now();
    }
}

#[test]
fn default_path_follows_xdg() {
    // The environment is answered for, not set: other tests of this binary start processes
    // that inherit it.
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        }
    };
    assert_eq!(
        EmbeddedStore::default_path_from(env(&[("XDG_STATE_HOME", "/srv/state")])),
        Some("/srv/state/crawlgate/state.redb".into())
    );
    // A relative value is ignored, as the XDG spec says.
    let relative = env(&[("XDG_STATE_HOME", "relative"), ("HOME", "/home/someone")]);
    let expected = if cfg!(target_os = "macos") {
        "/home/someone/Library/Application Support/crawlgate/state.redb"
    } else {
        "/home/someone/.local/state/crawlgate/state.redb"
    };
    if cfg!(unix) {
        assert_eq!(
            EmbeddedStore::default_path_from(relative),
            Some(expected.into())
        );
    }
    assert_eq!(EmbeddedStore::default_path_from(env(&[])), None);
    // default_path reads the process's environment.
    assert_eq!(
        EmbeddedStore::default_path(),
        EmbeddedStore::default_path_from(|name| std::env::var_os(name))
    );
}

#[test]
fn a_damaged_store_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("state.redb");
    drop(EmbeddedStore::open(&path).expect("create"));
    let mut bytes = std::fs::read(&path).expect("read");
    // Keep redb's magic number and scribble over the rest of the header and the pages.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for b in bytes.iter_mut().skip(9) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    std::fs::write(&path, &bytes).expect("write");
    let result = EmbeddedStore::open_with(&path, Duration::ZERO);
    assert!(matches!(result, Err(StoreError::Open { .. })), "{result:?}");
}

#[tokio::test]
async fn damaged_pages_are_an_error_not_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("state.redb");
    {
        let store = EmbeddedStore::open(&path).expect("create");
        for i in 0..50 {
            let body = format!("User-agent: *\nDisallow: /{i}\n");
            fetch_into(
                &store,
                &origin(&format!("https://a{i}.example")),
                body.as_bytes(),
                t0(),
            )
            .await;
        }
    }
    // A header redb wrote and closed cleanly, over pages damaged behind its back (a bad disk,
    // a stray write): a plain redb open would trust the header and panic on the pages.
    let clean = std::fs::read(&path).expect("read");
    for start in [4096, 16_384, 65_536] {
        let mut bytes = clean.clone();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for b in bytes.iter_mut().skip(start) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        std::fs::write(&path, &bytes).expect("write");
        match EmbeddedStore::open_with(&path, Duration::ZERO) {
            Err(StoreError::Open { message, .. }) => {
                assert!(message.contains("not a crawlgate state file"), "{message}")
            }
            other => panic!("damage from byte {start}: expected Open, got {other:?}"),
        }
    }
}
