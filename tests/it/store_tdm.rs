//! TDMRep records in the stores (`load_tdm`, `save_tdm`): kept apart from the robots.txt states,
//! so an origin with only a record is not listed; pruned like the states (versions older than
//! 30 days go, the last good body stays). One contract, run on every store: memory and redb
//! here, Redis against a real server in `store_redis`.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crawlgate::policy::{Change, Fetch, FetchOutcome, FetchRecord, OriginState};
use crawlgate::store::{MemoryStore, Pruned, Store, TdmRecord};
use crawlgate::{Origin, Robots};

const DAY: Duration = Duration::from_secs(86_400);

fn t0() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

fn origin(url: &str) -> Origin {
    Origin::from_url(url).expect("origin")
}

/// A `tdmrep.json` fetched with `body` (the ladder is robots.txt's: a good file is a version).
fn fetch(o: &Origin, body: &[u8]) -> Fetch {
    Fetch::new(
        format!("{o}/.well-known/tdmrep.json"),
        Some(200),
        FetchOutcome::Rules {
            body: body.into(),
            parsed: Arc::new(Robots::parse(body)),
        },
    )
}

/// Two versions of an origin's file, a day apart: the record as the engine saves it.
fn record(o: &Origin) -> TdmRecord {
    let (first, second): (&[u8], &[u8]) = (
        br#"[{"location": "/", "tdm-reservation": 1}]"#,
        br#"[{"location": "/", "tdm-reservation": 0}]"#,
    );
    let mut state = OriginState::new();
    state.record(t0(), &fetch(o, first));
    state.record(t0() + DAY, &fetch(o, second));
    assert_eq!(state.history().len(), 2);
    TdmRecord::new(state, Some(second.to_vec()))
}

/// The contract every store keeps for TDMRep records.
pub(super) async fn tdm_records(store: &dyn Store) {
    let only = origin("https://tdm-only.example");
    let both = origin("https://both.example");
    assert_eq!(store.load_tdm(&only).await.expect("load_tdm"), None);

    let saved = record(&only);
    store.save_tdm(&only, &saved).await.expect("save_tdm");
    assert_eq!(
        store.load_tdm(&only).await.expect("load_tdm"),
        Some(saved.clone())
    );
    // A record is not a robots.txt state: the origin has none, and is not listed.
    assert_eq!(store.load(&only).await.expect("load"), None);
    assert_eq!(
        store.origins().await.expect("origins"),
        Vec::<Origin>::new()
    );
    assert_eq!(store.listed(t0() + DAY).await.expect("listed"), []);
    assert_eq!(store.usage().await.expect("usage").origins, 0);

    // An origin with a state and a record is listed once, by its state.
    let robots = Change::Fetched(FetchRecord::new(
        &fetch(&both, b"User-agent: *\nDisallow:\n"),
        &OriginState::new(),
        t0(),
        t0(),
        t0(),
    ));
    store.update(&both, &[robots]).await.expect("update");
    store
        .save_tdm(&both, &record(&both))
        .await
        .expect("save_tdm");
    assert_eq!(store.origins().await.expect("origins"), vec![both.clone()]);

    // Replaced whole.
    let replaced = TdmRecord::new(OriginState::new(), None);
    store.save_tdm(&both, &replaced).await.expect("save_tdm");
    assert_eq!(
        store.load_tdm(&both).await.expect("load_tdm"),
        Some(replaced)
    );

    // 31 days on: the record's first version goes (the robots.txt state's only version is the
    // newest, and stays); the last good body and the good file stay.
    let later = t0() + 31 * DAY;
    assert_eq!(
        store.prune(later).await.expect("prune"),
        Pruned {
            versions: 1,
            bodies: 0
        }
    );
    let pruned = store
        .load_tdm(&only)
        .await
        .expect("load_tdm")
        .expect("kept");
    assert_eq!(pruned.state.history().len(), 1);
    assert_eq!(pruned.body, saved.body);
    assert!(pruned.state.good_file().is_some());
    let mut expected = saved.state.clone();
    expected.prune(later);
    assert_eq!(pruned.state, expected);
    assert_eq!(store.prune(later).await.expect("prune"), Pruned::default());
}

#[tokio::test]
async fn memory_store() {
    tdm_records(&MemoryStore::new()).await;
}

#[cfg(feature = "redb")]
#[tokio::test]
async fn embedded_store_and_reopened() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("state.redb");
    {
        let store = crawlgate::store::EmbeddedStore::open(&path).expect("open");
        tdm_records(&store).await;
    }
    // The pruned record is on disk.
    let store = crawlgate::store::EmbeddedStore::open(&path).expect("reopen");
    let record = store
        .load_tdm(&origin("https://tdm-only.example"))
        .await
        .expect("load_tdm")
        .expect("kept");
    assert_eq!(record.state.history().len(), 1);
}
