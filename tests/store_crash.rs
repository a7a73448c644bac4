//! Crash safety of the embedded store: a writer process is SIGKILLed at random moments, 100
//! times over the same file, and after each kill the file must open (redb repairs it) and hold
//! the last committed state, its bodies included.
//!
//! One binary, two roles (`harness = false`): with `CRAWLGATE_CRASH_WRITER=<path>` it is the
//! writer, which commits update after update and prints `committed <n>` after each; otherwise
//! it is the test, which runs the writer as a child process and kills it. Set
//! `CRAWLGATE_CRASH_SEED` to replay the kill timings of a failed run.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crawlgate::policy::{Change, Digest, Fetch, FetchOutcome, FetchRecord, OriginState};
use crawlgate::store::{EmbeddedStore, Store};
use crawlgate::{Origin, Robots};

const WRITER: &str = "CRAWLGATE_CRASH_WRITER";
const ROUNDS: usize = 100;
const ORIGIN: &str = "https://crash.example";

fn main() {
    support::process::main(
        WRITER,
        || {
            let path = std::env::var_os(WRITER).expect("the writer's path");
            block_on(writer(Path::new(&path)));
        },
        &[(
            "a_killed_writer_leaves_the_last_commit",
            || block_on(test()),
        )],
    );
}

fn block_on(f: impl std::future::Future<Output = ()>) {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(f);
}

fn body_of(n: u64) -> Vec<u8> {
    format!("User-agent: *\nDisallow: /n/{n}\n").into_bytes()
}

/// The sequence number in a body `body_of` wrote.
fn number_in(body: &[u8]) -> Option<u64> {
    std::str::from_utf8(body)
        .ok()?
        .strip_prefix("User-agent: *\nDisallow: /n/")?
        .strip_suffix('\n')?
        .parse()
        .ok()
}

/// The newest version's body and its number, checked against its digest.
async fn newest(store: &EmbeddedStore, state: &OriginState) -> (Digest, u64) {
    let origin = Origin::from_url(ORIGIN).expect("origin");
    let digest = state
        .last_fetch()
        .and_then(|v| v.content.digest())
        .expect("the newest version is a file");
    let body = store
        .body(&origin, &digest)
        .await
        .expect("read the body")
        .expect("the newest version's body is stored");
    assert_eq!(
        Digest::of(&body),
        digest,
        "the body is the one its digest names"
    );
    let n = number_in(&body).expect("a body the writer wrote");
    (digest, n)
}

/// The child: commits forever, continuing the sequence from what the store holds.
async fn writer(path: &Path) {
    let store = match EmbeddedStore::open(path) {
        Ok(store) => store,
        Err(e) => {
            eprintln!("writer: {e}");
            std::process::exit(2);
        }
    };
    let origin = Origin::from_url(ORIGIN).expect("origin");
    let mut state = store.load(&origin).await.expect("load").unwrap_or_default();
    let mut n = if state.last_fetch().is_some() {
        newest(&store, &state).await.1 + 1
    } else {
        0
    };
    let mut stdout = std::io::stdout().lock();
    loop {
        let body: Arc<[u8]> = body_of(n).into();
        let fetch = Fetch::new(
            format!("{ORIGIN}/robots.txt"),
            Some(200),
            FetchOutcome::Rules {
                parsed: Arc::new(Robots::parse(&body)),
                body,
            },
        );
        let now = SystemTime::now();
        let change = Change::Fetched(FetchRecord::new(&fetch, &state, now, now, now));
        match store.update(&origin, &[change]).await {
            Ok(updated) => state = updated.state,
            Err(e) => {
                eprintln!("writer: update {n}: {e}");
                std::process::exit(3);
            }
        }
        // Only once `update` has returned: the number printed is on disk.
        if writeln!(stdout, "committed {n}")
            .and_then(|()| stdout.flush())
            .is_err()
        {
            std::process::exit(4);
        }
        n += 1;
    }
}

/// xorshift64*: enough to spread the kills, and replayable from the printed seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }
}

fn committed(line: &str) -> Option<u64> {
    line.trim_end().strip_prefix("committed ")?.parse().ok()
}

/// The parent: 100 kills, each followed by a reopen that must find the last commit.
async fn test() {
    let seed = match std::env::var("CRAWLGATE_CRASH_SEED") {
        Ok(s) => s.parse().expect("CRAWLGATE_CRASH_SEED is a number"),
        Err(_) => {
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
                | 1
        }
    };
    println!("crash safety: seed {seed} (CRAWLGATE_CRASH_SEED={seed} replays the kill timings)");
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("state.redb");
    let exe = std::env::current_exe().expect("current_exe");
    let origin = Origin::from_url(ORIGIN).expect("origin");
    let started = Instant::now();
    // The number the store held after the previous round.
    let mut stored: Option<u64> = None;
    let mut commits = 0u64;
    // Rounds where the store held one more than the writer printed.
    let mut unprinted = 0u64;

    for round in 1..=ROUNDS {
        let mut child = Command::new(&exe)
            .env(WRITER, &path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the writer");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut first = String::new();
        out.read_line(&mut first).expect("read the writer");
        let Some(first) = committed(&first) else {
            let _ = child.kill();
            let _ = child.wait();
            let mut err = String::new();
            let _ = child
                .stderr
                .take()
                .expect("stderr")
                .read_to_string(&mut err);
            panic!("round {round}: the writer committed nothing: {first:?} {err}");
        };
        assert_eq!(
            first,
            stored.map_or(0, |n| n + 1),
            "round {round}: the writer continues from what the store holds"
        );
        let wait = rng.between(5, 150);
        std::thread::sleep(Duration::from_millis(wait));
        // SIGKILL on Unix: no destructor, no flush, no clean close.
        child.kill().expect("kill the writer");
        let status = child.wait().expect("wait for the writer");
        assert!(!status.success(), "round {round}: the writer was killed");
        let mut rest = String::new();
        out.read_to_string(&mut rest).expect("read the writer");
        let mut last = first;
        for line in rest.lines() {
            let n = committed(line)
                .unwrap_or_else(|| panic!("round {round}: unexpected output {line:?}"));
            assert_eq!(n, last + 1, "round {round}: commits in sequence");
            last = n;
        }
        commits += last - first + 1;

        let store = EmbeddedStore::open(&path)
            .unwrap_or_else(|e| panic!("round {round} (killed after {wait} ms): reopen: {e}"));
        let state = store
            .load(&origin)
            .await
            .unwrap_or_else(|e| panic!("round {round}: load: {e}"))
            .unwrap_or_else(|| panic!("round {round}: no state"));
        let (_, n) = newest(&store, &state).await;
        assert!(
            n == last || n == last + 1,
            "round {round} (killed after {wait} ms): the store holds {n}, the writer last \
             printed `committed {last}`"
        );
        // Every body the state still refers to (older versions, the last good file) is there.
        let digests = state.digests();
        assert!(!digests.is_empty());
        for digest in &digests {
            let body = store
                .body(&origin, digest)
                .await
                .unwrap_or_else(|e| panic!("round {round}: body: {e}"))
                .unwrap_or_else(|| panic!("round {round}: body {digest} missing"));
            assert_eq!(Digest::of(&body), *digest, "round {round}: body {digest}");
        }
        if let Some(previous) = state.history().rev().nth(1) {
            let digest = previous.content.digest().expect("a file");
            let body = store
                .body(&origin, &digest)
                .await
                .expect("body")
                .expect("stored");
            assert_eq!(
                number_in(&body),
                Some(n - 1),
                "round {round}: the version before"
            );
        }
        let usage = store.usage().await.expect("usage");
        assert_eq!(
            (usage.origins, usage.bodies),
            (1, digests.len() as u64),
            "round {round}: no body left over"
        );
        if round % 10 == 0 {
            println!(
                "round {round}: killed after {wait} ms, holds {n} (printed {last}), \
                 {} versions, file {} KiB",
                state.history().len(),
                store.file_size().expect("size") / 1024
            );
        }
        unprinted += u64::from(n == last + 1);
        stored = Some(n);
        // Closed before the next writer opens the file.
        drop(store);
    }
    println!(
        "{commits} commits printed; {unprinted} kills landed between a commit and its \
         `committed` line; {:.1} s",
        started.elapsed().as_secs_f64()
    );
    println!("crash safety: {ROUNDS} kills, {ROUNDS} reopen with the last committed state");
}
