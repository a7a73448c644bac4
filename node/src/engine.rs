//! The engine and its gate, async: `RobotsCache` (`check`, `acquire`, `flush`), `Answer`,
//! `Permit` (`record`, `recordUnreachable`, `release`) and `Recorded`.
//!
//! The engine's futures run on napi's tokio runtime; each method returns a Promise.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crawlgate::engine::{
    Answer as EngineAnswer, CacheOptions, Permit as EnginePermit, Recorded as EngineRecorded,
    Refused, RobotsCache as Engine, SystemClock,
};
use crawlgate::http::{AddressPolicy, HtmlRobotsTxt};
use crawlgate::policy::{GateOptions, KeyKind};
use crawlgate::store::{EmbeddedStore, MemoryStore, RedisOptions, RedisStore, Store};
use crawlgate::ProductToken;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::input;
use crate::robots::RequestRate;

/// How to build a `RobotsCache`. Times are in seconds; an absent one is the engine's
/// default (`GateOptions::default()` in Rust).
#[napi(object, object_to_js = false)]
pub struct CacheConfig {
    /// Where the state is kept: absent (in memory), a file path (a crash-safe state file,
    /// one process at a time) or `"redis://HOST[:PORT][/DB]"` (a fleet shares robots.txt
    /// fetches and the gate's schedule).
    pub state: Option<String>,
    /// The crawler's product token or User-Agent header: the groups obeyed.
    pub agent: String,
    /// The `User-Agent` header sent when fetching robots.txt (default: `agent`).
    pub user_agent: Option<String>,
    /// `"rfc"` (default) or `"google"`.
    pub mode: Option<String>,
    /// The spacing floor between two requests of one politeness key (default 1 s).
    pub default_delay: Option<f64>,
    /// The longest spacing honoured (default 60 s).
    pub max_delay: Option<f64>,
    /// Requests of one key in flight at once (in the process; with Redis, in the fleet).
    pub max_concurrency: Option<u32>,
    /// The first backoff after a 429 or 503 without `Retry-After`.
    pub backoff_base: Option<f64>,
    /// The longest backoff.
    pub backoff_max: Option<f64>,
    /// The longest `Retry-After` honoured.
    pub max_retry_after: Option<f64>,
    /// The robots.txt fetch's total timeout.
    pub timeout: Option<f64>,
    /// Refuse to fetch robots.txt from private, loopback and link-local addresses.
    pub public_only: Option<bool>,
    /// A 2xx HTML robots.txt: `"parse"` (default) or `"unreachable"`.
    pub html: Option<String>,
    /// The prefix of the Redis keys.
    pub redis_prefix: Option<String>,
    /// Which requests share one schedule: `"origin"` (default), `"host"`, `"domain"`, `"ip"`.
    pub key: Option<String>,
}

/// The engine's answer for one URL.
#[napi(object)]
#[derive(Clone)]
pub struct Answer {
    /// May the agent fetch the URL?
    pub allowed: bool,
    /// The URL's robots.txt origin (`scheme://host[:port]`).
    pub origin: String,
    /// Why the origin's verdict is what it is: `"fetched"`, `"no-robots-txt"`,
    /// `"unreachable"`, `"payment-required"`, …
    pub reason: String,
    /// The reason in words.
    pub message: String,
    /// The deciding rule as written, when a rule decided.
    pub rule: Option<String>,
    /// Its 1-based line.
    pub line: Option<u32>,
    /// `"allow"` or `"disallow"`, when a rule decided.
    pub kind: Option<String>,
    /// The agent's `Crawl-delay` (seconds, uncapped).
    pub crawl_delay: Option<f64>,
    /// The agent's `Request-rate`.
    pub request_rate: Option<RequestRate>,
    /// The `Sitemap` URLs of the rules in force.
    pub sitemaps: Vec<String>,
}

impl From<&EngineAnswer> for Answer {
    fn from(a: &EngineAnswer) -> Self {
        Answer {
            allowed: a.allowed,
            origin: a.origin.to_string(),
            reason: a.reason.as_str().to_owned(),
            message: a.reason.to_string(),
            rule: a.rule.as_ref().map(|r| r.text.clone()),
            line: a.rule.as_ref().map(|r| r.line),
            kind: a.rule.as_ref().map(|r| r.kind.as_str().to_owned()),
            crawl_delay: a.crawl_delay.map(|d| d.as_secs_f64()),
            request_rate: a.request_rate.as_ref().map(RequestRate::from),
            sitemaps: a.sitemaps.iter().map(|s| s.to_string()).collect(),
        }
    }
}

/// What `Permit.record` did.
#[napi(object)]
pub struct Recorded {
    /// `"backed-off"` (a 429 or 503: the key is left alone for `backoff` seconds), `"served"`
    /// (another answer) or `"failed"` (a 5xx other than 503, or no response).
    pub kind: String,
    /// Seconds the key is left alone, when backed off.
    pub backoff: Option<f64>,
}

impl From<EngineRecorded> for Recorded {
    fn from(r: EngineRecorded) -> Self {
        let (kind, backoff) = match r {
            EngineRecorded::BackedOff(d) => ("backed-off", Some(d.as_secs_f64())),
            EngineRecorded::Served => ("served", None),
            EngineRecorded::Failed => ("failed", None),
            _ => ("other", None),
        };
        Recorded {
            kind: kind.to_owned(),
            backoff,
        }
    }
}

/// Leave to fetch one URL now, from `RobotsCache.acquire`; or, when `granted` is false, the
/// refusal (the JS wrapper throws `Disallowed` for it). Holds one of the key's concurrency
/// slots until recorded or released.
#[napi]
pub struct Permit {
    permit: Arc<Mutex<Option<EnginePermit>>>,
    answer: Answer,
    granted: bool,
    refusal: Option<String>,
    delay: f64,
    delay_source: String,
    waited: f64,
    key: String,
}

impl Permit {
    fn take(&self) -> Result<EnginePermit> {
        self.permit
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| {
                Error::new(
                    Status::GenericFailure,
                    "this permit was already recorded or released (or never granted)".to_owned(),
                )
            })
    }
}

#[napi]
impl Permit {
    /// Whether the fetch may go ahead.
    #[napi(getter)]
    pub fn granted(&self) -> bool {
        self.granted
    }

    /// Why not, when not granted.
    #[napi(getter)]
    pub fn refusal(&self) -> Option<String> {
        self.refusal.clone()
    }

    /// The check's answer.
    #[napi(getter)]
    pub fn answer(&self) -> Answer {
        self.answer.clone()
    }

    /// Seconds between two requests' slots, as reserved.
    #[napi(getter)]
    pub fn delay(&self) -> f64 {
        self.delay
    }

    /// What set `delay`: `"default"`, `"crawl-delay"` or `"request-rate"`.
    #[napi(getter)]
    pub fn delay_source(&self) -> String {
        self.delay_source.clone()
    }

    /// Seconds `acquire` waited for the slot.
    #[napi(getter)]
    pub fn waited(&self) -> f64 {
        self.waited
    }

    /// The politeness key the permit was scheduled under.
    #[napi(getter)]
    pub fn key(&self) -> String {
        self.key.clone()
    }

    /// Whether the permit is still held.
    #[napi(getter)]
    pub fn active(&self) -> bool {
        self.permit
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// Records the fetch's HTTP `status` and its `Retry-After` (seconds, or the header's
    /// value), and frees the slot. 429 and 503 back the key off; other answers end a run of
    /// them. A permit is recorded once.
    #[napi(ts_args_type = "status: number, retryAfter?: number | string | null")]
    pub async fn record(
        &self,
        status: i64,
        retry_after: Option<Either<f64, String>>,
    ) -> Result<Recorded> {
        let status = input::status(status)?;
        let permit = self.take()?;
        let recorded = match retry_after {
            None => permit.record(status, None).await,
            Some(Either::A(secs)) => {
                let d = input::duration(secs, "retryAfter")?;
                permit.record(status, Some(d)).await
            }
            Some(Either::B(value)) => {
                let mut headers = http::HeaderMap::new();
                // A value that is not a header value at all says nothing.
                if let Ok(v) = http::HeaderValue::from_str(value.trim()) {
                    headers.insert(http::header::RETRY_AFTER, v);
                }
                permit.record_response(status, &headers).await
            }
        };
        Ok(recorded.into())
    }

    /// Records that the page could not be fetched at all (no response): the site is reported
    /// down, no backoff. Frees the slot.
    #[napi]
    pub async fn record_unreachable(&self) -> Result<Recorded> {
        let permit = self.take()?;
        Ok(permit.record_unreachable().await.into())
    }

    /// Frees the slot without recording anything (the request was not sent).
    #[napi]
    pub fn release(&self) {
        drop(self.permit.lock().unwrap_or_else(|e| e.into_inner()).take());
    }
}

/// The crawl-policy engine with its gate.
#[napi]
pub struct RobotsCache {
    /// `None` once closed.
    cache: Mutex<Option<Engine>>,
    token: ProductToken,
    location: String,
}

fn options(config: &CacheConfig) -> Result<(CacheOptions, ProductToken)> {
    let mode = input::mode(config.mode.as_deref())?;
    let token = input::agent(&config.agent, mode)?;
    let mut options = CacheOptions::default();
    options.fetch.mode = mode;
    options.fetch.user_agent = config
        .user_agent
        .clone()
        .unwrap_or_else(|| config.agent.clone());
    if let Some(t) = input::option_duration(config.timeout, "timeout")? {
        options.fetch.timeout = t;
    }
    if config.public_only == Some(true) {
        options.fetch.addresses = AddressPolicy::PublicOnly;
    }
    options.fetch.html = match config.html.as_deref() {
        None | Some("parse") => HtmlRobotsTxt::Parse,
        Some("unreachable") => HtmlRobotsTxt::Unreachable,
        Some(other) => {
            return Err(input::invalid(format!(
                "html must be \"parse\" or \"unreachable\", not {other:?}"
            )))
        }
    };
    let mut gate = GateOptions::default();
    let set = |target: &mut Duration, value: Option<f64>, what: &str| -> Result<()> {
        if let Some(d) = input::option_duration(value, what)? {
            *target = d;
        }
        Ok(())
    };
    set(
        &mut gate.default_delay,
        config.default_delay,
        "defaultDelay",
    )?;
    set(&mut gate.max_delay, config.max_delay, "maxDelay")?;
    set(&mut gate.backoff_base, config.backoff_base, "backoffBase")?;
    set(&mut gate.backoff_max, config.backoff_max, "backoffMax")?;
    set(
        &mut gate.max_retry_after,
        config.max_retry_after,
        "maxRetryAfter",
    )?;
    if let Some(n) = config.max_concurrency {
        if n == 0 {
            return Err(input::invalid("maxConcurrency must be at least 1"));
        }
        gate.max_concurrency = n as usize;
    }
    if let Some(k) = &config.key {
        gate.key = k
            .parse::<KeyKind>()
            .map_err(|e| input::invalid(e.to_string()))?;
    }
    options.gate = gate;
    Ok((options, token))
}

/// A Redis URL without its password.
fn redact(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((_, host)) => format!("{scheme}://…@{host}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

impl RobotsCache {
    /// The engine, unless closed.
    fn engine(&self) -> Result<Engine> {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| {
                Error::new(
                    Status::GenericFailure,
                    "this RobotsCache is closed".to_owned(),
                )
            })
    }
}

#[napi]
impl RobotsCache {
    /// Opens an engine for one crawler (a Promise): connects to Redis or opens the state file.
    #[napi(factory)]
    pub async fn open(config: CacheConfig) -> Result<RobotsCache> {
        let (options, token) = options(&config)?;
        let (store, location): (Arc<dyn Store>, String) = match config.state.as_deref() {
            None => (Arc::new(MemoryStore::new()), "memory".to_owned()),
            Some("") => {
                return Err(input::invalid(
                    "state is empty: give a file path, a redis:// URL, or leave it out",
                ))
            }
            Some(s) if s.starts_with("redis://") || s.starts_with("rediss://") => {
                let mut redis = RedisOptions::new(s.to_owned());
                if let Some(prefix) = &config.redis_prefix {
                    redis.prefix = prefix.clone();
                }
                let store = RedisStore::connect(redis)
                    .await
                    .map_err(|e| Error::new(Status::GenericFailure, e.to_string()))?;
                (Arc::new(store), redact(s))
            }
            Some(path) => {
                let path = PathBuf::from(path);
                let name = path.display().to_string();
                // Blocking: reads the file, waits up to 5 s for another process to close it.
                let store = tokio::task::spawn_blocking(move || EmbeddedStore::open(&path))
                    .await
                    .map_err(|e| Error::new(Status::GenericFailure, e.to_string()))?
                    .map_err(|e| Error::new(Status::GenericFailure, e.to_string()))?;
                (Arc::new(store), name)
            }
        };
        let cache = Engine::with_store(options, store, Arc::new(SystemClock))
            .map_err(|e| input::invalid(e.to_string()))?;
        Ok(RobotsCache {
            cache: Mutex::new(Some(cache)),
            token,
            location,
        })
    }

    /// May the agent fetch `url`? robots.txt is fetched once per origin (per fleet with
    /// Redis), cached and refreshed, and the failure rules applied.
    #[napi]
    pub async fn check(&self, url: String) -> Result<Answer> {
        self.engine()?
            .check(&self.token, &url)
            .await
            .map(|a| Answer::from(&a))
            .map_err(|e| input::invalid(e.to_string()))
    }

    /// May the agent fetch `url`, and when? Resolves once the key's next slot has come
    /// (crawl-delay, request-rate, the floor, backoff), with a granted `Permit`; or at once
    /// with a refused one when robots.txt or the failure rules say no.
    #[napi]
    pub async fn acquire_permit(&self, url: String) -> Result<Permit> {
        match self.engine()?.acquire(&self.token, &url).await {
            Ok(permit) => {
                let spacing = permit.spacing();
                Ok(Permit {
                    answer: Answer::from(permit.answer()),
                    granted: true,
                    refusal: None,
                    delay: spacing.delay.as_secs_f64(),
                    delay_source: spacing.source.as_str().to_owned(),
                    waited: permit.waited().as_secs_f64(),
                    key: permit.key().to_string(),
                    permit: Arc::new(Mutex::new(Some(permit))),
                })
            }
            Err(Refused::Disallowed { url: _, answer }) => Ok(Permit {
                refusal: Some(format!("{} ({})", answer.reason, answer.origin)),
                answer: Answer::from(answer.as_ref()),
                granted: false,
                delay: 0.0,
                delay_source: String::new(),
                waited: 0.0,
                key: String::new(),
                permit: Arc::new(Mutex::new(None)),
            }),
            Err(e) => Err(input::invalid(e.to_string())),
        }
    }

    /// Writes what the store has not taken yet. Call before exiting with a state file.
    #[napi]
    pub async fn flush(&self) -> Result<()> {
        self.engine()?
            .flush()
            .await
            .map_err(|e| Error::new(Status::GenericFailure, e.to_string()))
    }

    /// Writes what the store has not taken yet and lets go of it (a state file can then be
    /// opened by another process once the permits still held are gone). Using the cache
    /// after is an error; closing twice does nothing.
    #[napi]
    pub async fn close(&self) -> Result<()> {
        let taken = self.cache.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(engine) = taken {
            engine
                .flush()
                .await
                .map_err(|e| Error::new(Status::GenericFailure, e.to_string()))?;
        }
        Ok(())
    }

    /// The product token whose rules are obeyed.
    #[napi(getter)]
    pub fn agent(&self) -> String {
        self.token.as_str().to_owned()
    }

    /// Where the state is kept (`"memory"`, the file, or the Redis URL without password).
    #[napi(getter)]
    pub fn location(&self) -> String {
        self.location.clone()
    }
}
