//! The engine: one robots.txt state per origin, kept in a [`Store`], compiled rules in memory,
//! one fetch per origin however many tasks (or, with a shared store, processes) ask
//! ([RFC 9309 §2.4]).
//!
//! **Memory holds compiled rules only.** A moka cache bounded by [`CacheOptions::max_origins`]
//! (least recently used first out) keeps, per origin, a copy of its stored [`OriginState`] and
//! the parsed rules of its last good file. An origin that is not in memory (new, evicted, or a
//! new process) is read from the store and its stored body re-parsed; it is fetched only when
//! the store has nothing or the state is due. Eviction and restarts therefore lose nothing.
//!
//! **Freshness** is the state's, measured with the injected [`Clock`]: a 2xx (or 304) is fresh
//! for `Cache-Control: max-age` clamped to [`CacheOptions::min_ttl`, `max_ttl`] (24 hours
//! without one), a 4xx for 24 hours, a failure until the next retry: `Retry-After` floored at
//! [`CacheOptions::min_retry_interval`] and capped at `max_retry_after`, else
//! [`CacheOptions::retry_interval`]. A due origin is refreshed by one background task while
//! every caller is answered from the state it has.
//!
//! **One fetch.** In a process, fetches run as detached tasks that callers join (a caller that
//! times out or is dropped does not cancel a fetch, and the next caller joins it). Across a
//! fleet, a fetch needs the origin's lease from the store ([`Store::try_lease`]); a process that
//! does not get it waits for the holder's result, polling the store, or, for a due origin,
//! keeps answering from its copy. The wait lasts at most [`CacheOptions::lease_wait`]: then
//! the process answers from its copy, or, with none, fetches without the lease (the holder may
//! have died holding it). A fetch sends the validators of the last good file
//! (`If-None-Match`, `If-Modified-Since`); a 304 re-confirms that file.
//!
//! **Order.** [`RobotsCache::request_recrawl`] starts a new recrawl epoch in the store; a fetch
//! that started before it and lands after it is dropped, so an emergency recrawl is never
//! undone by an older refresh.
//!
//! **Failures on this side** (no file descriptor, memory or local port left; a
//! [`LocalError`]) say nothing about the site: the fetch is retried in the same flight with
//! backoff (50 ms doubling to 2 s, for 30 s), nothing is recorded, and
//! [`RobotsCache::local_failures`] counts them. An origin whose fetch keeps failing keeps the
//! state it had; one never fetched stays "not fetched yet" until a later check succeeds.
//!
//! **Knowledge only grows.** A re-read that finds the store knowing less than memory (no state,
//! an older last good version or fetch: a shared store that lost data) keeps memory's copy and
//! writes it back ([`Change::Restore`]); every write of pending changes sends it along too.
//! [`StoreStatus::lost`] counts such re-reads.
//!
//! **When the store fails** (Redis down, disk error), checks are answered from the copies in
//! memory, origins new to the process are fetched without a lease, changes are kept per origin
//! and written when the store answers again, and a `tracing` warning (target
//! `crawlgate::store`) says so once per outage; [`RobotsCache::store_status`] tells too.
//!
//! [RFC 9309 §2.4]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.4

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use moka::future::Cache;
use moka::policy::EvictionPolicy;
use tokio::sync::watch;

use super::answer::{answer, Answer};
use super::clock::{Clock, SystemClock};
use super::lock;
use super::options::CacheOptions;
use super::slots::Gate;
use super::stats::{CacheStats, FetchClass, Stats};
use super::tdm::{TdmAnswer, TdmCache, TdmError};
use crate::http::{FetchError, Fetcher, LocalError};
use crate::origin::{Origin, OriginError};
use crate::policy::{
    Change, Digest, Fetch, FetchOutcome, FetchRecord, Judgement, OriginState, Verdict,
};
use crate::robots::{Options, Parsed, ProductToken, Robots};
use crate::store::{MemoryStore, Store, StoreError};

/// The `tracing` target of the engine's events.
const TARGET: &str = "crawlgate::cache";
/// The `tracing` target of store failures.
const STORE_TARGET: &str = "crawlgate::store";
/// The first wait before retrying a fetch that failed on this side; it doubles each time…
const LOCAL_RETRY_FIRST: Duration = Duration::from_millis(50);
/// …up to this…
const LOCAL_RETRY_MAX_WAIT: Duration = Duration::from_secs(2);
/// …for this long in all; then the flight ends with the state unchanged.
const LOCAL_RETRY_FOR: Duration = Duration::from_secs(30);
/// How often a process waiting for another's fetch looks at the store.
const LEASE_POLL: Duration = Duration::from_millis(25);
/// Changes kept per origin while the store is down; older ones are dropped first.
const MAX_PENDING: usize = 64;
/// The origin [`RobotsCache::probe_store`] reads: a reserved name (RFC 2606), so nobody
/// crawls it and the read finds nothing.
const PROBE_ORIGIN: &str = "http://store-probe.crawlgate.invalid/";

/// Why a check could not be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The URL has no robots.txt origin.
    #[error(transparent)]
    Origin(#[from] OriginError),
}

/// Why [`RobotsCache::durable`] could not set up an engine.
#[cfg(feature = "redb")]
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The state file could not be opened (another process holds it, a bad path, …).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The HTTP client could not be set up.
    #[error(transparent)]
    Client(#[from] FetchError),
}

/// Whether the store is answering, as the engine last saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreStatus {
    /// The last store operation succeeded (or none failed yet).
    pub available: bool,
    /// Store operations that failed since the engine started.
    pub errors: u64,
    /// The latest failure.
    pub last_error: Option<String>,
    /// Changes recorded in memory and not yet written (origins evicted meanwhile lose theirs).
    pub pending: u64,
    /// Times the store was found to know less of an origin than memory (it lost data: a Redis
    /// restarted without persistence, flushed or evicting keys); memory's copy was kept and
    /// written back each time.
    pub lost: u64,
    /// Why the store may lose what it is told, as it said when it was opened
    /// ([`Store::durability_warning`]): for Redis, no persistence or an `allkeys-*` eviction
    /// policy.
    pub durability_warning: Option<String>,
}

/// Fetches that failed on this side, as [`RobotsCache::local_failures`] counts them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LocalFailures {
    /// How many since the engine started.
    pub count: u64,
    /// The latest.
    pub last: Option<LocalError>,
}

/// What the engine knows of an origin, as of one moment.
#[derive(Debug)]
struct View {
    state: OriginState,
    /// The parsed last good file (`state.good_file()`, whose digest names it), when there is
    /// one.
    rules: Option<Arc<Parsed>>,
    /// When the store was last asked for (or given) this state, successfully or not.
    synced_at: SystemTime,
    /// The fetch behind this view failed on this side (the last such failure): do not chain
    /// another at once. Boxed: rare, and every origin's view would carry its size.
    failed_locally: Option<Box<LocalError>>,
}

/// Per-origin entry in memory.
#[derive(Debug)]
struct Slot {
    view: RwLock<Arc<View>>,
    /// Changes the store did not take (it was down), oldest first.
    pending: Mutex<Vec<Change>>,
}

impl Slot {
    fn new(view: Arc<View>) -> Slot {
        Slot {
            view: RwLock::new(view),
            pending: Mutex::new(Vec::new()),
        }
    }

    fn view(&self) -> Arc<View> {
        self.view.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn set(&self, view: Arc<View>) {
        *self.view.write().unwrap_or_else(|e| e.into_inner()) = view;
    }

    fn has_pending(&self) -> bool {
        !lock(&self.pending).is_empty()
    }
}

/// Work on one origin that callers can join.
#[derive(Debug, Clone)]
struct Flight {
    id: u64,
    /// The recrawl epoch the flight fetches for.
    epoch: u64,
    done: watch::Receiver<Option<Arc<View>>>,
}

/// What a flight is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Task {
    /// The origin is not in memory: read it from the store, fetch if needed.
    Cold,
    /// The origin is due, or its copy is old: re-read, fetch if due.
    Refresh,
    /// A recrawl was requested (epoch given): fetch now.
    Recrawl(u64),
}

/// The crawl-policy engine: answers "may this agent fetch this URL?" for any http(s) URL.
///
/// Cheap to clone (an `Arc` inside); share one per crawler. Needs a tokio runtime.
#[derive(Clone)]
pub struct RobotsCache {
    inner: Arc<Inner>,
}

struct Inner {
    fetcher: Fetcher,
    clock: Arc<dyn Clock>,
    options: CacheOptions,
    store: Arc<dyn Store>,
    slots: Cache<Origin, Arc<Slot>>,
    flights: Mutex<HashMap<Origin, Flight>>,
    next_flight: AtomicU64,
    /// Signalled whenever a flight ends (for [`RobotsCache::flush`]).
    landed: tokio::sync::Notify,
    owner: String,
    health: Health,
    /// Fetches that failed on this side, and the latest such failure.
    local_failures: AtomicU64,
    last_local_failure: Mutex<Option<LocalError>>,
    /// Request spacing, backoff and per-origin concurrency ([`RobotsCache::acquire`]).
    gate: Gate,
    /// TDMRep's `tdmrep.json` files ([`RobotsCache::tdm`]).
    tdm: TdmCache,
    /// Re-reads that found the store knowing less than memory.
    lost_data: AtomicU64,
    /// Fetches by outcome, lookups by source, leases ([`RobotsCache::stats`]).
    stats: Stats,
}

impl std::fmt::Debug for RobotsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RobotsCache")
            .field("origins", &self.inner.slots.entry_count())
            .field("store", &self.inner.store)
            .finish()
    }
}

impl RobotsCache {
    /// An engine on the system clock, with an in-memory store.
    pub fn new(options: CacheOptions) -> Result<RobotsCache, FetchError> {
        Self::with_clock(options, Arc::new(SystemClock))
    }

    /// An engine on the system clock keeping its state in the file at `path` (an
    /// [`EmbeddedStore`](crate::store::EmbeddedStore), created if missing; one process at a
    /// time): the common durable setup in one call. Set the crawler's `User-Agent` in
    /// `options.fetch.user_agent`.
    ///
    /// ```no_run
    /// use crawlgate::engine::{CacheOptions, RobotsCache};
    ///
    /// # async fn crawl() -> Result<(), Box<dyn std::error::Error>> {
    /// let mut options = CacheOptions::default();
    /// options.fetch.user_agent = "MyBot/1.0 (+https://example.com/bot)".into();
    /// let engine = RobotsCache::durable("/var/lib/mybot/robots-state.redb", options)?;
    /// // … crawl; then write what the store has not taken yet.
    /// engine.flush().await?;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "redb")]
    pub fn durable(
        path: impl AsRef<std::path::Path>,
        options: CacheOptions,
    ) -> Result<RobotsCache, OpenError> {
        let store = crate::store::EmbeddedStore::open(path)?;
        Ok(Self::with_store(
            options,
            Arc::new(store),
            Arc::new(SystemClock),
        )?)
    }

    /// An engine on `clock`, with an in-memory store.
    pub fn with_clock(
        options: CacheOptions,
        clock: Arc<dyn Clock>,
    ) -> Result<RobotsCache, FetchError> {
        Self::with_store(options, Arc::new(MemoryStore::new()), clock)
    }

    /// An engine keeping its state in `store`, on `clock`.
    pub fn with_store(
        options: CacheOptions,
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
    ) -> Result<RobotsCache, FetchError> {
        let fetcher = Fetcher::new(options.fetch.clone())?;
        let slots = Cache::builder()
            .max_capacity(options.max_origins)
            // LRU, not moka's default TinyLFU: a new origin is always admitted, so it is never
            // read again from the store (or fetched) because the cache refused it.
            .eviction_policy(EvictionPolicy::lru())
            .build();
        let gate = Gate::new(options.gate.clone(), options.fetch.addresses);
        let tdm = TdmCache::new(options.max_origins);
        Ok(RobotsCache {
            inner: Arc::new(Inner {
                fetcher,
                clock,
                options,
                store,
                slots,
                flights: Mutex::new(HashMap::new()),
                next_flight: AtomicU64::new(1),
                landed: tokio::sync::Notify::new(),
                owner: crate::store::owner_token(),
                health: Health::default(),
                local_failures: AtomicU64::new(0),
                last_local_failure: Mutex::new(None),
                gate,
                tdm,
                lost_data: AtomicU64::new(0),
                stats: Stats::default(),
            }),
        })
    }

    /// May `token` fetch `url`? Reads the origin's state from memory, or from the store, or
    /// fetches its robots.txt (once, however many tasks ask), and applies the failure rules.
    pub async fn check(&self, token: &ProductToken, url: &str) -> Result<Answer, CheckError> {
        Ok(self.check_with_verdict(token, url).await?.0)
    }

    /// [`RobotsCache::check`]'s answer with the verdict it came from.
    pub(crate) async fn check_with_verdict(
        &self,
        token: &ProductToken,
        url: &str,
    ) -> Result<(Answer, Verdict), CheckError> {
        let origin = Origin::from_url(url)?;
        let view = self.inner.view(&origin).await;
        let now = self.inner.clock.now();
        let judgement = view.state.verdict_at(now, &self.inner.options.policy);
        let verdict = judgement.verdict;
        Ok((
            answer(origin, &judgement, view.rules.as_ref(), token, url),
            verdict,
        ))
    }

    /// The engine's options.
    pub fn options(&self) -> &CacheOptions {
        &self.inner.options
    }

    /// [`RobotsCache::check`], with the origin's verdict and the parsed rules the answer came
    /// from, read in the same lookup (a service writing the whole record asks once, not three
    /// times).
    pub async fn check_in_force(
        &self,
        token: &ProductToken,
        url: &str,
    ) -> Result<(Answer, Verdict, Option<Arc<Parsed>>), CheckError> {
        let origin = Origin::from_url(url)?;
        let view = self.inner.view(&origin).await;
        let now = self.inner.clock.now();
        let judgement = view.state.verdict_at(now, &self.inner.options.policy);
        let answer = answer(origin, &judgement, view.rules.as_ref(), token, url);
        Ok((answer, judgement.verdict, view.rules.clone()))
    }

    /// What TDMRep's `/.well-known/tdmrep.json` says about `url`: reserved or not, the TDM
    /// policy, the rule that decided and where the answer comes from. The file is fetched per
    /// origin on request (one fetch however many ask), kept in memory as long as a robots.txt
    /// (`max-age`, else `default_ttl`), read through robots.txt's failure ladder, and kept in
    /// the store as a record of its own per origin (a restart answers without a refetch).
    ///
    /// Only the file: a page's own `tdm-reservation` header or `<meta>` supersedes it (TDMRep
    /// §5, processing priority).
    pub async fn tdm(&self, url: &str) -> Result<TdmAnswer, TdmError> {
        let origin = Origin::from_url(url)?;
        let inner = &self.inner;
        Ok(inner
            .tdm
            .answer(
                &inner.fetcher,
                inner.store.as_ref(),
                &inner.options,
                || inner.clock.now(),
                &origin,
                url,
            )
            .await?)
    }

    /// The origin's verdict now, fetching or refreshing as needed.
    pub async fn judgement(&self, origin: &Origin) -> Judgement {
        let view = self.inner.view(origin).await;
        view.state
            .verdict_at(self.inner.clock.now(), &self.inner.options.policy)
    }

    /// The origin's verdict from a current state: as [`RobotsCache::judgement`], but when the
    /// state is due, it waits for the refresh (one fetch, joined by every caller) instead of
    /// answering from the copy it has. For answers that must reflect the site now (a command
    /// line tool, a report), not for a crawler's hot path.
    pub async fn current(&self, origin: &Origin) -> Judgement {
        let mut view = self.inner.view(origin).await;
        if view.state.is_due(self.inner.clock.now()) && view.failed_locally.is_none() {
            view = self.inner.join(origin, Task::Refresh).await;
        }
        view.state
            .verdict_at(self.inner.clock.now(), &self.inner.options.policy)
    }

    /// Why the origin's last fetch attempt failed on this side, if it did (its state was left
    /// as it was): per origin, where [`RobotsCache::local_failures`] keeps only the latest of all.
    pub async fn local_failure(&self, origin: &Origin) -> Option<LocalError> {
        let slot = self.inner.slots.get(origin).await?;
        let view = slot.view();
        view.failed_locally.as_deref().cloned()
    }

    /// The parsed rules of the origin's last good file, if it has one. Their diagnostics are
    /// empty unless [`CacheOptions::keep_diagnostics`] is set.
    pub async fn rules(&self, origin: &Origin) -> Option<Arc<Parsed>> {
        let view = self.inner.view(origin).await;
        view.rules.clone()
    }

    /// Fetches the origin's robots.txt now, whatever its state says (after the rules were
    /// fixed, say), and returns the new verdict. A fetch already running that started before
    /// this call is not joined, and its result is dropped if it lands later: the recrawl wins.
    pub async fn request_recrawl(&self, origin: &Origin) -> Judgement {
        let inner = &self.inner;
        let at = inner.clock.now();
        let change = Change::RecrawlRequested { at };
        let state = match inner
            .store
            .update(origin, std::slice::from_ref(&change))
            .await
        {
            Ok(updated) => {
                inner.health.ok();
                updated.state
            }
            Err(e) => {
                inner.health.failed(&e);
                // The new epoch goes into memory, so that the recrawl's fetch carries it and is
                // not dropped as stale when the pending changes are written.
                let slot = inner.slots.get(origin).await;
                let old = slot.as_ref().map(|s| s.view());
                let mut state = old.as_ref().map(|v| v.state.clone()).unwrap_or_default();
                state.apply(&change);
                let view = inner
                    .compile(origin, state.clone(), None, old.as_deref())
                    .await;
                match slot {
                    Some(slot) => {
                        slot.set(view);
                        push_pending(&slot, change);
                    }
                    None => {
                        let slot = Arc::new(Slot::new(view));
                        push_pending(&slot, change);
                        inner.slots.insert(origin.clone(), slot).await;
                    }
                }
                state
            }
        };
        let view = self.inner.join(origin, Task::Recrawl(state.epoch())).await;
        view.state
            .verdict_at(inner.clock.now(), &inner.options.policy)
    }

    /// Records a fetch made elsewhere (the crawler's own, a copy from another system) as if
    /// the engine had made it now.
    pub async fn insert(&self, origin: &Origin, fetch: Fetch) {
        let inner = &self.inner;
        let now = inner.clock.now();
        let before = inner.current_state(origin).await;
        let next_due = inner.options.next_due(&fetch, now);
        let record = FetchRecord::new(&fetch, &before, now, now, next_due);
        let hint = inner.rules_of(fetch, &record);
        inner
            .record(origin, Change::Fetched(record), hint, "inserted")
            .await;
    }

    /// Tells the engine whether the origin's pages are being served. It matters only after
    /// 30 days of failing robots.txt fetches: then a site reported up within
    /// [`PolicyOptions::availability_window`](crate::policy::PolicyOptions::availability_window) is crawled as if it had no robots.txt, one that
    /// is down (or not reported lately) is not crawled.
    pub async fn record_page_fetch(&self, origin: &Origin, ok: bool) {
        let at = self.inner.clock.now();
        let change = Change::SiteAvailability(crate::policy::SiteReport { at, up: ok });
        self.inner
            .record(origin, change, None, "site availability")
            .await;
    }

    /// The origin's stored state (versions, last good version, ladder), if any. Read from the
    /// store; while the store is down, the copy in memory.
    pub async fn state(&self, origin: &Origin) -> Option<OriginState> {
        match self.inner.store.load(origin).await {
            Ok(state) => {
                self.inner.health.ok();
                state
            }
            Err(e) => {
                self.inner.health.failed(&e);
                let slot = self.inner.slots.get(origin).await?;
                let state = slot.view().state.clone();
                Some(state)
            }
        }
    }

    /// The store the engine keeps its state in.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.inner.store
    }

    /// The engine's clock.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.inner.clock
    }

    pub(crate) fn gate(&self) -> &Gate {
        &self.inner.gate
    }

    pub(crate) fn owner(&self) -> &str {
        &self.inner.owner
    }

    pub(crate) fn store_ok(&self) {
        self.inner.health.ok();
    }

    pub(crate) fn store_failed(&self, e: &StoreError) {
        self.inner.health.failed(e);
    }

    /// The latest site-availability report in memory (no store read).
    pub(crate) async fn last_site_report(
        &self,
        origin: &Origin,
    ) -> Option<crate::policy::SiteReport> {
        let slot = self.inner.slots.get(origin).await?;
        let view = slot.view();
        view.state.site_report()
    }

    /// Whether the store is answering, and what waits to be written.
    pub fn store_status(&self) -> StoreStatus {
        let pending = self
            .inner
            .slots
            .iter()
            .map(|(_, slot)| lock(&slot.pending).len() as u64)
            .sum();
        let mut status = self.inner.health.status(pending);
        status.lost = self.inner.lost_data.load(Ordering::Relaxed);
        status.durability_warning = self.inner.store.durability_warning();
        status
    }

    /// Asks the store whether it takes what the engine writes, as a readiness check does, and
    /// returns the status after: the changes pending are written (a read alone would say
    /// nothing of a full disk), or, with none pending, an origin nobody crawls is read. The
    /// store's health follows the answer, so a store that answers again is available at once,
    /// without waiting for a request to write. Costs one store round trip per origin with
    /// changes pending (one in all with none); a caller that probes often rate-limits it.
    pub async fn probe_store(&self) -> StoreStatus {
        let mut wrote = false;
        for (origin, slot) in self.inner.slots.iter() {
            if slot.has_pending() {
                wrote = true;
                // Failures are in the health; the others are still tried.
                let _ = self.inner.write_pending(&origin, &slot).await;
            }
        }
        if !wrote {
            if let Ok(probe) = Origin::from_url(PROBE_ORIGIN) {
                match self.inner.store.load(&probe).await {
                    Ok(_) => self.inner.health.ok(),
                    Err(e) => self.inner.health.failed(&e),
                }
            }
        }
        self.store_status()
    }

    /// Waits until no fetch is running, then writes the changes the store did not take yet.
    /// Call it before a short-lived process exits.
    pub async fn flush(&self) -> Result<(), StoreError> {
        loop {
            let notified = self.inner.landed.notified();
            if lock(&self.inner.flights).is_empty() {
                break;
            }
            notified.await;
        }
        let mut result = Ok(());
        for (origin, slot) in self.inner.slots.iter() {
            if let Err(e) = self.inner.write_pending(&origin, &slot).await {
                result = Err(e);
            }
        }
        result
    }

    /// Now, by the engine's clock: the time its fetches are recorded at.
    pub fn now(&self) -> SystemTime {
        self.inner.clock.now()
    }

    /// Fetches that failed on this side (file descriptors, memory…) since the engine started.
    /// They are retried with backoff and never recorded in a state: an origin whose fetch
    /// keeps failing locally keeps the state it had (a new one stays "not fetched yet").
    pub fn local_failures(&self) -> LocalFailures {
        LocalFailures {
            count: self.inner.local_failures.load(Ordering::Relaxed),
            last: lock(&self.inner.last_local_failure).clone(),
        }
    }

    /// The engine's counters since it started: robots.txt fetches by outcome, lookups by
    /// where they were answered from, fetch leases.
    pub fn stats(&self) -> CacheStats {
        self.inner.stats.snapshot()
    }

    /// How many origins are in memory (approximate while moka settles).
    pub fn origin_count(&self) -> u64 {
        self.inner.slots.entry_count()
    }

    /// Whether the origin's compiled rules are in memory (not evicted).
    pub async fn in_memory(&self, origin: &Origin) -> bool {
        self.inner.slots.run_pending_tasks().await;
        self.inner.slots.contains_key(origin)
    }
}

impl Inner {
    /// The origin's view: from memory (starting a background refresh if it is due or its copy
    /// old), else from a flight.
    async fn view(self: &Arc<Self>, origin: &Origin) -> Arc<View> {
        if let Some(slot) = self.slots.get(origin).await {
            let view = slot.view();
            // A state without a fetch (site-availability reports, a recrawl request) never
            // answers for robots.txt: the check waits for the fetch, as for an origin not in
            // memory. After a fetch that failed on this side, it answers "not fetched yet"
            // rather than chain another at once.
            if view.state.last_fetch().is_none() && view.failed_locally.is_none() {
                self.stats.miss();
                return self.join(origin, Task::Refresh).await;
            }
            self.stats.memory_hit();
            let now = self.clock.now();
            // A shared store's copy goes stale, and changes the store refused are retried: both
            // at most once per `sync_interval`, so a dead store is not hammered once per check.
            let resync = now
                .duration_since(view.synced_at)
                .is_ok_and(|age| age >= self.options.sync_interval)
                && (self.store.is_shared() || slot.has_pending());
            if view.state.is_due(now) || resync {
                self.start(origin, Task::Refresh);
            }
            return view;
        }
        self.join(origin, Task::Cold).await
    }

    /// Joins the origin's flight, or starts one; waits for its view.
    async fn join(self: &Arc<Self>, origin: &Origin, task: Task) -> Arc<View> {
        let mut done = self.start(origin, task);
        loop {
            if let Some(view) = done.borrow_and_update().clone() {
                return view;
            }
            if done.changed().await.is_err() {
                // The flight's task ended without a result (its runtime is shutting down):
                // answer from what there is.
                let state = self.current_state(origin).await;
                return Arc::new(View {
                    state,
                    rules: None,
                    synced_at: self.clock.now(),
                    failed_locally: None,
                });
            }
        }
    }

    /// Starts `task` on `origin` unless a flight that serves it is running; returns the flight
    /// to wait on.
    fn start(self: &Arc<Self>, origin: &Origin, task: Task) -> watch::Receiver<Option<Arc<View>>> {
        let mut flights = lock(&self.flights);
        if let Some(f) = flights.get(origin) {
            // Any flight serves a cold read or a refresh; a recrawl needs one that started
            // after it was requested.
            let serves = match task {
                Task::Recrawl(epoch) => f.epoch >= epoch,
                Task::Cold | Task::Refresh => true,
            };
            if serves {
                return f.done.clone();
            }
        }
        let id = self.next_flight.fetch_add(1, Ordering::Relaxed);
        let epoch = match task {
            Task::Recrawl(epoch) => epoch,
            _ => 0,
        };
        let (tx, rx) = watch::channel(None);
        flights.insert(
            origin.clone(),
            Flight {
                id,
                epoch,
                done: rx.clone(),
            },
        );
        drop(flights);
        let inner = self.clone();
        let origin = origin.clone();
        // Detached: the callers only wait for it.
        tokio::spawn(async move {
            let view = match task {
                Task::Cold => inner.cold(&origin).await,
                Task::Refresh => inner.refresh(&origin).await,
                Task::Recrawl(_) => inner.fetch_and_record(&origin, None, true).await,
            };
            // A cold read of a due state refreshes it at once, unless that fetch just failed
            // on this side (the next check tries again).
            let due = view.state.is_due(inner.clock.now()) && view.failed_locally.is_none();
            inner.land(&origin, id, view, tx).await;
            if task == Task::Cold && due {
                inner.start(&origin, Task::Refresh);
            }
        });
        rx
    }

    /// Installs a flight's view, ends the flight, wakes its callers.
    async fn land(
        &self,
        origin: &Origin,
        id: u64,
        view: Arc<View>,
        tx: watch::Sender<Option<Arc<View>>>,
    ) {
        // Into memory before the flight ends, so that no caller finds neither.
        self.install(origin, view.clone()).await;
        {
            let mut flights = lock(&self.flights);
            if flights.get(origin).is_some_and(|f| f.id == id) {
                flights.remove(origin);
            }
        }
        tx.send_replace(Some(view));
        self.landed.notify_waiters();
    }

    /// An origin not in memory: its stored state, or a fetch if it was never fetched.
    async fn cold(&self, origin: &Origin) -> Arc<View> {
        match self.store.load(origin).await {
            // Fetched before: answer from it (a due one is refreshed once it is in memory).
            Ok(Some(state)) if state.last_fetch().is_some() => {
                self.health.ok();
                self.stats.store_hit();
                self.compile(origin, state, None, None).await
            }
            Ok(known) => {
                self.health.ok();
                self.stats.miss();
                self.fetch_and_record(origin, known, false).await
            }
            Err(e) => {
                self.health.failed(&e);
                self.stats.miss();
                self.fetch_and_record(origin, None, false).await
            }
        }
    }

    /// A due origin, or an old copy: write what is pending, re-read, fetch if due.
    async fn refresh(&self, origin: &Origin) -> Arc<View> {
        let slot = self.slots.get(origin).await;
        let old = slot.as_ref().map(|s| s.view());
        // Writing what is pending gives the stored state back; otherwise it is read. (Errors
        // are counted in `health`; the copy in memory goes on.)
        let written = match &slot {
            Some(slot) => self.write_pending(origin, slot).await.ok().flatten(),
            None => None,
        };
        let state = match written {
            Some(state) => Some(state),
            None => match self.store.load(origin).await {
                Ok(state) => {
                    self.health.ok();
                    self.keep_knowledge(origin, state, old.as_deref()).await
                }
                Err(e) => {
                    self.health.failed(&e);
                    old.as_ref().map(|v| v.state.clone())
                }
            },
        };
        match state {
            Some(state) if !state.is_due(self.clock.now()) => {
                self.compile(origin, state, None, old.as_deref()).await
            }
            known => self.fetch_and_record(origin, known, false).await,
        }
    }

    /// `stored`, just read, unless it knows less than memory's copy `old` (the store lost
    /// data: a Redis restarted without persistence, flushed, or evicting): then memory's copy,
    /// written back to the store. Knowledge of a good version only grows in a process.
    async fn keep_knowledge(
        &self,
        origin: &Origin,
        stored: Option<OriginState>,
        old: Option<&View>,
    ) -> Option<OriginState> {
        let Some(old) = old else { return stored };
        let lost = match &stored {
            Some(state) => state.knows_less_than(&old.state),
            None => old.state.last_fetch().is_some(),
        };
        if !lost {
            return stored;
        }
        tracing::warn!(
            target: STORE_TARGET,
            origin = %origin,
            "the store knows less of this origin than memory (it lost data): memory's copy is kept and written back"
        );
        self.lost_data.fetch_add(1, Ordering::Relaxed);
        let Some(restore) = restore_of(old) else {
            return Some(old.state.clone());
        };
        match self
            .store
            .update(origin, std::slice::from_ref(&restore))
            .await
        {
            Ok(updated) if !updated.state.knows_less_than(&old.state) => Some(updated.state),
            Ok(_) => Some(old.state.clone()),
            Err(e) => {
                self.health.failed(&e);
                Some(old.state.clone())
            }
        }
    }

    /// Fetches (holding the lease when the store gives it), records, and returns the view.
    /// `known` is the state as last read (`None`: nothing, or the store is down). A `forced`
    /// fetch (a recrawl) does not wait for another holder of the lease.
    async fn fetch_and_record(
        &self,
        origin: &Origin,
        mut known: Option<OriginState>,
        forced: bool,
    ) -> Arc<View> {
        if known.is_none() {
            // The store had nothing or is down: the copy in memory, if any, is what we know.
            if let Some(slot) = self.slots.get(origin).await {
                known = Some(slot.view().state.clone());
            }
        }
        let ttl = self.options.lease_ttl();
        let waited_since = tokio::time::Instant::now();
        let mut leased = false;
        let mut waited = false;
        loop {
            match self.store.try_lease(origin, &self.owner, ttl).await {
                Ok(true) => {
                    self.health.ok();
                    self.stats.lease_taken();
                    leased = true;
                    // Someone may have fetched between our read and the lease.
                    let memory = self.slots.get(origin).await.map(|s| s.view());
                    let loaded = match self.store.load(origin).await {
                        Ok(state) => {
                            Ok(self.keep_knowledge(origin, state, memory.as_deref()).await)
                        }
                        Err(e) => Err(e),
                    };
                    match loaded {
                        Ok(Some(state)) if !forced && !state.is_due(self.clock.now()) => {
                            let _ = self.store.release_lease(origin, &self.owner).await;
                            return self.compile(origin, state, None, memory.as_deref()).await;
                        }
                        Ok(state) => known = state,
                        Err(e) => self.health.failed(&e),
                    }
                    break;
                }
                Ok(false) if forced => {
                    // A recrawl fetches now, with the epoch it created.
                    if let Ok(Some(state)) = self.store.load(origin).await {
                        known = Some(state);
                    }
                    break;
                }
                Ok(false) => {
                    // Another process is fetching: wait for its result, for at most
                    // `lease_wait` (the holder may have died; its lease lives on until `ttl`).
                    if !waited {
                        waited = true;
                        self.stats.lease_waited();
                    }
                    if waited_since.elapsed() >= self.options.lease_wait.min(ttl) {
                        self.stats.lease_lost();
                        let memory = self.slots.get(origin).await.map(|s| s.view());
                        if let Some(state) = known.take().filter(|s| s.last_fetch().is_some()) {
                            tracing::warn!(target: TARGET, origin = %origin, "another process's fetch lease outlived the lease wait: answering from the copy");
                            return self.compile(origin, state, None, memory.as_deref()).await;
                        }
                        tracing::warn!(target: TARGET, origin = %origin, "another process's fetch lease outlived the lease wait and nothing is known: fetching without the lease");
                        break;
                    }
                    tokio::time::sleep(LEASE_POLL).await;
                    if let Ok(Some(state)) = self.store.load(origin).await {
                        if !state.is_due(self.clock.now()) {
                            let memory = self.slots.get(origin).await.map(|s| s.view());
                            if !memory
                                .as_ref()
                                .is_some_and(|m| state.knows_less_than(&m.state))
                            {
                                return self.compile(origin, state, None, memory.as_deref()).await;
                            }
                        }
                    }
                }
                Err(e) => {
                    // Store down: fetch on our own rather than not at all.
                    self.health.failed(&e);
                    break;
                }
            }
        }
        let state = known.unwrap_or_default();
        let started = self.clock.now();
        let fetched = self.fetch_retrying_local(origin, &state).await;
        let fetch = match fetched {
            Ok(fetch) => {
                self.stats.fetch(FetchClass::of(&fetch.outcome));
                fetch
            }
            Err(local) => {
                self.stats.fetch(FetchClass::LocalFailure);
                // Nothing was learned: the state stays as it was, due, and is fetched again on
                // the next check.
                if leased {
                    if let Err(e) = self.store.release_lease(origin, &self.owner).await {
                        self.health.failed(&e);
                    }
                }
                let old = self.slots.get(origin).await.map(|s| s.view());
                let view = self.compile(origin, state, None, old.as_deref()).await;
                return Arc::new(View {
                    state: view.state.clone(),
                    rules: view.rules.clone(),
                    synced_at: view.synced_at,
                    failed_locally: Some(Box::new(local)),
                });
            }
        };
        let at = self.clock.now();
        let next_due = self.options.next_due(&fetch, at);
        let record = FetchRecord::new(&fetch, &state, started, at, next_due);
        let hint = self.rules_of(fetch, &record);
        let view = self
            .record_on(
                origin,
                state,
                Change::Fetched(record),
                hint,
                "robots.txt fetched",
            )
            .await;
        if leased {
            if let Err(e) = self.store.release_lease(origin, &self.owner).await {
                self.health.failed(&e);
            }
        }
        view
    }

    /// Fetches, retrying failures on this side ([`LocalError`]) with backoff for up to
    /// [`LOCAL_RETRY_FOR`]; the last of them if they went on that long. A local failure is
    /// never recorded: it says nothing about the site.
    async fn fetch_retrying_local(
        &self,
        origin: &Origin,
        state: &OriginState,
    ) -> Result<Fetch, LocalError> {
        let validators = state.validators();
        let started = tokio::time::Instant::now();
        let mut wait = LOCAL_RETRY_FIRST;
        loop {
            match self.fetcher.fetch_with(origin, validators.as_ref()).await {
                Ok(fetch) => return Ok(fetch),
                Err(e) => {
                    let count = self.local_failures.fetch_add(1, Ordering::Relaxed) + 1;
                    *lock(&self.last_local_failure) = Some(e.clone());
                    if matches!(e, LocalError::Busy(_)) {
                        // The site is slow and this side is full of slow requests: asking
                        // again at once would only load the slow site; the next check asks.
                        tracing::info!(target: TARGET, origin = %origin, error = %e, local_failures = count, "fetch given up on this side: nothing recorded, the next check asks again");
                        return Err(e);
                    }
                    if started.elapsed() + wait > LOCAL_RETRY_FOR {
                        tracing::warn!(target: TARGET, origin = %origin, error = %e, local_failures = count, "fetch failed on this side for too long: the state is left as it was");
                        return Err(e);
                    }
                    tracing::warn!(target: TARGET, origin = %origin, error = %e, local_failures = count, retry_in_ms = wait.as_millis() as u64, "fetch failed on this side: retrying, nothing recorded");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(LOCAL_RETRY_MAX_WAIT);
                }
            }
        }
    }

    /// The origin's state as best known now: memory, else the store, else empty.
    async fn current_state(&self, origin: &Origin) -> OriginState {
        if let Some(slot) = self.slots.get(origin).await {
            return slot.view().state.clone();
        }
        match self.store.load(origin).await {
            Ok(state) => state.unwrap_or_default(),
            Err(e) => {
                self.health.failed(&e);
                OriginState::default()
            }
        }
    }

    /// Records a change made outside a flight and updates the copy in memory.
    async fn record(
        &self,
        origin: &Origin,
        change: Change,
        hint: Option<(Digest, Arc<Parsed>)>,
        what: &'static str,
    ) {
        let state = self.current_state(origin).await;
        let view = self.record_on(origin, state, change, hint, what).await;
        self.install(origin, view).await;
    }

    /// Puts `view` in memory: in the origin's slot, or a new one.
    async fn install(&self, origin: &Origin, view: Arc<View>) {
        match self.slots.get(origin).await {
            Some(slot) => slot.set(view),
            None => {
                self.slots
                    .insert(origin.clone(), Arc::new(Slot::new(view)))
                    .await
            }
        }
    }

    /// Writes `change` (after whatever is pending) to the store; if the store fails, applies it
    /// to `local` and keeps it pending. Returns the new view.
    async fn record_on(
        &self,
        origin: &Origin,
        local: OriginState,
        change: Change,
        hint: Option<(Digest, Arc<Parsed>)>,
        what: &'static str,
    ) -> Arc<View> {
        let now = self.clock.now();
        let before = local.verdict_at(now, &self.options.policy);
        let slot = self.slots.get(origin).await;
        // Taken, not copied: two writers never send (or drop) the same pending change.
        let mut changes = slot.as_ref().map(|s| take_pending(s)).unwrap_or_default();
        let restore = slot.as_ref().and_then(|s| restore_of(&s.view()));
        let restoring = restore.is_some();
        changes.extend(restore);
        changes.push(change.clone());
        // Changes the store refused, for an origin not in memory yet.
        let mut unsaved = None;
        let (state, applied) = match self.store.update(origin, &changes).await {
            Ok(updated) => {
                self.health.ok();
                let applied = updated.applied.last().copied();
                (updated.state, applied)
            }
            Err(e) => {
                self.health.failed(&e);
                let mut state = local;
                let applied = state.apply(&change);
                if restoring {
                    // The copy of memory is not a change of its own: it is made again from
                    // the view when the pending changes are written.
                    let restore = changes.len() - 2;
                    changes.remove(restore);
                }
                match &slot {
                    Some(slot) => restore_pending(slot, changes),
                    None => unsaved = Some(changes),
                }
                (state, Some(applied))
            }
        };
        let old = slot.as_ref().map(|s| s.view());
        let view = self.compile(origin, state, hint, old.as_deref()).await;
        if let Some(changes) = unsaved {
            // Kept with the view installed for this origin, so that they are written later.
            let slot = Arc::new(Slot::new(view.clone()));
            restore_pending(&slot, changes);
            self.slots.insert(origin.clone(), slot).await;
        }
        let after = view.state.verdict_at(now, &self.options.policy);
        if let Change::Fetched(r) = &change {
            tracing::info!(
                target: TARGET,
                origin = %origin,
                outcome = r.content.as_str(),
                applied = ?applied,
                next_fetch_in_s = r.next_due.duration_since(now).unwrap_or_default().as_secs(),
                "{what}"
            );
        }
        if before.verdict != after.verdict {
            tracing::info!(
                target: TARGET,
                origin = %origin,
                from = before.verdict.as_str(),
                to = after.verdict.as_str(),
                reason = %after.reason,
                "origin verdict changed"
            );
        }
        view
    }

    /// Writes the slot's pending changes, if any; returns the stored state after them.
    async fn write_pending(
        &self,
        origin: &Origin,
        slot: &Slot,
    ) -> Result<Option<OriginState>, StoreError> {
        let changes = take_pending(slot);
        if changes.is_empty() {
            return Ok(None);
        }
        let mut sent = changes.clone();
        sent.extend(restore_of(&slot.view()));
        match self.store.update(origin, &sent).await {
            Ok(updated) => {
                self.health.ok();
                let old = slot.view();
                let view = self
                    .compile(origin, updated.state.clone(), None, Some(&old))
                    .await;
                slot.set(view);
                tracing::info!(target: STORE_TARGET, origin = %origin, changes = changes.len(), "pending changes written");
                Ok(Some(updated.state))
            }
            Err(e) => {
                self.health.failed(&e);
                restore_pending(slot, changes);
                Err(e)
            }
        }
    }

    /// The rules `fetch` brings, as the views keep them ([`Inner::kept`]), under the digest
    /// `record` computed. Takes the fetch so that its parse is usually the only reference left
    /// and its diagnostics can be dropped in place.
    fn rules_of(&self, fetch: Fetch, record: &FetchRecord) -> Option<(Digest, Arc<Parsed>)> {
        let digest = record.content.digest()?;
        match fetch.outcome {
            FetchOutcome::Rules { mut parsed, .. } => {
                if !self.options.keep_diagnostics {
                    // Shared with the caller, they stay as the caller keeps them anyway.
                    if let Some(p) = Arc::get_mut(&mut parsed) {
                        p.diagnostics = Vec::new();
                    }
                }
                Some((digest, parsed))
            }
            _ => None,
        }
    }

    /// `parsed` as a view keeps it: without its diagnostics unless the options keep them
    /// (nothing on the engine's paths reads them, and they cost 40% of the rules).
    fn kept(&self, mut parsed: Parsed) -> Arc<Parsed> {
        if !self.options.keep_diagnostics {
            parsed.diagnostics = Vec::new();
        }
        Arc::new(parsed)
    }

    /// A view of `state`: its good file parsed, reusing `hint` or `old`'s rules when they are
    /// that file, else parsing the stored body.
    async fn compile(
        &self,
        origin: &Origin,
        state: OriginState,
        hint: Option<(Digest, Arc<Parsed>)>,
        old: Option<&View>,
    ) -> Arc<View> {
        let synced_at = self.clock.now();
        let Some(file) = state.good_file() else {
            return Arc::new(View {
                state,
                rules: None,
                synced_at,
                failed_locally: None,
            });
        };
        let digest = file.digest;
        let reuse = hint
            .filter(|(d, _)| *d == digest)
            .map(|(_, p)| p)
            .or_else(|| {
                old.filter(|v| v.state.good_file().is_some_and(|f| f.digest == digest))
                    .and_then(|v| v.rules.clone())
            });
        let rules = match reuse {
            Some(rules) => Some(rules),
            None => match self.store.body(origin, &digest).await {
                Ok(Some(body)) => {
                    let options = Options {
                        mode: self.options.fetch.mode,
                        max_bytes: self.options.fetch.max_bytes,
                        // Nothing here reads them: the fetch that stored this body counted
                        // its problems when it was fetched.
                        diagnostics: self.options.keep_diagnostics,
                    };
                    Some(self.kept(Robots::parse_with(&body, &options)))
                }
                Ok(None) => {
                    tracing::error!(target: STORE_TARGET, origin = %origin, digest = %digest, "stored body missing: the origin is treated as disallowed until it is fetched again");
                    None
                }
                Err(e) => {
                    self.health.failed(&e);
                    None
                }
            },
        };
        Arc::new(View {
            state,
            rules,
            synced_at,
            failed_locally: None,
        })
    }
}

/// The change that writes `view`'s state back to a store that lost part of it (it is
/// [`Applied::Stale`](crate::policy::Applied::Stale) where the store knows as much): for a view
/// that knows of a fetch.
fn restore_of(view: &View) -> Option<Change> {
    view.state
        .last_fetch()
        .is_some()
        .then(|| Change::Restore(Box::new(view.state.clone())))
}

fn push_pending(slot: &Slot, change: Change) {
    restore_pending(slot, vec![change]);
}

/// The slot's pending changes, leaving none.
fn take_pending(slot: &Slot) -> Vec<Change> {
    std::mem::take(&mut *lock(&slot.pending))
}

/// Puts `changes` (taken earlier, or new) back, before any pushed meanwhile, keeping the
/// newest [`MAX_PENDING`].
fn restore_pending(slot: &Slot, mut changes: Vec<Change>) {
    let mut pending = lock(&slot.pending);
    changes.append(&mut pending);
    let excess = changes.len().saturating_sub(MAX_PENDING);
    if excess > 0 {
        tracing::warn!(target: STORE_TARGET, dropped = excess, "store down too long: oldest pending changes dropped");
        changes.drain(..excess);
    }
    *pending = changes;
}

/// The store's health as the engine sees it.
#[derive(Debug, Default)]
struct Health {
    failing: AtomicBool,
    errors: AtomicU64,
    last_error: Mutex<Option<String>>,
}

impl Health {
    fn failed(&self, e: &StoreError) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        *lock(&self.last_error) = Some(e.to_string());
        if !self.failing.swap(true, Ordering::AcqRel) {
            tracing::warn!(
                target: STORE_TARGET,
                error = %e,
                "state store unavailable: answering from the states in memory; changes are kept and written when it answers again"
            );
        }
    }

    fn ok(&self) {
        if self.failing.swap(false, Ordering::AcqRel) {
            tracing::info!(target: STORE_TARGET, "state store available again");
        }
    }

    fn status(&self, pending: u64) -> StoreStatus {
        StoreStatus {
            available: !self.failing.load(Ordering::Acquire),
            errors: self.errors.load(Ordering::Relaxed),
            last_error: lock(&self.last_error).clone(),
            pending,
            lost: 0,
            durability_warning: None,
        }
    }
}
