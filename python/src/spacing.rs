//! What paces requests to an origin: `RequestRate`, the gate's options, and `Spacing`, as the
//! engine computes it (`crawlgate::policy::spacing`). Read by `Robots.spacing` and the gate.

use std::time::{Duration, SystemTime};

use crawlgate::policy::{GateOptions, Spacing};
use crawlgate::RequestRate;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::input;

/// A `request-rate` record: `requests` per `seconds`.
#[pyclass(
    name = "RequestRate",
    module = "crawlgate._crawlgate",
    frozen,
    get_all,
    eq
)]
#[derive(Clone, PartialEq)]
pub struct PyRequestRate {
    requests: u32,
    seconds: f64,
}

impl PyRequestRate {
    /// The engine's reading of a `request-rate` record.
    pub(crate) fn from_rate(r: &RequestRate) -> Self {
        PyRequestRate {
            requests: r.requests,
            seconds: r.per.as_secs_f64(),
        }
    }
}

#[pymethods]
impl PyRequestRate {
    /// Seconds between requests (`seconds / requests`).
    #[getter]
    fn delay(&self) -> f64 {
        self.seconds / f64::from(self.requests)
    }

    fn __repr__(&self) -> String {
        format!(
            "RequestRate(requests={}, seconds={})",
            self.requests, self.seconds
        )
    }
}

/// `1/10`, `1/10s`, `3/1m`, `1/2h 0600-0845` → (requests, seconds); `None` if unusable.
pub(crate) fn parse_rate(value: &str) -> Option<PyRequestRate> {
    let first = value.split_whitespace().next()?;
    let (n, per) = first.split_once('/')?;
    let requests: u32 = n.trim().parse().ok().filter(|&n| n > 0)?;
    let per = per.trim().to_ascii_lowercase();
    let (num, unit) = match per.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&per[..i], &per[i..]),
        None => (per.as_str(), "s"),
    };
    let factor = match unit {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => return None,
    };
    let seconds = num.trim().parse::<f64>().ok()? * factor;
    (seconds.is_finite() && seconds > 0.0).then_some(PyRequestRate { requests, seconds })
}

/// Seconds as a float.
pub(crate) fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// An optional duration option in seconds.
pub(crate) fn option_secs(value: Option<f64>, what: &str) -> PyResult<Option<Duration>> {
    value.map(|v| input::duration(v, what)).transpose()
}

/// The time between two requests to one origin, and what set it.
#[pyclass(name = "Spacing", module = "crawlgate._crawlgate", frozen, get_all)]
#[derive(Clone)]
pub struct PySpacing {
    /// Seconds between two requests' slots (whole milliseconds, rounded up).
    pub(crate) delay: f64,
    /// What asked for it: `"default"` (the floor, `default_delay`), `"crawl-delay"` or
    /// `"request-rate"`.
    source: String,
    /// The source asked for more than `max_delay`; `delay` is the cap.
    capped: bool,
}

impl From<Spacing> for PySpacing {
    fn from(s: Spacing) -> Self {
        PySpacing {
            delay: secs(s.delay),
            source: s.source.as_str().to_owned(),
            capped: s.capped,
        }
    }
}

#[pymethods]
impl PySpacing {
    fn __repr__(&self) -> String {
        format!(
            "Spacing(delay={}, source={:?}, capped={})",
            self.delay,
            self.source,
            if self.capped { "True" } else { "False" }
        )
    }
}

/// Gate options from the keyword arguments (`None`: the engine's default).
pub(crate) struct GateArgs {
    pub default_delay: Option<f64>,
    pub max_delay: Option<f64>,
    pub max_concurrency: Option<usize>,
    pub backoff_base: Option<f64>,
    pub backoff_max: Option<f64>,
    pub max_retry_after: Option<f64>,
}

impl GateArgs {
    pub(crate) fn options(&self) -> PyResult<GateOptions> {
        let mut o = GateOptions::default();
        if let Some(d) = option_secs(self.default_delay, "default_delay")? {
            o.default_delay = d;
        }
        if let Some(d) = option_secs(self.max_delay, "max_delay")? {
            o.max_delay = d;
        }
        if let Some(n) = self.max_concurrency {
            if n == 0 {
                return Err(PyValueError::new_err("max_concurrency must be at least 1"));
            }
            o.max_concurrency = n;
        }
        if let Some(d) = option_secs(self.backoff_base, "backoff_base")? {
            o.backoff_base = d;
        }
        if let Some(d) = option_secs(self.backoff_max, "backoff_max")? {
            o.backoff_max = d;
        }
        if let Some(d) = option_secs(self.max_retry_after, "max_retry_after")? {
            o.max_retry_after = d;
        }
        Ok(o)
    }
}

/// The spacing the engine gives an origin whose rules for the agent say `crawl_delay`
/// (seconds) and `request_rate`, at `now`: [`crawlgate::policy::spacing`].
pub(crate) fn spacing(
    crawl_delay: Option<f64>,
    request_rate: Option<&RequestRate>,
    now: SystemTime,
    options: &GateOptions,
) -> PySpacing {
    // As the engine reads it: a finite, non-negative number; only an overflow fails: saturate.
    let crawl_delay = crawl_delay.map(|d| Duration::try_from_secs_f64(d).unwrap_or(Duration::MAX));
    crawlgate::policy::spacing(crawl_delay, request_rate, now, options).into()
}
