//! `OriginState` and `Judgement`: the failure ladder of `crawlgate::policy`.

use std::sync::Arc;
use std::time::SystemTime;

use crawlgate::policy::{
    Fetch, FetchOutcome, OriginState, PolicyOptions, Unreachable, Verdict, VerdictReason,
};
use crawlgate::{Mode, Options};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use crate::input;
use crate::robots::{PyDecision, PyRobots, Source};

/// What a crawler may do on an origin at a given time, and why.
#[pyclass(name = "Judgement", module = "crawlgate._crawlgate", frozen)]
pub struct PyJudgement {
    /// `"rules"`, `"allow-all"` or `"disallow-all"`.
    #[pyo3(get)]
    verdict: &'static str,
    /// `"fetched"`, `"no-robots-txt"`, `"not-fetched"`, `"unreachable"`, `"last-good-version"`,
    /// `"no-good-version"`, `"long-unreachable-site-up"` or `"long-unreachable-site-down"`.
    #[pyo3(get)]
    reason: &'static str,
    /// The reason in words.
    #[pyo3(get)]
    message: String,
    /// Start of the current run of failures (seconds since the epoch), if failing.
    #[pyo3(get)]
    since: Option<f64>,
    /// The rules to obey when `verdict == "rules"`.
    #[pyo3(get)]
    robots: Option<PyRobots>,
    /// How a str/bytes agent is read: the rules' mode, else the mode of the latest `record`.
    mode: Mode,
}

#[pymethods]
impl PyJudgement {
    /// Whether `agent` may fetch `url` under this verdict. A str/bytes `agent` is read as in
    /// `Robots.check`, in the mode of the rules (or, without rules, of the latest `record`).
    fn allowed(&self, agent: &Bound<'_, PyAny>, url: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.check(agent, url)?.allowed)
    }

    /// The decision for `agent` and `url` under this verdict (`reason` is `"allow-all"` or
    /// `"disallow-all"` when no rules apply).
    fn check(&self, agent: &Bound<'_, PyAny>, url: &Bound<'_, PyAny>) -> PyResult<PyDecision> {
        let token = input::agent(agent, self.mode)?;
        let url = input::url(url)?;
        Ok(match (self.verdict, &self.robots) {
            ("rules", Some(r)) => r.robots.check(&token, &url).into(),
            ("allow-all", _) => PyDecision::fixed(true, "allow-all"),
            _ => PyDecision::fixed(false, "disallow-all"),
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "Judgement(verdict={:?}, reason={:?})",
            self.verdict, self.reason
        )
    }
}

/// One origin's robots.txt history and the failure ladder (RFC 9309 §2.3.1, Google's rules):
///
/// - 2xx: the parsed rules;
/// - 4xx except 429 (and 3xx that could not be followed): no robots.txt, allow all;
/// - 429, 5xx, network failure: disallow all for `stop_period` (12 h) from the first failure of
///   the run, then the last good version until `last_good_period` (30 days; none: allow all, or
///   disallow all when `strict`), then allow all only if the site was recently reported up.
///
/// Pure and clock-free: every call takes its time (seconds since the epoch, or a datetime).
#[pyclass(name = "OriginState", module = "crawlgate._crawlgate")]
pub struct PyOriginState {
    state: OriginState,
    options: PolicyOptions,
    /// The parsed rules of the last 2xx recorded, by the digest the state knows them by.
    rules: Option<(crawlgate::policy::Digest, PyRobots)>,
    /// The `mode` of the latest `record`: how a judgement without rules reads a str agent.
    mode: Mode,
}

#[pymethods]
impl PyOriginState {
    #[new]
    #[pyo3(signature = (*, strict = false, stop_period = None, last_good_period = None, availability_window = None))]
    fn new(
        strict: bool,
        stop_period: Option<f64>,
        last_good_period: Option<f64>,
        availability_window: Option<f64>,
    ) -> PyResult<Self> {
        let mut options = PolicyOptions::default();
        options.strict = strict;
        if let Some(s) = stop_period {
            options.stop_period = input::duration(s, "stop_period")?;
        }
        if let Some(s) = last_good_period {
            options.last_good_period = input::duration(s, "last_good_period")?;
        }
        if let Some(s) = availability_window {
            options.availability_window = input::duration(s, "availability_window")?;
        }
        Ok(PyOriginState {
            state: OriginState::new(),
            options,
            rules: None,
            mode: Mode::Rfc,
        })
    }

    /// Records one fetch of robots.txt completed at `at`: either its HTTP `status` (with the
    /// `body` of a 2xx), or a network `error` (a message; `error_kind` one of `"dns"`,
    /// `"connect"`, `"tls"`, `"timeout"`, `"body"`, `"other"`). A 2xx body is parsed in `mode`
    /// (GIL released for large bodies). Returns whether it started a new history entry.
    #[pyo3(signature = (at, status = None, body = None, *, error = None, error_kind = "other", url = "", mode = "rfc", max_bytes = None))]
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        py: Python<'_>,
        at: &Bound<'_, PyAny>,
        status: Option<i64>,
        body: Option<&Bound<'_, PyAny>>,
        error: Option<&str>,
        error_kind: &str,
        url: &str,
        mode: &str,
        max_bytes: Option<usize>,
    ) -> PyResult<bool> {
        let at = input::time(at)?;
        let mode: Mode = input::mode(mode)?;
        let (status, outcome, robots) = match (status, error) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err(
                    "give either status (a response) or error (no response), not both",
                ))
            }
            (None, None) => {
                return Err(PyValueError::new_err(
                    "give status (a response) or error (no response)",
                ))
            }
            (None, Some(message)) => {
                let cause = match error_kind {
                    "dns" => Unreachable::Dns(message.into()),
                    "connect" => Unreachable::Connect(message.into()),
                    "tls" => Unreachable::Tls(message.into()),
                    "timeout" => Unreachable::Timeout,
                    "body" => Unreachable::Body(message.into()),
                    "other" => Unreachable::Other(message.into()),
                    other => {
                        return Err(PyValueError::new_err(format!(
                            "unknown error_kind {other:?}: expected dns, connect, tls, timeout, body or other"
                        )))
                    }
                };
                (None, FetchOutcome::Unreachable(cause), None)
            }
            (Some(code), None) => {
                let code = input::status(code)?;
                match FetchOutcome::of_status(code) {
                    // What a status alone says, by the library's rule (as its fetcher reads it).
                    Some(outcome) => (Some(code), outcome, None),
                    None => {
                        let body_bytes = body_bytes(body)?;
                        let mut options = Options::mode(mode);
                        if let Some(m) = max_bytes {
                            options.max_bytes = m;
                        }
                        // What the fetcher keeps: at most one byte past the limit.
                        let keep = options.max_bytes.max(crawlgate::DEFAULT_MAX_BYTES) + 1;
                        let body: Arc<[u8]> = body_bytes[..body_bytes.len().min(keep)].into();
                        let parsed = Arc::new(crate::input::parse(py, &body, &options));
                        let robots = PyRobots::new(
                            Arc::new(parsed.robots.clone()),
                            parsed.diagnostics.clone().into(),
                            Source::new(body.clone(), &options),
                        );
                        let digest = crawlgate::policy::Digest::of(&body);
                        (
                            Some(code),
                            FetchOutcome::Rules { body, parsed },
                            Some((digest, robots)),
                        )
                    }
                }
            }
        };
        let fetch = Fetch::new(url, status, outcome);
        let new_version = self.state.record(at, &fetch);
        self.mode = mode;
        if let Some(rules) = robots {
            // Keep the rules only if the state now uses them as its good version.
            if self.state.good_file().map(|f| f.digest) == Some(rules.0) {
                self.rules = Some(rules);
            }
        }
        Ok(new_version)
    }

    /// Records whether the site's pages were being served at `at` (used after 30 days of
    /// failures).
    fn record_site_availability(&mut self, at: &Bound<'_, PyAny>, up: bool) -> PyResult<()> {
        let at = input::time(at)?;
        self.state.record_site_availability(at, up);
        Ok(())
    }

    /// The verdict at `now`.
    fn verdict_at(&self, now: &Bound<'_, PyAny>) -> PyResult<PyJudgement> {
        let now = input::time(now)?;
        Ok(self.judge(now))
    }

    /// Whether `agent` may fetch `url` at `now`.
    fn allowed(
        &self,
        agent: &Bound<'_, PyAny>,
        url: &Bound<'_, PyAny>,
        now: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let now = input::time(now)?;
        self.judge(now).allowed(agent, url)
    }

    /// Start of the current unbroken run of failures (seconds since the epoch), if failing.
    #[getter]
    fn failing_since(&self) -> Option<f64> {
        self.state.failing_since().map(input::from_system_time)
    }

    /// When the last good version was fetched or re-confirmed, if any.
    #[getter]
    fn last_good_at(&self) -> Option<f64> {
        self.state
            .last_good()
            .map(|(at, _)| input::from_system_time(at))
    }

    /// HTTP status of the latest fetch (None for a network failure or no fetch).
    #[getter]
    fn last_status(&self) -> Option<u16> {
        self.state.last_fetch().and_then(|v| v.status)
    }

    /// `"fetched"`, `"not-found"` or `"unreachable"` for the latest fetch; None before any.
    #[getter]
    fn last_outcome(&self) -> Option<&'static str> {
        self.state.last_fetch().map(|v| v.content.as_str())
    }

    /// Number of history entries (versions of the last 30 days).
    #[getter]
    fn history_len(&self) -> usize {
        self.state.history().len()
    }

    fn __repr__(&self) -> String {
        format!(
            "OriginState(history={}, failing_since={:?})",
            self.state.history().len(),
            self.failing_since()
        )
    }
}

impl PyOriginState {
    fn judge(&self, now: SystemTime) -> PyJudgement {
        let j = self.state.verdict_at(now, &self.options);
        let since = match &j.reason {
            VerdictReason::Unreachable { since, .. }
            | VerdictReason::LastGoodVersion { since, .. }
            | VerdictReason::NoGoodVersion { since }
            | VerdictReason::LongUnreachableSiteUp { since }
            | VerdictReason::LongUnreachableSiteDown { since } => {
                Some(input::from_system_time(*since))
            }
            _ => None,
        };
        let robots = match j.verdict {
            Verdict::Rules => {
                let current = self.state.good_file().map(|f| f.digest);
                self.rules
                    .as_ref()
                    .filter(|(d, _)| Some(*d) == current)
                    .map(|(_, r)| r.clone())
            }
            _ => None,
        };
        // Rules without a parsed version cannot happen through this API; be safe if it does.
        let verdict = match (j.verdict, &robots) {
            (Verdict::Rules, None) => Verdict::DisallowAll,
            (v, _) => v,
        };
        let mode = robots.as_ref().map_or(self.mode, |r| r.robots.mode());
        PyJudgement {
            verdict: verdict.as_str(),
            reason: j.reason.as_str(),
            message: j.reason.to_string(),
            since,
            robots,
            mode,
        }
    }
}

fn body_bytes(body: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<u8>> {
    let Some(body) = body else {
        return Ok(Vec::new());
    };
    if body.is_none() {
        return Ok(Vec::new());
    }
    if let Ok(b) = body.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(b) = body.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    if let Ok(s) = body.cast::<PyString>() {
        return Ok(s.to_str()?.as_bytes().to_vec());
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "body must be bytes, bytearray or str, not {}",
        input::type_name(body)
    )))
}
