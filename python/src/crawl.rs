//! `RobotsCache.crawl_policy`: the whole crawl policy of a URL (`CrawlPolicy`, with `Edge`,
//! `TdmPolicy`, `PolicyWarning`), from the engine's `RobotsCache::crawl_policy`.

use crawlgate::engine::{CrawlPolicy, Edge, PagePart, RobotsCache};
use crawlgate::ProductToken;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::answer::PyAnswer;
use crate::input;
use crate::page::{bytes_of, header_fields, PyPageDirectives};
use crate::runtime::runtime;

/// A refusal at the edge of the site, seen when robots.txt was fetched.
#[pyclass(name = "Edge", module = "crawlgate._crawlgate", frozen, get_all)]
pub struct PyEdge {
    /// `"challenge"`, `"payment-required"` or `"unreachable"`.
    kind: &'static str,
    /// The challenge's status, or 402.
    status: Option<u16>,
    /// A challenge's marker, `name: value`.
    marker: Option<String>,
    /// Why robots.txt could not be fetched (`"unreachable"`).
    cause: Option<String>,
    /// A 402's price headers, `(name, value)`, names lowercase.
    price: Vec<(String, String)>,
}

#[pymethods]
impl PyEdge {
    fn __repr__(&self) -> String {
        format!("Edge(kind={:?}, status={:?})", self.kind, self.status)
    }
}

impl PyEdge {
    fn new(edge: &Edge) -> PyEdge {
        let mut e = PyEdge {
            kind: edge.as_str(),
            status: None,
            marker: None,
            cause: None,
            price: Vec::new(),
        };
        match edge {
            Edge::Challenge { status, marker } => {
                e.status = Some(*status);
                e.marker = Some(marker.clone());
            }
            Edge::PaymentRequired(p) => {
                e.status = Some(402);
                e.price = p.headers.clone();
            }
            Edge::Unreachable(cause) => e.cause = Some(cause.to_string()),
            // An edge the engine adds later shows its kind only.
            _ => {}
        }
        e
    }
}

/// TDMRep for the URL: the page's own fields over the origin's `tdmrep.json`.
#[pyclass(name = "TdmPolicy", module = "crawlgate._crawlgate", frozen, get_all)]
pub struct PyTdmPolicy {
    /// `"reserved"`, `"not-reserved"`, `"unset"` or `"unknown"`.
    reservation: &'static str,
    /// The TDM policy's URL in force.
    policy: Option<String>,
    /// Where the reservation comes from: `"header"`, `"meta"` or `"file"`.
    source: &'static str,
    /// The URL of `tdmrep.json`, when it could be asked.
    file: Option<String>,
    /// The file's own answer.
    file_reservation: Option<&'static str>,
    /// Why the file's answer is what it is (as `Answer.reason`).
    file_reason: Option<&'static str>,
    /// The number of the file's rule that decided (1-based).
    rule: Option<usize>,
    /// That rule's `location`.
    location: Option<String>,
    /// Why the file could not be asked (a failure on this side).
    file_error: Option<String>,
}

#[pymethods]
impl PyTdmPolicy {
    fn __repr__(&self) -> String {
        format!(
            "TdmPolicy(reservation={:?}, source={:?})",
            self.reservation, self.source
        )
    }
}

/// A warning about how the parts of a crawl policy combine.
#[pyclass(
    name = "PolicyWarning",
    module = "crawlgate._crawlgate",
    frozen,
    get_all
)]
pub struct PyPolicyWarning {
    /// A stable kebab-case code: `"noindex-unseen"`.
    code: &'static str,
    /// What it means, in words.
    message: &'static str,
}

#[pymethods]
impl PyPolicyWarning {
    fn __repr__(&self) -> String {
        format!("PolicyWarning({:?})", self.code)
    }
}

/// The whole crawl policy of one URL for the agent. Truthy when the URL may be fetched.
#[pyclass(name = "CrawlPolicy", module = "crawlgate._crawlgate", frozen, get_all)]
pub struct PyCrawlPolicy {
    /// The URL as given.
    url: String,
    /// The agent's product token.
    agent: String,
    /// May the agent fetch the URL (robots.txt and the edge)?
    allowed: bool,
    /// robots.txt's answer.
    robots: PyAnswer,
    /// The origin's verdict: `"rules"`, `"allow-all"` or `"disallow-all"`.
    verdict: &'static str,
    /// A refusal at the edge, if robots.txt's fetch showed one.
    edge: Option<Py<PyEdge>>,
    /// TDMRep.
    tdm: Py<PyTdmPolicy>,
    /// The page's directives, when its response was given.
    page: Option<Py<PyPageDirectives>>,
    /// The page's status, when its response was given.
    page_status: Option<u16>,
    /// How the parts combine badly.
    warnings: Vec<Py<PyPolicyWarning>>,
}

#[pymethods]
impl PyCrawlPolicy {
    fn __bool__(&self) -> bool {
        self.allowed
    }

    fn __repr__(&self) -> String {
        let codes: Vec<&str> = self.warnings.iter().map(|w| w.get().code).collect();
        format!(
            "CrawlPolicy(url={:?}, allowed={}, warnings={codes:?})",
            self.url,
            if self.allowed { "True" } else { "False" }
        )
    }
}

impl PyCrawlPolicy {
    fn new(py: Python<'_>, p: CrawlPolicy) -> PyResult<PyCrawlPolicy> {
        let t = &p.tdm;
        let file = t.file.as_ref();
        let tdm = PyTdmPolicy {
            reservation: t.reservation.as_str(),
            policy: t.policy.clone(),
            source: t.source.as_str(),
            file: file.map(|a| a.file_url.clone()),
            file_reservation: file.map(|a| a.reservation.as_str()),
            file_reason: file.map(|a| a.reason.as_str()),
            rule: file.and_then(|a| a.rule.as_ref()).map(|r| r.number),
            location: file
                .and_then(|a| a.rule.as_ref())
                .map(|r| r.location.clone()),
            file_error: t.file_error.clone(),
        };
        Ok(PyCrawlPolicy {
            allowed: p.allowed(),
            robots: PyAnswer::from(&p.robots),
            verdict: p.verdict.as_str(),
            edge: p
                .edge
                .as_ref()
                .map(|e| Py::new(py, PyEdge::new(e)))
                .transpose()?,
            tdm: Py::new(py, tdm)?,
            page_status: p.page.as_ref().map(|page| page.status),
            page: p
                .page
                .map(|page| Py::new(py, PyPageDirectives::from(page.directives)))
                .transpose()?,
            warnings: p
                .warnings
                .iter()
                .map(|w| {
                    Py::new(
                        py,
                        PyPolicyWarning {
                            code: w.code(),
                            message: w.message(),
                        },
                    )
                })
                .collect::<PyResult<_>>()?,
            url: p.url,
            agent: p.agent,
        })
    }
}

/// `RobotsCache.crawl_policy(url, status, headers, body)`: the page's directives are read
/// (with the engine's limits) when its `status` is given, then the engine answers.
pub(crate) fn crawl_policy<'py>(
    py: Python<'py>,
    cache: &RobotsCache,
    token: &ProductToken,
    url: &Bound<'py, PyAny>,
    page_status: Option<i64>,
    headers: Option<&Bound<'py, PyAny>>,
    body: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let url = input::url(url)?;
    let page = match page_status {
        Some(code) => {
            let code = input::status(code)?;
            let fields = headers
                .filter(|h| !h.is_none())
                .map(header_fields)
                .transpose()?
                .unwrap_or_default();
            let body = body
                .filter(|b| !b.is_none())
                .map(|b| bytes_of(b, "body"))
                .transpose()?;
            let directives = py.detach(|| {
                cache.page_directives(
                    token,
                    code,
                    fields.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
                    body.as_deref(),
                )
            });
            Some(PagePart::new(code, None, directives))
        }
        None if headers.is_some_and(|h| !h.is_none()) || body.is_some_and(|b| !b.is_none()) => {
            return Err(PyValueError::new_err(
                "a page's headers or body need its status",
            ));
        }
        None => None,
    };
    let cache = cache.clone();
    let token = token.clone();
    runtime()?;
    pyo3_async_runtimes::tokio::future_into_py(py, async move {
        match cache.crawl_policy(&token, &url, page).await {
            Ok(policy) => Python::attach(|py| PyCrawlPolicy::new(py, policy)),
            Err(e) => Err(PyValueError::new_err(e.to_string())),
        }
    })
}
