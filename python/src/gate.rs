//! The engine and its gate on asyncio: `RobotsCache` (`check`, `acquire`), `Permit`
//! (`record`), `Recorded`, and the `Disallowed` exception.
//!
//! The engine's futures run on the module's tokio runtime (`runtime`: built on first use, so
//! that importing the module starts no threads); pyo3-async-runtimes turns each into an
//! asyncio awaitable of the running loop. Cancelling the awaitable drops the Rust future.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crawlgate::engine::{CacheOptions, Permit, Recorded, Refused, RobotsCache, SystemClock};
use crawlgate::http::AddressPolicy;
use crawlgate::policy::{GateOptions, KeyKind};
use crawlgate::store::{EmbeddedStore, MemoryStore, RedisOptions, RedisStore, Store};
use crawlgate::{Mode, ProductToken};
use pyo3::exceptions::{
    PyConnectionError, PyException, PyOSError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};

use crate::answer::PyAnswer;
use crate::input;
use crate::runtime::runtime;
use crate::spacing::{option_secs, secs, GateArgs, PySpacing};

pyo3::create_exception!(
    crawlgate._crawlgate,
    Disallowed,
    PyException,
    "robots.txt does not allow the URL, or the failure rules say not to fetch from its origin now: `RobotsCache.acquire` gives no permit. `answer` says why, `url` is the URL asked for."
);

/// What `Permit.record` did.
#[pyclass(name = "Recorded", module = "crawlgate._crawlgate", frozen, get_all)]
pub struct PyRecorded {
    /// `"backed-off"` (a 429 or 503: no slot of the origin for `backoff` seconds), `"served"`
    /// (another answer: a run of 429/503 ends) or `"failed"` (a 5xx other than 503, or no
    /// response: the site is reported down).
    kind: &'static str,
    /// Seconds the origin is left alone from now, when backed off.
    backoff: Option<f64>,
}

impl From<Recorded> for PyRecorded {
    fn from(r: Recorded) -> Self {
        let (kind, backoff) = match r {
            Recorded::BackedOff(d) => ("backed-off", Some(secs(d))),
            Recorded::Served => ("served", None),
            Recorded::Failed => ("failed", None),
            _ => ("other", None),
        };
        PyRecorded { kind, backoff }
    }
}

#[pymethods]
impl PyRecorded {
    fn __repr__(&self) -> String {
        match self.backoff {
            Some(b) => format!("Recorded(kind={:?}, backoff={b})", self.kind),
            None => format!("Recorded(kind={:?})", self.kind),
        }
    }
}

/// Leave to fetch one URL now, from `RobotsCache.acquire`. Holds one of the origin's
/// concurrency slots until recorded or released.
#[pyclass(name = "Permit", module = "crawlgate._crawlgate", frozen)]
pub struct PyPermit {
    permit: Mutex<Option<Permit>>,
    /// The check's answer.
    #[pyo3(get)]
    answer: PyAnswer,
    /// The spacing the slot was reserved with.
    #[pyo3(get)]
    spacing: PySpacing,
    /// Seconds `acquire` waited for the slot (after any wait for a concurrency slot).
    #[pyo3(get)]
    waited: f64,
    /// The politeness key the permit was scheduled under: the origin
    /// (`"https://example.com"`, the default key), `"host:…"`, `"domain:…"` or `"ip:…"`.
    #[pyo3(get)]
    key: String,
}

impl PyPermit {
    fn take(&self) -> PyResult<Permit> {
        self.permit
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this permit was already recorded or released"))
    }
}

/// A `Retry-After`: seconds (int or float), or the header's value (str or bytes: seconds or an
/// HTTP date, read by the engine; a value it cannot read is no `Retry-After`).
enum RetryAfter {
    None,
    Secs(Duration),
    Header(http::HeaderMap),
}

fn retry_after(ob: Option<&Bound<'_, PyAny>>) -> PyResult<RetryAfter> {
    let Some(ob) = ob.filter(|o| !o.is_none()) else {
        return Ok(RetryAfter::None);
    };
    let bytes: Option<Vec<u8>> = if let Ok(b) = ob.cast::<PyBytes>() {
        Some(b.as_bytes().to_vec())
    } else if let Ok(b) = ob.cast::<PyByteArray>() {
        Some(b.to_vec())
    } else if let Ok(s) = ob.cast::<PyString>() {
        Some(s.to_str()?.as_bytes().to_vec())
    } else {
        None
    };
    if let Some(bytes) = bytes {
        let mut headers = http::HeaderMap::new();
        // A value that is not a header value at all (a control byte) says nothing.
        if let Ok(value) = http::HeaderValue::from_bytes(&bytes) {
            headers.insert(http::header::RETRY_AFTER, value);
        }
        return Ok(RetryAfter::Header(headers));
    }
    if ob.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(
            "retry_after must be seconds (int or float), the header's value (str or bytes) or None, not bool",
        ));
    }
    let secs: f64 = ob.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "retry_after must be seconds (int or float), the header's value (str or bytes) or None, not {}",
            input::type_name(ob)
        ))
    })?;
    Ok(RetryAfter::Secs(input::duration(secs, "retry_after")?))
}

#[pymethods]
impl PyPermit {
    /// The URL's origin.
    #[getter]
    fn origin(&self) -> String {
        self.answer.origin.clone()
    }

    /// Whether the permit is still held (not yet recorded or released).
    #[getter]
    fn active(&self) -> bool {
        self.permit
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }

    /// Records the fetch's HTTP `status` and `Retry-After` (an awaitable of `Recorded`), and
    /// frees the concurrency slot. 429 and 503 back the origin off: its `Retry-After` (seconds,
    /// or the header's value as str or bytes) up to `max_retry_after`, else `backoff_base`
    /// doubling per such answer in a row up to `backoff_max`; other answers end a run of them.
    /// A permit is recorded once (`RuntimeError` after).
    #[pyo3(signature = (status, retry_after = None))]
    fn record<'py>(
        &self,
        py: Python<'py>,
        status: i64,
        retry_after: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let status = input::status(status)?;
        let retry_after = self::retry_after(retry_after)?;
        let permit = self.take()?;
        runtime()?;
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let recorded = match retry_after {
                RetryAfter::None => permit.record(status, None).await,
                RetryAfter::Secs(d) => permit.record(status, Some(d)).await,
                RetryAfter::Header(h) => permit.record_response(status, &h).await,
            };
            Ok(PyRecorded::from(recorded))
        })
    }

    /// Records that the page could not be fetched at all (no response): the site is reported
    /// down, no backoff (an awaitable of `Recorded`). Frees the concurrency slot.
    fn record_unreachable<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let permit = self.take()?;
        runtime()?;
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            Ok(PyRecorded::from(permit.record_unreachable().await))
        })
    }

    /// Frees the concurrency slot without recording anything (the request was not sent): the
    /// origin's spacing still applies. Does nothing when already recorded or released.
    fn release(&self) {
        drop(self.permit.lock().unwrap_or_else(|e| e.into_inner()).take());
    }

    fn __repr__(&self) -> String {
        format!(
            "Permit(origin={:?}, spacing={}, waited={})",
            self.answer.origin, self.spacing.delay, self.waited
        )
    }
}

/// The crawl-policy engine with its gate, on asyncio.
#[pyclass(name = "RobotsCache", module = "crawlgate._crawlgate", frozen)]
pub struct PyRobotsCache {
    cache: RobotsCache,
    token: ProductToken,
    /// Where the state is kept, for `repr` (a Redis URL without its password).
    location: String,
    options: GateOptions,
}

/// `state` as a store: `None` in memory, a `redis://` URL, else a file path.
enum Location {
    Memory,
    Redis(String),
    File(PathBuf),
}

fn location(state: Option<&Bound<'_, PyAny>>) -> PyResult<Location> {
    let Some(state) = state.filter(|s| !s.is_none()) else {
        return Ok(Location::Memory);
    };
    if let Ok(s) = state.cast::<PyString>() {
        let s = s.to_str()?;
        if s.is_empty() {
            return Err(PyValueError::new_err(
                "state is empty: give a file path, a redis:// URL, or None",
            ));
        }
        let redis = ["redis://", "rediss://"].iter().any(|scheme| {
            s.get(..scheme.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(scheme))
        });
        return Ok(if redis {
            Location::Redis(s.to_owned())
        } else {
            Location::File(PathBuf::from(s))
        });
    }
    let path: PathBuf = state.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "state must be None, a path (str or os.PathLike) or a redis:// URL, not {}",
            input::type_name(state)
        ))
    })?;
    if path.as_os_str().is_empty() {
        return Err(PyValueError::new_err(
            "state is empty: give a file path, a redis:// URL, or None",
        ));
    }
    Ok(Location::File(path))
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

fn refused(py: Python<'_>, refused: Refused) -> PyErr {
    let message = refused.to_string();
    match refused {
        Refused::Disallowed { url, answer } => {
            let err = Disallowed::new_err(message);
            let value = err.value(py);
            // Attributes on a fresh exception of our own type: setting them cannot fail but
            // for memory, and then the message alone is raised.
            let _ = value.setattr("answer", PyAnswer::from(answer.as_ref()));
            let _ = value.setattr("url", url);
            err
        }
        _ => PyValueError::new_err(message),
    }
}

#[pymethods]
impl PyRobotsCache {
    /// An engine for one crawler. `state`: `None` (in memory), a file path (a crash-safe
    /// state file, one process at a time; created if missing) or `"redis://HOST[:PORT][/DB]"`
    /// (a fleet shares robots.txt fetches and the gate's schedule). `agent`: the crawler's
    /// product token or User-Agent header (the groups obeyed); `user_agent`: the header sent
    /// when fetching robots.txt (default: `agent` when it is a str). The gate's options are
    /// seconds (`None`: the engine's default, as `GateOptions::default()` in Rust).
    /// `max_concurrency` is per politeness key, in the process and, with Redis, across every
    /// process on the server. `key`: which requests share one schedule, backoff and
    /// in-flight limit: `"origin"` (default), `"host"`, `"domain"` (the registrable domain) or
    /// `"ip"` (the server's address: several host names on one server are spaced as one).
    #[new]
    #[pyo3(signature = (
        state = None, *, agent, user_agent = None, mode = "rfc", default_delay = None,
        max_delay = None, max_concurrency = None, backoff_base = None, backoff_max = None,
        max_retry_after = None, timeout = None, public_only = false, redis_prefix = None,
        key = "origin"
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        state: Option<&Bound<'_, PyAny>>,
        agent: &Bound<'_, PyAny>,
        user_agent: Option<String>,
        mode: &str,
        default_delay: Option<f64>,
        max_delay: Option<f64>,
        max_concurrency: Option<usize>,
        backoff_base: Option<f64>,
        backoff_max: Option<f64>,
        max_retry_after: Option<f64>,
        timeout: Option<f64>,
        public_only: bool,
        redis_prefix: Option<String>,
        key: &str,
    ) -> PyResult<Self> {
        let mode: Mode = input::mode(mode)?;
        let key: KeyKind = key
            .parse()
            .map_err(|e: crawlgate::policy::UnknownKeyKind| PyValueError::new_err(e.to_string()))?;
        let token = input::agent(agent, mode)?;
        let mut options = CacheOptions::default();
        options.fetch.mode = mode;
        let header = user_agent.or_else(|| {
            agent
                .cast::<PyString>()
                .ok()
                .and_then(|s| s.to_str().ok().map(str::to_owned))
        });
        if let Some(ua) = header {
            options.fetch.user_agent = ua;
        }
        if let Some(t) = option_secs(timeout, "timeout")? {
            options.fetch.timeout = t;
        }
        if public_only {
            options.fetch.addresses = AddressPolicy::PublicOnly;
        }
        options.gate = GateArgs {
            default_delay,
            max_delay,
            max_concurrency,
            backoff_base,
            backoff_max,
            max_retry_after,
        }
        .options()?;
        options.gate.key = key;
        let gate = options.gate.clone();
        let location = location(state)?;
        let rt = runtime()?;
        let (store, name): (Arc<dyn Store>, String) = match location {
            Location::Memory => (Arc::new(MemoryStore::new()), "memory".to_owned()),
            Location::File(path) => {
                let name = path.display().to_string();
                // Blocking: reads the file, waits up to 5 s for another process to close it.
                let store = py
                    .detach(|| EmbeddedStore::open(&path))
                    .map_err(|e| PyOSError::new_err(e.to_string()))?;
                (Arc::new(store), name)
            }
            Location::Redis(url) => {
                let name = redact(&url);
                let mut redis = RedisOptions::new(url);
                if let Some(prefix) = redis_prefix {
                    redis.prefix = prefix;
                }
                let store = py
                    .detach(|| rt.block_on(RedisStore::connect(redis)))
                    .map_err(|e| PyConnectionError::new_err(e.to_string()))?;
                (Arc::new(store), name)
            }
        };
        let cache = {
            let _guard = rt.enter();
            RobotsCache::with_store(options, store, Arc::new(SystemClock))
                .map_err(|e| PyValueError::new_err(e.to_string()))?
        };
        Ok(PyRobotsCache {
            cache,
            token,
            location: name,
            options: gate,
        })
    }

    /// May the agent fetch `url`? An awaitable of `Answer`: robots.txt is fetched once per
    /// origin (per fleet with Redis), cached and refreshed, and the failure rules applied.
    /// `ValueError` when `url` has no robots.txt origin.
    fn check<'py>(&self, py: Python<'py>, url: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let url = input::url(url)?;
        let cache = self.cache.clone();
        let token = self.token.clone();
        runtime()?;
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            match cache.check(&token, &url).await {
                Ok(answer) => Ok(PyAnswer::from(&answer)),
                Err(e) => Err(PyValueError::new_err(e.to_string())),
            }
        })
    }

    /// May the agent fetch `url`, and when? An awaitable of `Permit`, once the origin's next
    /// slot has come (crawl-delay, request-rate, the `default_delay` floor, backoff; waiters on
    /// one origin in arrival order). Raises `Disallowed` when robots.txt (or the failure rules)
    /// say no, `ValueError` when `url` has no robots.txt origin. Cancelling the awaitable gives
    /// up the place in line.
    fn acquire<'py>(
        &self,
        py: Python<'py>,
        url: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let url = input::url(url)?;
        let cache = self.cache.clone();
        let token = self.token.clone();
        runtime()?;
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            match cache.acquire(&token, &url).await {
                Ok(permit) => Ok(PyPermit {
                    answer: PyAnswer::from(permit.answer()),
                    spacing: permit.spacing().into(),
                    waited: secs(permit.waited()),
                    key: permit.key().to_string(),
                    permit: Mutex::new(Some(permit)),
                }),
                Err(e) => Err(Python::attach(|py| refused(py, e))),
            }
        })
    }

    /// Writes what the store has not taken yet (an awaitable). Call before exiting with a
    /// state file. `OSError` when the store fails.
    fn flush<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let cache = self.cache.clone();
        runtime()?;
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            cache
                .flush()
                .await
                .map_err(|e| PyOSError::new_err(e.to_string()))
        })
    }

    /// Whether the store is answering, as the engine last saw it: a dict of `available`,
    /// `errors` (failed operations so far), `last_error` and `pending` (changes not yet
    /// written). While a shared store is unreachable the gate spaces requests in the process.
    fn store_status<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.cache.store_status();
        let d = PyDict::new(py);
        d.set_item("available", s.available)?;
        d.set_item("errors", s.errors)?;
        d.set_item("last_error", s.last_error)?;
        d.set_item("pending", s.pending)?;
        Ok(d)
    }

    /// The whole crawl policy of `url` for the agent (an awaitable of `CrawlPolicy`):
    /// robots.txt's answer and the edge it shows (a challenge, a price), TDMRep (the page's
    /// fields over the origin's `tdmrep.json`, fetched once per origin), and, when the page's
    /// response is given (`status`, its `headers` and the first bytes of its `body`), the page's
    /// directives and the warnings of how the parts combine (`noindex-unseen`). `ValueError`
    /// when `url` has no robots.txt origin, or `headers`/`body` come without `status`.
    #[pyo3(signature = (url, status = None, headers = None, body = None))]
    fn crawl_policy<'py>(
        &self,
        py: Python<'py>,
        url: &Bound<'py, PyAny>,
        status: Option<i64>,
        headers: Option<&Bound<'py, PyAny>>,
        body: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::crawl::crawl_policy(py, &self.cache, &self.token, url, status, headers, body)
    }

    /// The product token whose rules are obeyed.
    #[getter]
    fn agent(&self) -> String {
        self.token.as_str().to_owned()
    }

    /// The spacing floor in seconds (`default_delay`).
    #[getter]
    fn default_delay(&self) -> f64 {
        secs(self.options.default_delay)
    }

    /// The longest spacing honoured, in seconds (`max_delay`).
    #[getter]
    fn max_delay(&self) -> f64 {
        secs(self.options.max_delay)
    }

    /// Requests of one politeness key in flight at once: in this process, and with Redis
    /// across every process on the server.
    #[getter]
    fn max_concurrency(&self) -> usize {
        self.options.max_concurrency
    }

    /// The politeness key's kind: `"origin"`, `"host"`, `"domain"` or `"ip"`.
    #[getter]
    fn key(&self) -> &'static str {
        self.options.key.name()
    }

    fn __repr__(&self) -> String {
        format!(
            "RobotsCache(state={:?}, agent={:?})",
            self.location,
            self.token.as_str()
        )
    }
}
