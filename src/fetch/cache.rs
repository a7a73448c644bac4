//! One robots.txt state per origin, fetched once however many tasks ask, refreshed while
//! callers keep getting answers ([RFC 9309 §2.4], SPEC §4).
//!
//! Entries live in a moka cache bounded by [`CacheOptions::max_origins`]; moka's `get_with`
//! makes concurrent callers on a cold origin wait for one fetch. Freshness is ours, not moka's,
//! and is measured with the injected [`Clock`] so that days pass in a test in milliseconds:
//! a 2xx is fresh for `Cache-Control: max-age` clamped to [`CacheOptions::min_ttl`,
//! `max_ttl`] (24 hours without one), a 4xx for 24 hours, a failure until the next retry
//! (`Retry-After` when given, else [`CacheOptions::retry_interval`]). A stale entry is
//! refreshed by one background task while every caller is answered from the current state.
//!
//! [RFC 9309 §2.4]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.4

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use moka::future::Cache;

use super::client::{FetchError, FetchOptions, Fetcher};
use crate::origin::{Origin, OriginError};
use crate::policy::{
    Fetch, FetchOutcome, Judgement, OriginState, PolicyOptions, Verdict, VerdictReason,
};
use crate::robots::{is_robots_txt, ProductToken, RuleKind};

/// The time source of the cache. Inject one in tests to make hours pass instantly.
pub trait Clock: Send + Sync + 'static {
    /// The current time.
    fn now(&self) -> SystemTime;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock that moves only when told: for tests and simulations.
#[derive(Debug)]
pub struct ManualClock(Mutex<SystemTime>);

impl ManualClock {
    /// A clock showing `start`.
    pub fn new(start: SystemTime) -> ManualClock {
        ManualClock(Mutex::new(start))
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        let mut t = lock(&self.0);
        *t += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        *lock(&self.0)
    }
}

/// Options of a [`RobotsCache`].
#[derive(Debug, Clone)]
pub struct CacheOptions {
    /// How to fetch.
    pub fetch: FetchOptions,
    /// The failure ladder.
    pub policy: PolicyOptions,
    /// Freshness of a robots.txt without `Cache-Control: max-age`, and of a 4xx: 24 hours.
    pub default_ttl: Duration,
    /// `max-age` is clamped to at least this (default 1 minute)…
    pub min_ttl: Duration,
    /// …and at most this (default 7 days).
    pub max_ttl: Duration,
    /// When to retry after a failure without `Retry-After` (default 5 minutes).
    pub retry_interval: Duration,
    /// `Retry-After` is honoured up to this (default 24 hours).
    pub max_retry_after: Duration,
    /// How many origins are kept; the least recently used go first (default 10,000).
    pub max_origins: u64,
}

impl Default for CacheOptions {
    fn default() -> Self {
        CacheOptions {
            fetch: FetchOptions::default(),
            policy: PolicyOptions::default(),
            default_ttl: Duration::from_secs(24 * 3600),
            min_ttl: Duration::from_secs(60),
            max_ttl: Duration::from_secs(7 * 86_400),
            retry_interval: Duration::from_secs(300),
            max_retry_after: Duration::from_secs(24 * 3600),
            max_origins: 10_000,
        }
    }
}

/// Why a check could not be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// The URL has no robots.txt origin.
    #[error(transparent)]
    Origin(#[from] OriginError),
}

/// The rule that decided, owned (the rules may be replaced by a refresh at any time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecidingRule {
    /// Allow or disallow.
    pub kind: RuleKind,
    /// 1-based line in the robots.txt.
    pub line: u32,
    /// The line as written.
    pub text: String,
}

/// The engine's answer for one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// May the agent fetch the URL?
    pub allowed: bool,
    /// The URL's robots.txt origin.
    pub origin: Origin,
    /// Why the origin's verdict is what it is (fetched, no robots.txt, unreachable…).
    pub reason: VerdictReason,
    /// The rule that decided, when the verdict was a set of rules and a rule matched.
    pub rule: Option<DecidingRule>,
}

/// Per-origin entry.
#[derive(Debug)]
struct Entry {
    state: Mutex<OriginState>,
    /// When the next fetch is due.
    due: Mutex<SystemTime>,
    refreshing: AtomicBool,
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
    entries: Cache<Origin, Arc<Entry>>,
}

impl std::fmt::Debug for RobotsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RobotsCache")
            .field("origins", &self.inner.entries.entry_count())
            .finish()
    }
}

impl RobotsCache {
    /// An engine on the system clock.
    pub fn new(options: CacheOptions) -> Result<RobotsCache, FetchError> {
        Self::with_clock(options, Arc::new(SystemClock))
    }

    /// An engine on `clock`.
    pub fn with_clock(
        options: CacheOptions,
        clock: Arc<dyn Clock>,
    ) -> Result<RobotsCache, FetchError> {
        let fetcher = Fetcher::new(options.fetch.clone())?;
        Ok(RobotsCache {
            inner: Arc::new(Inner {
                fetcher,
                clock,
                entries: Cache::builder().max_capacity(options.max_origins).build(),
                options,
            }),
        })
    }

    /// May `token` fetch `url`? Fetches the origin's robots.txt when it is not cached (once,
    /// however many tasks ask), and applies the failure rules.
    pub async fn check(&self, token: &ProductToken, url: &str) -> Result<Answer, CheckError> {
        let origin = Origin::from_url(url)?;
        let judgement = self.judgement(&origin).await;
        Ok(answer(origin, &judgement, token, url))
    }

    /// The origin's verdict now, fetching or refreshing as needed.
    pub async fn judgement(&self, origin: &Origin) -> Judgement {
        let entry = self.entry(origin).await;
        let now = self.inner.clock.now();
        if now >= *lock(&entry.due) {
            self.spawn_refresh(origin.clone(), entry.clone());
        }
        let state = lock(&entry.state);
        state.verdict_at(now, &self.inner.options.policy)
    }

    /// Fetches the origin's robots.txt now, whatever the cache holds (after the rules were
    /// fixed, say), and returns the new verdict.
    pub async fn request_recrawl(&self, origin: &Origin) -> Judgement {
        let entry = self.entry(origin).await;
        let fetch = self.inner.fetcher.fetch(origin).await;
        self.inner.apply(origin, &entry, fetch);
        let state = lock(&entry.state);
        state.verdict_at(self.inner.clock.now(), &self.inner.options.policy)
    }

    /// Records a fetch made elsewhere (a copy persisted across restarts, the crawler's own
    /// fetch) as if the engine had made it now: the origin is then served from the cache
    /// until the fetch goes stale.
    pub async fn insert(&self, origin: &Origin, fetch: Fetch) {
        let inner = &self.inner;
        let entry = inner
            .entries
            .get_with_by_ref(origin, async {
                Arc::new(Entry {
                    state: Mutex::new(OriginState::new()),
                    due: Mutex::new(inner.clock.now()),
                    refreshing: AtomicBool::new(false),
                })
            })
            .await;
        inner.apply(origin, &entry, fetch);
    }

    /// Tells the engine whether the origin's pages are being served. It matters only after
    /// 30 days of failing robots.txt fetches: then a site that is up is crawled as if it had
    /// no robots.txt, one that is down is not crawled.
    pub async fn record_page_fetch(&self, origin: &Origin, ok: bool) {
        if let Some(entry) = self.inner.entries.get(origin).await {
            lock(&entry.state).record_site_availability(ok);
        }
    }

    /// A snapshot of the origin's state (last fetch, last good version, history), if cached.
    pub async fn state(&self, origin: &Origin) -> Option<OriginState> {
        let entry = self.inner.entries.get(origin).await?;
        let state = lock(&entry.state).clone();
        Some(state)
    }

    /// How many origins are cached (approximate while moka settles).
    pub fn origin_count(&self) -> u64 {
        self.inner.entries.entry_count()
    }

    /// The entry, fetched first if the origin is cold: concurrent callers wait for that one
    /// fetch.
    async fn entry(&self, origin: &Origin) -> Arc<Entry> {
        let inner = &self.inner;
        inner
            .entries
            .get_with_by_ref(origin, async {
                let entry = Arc::new(Entry {
                    state: Mutex::new(OriginState::new()),
                    due: Mutex::new(inner.clock.now()),
                    refreshing: AtomicBool::new(true),
                });
                let fetch = inner.fetcher.fetch(origin).await;
                inner.apply(origin, &entry, fetch);
                entry.refreshing.store(false, Ordering::Release);
                entry
            })
            .await
    }

    /// One refresh in the background, unless one is running already.
    fn spawn_refresh(&self, origin: Origin, entry: Arc<Entry>) {
        if entry
            .refreshing
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return;
        }
        let inner = self.inner.clone();
        tokio::spawn(async move {
            let fetch = inner.fetcher.fetch(&origin).await;
            inner.apply(&origin, &entry, fetch);
            entry.refreshing.store(false, Ordering::Release);
        });
    }
}

impl Inner {
    /// Records a fetch and schedules the next one.
    fn apply(&self, origin: &Origin, entry: &Entry, fetch: Fetch) {
        let now = self.clock.now();
        let o = &self.options;
        let ttl = match &fetch.outcome {
            FetchOutcome::Rules { .. } => fetch
                .max_age
                .map_or(o.default_ttl, |a| a.clamp(o.min_ttl, o.max_ttl)),
            FetchOutcome::Unavailable(_) => o.default_ttl,
            FetchOutcome::Unreachable(_) => fetch
                .retry_after
                .map_or(o.retry_interval, |r| r.min(o.max_retry_after)),
        };
        let outcome = fetch.outcome.as_str();
        let mut state = lock(&entry.state);
        let before = state.verdict_at(now, &o.policy).verdict.as_str();
        let changed = state.record(now, fetch);
        let after = state.verdict_at(now, &o.policy);
        drop(state);
        *lock(&entry.due) = now + ttl;
        tracing::info!(
            target: "crawlgate::cache",
            origin = %origin,
            outcome,
            new_version = changed,
            next_fetch_in_s = ttl.as_secs(),
            "robots.txt fetched"
        );
        let after_name = after.verdict.as_str();
        if before != after_name {
            tracing::info!(
                target: "crawlgate::cache",
                origin = %origin,
                from = before,
                to = after_name,
                reason = ?after.reason,
                "origin state changed"
            );
        }
    }
}

/// Applies a judgement to one URL.
pub(crate) fn answer(
    origin: Origin,
    judgement: &Judgement,
    token: &ProductToken,
    url: &str,
) -> Answer {
    let (allowed, rule) = match &judgement.verdict {
        Verdict::Rules(parsed) => {
            let d = parsed.robots.check(token, url);
            let rule = d.rule().map(|r| DecidingRule {
                kind: r.kind,
                line: r.line,
                text: r.text.to_owned(),
            });
            (d.allowed, rule)
        }
        Verdict::AllowAll => (true, None),
        // robots.txt itself stays fetchable (RFC 9309 §2.2.2).
        Verdict::DisallowAll => (is_robots_txt(&crate::request_path(url)), None),
    };
    Answer {
        allowed,
        origin,
        reason: judgement.reason.clone(),
        rule,
    }
}

/// Locks, recovering from a poisoned lock: the data are plain values, still consistent.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
