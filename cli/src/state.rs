//! `--state` and `--no-state`: which store the commands that fetch through the engine keep
//! their crawl state in, and the warnings when it failed them.

use std::path::PathBuf;
use std::sync::Arc;

use crawlgate::engine::RobotsCache;
use crawlgate::store::{MemoryStore, Store};

use crate::args::StateArgs;
use crate::output::Out;

/// An open store and what it is called in messages.
pub struct State {
    pub store: Arc<dyn Store>,
    /// The path, the Redis URL without its password, or `--no-state`.
    pub name: String,
}

enum Location {
    File(PathBuf),
    Redis(String),
    Memory,
}

fn location(args: &StateArgs) -> anyhow::Result<Location> {
    if args.no_state {
        return Ok(Location::Memory);
    }
    let from_env = || {
        std::env::var_os("CRAWLGATE_STATE")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    match &args.state.clone().or_else(from_env) {
        Some(p) if p.as_os_str().is_empty() => {
            anyhow::bail!("--state is empty: give a path or a redis:// URL")
        }
        Some(p) => match p.to_str() {
            Some(s) if is_redis_url(s) => Ok(Location::Redis(s.to_owned())),
            _ => Ok(Location::File(p.clone())),
        },
        None => default_location(),
    }
}

fn is_redis_url(s: &str) -> bool {
    ["redis://", "rediss://", "redis+cluster://"]
        .iter()
        .any(|scheme| {
            s.get(..scheme.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(scheme))
        })
}

#[cfg(feature = "redb")]
fn default_location() -> anyhow::Result<Location> {
    match crawlgate::store::EmbeddedStore::default_path() {
        Some(path) => Ok(Location::File(path)),
        None => anyhow::bail!(
            "no home directory to keep the crawl state in: give --state PATH, or --no-state"
        ),
    }
}

/// Without a file store there is nothing durable to default to: behave as before state existed.
#[cfg(not(feature = "redb"))]
fn default_location() -> anyhow::Result<Location> {
    Ok(Location::Memory)
}

/// Opens the store the arguments name. With `create` false, a state file that does not exist
/// is not created (read-only commands then see an empty state).
pub async fn open(args: &StateArgs, create: bool) -> anyhow::Result<State> {
    open_with(args, create, MemoryStore::new()).await
}

/// How many times the engine's `--max-origins` a long-running process keeps with `--no-state`:
/// every origin whose rules are in memory, and as many again read back rather than refetched.
pub const NO_STATE_ORIGINS_PER_CACHED: u64 = 2;

/// [`open`] for a process that runs for long (`serve`): with `--no-state`, the store keeps at
/// most [`NO_STATE_ORIGINS_PER_CACHED`] × `max_origins` origins, the least recently used
/// dropped first, so that its memory stays bounded however many origins it is asked about.
pub async fn open_long_running(
    args: &StateArgs,
    create: bool,
    max_origins: u64,
) -> anyhow::Result<State> {
    let limit = max_origins.saturating_mul(NO_STATE_ORIGINS_PER_CACHED);
    let memory = MemoryStore::bounded(usize::try_from(limit).unwrap_or(usize::MAX));
    open_with(args, create, memory).await
}

async fn open_with(args: &StateArgs, create: bool, memory: MemoryStore) -> anyhow::Result<State> {
    match location(args)? {
        Location::Memory => Ok(State {
            store: Arc::new(memory),
            name: "--no-state".to_owned(),
        }),
        Location::File(path) if !create && !path.exists() => Ok(State {
            store: Arc::new(MemoryStore::new()),
            name: path.display().to_string(),
        }),
        Location::File(path) => open_file(path).await,
        Location::Redis(url) => open_redis(url).await,
    }
}

#[cfg(feature = "redb")]
async fn open_file(path: PathBuf) -> anyhow::Result<State> {
    use crawlgate::store::EmbeddedStore;
    let name = path.display().to_string();
    catch_file_size_signal()?;
    // Blocking: it waits for another process to close the file.
    let store = tokio::task::spawn_blocking(move || EmbeddedStore::open(&path)).await??;
    Ok(State {
        store: Arc::new(store),
        name,
    })
}

/// A write past the file-size limit (`ulimit -f`) sends SIGXFSZ, whose default action kills
/// the process with no message (exit 153) and can leave a 0-byte state file. Caught (by tokio's
/// handler, without `unsafe` here), the write fails with EFBIG instead, and the store reports
/// "the state file cannot grow". The handler stays for the life of the process.
#[cfg(all(feature = "redb", unix))]
fn catch_file_size_signal() -> anyhow::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let number = rustix::process::Signal::XFSZ.as_raw();
    // The stream is not read: only the handler matters, and it outlives the stream.
    signal(SignalKind::from_raw(number))
        .map(drop)
        .map_err(|e| anyhow::anyhow!("cannot handle SIGXFSZ: {e}"))
}

#[cfg(all(feature = "redb", not(unix)))]
fn catch_file_size_signal() -> anyhow::Result<()> {
    Ok(())
}

#[cfg(not(feature = "redb"))]
async fn open_file(path: PathBuf) -> anyhow::Result<State> {
    anyhow::bail!(
        "cannot keep state in {}: this build has no state files (feature `redb`); use --state redis://… or --no-state",
        path.display()
    )
}

#[cfg(feature = "redis")]
async fn open_redis(url: String) -> anyhow::Result<State> {
    use crawlgate::store::{RedisOptions, RedisStore};
    let name = redact(&url);
    let store = RedisStore::connect(RedisOptions::new(url)).await?;
    Ok(State {
        store: Arc::new(store),
        name,
    })
}

#[cfg(not(feature = "redis"))]
async fn open_redis(url: String) -> anyhow::Result<State> {
    anyhow::bail!(
        "cannot keep state in {}: this build has no Redis store (feature `redis`)",
        redact(&url)
    )
}

/// The URL with its password hidden, for messages.
fn redact(url: &str) -> String {
    // `redis+cluster://[user:password@]host:port,host:port…` is no URL to the url crate.
    if let Some(rest) = url
        .get(..16)
        .filter(|s| s.eq_ignore_ascii_case("redis+cluster://"))
        .and_then(|_| url.get(16..))
    {
        return match rest.rsplit_once('@') {
            Some((auth, hosts)) => match auth.split_once(':') {
                Some((user, _)) => format!("redis+cluster://{user}:***@{hosts}"),
                None => format!("redis+cluster://{auth}@{hosts}"),
            },
            None => url.to_owned(),
        };
    }
    match ::url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        Ok(_) => url.to_owned(),
        Err(_) => "(an invalid Redis URL)".to_owned(),
    }
}

/// Writes what is pending. Changes that cannot be written are lost when the process exits:
/// that is an error (exit 2), after the command's own output. A store that failed during the
/// run but took everything in the end is a warning.
pub async fn finish(cache: &RobotsCache, state: &State, out: &mut Out) -> anyhow::Result<()> {
    let flushed = cache.flush().await;
    let status = cache.store_status();
    match flushed {
        Err(e) => anyhow::bail!(
            "{} change(s) of this run could not be written to the state store {} and are lost: {e}",
            status.pending,
            state.name
        ),
        Ok(()) if !status.available => out.error(format_args!(
            "warning: the state store {} failed ({}); what this run fetched may not be recorded",
            state.name,
            status.last_error.as_deref().unwrap_or("unknown error")
        )),
        Ok(()) => {}
    }
    Ok(())
}
