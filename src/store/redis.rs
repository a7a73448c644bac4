//! The Redis store (feature `redis`): states, bodies and fetch leases on a Redis server, shared
//! by every crawler that uses the same server and prefix.
//!
//! # Why redis-rs
//!
//! [redis-rs] is maintained by the Redis organisation, speaks to the server asynchronously on
//! tokio (the runtime the engine already uses), and its [`ConnectionManager`] multiplexes one
//! connection for every task of a process and reconnects by itself when it breaks. Lua scripts
//! ([`redis::Script`], sent once and then called by hash) give the atomic compare-and-set an
//! update needs.
//!
//! # Key layout
//!
//! With the default prefix `crawlgate`, an origin `https://example.com:8443` has:
//!
//! | key | type | holds |
//! |---|---|---|
//! | `crawlgate:{https://example.com:8443}:state` | hash | `rev` (an integer), `state` ([`codec::encode`]) |
//! | `crawlgate:{https://example.com:8443}:body:<64 hex digits>` | string | a robots.txt body, under its [`Digest`] |
//! | `crawlgate:{https://example.com:8443}:lease` | string with a TTL | the lease holder's token |
//! | `crawlgate:{https://example.com:8443}:tdm` | string | the origin's TDMRep record ([`codec::encode_tdm`]): not a state, so [`Store::origins`] does not list an origin by it |
//! | `crawlgate:{KEY}:gate` | hash with an expiry | the request schedule of a politeness key: `next`, `until`, `last` (ms), `strikes` |
//! | `crawlgate:{KEY}:inflight` | sorted set with an expiry | the key's in-flight leases: holder → expiry (ms, server time) |
//!
//! `KEY` is the [`PoliteKey`] as it writes itself: the origin for the default key (so the
//! schedule sits beside the origin's state: `crawlgate:{https://example.com:8443}:gate`), else
//! `host:…`, `domain:…` or `ip:…`. The part in braces is a Redis Cluster hash tag: one origin's
//! (one key's) keys live in one hash slot, so a script may touch all of them. The prefix must
//! therefore not contain braces.
//!
//! # Redis Cluster
//!
//! A URL `redis+cluster://host:port[,host:port…]` names a Redis Cluster (or a Valkey cluster):
//! redis-rs's cluster client sends each command to the node of its key's slot and follows the
//! cluster when slots move. Every script touches one origin's keys only, which the hash tag puts
//! in one slot; listing and measuring keys walk every master that serves slots. The
//! connection, one server or a cluster, is one type (`redis_conn::Conn`) that every command
//! goes through.
//!
//! # Concurrency
//!
//! An update reads `rev` and `state`, works out the new state and the bodies to add and drop in
//! Rust ([`Plan`]), then runs one script that checks `rev` is unchanged and, only then, writes
//! the state, `rev + 1` and the bodies, all at once. If another process got there first the
//! script changes nothing and the update starts again from a fresh read, after a short random
//! pause, up to [`MAX_ATTEMPTS`] times ([`StoreError::Contention`]). No update is lost and no
//! lock is held. `WATCH`/`MULTI` is not used: it is per connection, and the connection is
//! shared by every task of the process.
//!
//! # The request schedule
//!
//! [`Store::reserve`], [`Store::back_off`] and [`Store::recovered`] are one Lua script each,
//! mirroring [`GateState`](crate::policy::GateState): atomic on the server, so that a fleet
//! shares one spacing per politeness key. [`Store::take_in_flight`] is one more: it drops the
//! key's expired leases, counts the others and adds one if under the limit, so that a fleet
//! shares one in-flight limit and a killed process's leases end at their expiry. The scripts read the server's `TIME` and ignore the caller's
//! clock: every process measures against the same clock, and gets back a *wait* that it sleeps
//! on its own, so clock skew between the machines does not matter. A gate key expires a day
//! after its schedule ends.
//!
//! # When the server is down
//!
//! Every call fails with [`StoreError::Backend`] within about
//! [`RedisOptions::connect_timeout`] + [`RedisOptions::response_timeout`]; nothing hangs and
//! nothing panics. Each failure makes the connection manager try to reconnect in the
//! background, so the same [`RedisStore`] works again once the server is back. What a restarted
//! server still holds depends on its persistence settings. A write whose answer timed out may
//! still have been applied: the error cannot tell.
//!
//! [redis-rs]: https://github.com/redis-rs/redis-rs

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::future::Future;
use std::sync::{Arc, LazyLock};
use std::time::{Duration, SystemTime};

use redis::{RedisResult, Script};

use super::redis_conn::{redact_cluster, Conn, Node, Timeouts};
use super::{
    codec, Plan, Pruned, Reservation, Store, StoreError, StoreFuture, StoreUsage, TdmRecord,
    Updated,
};
use crate::policy::{
    Ask, Asked, BackoffRules, GateState, LaterWhy, LedgerBounds, Outcome, PoliteKey, SPENT_MIN,
};
use crate::policy::{Change, Digest, OriginState};
use crate::Origin;

/// How many times an update is tried against concurrent writers before
/// [`StoreError::Contention`].
const MAX_ATTEMPTS: u32 = 100;

/// Keys fetched or measured per round trip when listing.
const SCAN_COUNT: usize = 500;

/// Where the Redis store lives and how long it may take to answer.
///
/// Start from `RedisOptions::new(url)` and set the fields you need
/// (`let mut options = RedisOptions::new(url);` then `options.prefix = …`): the type is
/// `#[non_exhaustive]`, so a new option is not a breaking change.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RedisOptions {
    /// The server: `redis://[user:password@]host[:port][/db]`, or a Redis Cluster (Valkey's
    /// too): `redis+cluster://[user:password@]host:port[,host:port…]`, one or more of its
    /// nodes (the others are discovered). `rediss://…` is not supported (this build has no
    /// TLS for Redis). Default `redis://127.0.0.1:6379/`.
    pub url: String,
    /// Put before every key, so that several fleets (or tests) can share a server. Must not
    /// contain `{` or `}` (the origin is the cluster hash tag). Default `crawlgate`.
    pub prefix: String,
    /// How long one connection attempt may take. Default 2 s.
    pub connect_timeout: Duration,
    /// How long the server may take to answer one command. Default 2 s.
    pub response_timeout: Duration,
}

impl Default for RedisOptions {
    fn default() -> RedisOptions {
        RedisOptions {
            url: "redis://127.0.0.1:6379/".to_owned(),
            prefix: "crawlgate".to_owned(),
            connect_timeout: Duration::from_secs(2),
            response_timeout: Duration::from_secs(2),
        }
    }
}

impl RedisOptions {
    /// The defaults, with this server URL.
    pub fn new(url: impl Into<String>) -> RedisOptions {
        RedisOptions {
            url: url.into(),
            ..RedisOptions::default()
        }
    }
}

/// States, bodies and fetch leases on a Redis server, shared by every process that uses the
/// same server and prefix. Cheap to clone: clones share one multiplexed connection, which
/// reconnects by itself.
///
/// An origin's keys are `<prefix>:{<origin>}:state` (a hash: `rev`, `state`),
/// `<prefix>:{<origin>}:body:<digest>` and `<prefix>:{<origin>}:lease`, in one cluster hash
/// slot. Updates are compare-and-set on `rev` in one Lua script, retried on conflict, so that no
/// update is lost when processes record at once. When the server is down, every call fails with
/// [`StoreError::Backend`] within about the connect + response timeouts.
#[derive(Clone)]
pub struct RedisStore {
    /// One server or a cluster: every command goes through it.
    conn: Conn,
    prefix: Arc<str>,
    /// The URL without its password, for messages.
    location: Arc<str>,
    /// The most one command may take, reconnection included.
    deadline: Duration,
    /// What in the server's configuration may lose states, found at connect.
    durability: Option<Arc<str>>,
}

impl fmt::Debug for RedisStore {
    // Not derived: the connection's own Debug would show the URL's password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStore")
            .field("location", &self.location)
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// Connects to the server. A bad URL or prefix, or a server that cannot be reached now, is
    /// [`StoreError::Open`]; after that the store reconnects by itself when the connection
    /// breaks.
    pub async fn connect(options: RedisOptions) -> Result<RedisStore, StoreError> {
        let location = redact(&options.url);
        let open_error = |message: String| StoreError::Open {
            location: location.clone(),
            message,
        };
        if options.prefix.contains(['{', '}']) {
            return Err(open_error(format!(
                "the key prefix {:?} contains a brace (the origin is the cluster hash tag)",
                options.prefix
            )));
        }
        let timeouts = Timeouts {
            connect: options.connect_timeout,
            response: options.response_timeout,
        };
        let deadline = options.connect_timeout + options.response_timeout;
        let conn = match tokio::time::timeout(deadline * 2, Conn::connect(&options.url, &timeouts))
            .await
        {
            Ok(Ok(conn)) => conn,
            Ok(Err(e)) => return Err(open_error(e)),
            Err(_) => {
                return Err(open_error(format!(
                    "no connection within {:?}",
                    deadline * 2
                )))
            }
        };
        let mut store = RedisStore {
            conn,
            prefix: options.prefix.into(),
            location: location.into(),
            deadline,
            durability: None,
        };
        store.durability = store.durability_check().await.map(Arc::from);
        if let Some(warning) = &store.durability {
            tracing::warn!(target: "crawlgate::store", location = %store.location, "{warning}");
        }
        Ok(store)
    }

    /// What in the server's configuration may lose states: no persistence (no RDB `save`
    /// points and no AOF), or an `allkeys-*` eviction policy. Read with `CONFIG GET`, or from
    /// `INFO` where `CONFIG` is not allowed; `None` when it keeps what it is told. On a Redis
    /// Cluster every master that serves slots is asked (as `SCAN` walks them), and each one
    /// that may lose states is named: one master without persistence loses its share.
    async fn durability_check(&self) -> Option<String> {
        let mut conn = self.conn.clone();
        let masters = within_ok(self.deadline, conn.masters())
            .await
            .unwrap_or_else(|| vec![None]);
        let mut warnings = Vec::new();
        for node in &masters {
            let problems = self.durability_of(node).await;
            if problems.is_empty() {
                continue;
            }
            warnings.push(match node {
                None => problems.join("; "),
                Some((host, port)) => format!(
                    "Redis Cluster master {}: {}",
                    node_address(host, *port),
                    problems.join("; ")
                ),
            });
        }
        (!warnings.is_empty()).then(|| warnings.join("; "))
    }

    /// The problems of one server's configuration ([`RedisStore::durability_check`]).
    async fn durability_of(&self, node: &Node) -> Vec<String> {
        let config = |name: &'static str| {
            let mut conn = self.conn.clone();
            async move {
                let reply: RedisResult<Vec<String>> = conn
                    .on(node, redis::cmd("CONFIG").arg("GET").arg(name))
                    .await;
                reply.ok().and_then(|v| v.into_iter().nth(1))
            }
        };
        let info = |section: &'static str, field: &'static str| {
            let mut conn = self.conn.clone();
            async move {
                let reply: RedisResult<String> =
                    conn.on(node, redis::cmd("INFO").arg(section)).await;
                reply.ok().and_then(|text| {
                    text.lines().find_map(|line| {
                        line.strip_prefix(field)
                            .and_then(|rest| rest.strip_prefix(':'))
                            .map(|v| v.trim().to_owned())
                    })
                })
            }
        };
        let d = self.deadline;
        let save = within(d, config("save")).await;
        let aof = match within(d, config("appendonly")).await {
            Some(v) => Some(v == "yes"),
            None => within(d, info("persistence", "aof_enabled"))
                .await
                .map(|v| v == "1"),
        };
        let policy = match within(d, config("maxmemory-policy")).await {
            Some(p) => Some(p),
            None => within(d, info("memory", "maxmemory_policy")).await,
        };
        let mut problems = Vec::new();
        match (save.as_deref().map(str::trim), aof) {
            (Some(""), Some(false)) => problems.push(
                "the Redis server keeps nothing on disk (no RDB save points, no AOF): a restart loses every state, and a new process then knows no origin's last good robots.txt".to_owned(),
            ),
            (None, Some(false)) => problems.push(
                "the Redis server has no AOF and its RDB save points cannot be read (CONFIG is not allowed): a restart may lose states".to_owned(),
            ),
            _ => {}
        }
        if let Some(policy) = policy.filter(|p| p.starts_with("allkeys-")) {
            problems.push(format!(
                "the Redis server's maxmemory-policy is {policy}: under memory pressure it evicts states and bodies (use noeviction or volatile-*)"
            ));
        }
        problems
    }

    /// Runs one request with the store's deadline; errors say what was being done.
    async fn run<T>(
        &self,
        what: impl FnOnce() -> String,
        request: impl Future<Output = RedisResult<T>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(self.deadline, request).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(StoreError::Backend(format!(
                "Redis at {}: {}: {e}",
                self.location,
                what()
            ))),
            Err(_) => Err(StoreError::Backend(format!(
                "Redis at {}: {}: no answer within {:?}",
                self.location,
                what(),
                self.deadline
            ))),
        }
    }

    fn keys(&self, origin: &Origin) -> Keys {
        Keys {
            base: format!("{}:{{{origin}}}", self.prefix),
        }
    }

    /// A politeness key's keys (its schedule and in-flight places), hash-tagged by the key:
    /// for the default key, the origin's own tag.
    fn schedule_keys(&self, key: &PoliteKey) -> Keys {
        Keys {
            base: format!("{}:{{{key}}}", self.prefix),
        }
    }

    /// `rev` and the decoded state.
    async fn read(
        &self,
        origin: &Origin,
        keys: &Keys,
    ) -> Result<(u64, Option<OriginState>), StoreError> {
        let mut conn = self.conn.clone();
        let (rev, state): (Option<Vec<u8>>, Option<Vec<u8>>) = self
            .run(
                || format!("reading the state of {origin}"),
                redis::cmd("HMGET")
                    .arg(keys.state())
                    .arg("rev")
                    .arg("state")
                    .query_async(&mut conn),
            )
            .await?;
        let corrupt = |message: String| StoreError::Corrupt {
            origin: origin.to_string(),
            message,
        };
        let rev = match rev {
            None => 0,
            Some(bytes) => std::str::from_utf8(&bytes)
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
                .ok_or_else(|| corrupt("its revision is not a number".to_owned()))?,
        };
        let state = match state {
            None => None,
            Some(bytes) => Some(codec::decode(&bytes).map_err(corrupt)?),
        };
        Ok((rev, state))
    }

    /// Applies `changes` with compare-and-set, retrying on conflicts. Returns the history length
    /// before, the plan written and the bodies deleted; `None` if `only_existing` and there is
    /// no state.
    async fn update_planned(
        &self,
        origin: &Origin,
        changes: &[Change],
        only_existing: bool,
    ) -> Result<Option<(usize, Plan, u64)>, StoreError> {
        let keys = self.keys(origin);
        for attempt in 0..MAX_ATTEMPTS {
            let (rev, before) = self.read(origin, &keys).await?;
            if only_existing && before.is_none() {
                return Ok(None);
            }
            let before_len = before.as_ref().map_or(0, |s| s.history().len());
            let plan = Plan::new(before.as_ref(), changes);
            let mut invocation = UPDATE.prepare_invoke();
            invocation.key(keys.state());
            for (digest, _) in &plan.put {
                invocation.key(keys.body(digest));
            }
            for digest in &plan.drop {
                invocation.key(keys.body(digest));
            }
            invocation
                .arg(rev)
                .arg(codec::encode(&plan.state))
                .arg(plan.put.len());
            for (_, body) in &plan.put {
                invocation.arg(&body[..]);
            }
            let mut conn = self.conn.clone();
            let outcome: i64 = self
                .run(
                    || format!("writing the state of {origin}"),
                    invocation.invoke_async(&mut conn),
                )
                .await?;
            if outcome > 0 {
                let deleted = u64::try_from(outcome - 1).unwrap_or(0);
                return Ok(Some((before_len, plan, deleted)));
            }
            tokio::time::sleep(backoff(attempt)).await;
        }
        Err(StoreError::Contention {
            origin: origin.to_string(),
            attempts: MAX_ATTEMPTS,
        })
    }

    /// Every key matching `pattern`, each once, with the node that holds it (every master
    /// of a cluster is walked).
    async fn scan(&self, pattern: &str) -> Result<Vec<(Node, Vec<u8>)>, StoreError> {
        let mut conn = self.conn.clone();
        let masters = self
            .run(
                || "listing the cluster's masters".to_owned(),
                conn.masters(),
            )
            .await?;
        let mut found = Vec::new();
        for node in masters {
            let mut cursor: u64 = 0;
            let mut seen: HashSet<Vec<u8>> = HashSet::new();
            loop {
                let mut scan = redis::cmd("SCAN");
                scan.arg(cursor)
                    .arg("MATCH")
                    .arg(pattern)
                    .arg("COUNT")
                    .arg(SCAN_COUNT);
                let (next, keys): (u64, Vec<Vec<u8>>) = self
                    .run(
                        || format!("listing the keys {pattern}"),
                        conn.on(&node, &scan),
                    )
                    .await?;
                // SCAN may return a key twice (while the server resizes its table).
                seen.extend(keys);
                if next == 0 {
                    break;
                }
                cursor = next;
            }
            found.extend(seen.into_iter().map(|k| (node.clone(), k)));
        }
        Ok(found)
    }

    /// `prefix:{*}:<suffix>`, with the prefix's glob characters escaped.
    fn pattern(&self, suffix: &str) -> String {
        let mut out = String::with_capacity(self.prefix.len() + suffix.len() + 5);
        for c in self.prefix.chars() {
            if matches!(c, '*' | '?' | '[' | ']' | '\\') {
                out.push('\\');
            }
            out.push(c);
        }
        out.push_str(":{*}:");
        out.push_str(suffix);
        out
    }

    /// The origin of a state key; `None` for keys that do not parse.
    fn origin_of(&self, key: &[u8]) -> Option<Origin> {
        self.origin_of_key(key, "state")
    }

    /// The origin of a key `prefix:{origin}:<suffix>`; `None` for keys that do not parse.
    fn origin_of_key(&self, key: &[u8], suffix: &str) -> Option<Origin> {
        let key = std::str::from_utf8(key).ok()?;
        let inner = key
            .strip_prefix(&*self.prefix)?
            .strip_prefix(":{")?
            .strip_suffix(suffix)?
            .strip_suffix("}:")?;
        Origin::from_url(inner).ok()
    }

    async fn origins_inner(&self) -> Result<Vec<Origin>, StoreError> {
        let keys = self.scan(&self.pattern("state")).await?;
        let mut origins: Vec<Origin> = keys.iter().filter_map(|(_, k)| self.origin_of(k)).collect();
        origins.sort_unstable();
        origins.dedup();
        Ok(origins)
    }

    /// The sum of `command key [field]` over `keys`, pipelined to the node of each key.
    async fn total(
        &self,
        command: &str,
        field: Option<&str>,
        keys: &[(Node, Vec<u8>)],
    ) -> Result<u64, StoreError> {
        let mut conn = self.conn.clone();
        let mut total = 0u64;
        let mut rest = keys;
        while let Some((node, _)) = rest.first() {
            // The keys of one node, at most SCAN_COUNT, in one pipeline.
            let n = rest
                .iter()
                .take(SCAN_COUNT)
                .take_while(|(other, _)| other == node)
                .count();
            let (chunk, after) = rest.split_at(n);
            rest = after;
            let mut pipe = redis::pipe();
            for (_, key) in chunk {
                let cmd = pipe.cmd(command).arg(key);
                if let Some(field) = field {
                    cmd.arg(field);
                }
            }
            let sizes: Vec<u64> = self
                .run(
                    || format!("measuring keys ({command})"),
                    conn.pipeline_on(node, &pipe),
                )
                .await?;
            total += sizes.iter().sum::<u64>();
        }
        Ok(total)
    }

    async fn usage_inner(&self) -> Result<StoreUsage, StoreError> {
        let mut states = self.scan(&self.pattern("state")).await?;
        // Counted as `origins` lists them: keys that do not name an origin are not ours.
        states.retain(|(_, k)| self.origin_of(k).is_some());
        let bodies = self.scan(&self.pattern("body:*")).await?;
        Ok(StoreUsage {
            origins: states.len() as u64,
            state_bytes: self.total("HSTRLEN", Some("state"), &states).await?,
            bodies: bodies.len() as u64,
            body_bytes: self.total("STRLEN", None, &bodies).await?,
        })
    }

    async fn prune_inner(&self, now: SystemTime) -> Result<Pruned, StoreError> {
        let change = [Change::Prune { at: now }];
        let mut pruned = Pruned::default();
        for origin in self.origins_inner().await? {
            // `only_existing`: an origin removed since the listing is not brought back.
            if let Some((before, plan, deleted)) =
                self.update_planned(&origin, &change, true).await?
            {
                pruned.versions += before.saturating_sub(plan.state.history().len()) as u64;
                pruned.bodies += deleted;
            }
        }
        pruned.versions += self.prune_tdm(now).await?;
        Ok(pruned)
    }

    /// Drops the versions older than 30 days at `now` from every TDMRep record's history (its
    /// last good body is kept apart and stays); returns how many. Each record is replaced only
    /// if it is still what was read (a compare-and-set): one written since by a fetch is left
    /// for the next prune.
    async fn prune_tdm(&self, now: SystemTime) -> Result<u64, StoreError> {
        let mut pruned = 0;
        for (_, key) in self.scan(&self.pattern("tdm")).await? {
            // Keys that do not name an origin are not ours.
            let Some(origin) = self.origin_of_key(&key, "tdm") else {
                continue;
            };
            let mut conn = self.conn.clone();
            let bytes: Option<Vec<u8>> = self
                .run(
                    || format!("reading the TDMRep record of {origin}"),
                    redis::cmd("GET").arg(&key).query_async(&mut conn),
                )
                .await?;
            let Some(bytes) = bytes else {
                continue;
            };
            let mut record = codec::decode_tdm(&bytes).map_err(|message| StoreError::Corrupt {
                origin: origin.to_string(),
                message,
            })?;
            let n = record.state.prune(now);
            if n == 0 {
                continue;
            }
            let mut invocation = REPLACE_IF_UNCHANGED.prepare_invoke();
            invocation
                .key(&key)
                .arg(&bytes)
                .arg(codec::encode_tdm(&record));
            let replaced: i64 = self
                .run(
                    || format!("pruning the TDMRep record of {origin}"),
                    invocation.invoke_async(&mut conn),
                )
                .await?;
            if replaced == 1 {
                pruned += n as u64;
            }
        }
        Ok(pruned)
    }
}

impl Store for RedisStore {
    fn load_tdm<'a>(&'a self, origin: &'a Origin) -> StoreFuture<'a, Option<TdmRecord>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let bytes: Option<Vec<u8>> = self
                .run(
                    || format!("reading the TDMRep record of {origin}"),
                    redis::cmd("GET")
                        .arg(self.keys(origin).tdm())
                        .query_async(&mut conn),
                )
                .await?;
            bytes
                .map(|b| codec::decode_tdm(&b))
                .transpose()
                .map_err(|message| StoreError::Corrupt {
                    origin: origin.to_string(),
                    message,
                })
        })
    }

    fn save_tdm<'a>(&'a self, origin: &'a Origin, record: &'a TdmRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            self.run(
                || format!("writing the TDMRep record of {origin}"),
                redis::cmd("SET")
                    .arg(self.keys(origin).tdm())
                    .arg(codec::encode_tdm(record))
                    .query_async::<()>(&mut conn),
            )
            .await
        })
    }

    fn load<'a>(&'a self, origin: &'a Origin) -> StoreFuture<'a, Option<OriginState>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let keys = self.keys(origin);
            let bytes: Option<Vec<u8>> = self
                .run(
                    || format!("reading the state of {origin}"),
                    redis::cmd("HGET")
                        .arg(keys.state())
                        .arg("state")
                        .query_async(&mut conn),
                )
                .await?;
            bytes
                .map(|b| codec::decode(&b))
                .transpose()
                .map_err(|message| StoreError::Corrupt {
                    origin: origin.to_string(),
                    message,
                })
        })
    }

    fn update<'a>(&'a self, origin: &'a Origin, changes: &'a [Change]) -> StoreFuture<'a, Updated> {
        Box::pin(async move {
            match self.update_planned(origin, changes, false).await? {
                Some((_, plan, _)) => Ok(plan.updated()),
                // Unreachable with `only_existing: false`; an error rather than a panic.
                None => Err(StoreError::Backend(format!(
                    "the update of {origin} was not applied"
                ))),
            }
        })
    }

    fn body<'a>(
        &'a self,
        origin: &'a Origin,
        digest: &'a Digest,
    ) -> StoreFuture<'a, Option<Arc<[u8]>>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let bytes: Option<Vec<u8>> = self
                .run(
                    || format!("reading a body of {origin}"),
                    redis::cmd("GET")
                        .arg(self.keys(origin).body(digest))
                        .query_async(&mut conn),
                )
                .await?;
            Ok(bytes.map(Arc::from))
        })
    }

    fn origins(&self) -> StoreFuture<'_, Vec<Origin>> {
        Box::pin(self.origins_inner())
    }

    fn try_lease<'a>(
        &'a self,
        origin: &'a Origin,
        owner: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let key = self.keys(origin).lease();
            // PX 0 is refused, and a huge PX overflows the server's clock arithmetic.
            let ttl_ms = u64::try_from(ttl.as_millis())
                .unwrap_or(u64::MAX)
                .clamp(1, MAX_TTL_MS);
            let mut conn = self.conn.clone();
            let set: Option<String> = self
                .run(
                    || format!("taking the lease of {origin}"),
                    redis::cmd("SET")
                        .arg(&key)
                        .arg(owner)
                        .arg("NX")
                        .arg("PX")
                        .arg(ttl_ms)
                        .query_async(&mut conn),
                )
                .await?;
            if set.is_some() {
                return Ok(true);
            }
            // Held: renewed only if we hold it, checked and renewed in one step so that a lease
            // that just expired and went to someone else is not extended.
            let renewed: i64 = self
                .run(
                    || format!("renewing the lease of {origin}"),
                    RENEW
                        .key(&key)
                        .arg(owner)
                        .arg(ttl_ms)
                        .invoke_async(&mut conn),
                )
                .await?;
            Ok(renewed == 1)
        })
    }

    fn release_lease<'a>(&'a self, origin: &'a Origin, owner: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let _released: i64 = self
                .run(
                    || format!("releasing the lease of {origin}"),
                    RELEASE
                        .key(self.keys(origin).lease())
                        .arg(owner)
                        .invoke_async(&mut conn),
                )
                .await?;
            Ok(())
        })
    }

    fn keeps_schedule(&self) -> bool {
        true
    }

    fn reserve<'a>(
        &'a self,
        key: &'a PoliteKey,
        _now: SystemTime,
        spacing: Duration,
    ) -> StoreFuture<'a, Reservation> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let (wait, strikes, slot_ms): (u64, u32, u64) = self
                .run(
                    || format!("reserving a request slot of {key}"),
                    RESERVE
                        .key(self.schedule_keys(key).gate())
                        .arg(gate_ms(spacing))
                        .invoke_async(&mut conn),
                )
                .await?;
            Ok(Reservation {
                wait: Duration::from_millis(wait),
                strikes,
                slot_ms,
            })
        })
    }

    fn back_off<'a>(
        &'a self,
        key: &'a PoliteKey,
        _now: SystemTime,
        retry_after: Option<Duration>,
        rules: BackoffRules,
    ) -> StoreFuture<'a, Duration> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            // -1: no Retry-After.
            let retry_after = retry_after.map_or(-1, |d| gate_ms(d) as i64);
            let wait: u64 = self
                .run(
                    || format!("backing off {key}"),
                    BACK_OFF
                        .key(self.schedule_keys(key).gate())
                        .arg(retry_after)
                        .arg(gate_ms(rules.base))
                        .arg(gate_ms(rules.max))
                        .arg(gate_ms(rules.max_retry_after))
                        .arg(gate_ms(rules.forgive))
                        .arg(u64::from(rules.jitter_percent.min(100)) * 10)
                        // The draw modulo the jitter's steps, so that Lua's doubles hold it.
                        .arg(rules.draw % (u64::from(rules.jitter_percent.min(100)) * 20 + 1))
                        .invoke_async(&mut conn),
                )
                .await?;
            Ok(Duration::from_millis(wait))
        })
    }

    fn backed_off<'a>(&'a self, key: &'a PoliteKey, _now: SystemTime) -> StoreFuture<'a, Duration> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let wait: u64 = self
                .run(
                    || format!("reading the backoff of {key}"),
                    BACKED_OFF
                        .key(self.schedule_keys(key).gate())
                        .invoke_async(&mut conn),
                )
                .await?;
            Ok(Duration::from_millis(wait))
        })
    }

    fn schedule<'a>(&'a self, key: &'a PoliteKey) -> StoreFuture<'a, Option<GateState>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let fields: HashMap<String, String> = self
                .run(
                    || format!("reading the schedule of {key}"),
                    redis::cmd("HGETALL")
                        .arg(self.schedule_keys(key).gate())
                        .query_async(&mut conn),
                )
                .await?;
            Ok(gate_state(&fields))
        })
    }

    fn release<'a>(
        &'a self,
        key: &'a PoliteKey,
        slot: Reservation,
        spacing: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let _: i64 = self
                .run(
                    || format!("giving back a request slot of {key}"),
                    GIVE_BACK
                        .key(self.schedule_keys(key).gate())
                        .arg(slot.slot_ms.min(1 << 50))
                        .arg(gate_ms(spacing))
                        .invoke_async(&mut conn),
                )
                .await?;
            Ok(())
        })
    }

    fn recovered<'a>(&'a self, key: &'a PoliteKey) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let _: i64 = self
                .run(
                    || format!("ending the backoff of {key}"),
                    RECOVERED
                        .key(self.schedule_keys(key).gate())
                        .invoke_async(&mut conn),
                )
                .await?;
            Ok(())
        })
    }

    fn ask_slot<'a>(
        &'a self,
        key: &'a PoliteKey,
        ask: Ask,
        bounds: LedgerBounds,
    ) -> StoreFuture<'a, Asked> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let keys = self.schedule_keys(key);
            let caller: String = ask.caller.url.iter().map(|b| format!("{b:02x}")).collect();
            let (kind, id, at, now, flag): (u8, String, u64, u64, u8) = self
                .run(
                    || format!("asking the slot ledger of {key}"),
                    ASK_SLOT
                        .key(keys.gate())
                        .key(keys.ledger())
                        .key(keys.spent(&ask.caller.url))
                        .arg(caller)
                        .arg(format!("{:016x}", ask.caller.agent))
                        .arg(ask.spacing_ms.min(1 << 50))
                        .arg(ask.closed_ms.min(1 << 50))
                        .arg(format!("{:032x}", ask.fresh))
                        .arg(bounds.ahead_ms.min(1 << 50))
                        .arg(bounds.per_agent.max(1))
                        .arg(gate_ms(SPENT_MIN))
                        .invoke_async(&mut conn),
                )
                .await?;
            let bad = || {
                StoreError::Backend(format!(
                    "the slot ledger of {key} answered {kind} {id:?} {flag}"
                ))
            };
            let id = || u128::from_str_radix(&id, 16).map_err(|_| bad());
            let outcome = match (kind, flag) {
                (1, _) => Outcome::Permit { id: id()? },
                (2, booked) => Outcome::Wait {
                    id: id()?,
                    at,
                    booked: booked == 1,
                },
                (3, 1) => Outcome::Later {
                    at,
                    why: LaterWhy::Ahead,
                },
                (3, 2) => Outcome::Later {
                    at,
                    why: LaterWhy::AgentFull,
                },
                (3, 3) => Outcome::Later {
                    at,
                    why: LaterWhy::JustServed,
                },
                _ => return Err(bad()),
            };
            Ok(Asked { now, outcome })
        })
    }

    fn counts_in_flight(&self) -> bool {
        true
    }

    fn take_in_flight<'a>(
        &'a self,
        key: &'a PoliteKey,
        holder: &'a str,
        limit: usize,
        expiry: Duration,
    ) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let taken: i64 = self
                .run(
                    || format!("taking an in-flight place of {key}"),
                    TAKE_IN_FLIGHT
                        .key(self.schedule_keys(key).in_flight())
                        .arg(holder)
                        .arg(limit)
                        .arg(gate_ms(expiry).max(1))
                        .invoke_async(&mut conn),
                )
                .await?;
            Ok(taken == 1)
        })
    }

    fn release_in_flight<'a>(&'a self, key: &'a PoliteKey, holder: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let _: i64 = self
                .run(
                    || format!("releasing an in-flight place of {key}"),
                    redis::cmd("ZREM")
                        .arg(self.schedule_keys(key).in_flight())
                        .arg(holder)
                        .query_async(&mut conn),
                )
                .await?;
            Ok(())
        })
    }

    fn prune(&self, now: SystemTime) -> StoreFuture<'_, Pruned> {
        Box::pin(self.prune_inner(now))
    }

    fn usage(&self) -> StoreFuture<'_, StoreUsage> {
        Box::pin(self.usage_inner())
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn durability_warning(&self) -> Option<String> {
        self.durability.as_deref().map(str::to_owned)
    }
}

/// One origin's keys.
struct Keys {
    /// `prefix:{origin}`.
    base: String,
}

impl Keys {
    fn state(&self) -> String {
        format!("{}:state", self.base)
    }

    fn body(&self, digest: &Digest) -> String {
        format!("{}:body:{digest}", self.base)
    }

    fn lease(&self) -> String {
        format!("{}:lease", self.base)
    }

    fn gate(&self) -> String {
        format!("{}:gate", self.base)
    }

    fn in_flight(&self) -> String {
        format!("{}:inflight", self.base)
    }

    fn tdm(&self) -> String {
        format!("{}:tdm", self.base)
    }

    /// The key's pending slots (a hash: caller → `id at expires agent`).
    fn ledger(&self) -> String {
        format!("{}:ledger", self.base)
    }

    /// A caller's last permit on the key (`id at`, expiring).
    fn spent(&self, caller: &[u8; 32]) -> String {
        let mut hex = String::with_capacity(64);
        for b in caller {
            hex.push_str(&format!("{b:02x}"));
        }
        format!("{}:spent:{hex}", self.base)
    }
}

/// `f`'s answer, or `None` if it takes longer than `d`.
async fn within(d: Duration, f: impl Future<Output = Option<String>>) -> Option<String> {
    tokio::time::timeout(d, f).await.ok().flatten()
}

/// A gate hash's fields (`next`, `until`, `last` in ms, `strikes`) as a [`GateState`]; `None`
/// for no hash. A field that is missing or not a number reads as 0, as the scripts read it.
fn gate_state(fields: &HashMap<String, String>) -> Option<GateState> {
    if fields.is_empty() {
        return None;
    }
    let number = |name: &str| -> u64 {
        fields
            .get(name)
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
            // Whole ms, as the scripts write them.
            .map_or(0, |v| v.min(u64::MAX as f64) as u64)
    };
    Some(GateState {
        next_free: number("next"),
        backoff_until: number("until"),
        strikes: u32::try_from(number("strikes")).unwrap_or(u32::MAX),
        last_failure: number("last"),
    })
}

/// `f`'s value if it succeeds within `d`.
async fn within_ok<T>(d: Duration, f: impl Future<Output = RedisResult<T>>) -> Option<T> {
    tokio::time::timeout(d, f).await.ok().and_then(Result::ok)
}

/// `host:port`, an IPv6 host in brackets.
fn node_address(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

fn gate_ms(d: Duration) -> u64 {
    crate::policy::ms(d).min(1 << 50)
}

/// The server's time in ms, for the schedule scripts (`TIME`: seconds and microseconds).
/// `replicate_commands` lets Redis before 5 replicate a script that reads the time; later
/// versions always do and keep the call as a no-op.
const SCRIPT_NOW: &str = r"
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
";

/// [`GateState::reserve`](crate::policy::GateState::reserve) on the server's clock. Returns the
/// wait (ms), the strikes and the slot (ms).
static RESERVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        r"{SCRIPT_NOW}
-- KEYS[1]: the gate hash; ARGV[1]: the spacing (ms).
local g = redis.call('HMGET', KEYS[1], 'next', 'until', 'strikes')
local slot = math.max(now, tonumber(g[1] or '0'), tonumber(g[2] or '0'))
local nxt = slot + tonumber(ARGV[1])
redis.call('HSET', KEYS[1], 'next', string.format('%d', nxt))
redis.call('PEXPIREAT', KEYS[1], string.format('%d', math.max(nxt, tonumber(g[2] or '0')) + 86400000))
return {{slot - now, tonumber(g[3] or '0'), slot}}
"
    ))
});

/// [`Ledger::ask`](crate::policy::Ledger::ask) on the server's clock, with the key's schedule:
/// the same rule, step for step. Returns `{kind, id, at, now, flag}`: kind 1 a permit, 2 a
/// wait (flag 1: booked by this ask), 3 come back later (flag 1: ahead, 2: agent full, 3: just
/// served).
static ASK_SLOT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        r"{SCRIPT_NOW}
-- KEYS[1]: the gate hash; KEYS[2]: the pending slots (caller -> 'id at expires agent');
-- KEYS[3]: the caller's last permit ('id at'). ARGV: the caller, the agent, the spacing (ms),
-- the wait for the Visit-time window (ms), the fresh id, the bound ahead (ms), the pending
-- slots per agent, how long a permit is remembered at least (ms).
local me, agent = ARGV[1], ARGV[2]
local spacing, closed = tonumber(ARGV[3]), tonumber(ARGV[4])
local fresh, ahead, per_agent = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local remember = math.max(tonumber(ARGV[8]), 2 * spacing)
local function fmt(n) return string.format('%d', n) end
local g = redis.call('HMGET', KEYS[1], 'next', 'until', 'permit')
local nxt, until_, last = tonumber(g[1] or '0'), tonumber(g[2] or '0'), tonumber(g[3] or '0')
local not_before = now + closed
local earliest = 0
if last > 0 then earliest = last + spacing end
local function keep_gate()
  redis.call('PEXPIREAT', KEYS[1], fmt(math.max(nxt, until_) + 86400000))
end
local function pend(id, at)
  redis.call('HSET', KEYS[2], me, id .. ' ' .. fmt(at) .. ' ' .. fmt(at + spacing) .. ' ' .. agent)
  redis.call('PEXPIRE', KEYS[2], fmt(ahead + 2 * spacing + 60000))
end
local function give(id)
  redis.call('SET', KEYS[3], id .. ' ' .. fmt(now), 'PX', fmt(remember))
  nxt = math.max(nxt, now + spacing)
  redis.call('HSET', KEYS[1], 'permit', fmt(now), 'next', fmt(nxt))
  keep_gate()
  return {{1, id, now, now, 0}}
end
-- The pending slots: expired ones dropped, the caller's found, the agent's other ones counted.
local mine, held, first = nil, 0, nil
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  local id, at, exp, ag = string.match(all[i + 1], '^(%x+) (%d+) (%d+) (%x+)$')
  if not id or tonumber(exp) < now then
    redis.call('HDEL', KEYS[2], all[i])
  elseif all[i] == me then
    mine = {{id = id, at = tonumber(at)}}
  elseif ag == agent then
    held = held + 1
    local back = tonumber(at)
    if back <= now then back = tonumber(exp) + 1 end
    if not first or back < first then first = back end
  end
end
if mine then
  local void = until_ > mine.at or now > mine.at + spacing or (closed > 0 and mine.at < not_before)
  if not void then
    if now < mine.at then return {{2, mine.id, mine.at, now, 0}} end
    if now < earliest then
      pend(mine.id, earliest)
      return {{2, mine.id, earliest, now, 0}}
    end
    redis.call('HDEL', KEYS[2], me)
    return give(mine.id)
  end
  redis.call('HDEL', KEYS[2], me)
else
  local s = redis.call('GET', KEYS[3])
  if s then
    local at = tonumber(string.match(s, ' (%d+)$') or '0')
    if now < at + spacing then return {{3, '', at + spacing, now, 3}} end
  end
end
local slot = math.max(now, nxt, until_, not_before, earliest)
if slot - math.max(now, until_, not_before) > ahead then return {{3, '', slot - ahead, now, 1}} end
if held >= per_agent then return {{3, '', first or (now + 1), now, 2}} end
nxt = slot + spacing
redis.call('HSET', KEYS[1], 'next', fmt(nxt))
keep_gate()
if slot == now then return give(fresh) end
pend(fresh, slot)
return {{2, fresh, slot, now, 1}}
"
    ))
});

/// Takes an in-flight place ([`Store::take_in_flight`]) on the server's clock: drops the
/// expired members of the key's sorted set (scored by their expiry, ms), then renews
/// `holder`'s place or adds one if fewer than the limit are held. The set expires with its
/// last member. Returns 1 if `holder` has a place, else 0.
static TAKE_IN_FLIGHT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        r"{SCRIPT_NOW}
-- KEYS[1]: the in-flight sorted set; ARGV: the holder, the limit, the expiry (ms).
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%d', now))
local expires = string.format('%d', now + tonumber(ARGV[3]))
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
    return 0
  end
end
redis.call('ZADD', KEYS[1], expires, ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1
"
    ))
});

/// [`GateState::back_off`](crate::policy::GateState::back_off) on the server's clock, with
/// [`backoff_delay`](crate::policy::backoff_delay)'s rule. Returns the wait (ms).
static BACK_OFF: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        r"{SCRIPT_NOW}
-- KEYS[1]: the gate hash; ARGV: Retry-After (ms, -1 if none), base, max, max Retry-After,
-- forgiveness (ms), the jitter's span (per mille), the draw (0 ..= 2 * span).
local g = redis.call('HMGET', KEYS[1], 'next', 'until', 'strikes', 'last')
local strikes = tonumber(g[3] or '0')
local last = tonumber(g[4] or '0')
if now - tonumber(g[2] or '0') >= tonumber(ARGV[5]) then strikes = 0 end
local retry_after = tonumber(ARGV[1])
local delay
if retry_after >= 0 then
  delay = math.min(retry_after, tonumber(ARGV[4]))
else
  local max = tonumber(ARGV[3])
  local d = math.min(tonumber(ARGV[2]) * 2 ^ math.min(strikes, 30), max)
  local span, draw = tonumber(ARGV[6]), tonumber(ARGV[7])
  delay = math.min(d + math.floor(d * draw / 1000) - math.floor(d * span / 1000), max)
end
local until_ = math.max(tonumber(g[2] or '0'), now + delay)
redis.call('HSET', KEYS[1], 'until', string.format('%d', until_), 'strikes', strikes + 1,
  'last', string.format('%d', math.max(now, last)))
redis.call('PEXPIREAT', KEYS[1], string.format('%d', math.max(until_, tonumber(g[1] or '0')) + 86400000))
return until_ - now
"
    ))
});

/// [`GateState::backed_off`](crate::policy::GateState::backed_off) on the server's clock: the
/// backoff left (ms).
static BACKED_OFF: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        r"{SCRIPT_NOW}
local u = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
return math.max(u - now, 0)
"
    ))
});

/// [`GateState::release`](crate::policy::GateState::release): the next slot is the given-back
/// one, if none was reserved after it. ARGV: the slot, the spacing (ms).
static GIVE_BACK: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local nxt = tonumber(redis.call('HGET', KEYS[1], 'next') or '-1')
if nxt == tonumber(ARGV[1]) + tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'next', ARGV[1])
end
return 1
",
    )
});

/// [`GateState::recovered`](crate::policy::GateState::recovered): strikes back to 0, if the
/// origin has a schedule.
static RECOVERED: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'strikes', 0)
end
return 1
",
    )
});

/// The longest lease TTL sent: about 292 000 years, far from the server's overflow.
const MAX_TTL_MS: u64 = (i64::MAX / 1000) as u64;

/// A string replaced only if it still holds what was read: KEYS[1]; ARGV[1] the value read,
/// ARGV[2] the new one. Returns 1 when replaced, else 0.
static REPLACE_IF_UNCHANGED: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0
",
    )
});

/// The compare-and-set of an update. Returns 0 if `rev` changed (nothing written), else 1 + the
/// number of bodies deleted.
static UPDATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
-- KEYS[1]: the state hash; KEYS[2 .. 1+n]: bodies to write; the rest: bodies to delete.
-- ARGV[1]: the rev the plan was made from; ARGV[2]: the new state; ARGV[3]: n;
-- ARGV[4 .. 3+n]: the bodies to write.
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if rev ~= tonumber(ARGV[1]) then
  return 0
end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('HSET', KEYS[1], 'state', ARGV[2])
local n = tonumber(ARGV[3])
for i = 1, n do
  redis.call('SET', KEYS[1 + i], ARGV[3 + i])
end
local deleted = 0
for i = 2 + n, #KEYS do
  deleted = deleted + redis.call('DEL', KEYS[i])
end
return 1 + deleted
",
    )
});

/// Renews a lease if `ARGV[1]` holds it: 1, else 0.
static RENEW: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
",
    )
});

/// Deletes a lease if `ARGV[1]` holds it: 1, else 0.
static RELEASE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
",
    )
});

/// A random pause before retrying a conflicting update: up to 0.5 ms, doubling each attempt, at
/// most 50 ms, so that writers that collided do not collide again in step.
fn backoff(attempt: u32) -> Duration {
    let cap_us = (500u64 << attempt.min(7)).min(50_000);
    Duration::from_micros(random_below(cap_us + 1))
}

fn random_below(n: u64) -> u64 {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    // Each RandomState has fresh keys: random enough for jitter, without a `rand` dependency.
    RandomState::new().build_hasher().finish() % n.max(1)
}

/// The URL without its password.
fn redact(url: &str) -> String {
    if let Some(redacted) = redact_cluster(url) {
        return redacted;
    }
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            // Only fails for URLs that cannot have a password, which this one has.
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        Ok(_) => url.to_owned(),
        // Not a URL: the client refuses it too; do not echo what may be a secret.
        Err(_) => "(an invalid Redis URL)".to_owned(),
    }
}
