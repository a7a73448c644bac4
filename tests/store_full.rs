//! The embedded store after a full disk: a write that cannot grow the file fails, the engine
//! keeps the change pending, and once there is room again the store re-opens the file by itself
//! and the pending change is written, in the same process.
//!
//! A full disk is a file-size limit here (`RLIMIT_FSIZE`, as `ulimit -f` sets it): a tiny tmpfs
//! needs root to mount. The limit belongs to a process, so the scenario runs in a child process
//! of this binary (`harness = false`; `CRAWLGATE_FULL_CHILD=<state path>` makes it the child),
//! which catches SIGXFSZ (so that a write past the limit fails with EFBIG instead of killing
//! it), lowers its own limit to the file's size, raises it again, and reports one JSON line.

mod support;

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use crawlgate::engine::{CacheOptions, ManualClock, RobotsCache};
use crawlgate::store::{EmbeddedStore, Store};
use crawlgate::{Origin, ProductToken};
use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
use serde_json::{json, Value};
use support::{Reply, TestServer};

const CHILD: &str = "CRAWLGATE_FULL_CHILD";
const RULES: &str = "User-agent: *\nDisallow: /private\n";

fn main() {
    support::process::main(
        CHILD,
        child,
        &[(
            "the_store_recovers_after_a_full_disk_in_the_same_process",
            parent,
        )],
    );
}

/// Sets the soft file-size limit (the hard one stays).
fn set_soft_fsize(soft: Option<u64>) {
    let hard = getrlimit(Resource::Fsize).maximum;
    setrlimit(
        Resource::Fsize,
        Rlimit {
            current: soft.or(hard),
            maximum: hard,
        },
    )
    .expect("set the file-size limit");
}

fn child() {
    let path = std::env::var(CHILD).expect("the state path");
    let rt = support::runtime(2);
    let report = rt.block_on(async move {
        use tokio::signal::unix::{signal, SignalKind};
        // Caught, SIGXFSZ no longer kills: the write fails with EFBIG.
        let _xfsz = signal(SignalKind::from_raw(rustix::process::Signal::XFSZ.as_raw()))
            .expect("handle SIGXFSZ");
        // A 470 KB file: writing it needs the state file to grow.
        let big: String = std::iter::once("User-agent: *\n".to_owned())
            .chain((0..8000).map(|i| format!("Disallow: /p/{i}/{}\n", "x".repeat(40))))
            .collect();
        let small = TestServer::start(|_| Reply::text(200, RULES)).await;
        let large = TestServer::start(move |_| Reply::text(200, &big)).await;
        let store = Arc::new(EmbeddedStore::open(&path).expect("open"));
        let clock = Arc::new(ManualClock::new(
            UNIX_EPOCH + Duration::from_secs(1_800_000_000),
        ));
        let mut options = CacheOptions::default();
        options.sync_interval = Duration::from_secs(1);
        let cache = RobotsCache::with_store(options, store.clone(), clock.clone()).expect("engine");
        let bot = ProductToken::new("testbot").expect("token");
        let first = cache
            .check(&bot, &small.url("/private"))
            .await
            .expect("check");
        let size = store.file_size().expect("size");

        // The disk is full: the file cannot grow past its size.
        set_soft_fsize(Some(size));
        let blocked = large.url(&format!("/p/1/{}", "x".repeat(40)));
        let during = cache.check(&bot, &blocked).await.expect("check");
        let full = cache.store_status();
        let flushed_full = cache.flush().await.err().map(|e| e.to_string());

        // Room again; past the sync interval the next check writes what is pending.
        set_soft_fsize(None);
        clock.advance(Duration::from_secs(2));
        cache.check(&bot, &blocked).await.expect("check");
        let flushed = cache.flush().await.map_err(|e| e.to_string());
        let after = cache.store_status();
        let origin = Origin::from_url(&large.url("/")).expect("origin");
        let stored = store.load(&origin).await.expect("load");
        json!({
            "first_allowed": first.allowed,
            "during_allowed": during.allowed,
            "full_available": full.available,
            "full_pending": full.pending,
            "full_error": full.last_error,
            "flushed_full": flushed_full,
            "flushed": flushed.is_ok(),
            "flush_error": flushed.err(),
            "after_available": after.available,
            "after_pending": after.pending,
            "stored_good": stored.is_some_and(|s| s.good_file().is_some()),
            "hits": large.hits(),
        })
    });
    println!("{report}");
}

fn parent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("state.redb");
    let out = Command::new(std::env::current_exe().expect("current exe"))
        .env(CHILD, &path)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("run the child");
    assert!(out.status.success(), "child: {:?}", out.status);
    let text = String::from_utf8_lossy(&out.stdout);
    let report: Value =
        serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    eprintln!("{report}");
    assert_eq!(report["first_allowed"], json!(false), "{report}");
    assert_eq!(
        report["during_allowed"],
        json!(false),
        "answered from memory: {report}"
    );
    assert_eq!(report["full_available"], json!(false), "{report}");
    assert!(report["full_pending"].as_u64() >= Some(1), "{report}");
    assert!(
        report["full_error"]
            .as_str()
            .is_some_and(|e| e.contains("the state file cannot grow")),
        "{report}"
    );
    assert!(
        report["flushed_full"].as_str().is_some(),
        "a flush that cannot write says so: {report}"
    );
    assert_eq!(report["flushed"], json!(true), "{report}");
    assert_eq!(report["after_available"], json!(true), "{report}");
    assert_eq!(report["after_pending"], json!(0), "{report}");
    assert_eq!(report["stored_good"], json!(true), "{report}");
    assert_eq!(
        report["hits"],
        json!(1),
        "one fetch: the pending change was written, not refetched"
    );
}
