//! The embedded store (feature `redb`): crawl state in one file on disk, for the CLI and for a
//! single crawler.
//!
//! # Why redb
//!
//! [redb] is a pure-Rust embedded key-value store: no C toolchain to build it (unlike SQLite or
//! RocksDB), ACID transactions, and crash safety by design. It writes copy-on-write B-trees
//! whose pages carry checksums, and a commit flips between two commit slots in the header, so
//! a process killed at any instant leaves the file at its last commit; the next open notices
//! the unclean shutdown and repairs the allocator state before handing the file out. We also
//! ask it to verify every page's checksum on each open: redb trusts a cleanly closed file, and
//! one damaged since (a bad disk, a stray write) could make it panic instead of failing.
//!
//! # Tables
//!
//! | table | key | value |
//! |---|---|---|
//! | `states` | the origin, as `scheme://host[:port]` | the state, as [`codec::encode`] writes it (JSON in a versioned envelope) |
//! | `bodies` | (the origin, the body's 32-byte SHA-256) | the robots.txt body as read |
//!
//! Bodies are keyed by origin as well as digest, as in every store: an origin's bodies go
//! with its state, and two origins serving the same file cost a copy each rather than a
//! reference count to keep right.
//!
//! # Durability
//!
//! Each [`Store::update`] is one write transaction — read the state, apply the changes, write
//! the state, add the new bodies, drop the unreferenced ones — committed with
//! [`Durability::Immediate`]: when `update` returns, the change is on disk (fsync'd), and a
//! crash before that leaves the previous state and its bodies untouched, never a state whose
//! bodies are missing. redb is synchronous, so every transaction runs on Tokio's blocking pool
//! ([`tokio::task::spawn_blocking`]): an fsync never stalls the async threads.
//!
//! # One process at a time
//!
//! redb locks the file: while one process has it open, another's open fails. [`EmbeddedStore::open`]
//! retries for up to 5 seconds, since the other process is most often a short CLI run that is
//! about to finish, then gives up with [`StoreError::Locked`], whose message tells the user to
//! point `--state` elsewhere or run with `--no-state`. Fetch leases therefore only have to
//! coordinate the tasks of this process, and are kept in memory.
//!
//! [redb]: https://www.redb.org
//! [`codec::encode`]: super::codec::encode

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use redb::{
    Database, DatabaseError, Durability, ReadableDatabase, ReadableTable, ReadableTableMetadata,
    TableDefinition, TableError, WriteTransaction,
};

use super::codec;
use super::{
    LocalLeases, LocalSchedules, Plan, Pruned, Reservation, Store, StoreError, StoreFuture,
    StoreUsage, TdmRecord, Updated,
};
use crate::policy::{Ask, Asked, BackoffRules, GateState, LedgerBounds, PoliteKey};
use crate::policy::{Change, Digest, OriginState};
use crate::Origin;

/// Origin → encoded state.
const STATES: TableDefinition<&str, &[u8]> = TableDefinition::new("states");
/// (origin, SHA-256 of the body) → body.
const BODIES: TableDefinition<(&str, &[u8; 32]), &[u8]> = TableDefinition::new("bodies");
/// politeness key (as [`PoliteKey`] writes it: the origin for the default key) → its request
/// schedule (`next_free`, `backoff_until`, both u64 ms, `strikes`, u32, and `last_failure`,
/// u64 ms, little-endian; a record of an earlier version has no `last_failure`): written on a
/// backoff, and for every key when the store is closed, so that the next process continues
/// the spacing.
const GATES: TableDefinition<&str, &[u8]> = TableDefinition::new("gates");
/// origin → its TDMRep record ([`codec::encode_tdm`]): created on the first record.
const TDM: TableDefinition<&str, &[u8]> = TableDefinition::new("tdmrep");

/// How long [`EmbeddedStore::open`] waits for another process to close the file.
const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(5);

/// Between two attempts to open a file another process holds.
const LOCK_RETRY: Duration = Duration::from_millis(100);

/// redb's page cache. Its default (1 GiB) suits a database server; the states of even a large
/// crawl fit in far less, and the CLI should not grow to that size.
const CACHE_BYTES: usize = 64 << 20;

/// States pruned per write transaction: big enough that pruning a large store costs few fsyncs,
/// small enough that an update waiting for the writer is not held up for long.
const PRUNE_BATCH: usize = 512;

/// The crawl state in one [redb] file: for the CLI and a single crawler.
///
/// - Two tables: `states` (origin → the state as [`codec::encode`] writes it) and `bodies`
///   ((origin, SHA-256) → robots.txt body).
/// - Each [`Store::update`] is one write transaction, fsync'd before it returns: atomic, and a
///   process killed at any moment leaves the file at its last commit, which the next open
///   repairs and finds. Transactions run on Tokio's blocking pool, off the async threads.
/// - One process at a time: redb locks the file. [`EmbeddedStore::open`] waits up to 5 s for
///   another (say, a CLI run about to finish) and then reports [`StoreError::Locked`]. Fetch
///   leases are therefore in-process, and [`Store::is_shared`] is `false`.
/// - Opening checks every page's checksum, so that a file damaged outside redb is refused
///   with [`StoreError::Open`] rather than trusted; this reads the whole file (some 5 ms per
///   1,000 origins when cached).
///
/// Cheap to clone: clones share the open file (and the in-process leases). The file is closed
/// when the last clone is dropped.
///
/// [redb]: https://www.redb.org
#[derive(Clone)]
pub struct EmbeddedStore {
    inner: Arc<Inner>,
}

struct Inner {
    /// The open file; `None` after a failed re-open (see [`Inner::database`]).
    db: std::sync::Mutex<Option<Arc<Database>>>,
    /// Set by an I/O failure: the next operation re-opens the file (with backoff).
    recovery: std::sync::Mutex<Recovery>,
    path: PathBuf,
    leases: LocalLeases,
    /// Request schedules: in memory (one process at a time), on disk on a backoff and when
    /// the store is closed.
    schedules: LocalSchedules,
}

impl Drop for Inner {
    /// Writes the request schedules, so that the next process on the file continues the
    /// spacing (one transaction; a failure loses only the spacing, which is logged).
    fn drop(&mut self) {
        let all = self.schedules.all();
        if all.is_empty() {
            return;
        }
        let db = match self.database() {
            Ok(db) => db,
            Err(e) => {
                tracing::warn!(target: "crawlgate::store", error = %e, "request schedules not saved");
                return;
            }
        };
        let write = || -> Result<(), StoreError> {
            let txn = db.begin_write().map_err(backend)?;
            {
                let mut gates = txn.open_table(GATES).map_err(backend)?;
                for (key, state) in &all {
                    gates
                        .insert(key.to_string().as_str(), &gate_encode(state)[..])
                        .map_err(backend)?;
                }
            }
            txn.commit().map_err(backend)
        };
        if let Err(e) = write() {
            tracing::warn!(target: "crawlgate::store", error = %e, "request schedules not saved");
        }
    }
}

impl fmt::Debug for EmbeddedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EmbeddedStore")
            .field("path", &self.inner.path)
            .finish_non_exhaustive()
    }
}

impl EmbeddedStore {
    /// Opens the store at `path`, creating the file and its parent directories if needed. If
    /// another process has the file open, retries for up to 5 seconds, then fails with
    /// [`StoreError::Locked`]; any other failure (a file that is not a store, or is damaged,
    /// a directory that cannot be created) is [`StoreError::Open`]. A file left by a killed
    /// process is repaired and holds its last committed state.
    ///
    /// Blocking (it reads and checks the whole file): from async code, call it on
    /// [`tokio::task::spawn_blocking`] or before starting the work.
    pub fn open(path: impl AsRef<Path>) -> Result<EmbeddedStore, StoreError> {
        EmbeddedStore::open_with(path, DEFAULT_LOCK_WAIT)
    }

    /// [`EmbeddedStore::open`], waiting at most `lock_wait` for another process to close the
    /// file (`Duration::ZERO`: fail at once).
    pub fn open_with(
        path: impl AsRef<Path>,
        lock_wait: Duration,
    ) -> Result<EmbeddedStore, StoreError> {
        let path = path.as_ref().to_path_buf();
        let location = path.display().to_string();
        let open_error = |message: String| StoreError::Open {
            location: location.clone(),
            message,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| open_error(format!("cannot create {}: {e}", parent.display())))?;
        }
        if std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == 0) {
            return Err(open_error(
                "the state file is empty (0 bytes): a run was killed, or the disk was full, before its first write, so it holds no state; remove it to start a new one".to_owned(),
            ));
        }
        let existed = path.exists();
        let db = open_db(&path, lock_wait).inspect_err(|_| {
            // Do not leave a file that the failed open created (the disk was full, the file
            // size limit is 0): it would later open as an empty store.
            if !existed && std::fs::metadata(&path).is_ok_and(|m| m.len() == 0) {
                let _ = std::fs::remove_file(&path);
            }
        })?;
        let schedules = LocalSchedules::default();
        load_gates(&db, &schedules).map_err(|e| open_error(e.to_string()))?;
        Ok(EmbeddedStore {
            inner: Arc::new(Inner {
                db: std::sync::Mutex::new(Some(Arc::new(db))),
                recovery: std::sync::Mutex::new(Recovery::default()),
                path,
                leases: LocalLeases::default(),
                schedules,
            }),
        })
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The size of the file on disk, in bytes.
    pub fn file_size(&self) -> std::io::Result<u64> {
        std::fs::metadata(&self.inner.path).map(|m| m.len())
    }

    /// Where the CLI keeps its state unless told otherwise: `$XDG_STATE_HOME/crawlgate/state.redb`,
    /// else `~/.local/state/crawlgate/state.redb` (`~/Library/Application Support/crawlgate/`
    /// on macOS, `%LOCALAPPDATA%\crawlgate\` on Windows). `None` if no home directory is known.
    pub fn default_path() -> Option<PathBuf> {
        EmbeddedStore::default_path_from(|var| std::env::var_os(var))
    }

    /// [`EmbeddedStore::default_path`] with the environment read through `env` (a test or an
    /// embedder can answer for it without changing the process's environment).
    pub fn default_path_from(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
        // The XDG spec says to ignore a relative (or empty) value.
        let absolute = |var: &str| env(var).map(PathBuf::from).filter(|p| p.is_absolute());
        let dir = match absolute("XDG_STATE_HOME") {
            Some(state) => state,
            None if cfg!(windows) => absolute("LOCALAPPDATA")?,
            None if cfg!(target_os = "macos") => absolute("HOME")?
                .join("Library")
                .join("Application Support"),
            None => absolute("HOME")?.join(".local").join("state"),
        };
        Some(dir.join("crawlgate").join("state.redb"))
    }

    /// Runs `job` on Tokio's blocking pool (inline when polled outside a Tokio runtime, rather
    /// than panic), so that redb's synchronous I/O never blocks an async thread.
    fn blocking<T, F>(&self, job: F) -> StoreFuture<'static, T>
    where
        T: Send + 'static,
        F: FnOnce(&Database) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        Box::pin(async move {
            let run = move || {
                let db = inner.database()?;
                let result = job(&db);
                drop(db);
                if let Err(StoreError::Backend(e)) = &result {
                    inner.failed(e);
                }
                result
            };
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => runtime
                    .spawn_blocking(run)
                    .await
                    .map_err(|e| StoreError::Backend(format!("state store task failed: {e}")))?,
                Err(_) => run(),
            }
        })
    }
}

/// After an I/O failure, redb refuses every later write ("a previous I/O error occurred")
/// until the file is opened again: the store re-opens it, no more than once per backoff.
#[derive(Debug, Default)]
struct Recovery {
    /// An I/O failure was seen since the file was last opened.
    failed: bool,
    /// No re-open before this.
    next_try: Option<Instant>,
    /// The wait after the next failed re-open.
    backoff: Duration,
}

/// The first wait between re-opens of a failed file; it doubles each time…
const REOPEN_FIRST: Duration = Duration::from_millis(100);
/// …up to this.
const REOPEN_MAX: Duration = Duration::from_secs(5);

impl Inner {
    /// The open file: after an I/O failure, the file opened again (at most once per backoff,
    /// once no operation uses the old handle), so that a disk that had no room, or a file that
    /// hit a size limit, works again once the cause is gone.
    fn database(&self) -> Result<Arc<Database>, StoreError> {
        let mut recovery = self.recovery.lock().unwrap_or_else(|e| e.into_inner());
        let mut slot = self.db.lock().unwrap_or_else(|e| e.into_inner());
        if !recovery.failed {
            if let Some(db) = slot.as_ref() {
                return Ok(Arc::clone(db));
            }
        }
        let now = Instant::now();
        if recovery.next_try.is_some_and(|at| now < at) {
            return match slot.as_ref() {
                Some(db) => Ok(Arc::clone(db)),
                None => Err(StoreError::Backend(format!(
                    "the state file {} is being re-opened after a failure",
                    self.path.display()
                ))),
            };
        }
        // redb locks the file: the old handle must be gone before it opens again.
        if let Some(db) = slot.take() {
            match Arc::try_unwrap(db) {
                Ok(db) => drop(db),
                Err(shared) => {
                    // Still in use by another operation: try again after it.
                    *slot = Some(shared.clone());
                    return Ok(shared);
                }
            }
        }
        match open_db(&self.path, Duration::ZERO) {
            Ok(db) => {
                let db = Arc::new(db);
                *slot = Some(Arc::clone(&db));
                *recovery = Recovery::default();
                tracing::info!(target: "crawlgate::store", path = %self.path.display(), "state file re-opened after a failure");
                Ok(db)
            }
            Err(e) => {
                recovery.backoff = (recovery.backoff * 2).clamp(REOPEN_FIRST, REOPEN_MAX);
                recovery.next_try = Some(now + recovery.backoff);
                Err(e)
            }
        }
    }

    /// Notes an I/O failure: the next operation re-opens the file.
    fn failed(&self, error: &str) {
        let mut recovery = self.recovery.lock().unwrap_or_else(|e| e.into_inner());
        if !recovery.failed {
            tracing::warn!(target: "crawlgate::store", path = %self.path.display(), error, "state file failed: it is re-opened before the next write");
            recovery.failed = true;
            recovery.next_try = None;
            recovery.backoff = Duration::ZERO;
        }
    }
}

/// Opens (or creates) the redb file at `path`, waiting at most `lock_wait` for another process
/// to close it, and makes sure it has the tables.
fn open_db(path: &Path, lock_wait: Duration) -> Result<Database, StoreError> {
    let location = path.display().to_string();
    let open_error = |message: String| StoreError::Open {
        location: location.clone(),
        message,
    };
    let mut builder = Database::builder();
    builder.set_cache_size(CACHE_BYTES);
    // A file damaged outside redb (a bad disk, a stray write) would make a plain open trust
    // it and possibly panic; checking every page checksum turns that into an error, for about
    // 5 ms per 1,000 origins.
    builder.set_check_integrity_on_open(true);
    let started = Instant::now();
    let db = loop {
        match builder.create(path) {
            Ok(db) => break db,
            // Another process has it; `LockProtocolMismatch` too, but that one runs a redb
            // with another locking generation (an older or newer crawlgate).
            Err(DatabaseError::DatabaseAlreadyOpen | DatabaseError::LockProtocolMismatch) => {
                let waited = started.elapsed();
                if waited >= lock_wait {
                    return Err(StoreError::Locked { location });
                }
                std::thread::sleep(LOCK_RETRY.min(lock_wait - waited));
            }
            Err(DatabaseError::Storage(redb::StorageError::Io(e)))
                if e.kind() != std::io::ErrorKind::InvalidData =>
            {
                return Err(open_error(if cannot_grow(&e) {
                    format!("the state file cannot grow: {e}")
                } else {
                    e.to_string()
                }));
            }
            // Not a redb file (redb says so as `InvalidData`), a damaged one, or one of a
            // format this redb does not read.
            Err(e) => return Err(open_error(format!("not a crawlgate state file ({e})"))),
        }
    };
    ensure_tables(&db).map_err(open_error)?;
    Ok(db)
}

/// Creates the tables if the file lacks them, so that reads never meet a missing one, and
/// refuses a redb file of some other program (same names, other types). The message says why.
fn ensure_tables(db: &Database) -> Result<(), String> {
    // Why a table cannot be used: the disk's own words, or "not ours".
    let problem = |e: TableError| match e {
        TableError::Storage(e) => e.to_string(),
        e => format!("not a crawlgate state file ({e})"),
    };
    // Usually there already: a read transaction checks without a commit (and its fsync).
    let read = db.begin_read().map_err(|e| e.to_string())?;
    let missing = match (read.open_table(STATES), read.open_table(BODIES)) {
        (Ok(_), Ok(_)) => false,
        (Err(e), _) | (_, Err(e)) if !matches!(e, TableError::TableDoesNotExist(_)) => {
            return Err(problem(e))
        }
        _ => true,
    };
    drop(read);
    if missing {
        let txn = db.begin_write().map_err(|e| e.to_string())?;
        txn.open_table(STATES).map_err(problem)?;
        txn.open_table(BODIES).map_err(problem)?;
        txn.commit().map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The disk is full, or the file reached the process's file-size limit.
fn cannot_grow(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull
            | std::io::ErrorKind::FileTooLarge
            | std::io::ErrorKind::QuotaExceeded
    )
}

/// Any redb error: the disk or the file failed under us. A disk that is full, or a file that
/// reached the process's file-size limit (`ulimit -f`), says so first.
fn backend(e: impl Into<redb::Error>) -> StoreError {
    let e: redb::Error = e.into();
    if matches!(&e, redb::Error::Io(io) if cannot_grow(io)) {
        StoreError::Backend(format!("the state file cannot grow: {e}"))
    } else {
        StoreError::Backend(e.to_string())
    }
}

fn decode(origin: &str, bytes: &[u8]) -> Result<OriginState, StoreError> {
    codec::decode(bytes).map_err(|message| StoreError::Corrupt {
        origin: origin.to_owned(),
        message,
    })
}

/// A read-only table, or `None` if the file has none yet (the tables are created on open, so
/// only a file changed behind our back lacks them).
macro_rules! read_table {
    ($txn:expr, $def:expr) => {
        match $txn.open_table($def) {
            Ok(table) => Some(table),
            Err(TableError::TableDoesNotExist(_)) => None,
            Err(e) => return Err(backend(e)),
        }
    };
}

/// Puts the backoffs on disk into `schedules` (a restarted crawler honours them).
fn load_gates(db: &Database, schedules: &LocalSchedules) -> Result<(), StoreError> {
    let txn = db.begin_read().map_err(backend)?;
    let Some(gates) = read_table!(txn, GATES) else {
        return Ok(());
    };
    for entry in gates.iter().map_err(backend)? {
        let (key, value) = entry.map_err(backend)?;
        // A schedule that does not decode is dropped: it only delays requests.
        if let (Some(key), Some(state)) =
            (PoliteKey::parse(key.value()), gate_decode(value.value()))
        {
            schedules.seed(key, state);
        }
    }
    Ok(())
}

fn gate_encode(g: &GateState) -> [u8; 28] {
    let mut out = [0u8; 28];
    out[..8].copy_from_slice(&g.next_free.to_le_bytes());
    out[8..16].copy_from_slice(&g.backoff_until.to_le_bytes());
    out[16..20].copy_from_slice(&g.strikes.to_le_bytes());
    out[20..].copy_from_slice(&g.last_failure.to_le_bytes());
    out
}

fn gate_decode(bytes: &[u8]) -> Option<GateState> {
    if bytes.len() != 20 && bytes.len() != 28 {
        return None;
    }
    let next_free = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
    let backoff_until = u64::from_le_bytes(bytes.get(8..16)?.try_into().ok()?);
    let strikes = u32::from_le_bytes(bytes.get(16..20)?.try_into().ok()?);
    let last_failure = match bytes.get(20..28) {
        Some(b) => u64::from_le_bytes(b.try_into().ok()?),
        None => 0,
    };
    Some(GateState {
        next_free,
        backoff_until,
        strikes,
        last_failure,
    })
}

/// Drops the versions older than 30 days at `now` from every TDMRep record's history (its last
/// good body is kept apart and stays); returns how many, in batches as the states are.
fn prune_tdm(db: &Database, now: SystemTime) -> Result<u64, StoreError> {
    let keys: Vec<String> = {
        let txn = db.begin_read().map_err(backend)?;
        let Some(table) = read_table!(txn, TDM) else {
            return Ok(0);
        };
        let mut keys = Vec::new();
        for entry in table.iter().map_err(backend)? {
            keys.push(entry.map_err(backend)?.0.value().to_owned());
        }
        keys
    };
    let mut pruned = 0;
    for batch in keys.chunks(PRUNE_BATCH) {
        let txn = db.begin_write().map_err(backend)?;
        {
            let mut table = txn.open_table(TDM).map_err(backend)?;
            for key in batch {
                let mut record = match table.get(key.as_str()).map_err(backend)? {
                    Some(bytes) => {
                        codec::decode_tdm(bytes.value()).map_err(|message| StoreError::Corrupt {
                            origin: key.clone(),
                            message,
                        })?
                    }
                    None => continue,
                };
                let n = record.state.prune(now);
                if n > 0 {
                    pruned += n as u64;
                    table
                        .insert(key.as_str(), codec::encode_tdm(&record).as_slice())
                        .map_err(backend)?;
                }
            }
        }
        txn.commit().map_err(backend)?;
    }
    Ok(pruned)
}

/// Applies `changes` to `key`'s state inside `txn` and writes the new state.
fn apply_in(txn: &WriteTransaction, key: &str, changes: &[Change]) -> Result<Plan, StoreError> {
    let mut states = txn.open_table(STATES).map_err(backend)?;
    let before = match states.get(key).map_err(backend)? {
        Some(bytes) => Some(decode(key, bytes.value())?),
        None => None,
    };
    let plan = Plan::new(before.as_ref(), changes);
    if before.as_ref() != Some(&plan.state) {
        states
            .insert(key, codec::encode(&plan.state).as_slice())
            .map_err(backend)?;
    }
    Ok(plan)
}

impl Store for EmbeddedStore {
    fn load_tdm<'a>(&'a self, origin: &'a Origin) -> StoreFuture<'a, Option<TdmRecord>> {
        let key = origin.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(backend)?;
            let Some(table) = read_table!(txn, TDM) else {
                return Ok(None);
            };
            match table.get(key.as_str()).map_err(backend)? {
                Some(bytes) => codec::decode_tdm(bytes.value())
                    .map(Some)
                    .map_err(|message| StoreError::Corrupt {
                        origin: key.clone(),
                        message,
                    }),
                None => Ok(None),
            }
        })
    }

    fn save_tdm<'a>(&'a self, origin: &'a Origin, record: &'a TdmRecord) -> StoreFuture<'a, ()> {
        let key = origin.to_string();
        let bytes = codec::encode_tdm(record);
        self.blocking(move |db| {
            let mut txn = db.begin_write().map_err(backend)?;
            txn.set_durability(Durability::Immediate).map_err(backend)?;
            {
                let mut table = txn.open_table(TDM).map_err(backend)?;
                table
                    .insert(key.as_str(), bytes.as_slice())
                    .map_err(backend)?;
            }
            txn.commit().map_err(backend)?;
            Ok(())
        })
    }

    fn load<'a>(&'a self, origin: &'a Origin) -> StoreFuture<'a, Option<OriginState>> {
        let key = origin.to_string();
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(backend)?;
            let Some(states) = read_table!(txn, STATES) else {
                return Ok(None);
            };
            match states.get(key.as_str()).map_err(backend)? {
                Some(bytes) => decode(&key, bytes.value()).map(Some),
                None => Ok(None),
            }
        })
    }

    fn update<'a>(&'a self, origin: &'a Origin, changes: &'a [Change]) -> StoreFuture<'a, Updated> {
        let key = origin.to_string();
        // The blocking pool needs owned data; bodies are `Arc`s, so this copies little.
        let changes = changes.to_vec();
        self.blocking(move |db| {
            let mut txn = db.begin_write().map_err(backend)?;
            // The default, said explicitly: the commit returns once the data is fsync'd.
            txn.set_durability(Durability::Immediate).map_err(backend)?;
            let plan = apply_in(&txn, &key, &changes)?;
            {
                let mut bodies = txn.open_table(BODIES).map_err(backend)?;
                for (digest, body) in &plan.put {
                    bodies
                        .insert((key.as_str(), digest.as_bytes()), &body[..])
                        .map_err(backend)?;
                }
                for digest in &plan.drop {
                    bodies
                        .remove((key.as_str(), digest.as_bytes()))
                        .map_err(backend)?;
                }
            }
            // An error before this point drops `txn`, which aborts it: nothing is written.
            txn.commit().map_err(backend)?;
            Ok(plan.updated())
        })
    }

    fn body<'a>(
        &'a self,
        origin: &'a Origin,
        digest: &'a Digest,
    ) -> StoreFuture<'a, Option<Arc<[u8]>>> {
        let key = origin.to_string();
        let digest = *digest;
        self.blocking(move |db| {
            let txn = db.begin_read().map_err(backend)?;
            let Some(bodies) = read_table!(txn, BODIES) else {
                return Ok(None);
            };
            let body = bodies
                .get((key.as_str(), digest.as_bytes()))
                .map_err(backend)?;
            Ok(body.map(|b| Arc::from(b.value())))
        })
    }

    fn origins(&self) -> StoreFuture<'_, Vec<Origin>> {
        self.blocking(|db| {
            let txn = db.begin_read().map_err(backend)?;
            let Some(states) = read_table!(txn, STATES) else {
                return Ok(Vec::new());
            };
            let mut all =
                Vec::with_capacity(usize::try_from(states.len().map_err(backend)?).unwrap_or(0));
            for entry in states.iter().map_err(backend)? {
                let (key, _) = entry.map_err(backend)?;
                let key = key.value();
                let origin = Origin::from_url(key).map_err(|e| StoreError::Corrupt {
                    origin: key.to_owned(),
                    message: format!("not an origin: {e}"),
                })?;
                all.push(origin);
            }
            Ok(all)
        })
    }

    fn keeps_schedule(&self) -> bool {
        true
    }

    /// In memory: one process has the file, so nobody else takes slots; a write per request
    /// (and its fsync) would buy nothing.
    fn reserve<'a>(
        &'a self,
        key: &'a PoliteKey,
        now: SystemTime,
        spacing: Duration,
    ) -> StoreFuture<'a, Reservation> {
        let r = self.inner.schedules.reserve(key, now, spacing);
        Box::pin(async move { Ok(r) })
    }

    /// In memory and on disk, so that a restarted crawler honours the backoff.
    fn back_off<'a>(
        &'a self,
        key: &'a PoliteKey,
        now: SystemTime,
        retry_after: Option<Duration>,
        rules: BackoffRules,
    ) -> StoreFuture<'a, Duration> {
        let (wait, state) = self.inner.schedules.back_off(key, now, retry_after, &rules);
        let name = key.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(backend)?;
            {
                let mut gates = txn.open_table(GATES).map_err(backend)?;
                gates
                    .insert(name.as_str(), &gate_encode(&state)[..])
                    .map_err(backend)?;
            }
            txn.commit().map_err(backend)?;
            Ok(wait)
        })
    }

    /// In memory only (one process at a time has the file): pending slots, spent permits and
    /// the last permit are not on disk, so a restart forgets bookings and callers book anew.
    /// The schedules written when the store is closed keep each key's next slot, which is a
    /// spacing after its last permit at least, so the spacing holds across a clean restart.
    fn ask_slot<'a>(
        &'a self,
        key: &'a PoliteKey,
        ask: Ask,
        bounds: LedgerBounds,
    ) -> StoreFuture<'a, Asked> {
        let asked = self.inner.schedules.ask(key, &ask, &bounds);
        Box::pin(async move { Ok(asked) })
    }

    fn backed_off<'a>(&'a self, key: &'a PoliteKey, now: SystemTime) -> StoreFuture<'a, Duration> {
        let wait = self.inner.schedules.backed_off(key, now);
        Box::pin(async move { Ok(wait) })
    }

    fn schedule<'a>(&'a self, key: &'a PoliteKey) -> StoreFuture<'a, Option<GateState>> {
        // The process's schedules, seeded from the file when it was opened.
        let state = self.inner.schedules.get(key);
        Box::pin(async move { Ok(state) })
    }

    fn release<'a>(
        &'a self,
        key: &'a PoliteKey,
        slot: Reservation,
        spacing: Duration,
    ) -> StoreFuture<'a, ()> {
        self.inner.schedules.release(key, &slot, spacing);
        Box::pin(async move { Ok(()) })
    }

    fn recovered<'a>(&'a self, key: &'a PoliteKey) -> StoreFuture<'a, ()> {
        self.inner.schedules.recovered(key);
        let name = key.to_string();
        self.blocking(move |db| {
            let txn = db.begin_write().map_err(backend)?;
            {
                let mut gates = txn.open_table(GATES).map_err(backend)?;
                gates.remove(name.as_str()).map_err(backend)?;
            }
            txn.commit().map_err(backend)?;
            Ok(())
        })
    }

    fn try_lease<'a>(
        &'a self,
        origin: &'a Origin,
        owner: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        let taken = self.inner.leases.try_take(origin, owner, ttl);
        Box::pin(async move { Ok(taken) })
    }

    fn release_lease<'a>(&'a self, origin: &'a Origin, owner: &'a str) -> StoreFuture<'a, ()> {
        self.inner.leases.release(origin, owner);
        Box::pin(async move { Ok(()) })
    }

    fn prune(&self, now: SystemTime) -> StoreFuture<'_, Pruned> {
        self.blocking(move |db| {
            let keys: Vec<String> = {
                let txn = db.begin_read().map_err(backend)?;
                let mut keys = Vec::new();
                // No states yet: there may be TDMRep records all the same.
                if let Some(states) = read_table!(txn, STATES) {
                    for entry in states.iter().map_err(backend)? {
                        keys.push(entry.map_err(backend)?.0.value().to_owned());
                    }
                }
                keys
            };
            let change = [Change::Prune { at: now }];
            let mut pruned = Pruned::default();
            // Batched: each origin's prune stands alone, so nothing needs them in one
            // transaction, but one fsync per origin would make pruning a large store slow.
            // Each state is read again inside the transaction, so no concurrent update is lost.
            for batch in keys.chunks(PRUNE_BATCH) {
                let txn = db.begin_write().map_err(backend)?;
                {
                    let mut states = txn.open_table(STATES).map_err(backend)?;
                    let mut bodies = txn.open_table(BODIES).map_err(backend)?;
                    for key in batch {
                        let before = match states.get(key.as_str()).map_err(backend)? {
                            Some(bytes) => decode(key, bytes.value())?,
                            // Gone since the listing (no store deletes states today).
                            None => continue,
                        };
                        let plan = Plan::new(Some(&before), &change);
                        if plan.state == before {
                            continue;
                        }
                        pruned.versions += before
                            .history()
                            .len()
                            .saturating_sub(plan.state.history().len())
                            as u64;
                        states
                            .insert(key.as_str(), codec::encode(&plan.state).as_slice())
                            .map_err(backend)?;
                        for digest in &plan.drop {
                            let removed = bodies
                                .remove((key.as_str(), digest.as_bytes()))
                                .map_err(backend)?;
                            if removed.is_some() {
                                pruned.bodies += 1;
                            }
                        }
                    }
                }
                txn.commit().map_err(backend)?;
            }
            pruned.versions += prune_tdm(db, now)?;
            Ok(pruned)
        })
    }

    fn usage(&self) -> StoreFuture<'_, StoreUsage> {
        self.blocking(|db| {
            let txn = db.begin_read().map_err(backend)?;
            let mut usage = StoreUsage::default();
            if let Some(states) = read_table!(txn, STATES) {
                for entry in states.iter().map_err(backend)? {
                    let (_, state) = entry.map_err(backend)?;
                    usage.origins += 1;
                    usage.state_bytes += state.value().len() as u64;
                }
            }
            if let Some(bodies) = read_table!(txn, BODIES) {
                for entry in bodies.iter().map_err(backend)? {
                    let (_, body) = entry.map_err(backend)?;
                    usage.bodies += 1;
                    usage.body_bytes += body.value().len() as u64;
                }
            }
            Ok(usage)
        })
    }
}
