//! `Answer`: the engine's answer for one URL, as `RobotsCache.check` and `CrawlPolicy` give it.

use crawlgate::engine::Answer;
use pyo3::prelude::*;

use crate::spacing::{secs, PyRequestRate};

/// The engine's answer for one URL. Truthy when allowed.
#[pyclass(name = "Answer", module = "crawlgate._crawlgate", frozen, get_all)]
#[derive(Clone)]
pub struct PyAnswer {
    /// May the agent fetch the URL?
    allowed: bool,
    /// The URL's robots.txt origin (`scheme://host[:port]`).
    pub(crate) origin: String,
    /// Why the origin's verdict is what it is: `"fetched"`, `"no-robots-txt"`,
    /// `"unreachable"`, … (as `Judgement.reason`).
    reason: &'static str,
    /// The reason in words.
    message: String,
    /// The deciding rule's line as written, when a rule decided.
    rule: Option<String>,
    /// Its 1-based line.
    line: Option<u32>,
    /// `"allow"` or `"disallow"`, when a rule decided.
    kind: Option<&'static str>,
    /// The agent's `Crawl-delay` as written (seconds, uncapped).
    crawl_delay: Option<f64>,
    /// The agent's `Request-rate`.
    request_rate: Option<PyRequestRate>,
    /// The `Sitemap` URLs of the rules in force.
    sitemaps: Vec<String>,
    /// The URL as an HTTP client requests it, when that is not the URL as given.
    judged_url: Option<String>,
}

impl From<&Answer> for PyAnswer {
    fn from(a: &Answer) -> Self {
        PyAnswer {
            allowed: a.allowed,
            origin: a.origin.to_string(),
            reason: a.reason.as_str(),
            message: a.reason.to_string(),
            rule: a.rule.as_ref().map(|r| r.text.clone()),
            line: a.rule.as_ref().map(|r| r.line),
            kind: a.rule.as_ref().map(|r| r.kind.as_str()),
            crawl_delay: a.crawl_delay.map(secs),
            request_rate: a.request_rate.as_ref().map(PyRequestRate::from_rate),
            sitemaps: a.sitemaps.iter().map(str::to_owned).collect(),
            judged_url: a.judged_url.clone(),
        }
    }
}

#[pymethods]
impl PyAnswer {
    fn __bool__(&self) -> bool {
        self.allowed
    }

    fn __repr__(&self) -> String {
        match (&self.rule, self.line) {
            (Some(rule), Some(line)) => format!(
                "Answer(allowed={}, origin={:?}, line={line}, rule={rule:?})",
                if self.allowed { "True" } else { "False" },
                self.origin
            ),
            _ => format!(
                "Answer(allowed={}, origin={:?}, reason={:?})",
                if self.allowed { "True" } else { "False" },
                self.origin,
                self.reason
            ),
        }
    }
}
