//! `Robots`, `Decision`, `Rule`, `AgentRules`, `Diagnostic`: a robots.txt parsed, checked, and
//! its AI-usage records and audit.

use std::sync::Arc;

use crawlgate::audit::{audit, Catalogue, PathAudit};
use crawlgate::{
    ContentSignals, Decision, Diagnostic, Mode, Options, OtherKey, ProductToken, Reason, Robots,
    RuleRef, UsagePreferences,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::input;
use crate::spacing::{self, parse_rate, GateArgs, PyRequestRate, PySpacing};

/// An `allow` or `disallow` rule as the file wrote it.
#[pyclass(name = "Rule", module = "crawlgate._crawlgate", frozen, get_all, eq)]
#[derive(Clone, PartialEq)]
pub struct PyRule {
    /// `"allow"` or `"disallow"`.
    kind: &'static str,
    /// 1-based line.
    line: u32,
    /// The line as written, without comment and surrounding whitespace.
    text: String,
    /// The path pattern as written (for an `index_html` rule, the derived `/dir/$`).
    pattern: String,
    /// Google mode only: the `/dir/$` rule derived from `Allow: /dir/index.html`.
    index_html: bool,
}

impl From<RuleRef<'_>> for PyRule {
    fn from(r: RuleRef<'_>) -> Self {
        PyRule {
            kind: r.kind.as_str(),
            line: r.line,
            text: r.text.to_string(),
            pattern: r.pattern.to_owned(),
            index_html: r.index_html,
        }
    }
}

#[pymethods]
impl PyRule {
    #[getter]
    fn allow(&self) -> bool {
        self.kind == "allow"
    }

    fn __repr__(&self) -> String {
        format!("Rule(line={}, text={:?})", self.line, self.text)
    }
}

/// The answer to "may this agent fetch this URL?", with what decided it.
///
/// Truthy when allowed.
#[pyclass(name = "Decision", module = "crawlgate._crawlgate", frozen, get_all)]
#[derive(Clone)]
pub struct PyDecision {
    /// May the agent fetch it?
    pub(crate) allowed: bool,
    /// Which groups applied: `"token"`, `"star"` or `"none"`.
    group: &'static str,
    /// What decided: `"rule"`, `"no-matching-rule"`, `"no-group"` or `"robots-txt"`.
    reason: &'static str,
    /// The deciding rule, if a rule decided.
    rule: Option<PyRule>,
}

impl From<Decision<'_>> for PyDecision {
    fn from(d: Decision<'_>) -> Self {
        PyDecision {
            allowed: d.allowed,
            group: d.group.as_str(),
            reason: d.reason.as_str(),
            rule: match d.reason {
                Reason::Rule(r) => Some(r.into()),
                _ => None,
            },
        }
    }
}

impl PyDecision {
    pub(crate) fn fixed(allowed: bool, reason: &'static str) -> Self {
        PyDecision {
            allowed,
            group: "none",
            reason,
            rule: None,
        }
    }
}

#[pymethods]
impl PyDecision {
    /// The deciding line (1-based), if a rule decided.
    #[getter]
    fn line(&self) -> Option<u32> {
        self.rule.as_ref().map(|r| r.line)
    }

    fn __bool__(&self) -> bool {
        self.allowed
    }

    fn __repr__(&self) -> String {
        match &self.rule {
            Some(r) => format!(
                "Decision(allowed={}, line={}, rule={:?})",
                py_bool(self.allowed),
                r.line,
                r.text
            ),
            None => format!(
                "Decision(allowed={}, reason={:?})",
                py_bool(self.allowed),
                self.reason
            ),
        }
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// One problem found while parsing.
#[pyclass(name = "Diagnostic", module = "crawlgate._crawlgate", frozen, get_all)]
#[derive(Clone)]
pub struct PyDiagnostic {
    /// Stable kebab-case code (`"misspelled-key"`, `"invalid-utf8"`, …).
    code: &'static str,
    /// `"error"` (the line is not used) or `"warning"` (it is used).
    severity: &'static str,
    /// 1-based line.
    line: u32,
    /// Byte range `(start, end)` in the input.
    span: (usize, usize),
    /// A sentence for people.
    message: String,
}

impl From<&Diagnostic> for PyDiagnostic {
    fn from(d: &Diagnostic) -> Self {
        PyDiagnostic {
            code: d.code.as_str(),
            severity: d.severity.as_str(),
            line: d.line,
            span: (d.span.start, d.span.end),
            message: d.message.to_string(),
        }
    }
}

#[pymethods]
impl PyDiagnostic {
    fn __str__(&self) -> String {
        format!(
            "line {}: {}[{}]: {}",
            self.line, self.severity, self.code, self.message
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "Diagnostic(code={:?}, severity={:?}, line={}, span={:?})",
            self.code, self.severity, self.line, self.span
        )
    }
}

/// The rules that apply to one agent, resolved once.
#[pyclass(name = "AgentRules", module = "crawlgate._crawlgate", frozen)]
pub struct PyAgentRules {
    robots: Arc<Robots>,
    token: ProductToken,
}

#[pymethods]
impl PyAgentRules {
    /// Which groups applied: `"token"`, `"star"` or `"none"`.
    #[getter]
    fn group(&self) -> &'static str {
        self.robots.rules_for(&self.token).group().as_str()
    }

    /// The rules in precedence order (longest first, `allow` first on ties).
    #[getter]
    fn rules(&self) -> Vec<PyRule> {
        self.robots
            .rules_for(&self.token)
            .rules()
            .map(PyRule::from)
            .collect()
    }

    /// Decides for `url` (absolute URL or path).
    fn check(&self, url: &Bound<'_, PyAny>) -> PyResult<PyDecision> {
        let url = input::url(url)?;
        Ok(self.robots.rules_for(&self.token).check(&url).into())
    }

    /// Whether `url` may be fetched.
    fn allowed(&self, url: &Bound<'_, PyAny>) -> PyResult<bool> {
        let url = input::url(url)?;
        Ok(self.robots.rules_for(&self.token).check(&url).allowed)
    }

    fn __len__(&self) -> usize {
        self.robots.rules_for(&self.token).rules().count()
    }

    fn __repr__(&self) -> String {
        format!(
            "AgentRules(agent={:?}, group={:?})",
            self.token.as_str(),
            self.group()
        )
    }
}

/// What a `Robots` was parsed from and how: kept so that it pickles, and is parsed again
/// alike (the body as given: a diagnostic may name its length).
#[derive(Clone)]
pub(crate) struct Source {
    /// `None`: `Robots.allow_all`.
    body: Option<Arc<[u8]>>,
    mode: Mode,
    max_bytes: usize,
    diagnostics: bool,
}

impl Source {
    pub(crate) fn new(body: Arc<[u8]>, options: &Options) -> Self {
        Source {
            body: Some(body),
            mode: options.mode,
            max_bytes: options.max_bytes,
            diagnostics: options.diagnostics,
        }
    }

    fn allow_all(mode: Mode) -> Self {
        Source {
            body: None,
            mode,
            max_bytes: crawlgate::DEFAULT_MAX_BYTES,
            diagnostics: true,
        }
    }
}

/// A parsed, compiled robots.txt. Build with `Robots.parse(body, mode="rfc")`.
#[pyclass(name = "Robots", module = "crawlgate._crawlgate", frozen)]
#[derive(Clone)]
pub struct PyRobots {
    pub(crate) robots: Arc<Robots>,
    diagnostics: Arc<[Diagnostic]>,
    source: Source,
}

impl PyRobots {
    pub(crate) fn new(robots: Arc<Robots>, diagnostics: Arc<[Diagnostic]>, source: Source) -> Self {
        PyRobots {
            robots,
            diagnostics,
            source,
        }
    }

    /// The groups that apply to `token`, as `Robots::rules_for` chooses them.
    fn groups_of(&self, token: &ProductToken) -> Vec<usize> {
        self.robots.rules_for(token).group_indexes().collect()
    }

    fn parsed(py: Python<'_>, body: Arc<[u8]>, options: &Options) -> Self {
        let parsed = input::parse(py, &body, options);
        PyRobots::new(
            Arc::new(parsed.robots),
            parsed.diagnostics.into(),
            Source::new(body, options),
        )
    }
}

/// What a `Robots` pickles as: body (`None`: allow all), mode, `max_bytes`, `diagnostics`.
type PickledRobots<'py> = (Option<Bound<'py, PyBytes>>, &'static str, usize, bool);

/// `pickle`'s way back to a `Robots`: parsed again from its body, as it was.
#[pyfunction]
pub(crate) fn _unpickle_robots(
    py: Python<'_>,
    body: Option<&[u8]>,
    mode: &str,
    max_bytes: usize,
    diagnostics: bool,
) -> PyResult<PyRobots> {
    let mode = input::mode(mode)?;
    Ok(match body {
        None => PyRobots::allow_all(mode.as_str())?,
        Some(body) => PyRobots::parsed(
            py,
            Arc::from(body),
            &input::options(mode, Some(max_bytes), diagnostics),
        ),
    })
}

/// Preferences as `{"train_ai": …, "search": …}`, each `"allowed"`, `"disallowed"` or
/// `"unknown"`.
fn preferences<'py>(py: Python<'py>, p: &UsagePreferences) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("train_ai", p.train_ai.as_str())?;
    d.set_item("search", p.search.as_str())?;
    Ok(d)
}

/// Signals as `{"search": …, "ai_input": …, "ai_train": …}`.
fn signals<'py>(py: Python<'py>, s: &ContentSignals) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("search", s.search.as_str())?;
    d.set_item("ai_input", s.ai_input.as_str())?;
    d.set_item("ai_train", s.ai_train.as_str())?;
    Ok(d)
}

fn path_audit<'py>(py: Python<'py>, p: &PathAudit<'_>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("path", &p.path)?;
    d.set_item("access", p.access.as_str())?;
    d.set_item("decision", PyDecision::from(p.decision))?;
    d.set_item("other", p.other.map(PyRule::from))?;
    Ok(d)
}

#[pymethods]
impl PyRobots {
    /// Parses a robots.txt body (bytes, bytearray or str). Never fails on content: problems are
    /// in `diagnostics`. `mode` is `"rfc"` (RFC 9309, default) or `"google"`
    /// (google/robotstxt's behaviour); `max_bytes` raises the 512,000-byte limit;
    /// `diagnostics=False` skips looking for problems (`diagnostics` is then empty; the rules
    /// are the same, the parse faster). The GIL is released while large bodies are parsed.
    #[staticmethod]
    #[pyo3(signature = (body, mode = "rfc", max_bytes = None, diagnostics = true))]
    fn parse(
        py: Python<'_>,
        body: &Bound<'_, PyAny>,
        mode: &str,
        max_bytes: Option<usize>,
        diagnostics: bool,
    ) -> PyResult<Self> {
        let mode = input::mode(mode)?;
        let body = input::body(body)?;
        Ok(PyRobots::parsed(
            py,
            body,
            &input::options(mode, max_bytes, diagnostics),
        ))
    }

    /// An empty rule set: everything allowed.
    #[staticmethod]
    #[pyo3(signature = (mode = "rfc"))]
    fn allow_all(mode: &str) -> PyResult<Self> {
        let mode = input::mode(mode)?;
        Ok(PyRobots::new(
            Arc::new(Robots::allow_all(mode)),
            Arc::from([]),
            Source::allow_all(mode),
        ))
    }

    /// `"rfc"` or `"google"`.
    #[getter]
    fn mode(&self) -> &'static str {
        self.robots.mode().as_str()
    }

    /// Problems found while parsing, in line order.
    #[getter]
    fn diagnostics(&self) -> Vec<PyDiagnostic> {
        self.diagnostics.iter().map(PyDiagnostic::from).collect()
    }

    /// Bytes of input read (at most the size limit).
    #[getter]
    fn bytes_used(&self) -> usize {
        self.robots.bytes_used()
    }

    /// Number of allow/disallow rules in use.
    #[getter]
    fn rule_count(&self) -> usize {
        self.robots.rule_count()
    }

    /// The `sitemap` URLs, in file order.
    #[getter]
    fn sitemaps(&self) -> Vec<String> {
        self.robots.sitemaps().map(|s| s.url.to_owned()).collect()
    }

    /// Records outside the protocol as `(key, value, line)`, in file order
    /// (`("crawl-delay", "10", 3)`).
    #[getter]
    fn records(&self) -> Vec<(&'static str, String, u32)> {
        self.robots
            .records()
            .map(|r| (r.key.as_str(), r.value.to_owned(), r.line))
            .collect()
    }

    /// Decides whether `agent` may fetch `url`. `agent` is a `ProductToken`, or a str/bytes
    /// agent: in `"google"` mode any string, compared whole as google/robotstxt's API takes it;
    /// in `"rfc"` mode a product token or User-Agent header. `url` is an absolute URL or a path
    /// (str or bytes). Raises `ValueError` for non-UTF-8 bytes and, in `"rfc"` mode, for an
    /// agent with no product token.
    fn check(&self, agent: &Bound<'_, PyAny>, url: &Bound<'_, PyAny>) -> PyResult<PyDecision> {
        let token = input::agent(agent, self.robots.mode())?;
        let url = input::url(url)?;
        Ok(self.robots.check(&token, &url).into())
    }

    /// `check(agent, url).allowed`, without building the decision.
    fn allowed(&self, agent: &Bound<'_, PyAny>, url: &Bound<'_, PyAny>) -> PyResult<bool> {
        let token = input::agent(agent, self.robots.mode())?;
        let url = input::url(url)?;
        Ok(self.robots.is_allowed(&token, &url))
    }

    /// The rules that apply to `agent`.
    fn rules_for(&self, agent: &Bound<'_, PyAny>) -> PyResult<PyAgentRules> {
        Ok(PyAgentRules {
            robots: self.robots.clone(),
            token: input::agent(agent, self.robots.mode())?,
        })
    }

    /// The `crawl-delay` (seconds) of the groups that apply to `agent`, if any.
    fn crawl_delay(&self, agent: &Bound<'_, PyAny>) -> PyResult<Option<f64>> {
        Ok(self
            .robots
            .crawl_delay(&input::agent(agent, self.robots.mode())?))
    }

    /// The first usable `request-rate` of the groups that apply to `agent` (`1/10`, `3/1m`…).
    fn request_rate(&self, agent: &Bound<'_, PyAny>) -> PyResult<Option<PyRequestRate>> {
        let token = input::agent(agent, self.robots.mode())?;
        let groups = self.groups_of(&token);
        Ok(self
            .robots
            .records()
            .filter(|r| r.key == OtherKey::RequestRate)
            .filter(|r| r.group.is_some_and(|g| groups.contains(&g)))
            .find_map(|r| parse_rate(r.value)))
    }

    /// The time between two requests to an origin with these rules, as the engine's gate
    /// spaces them (`RobotsCache.acquire`): the largest of the agent's `crawl-delay`, its
    /// `request-rate` interval (inside its UTC window, if it has one) and `default_delay` (the
    /// floor, default 1 s), capped at `max_delay` (default 60 s). `now` (epoch seconds or a
    /// datetime; default: the current time) decides a rate's window.
    #[pyo3(signature = (agent, *, default_delay = None, max_delay = None, now = None))]
    fn spacing(
        &self,
        agent: &Bound<'_, PyAny>,
        default_delay: Option<f64>,
        max_delay: Option<f64>,
        now: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PySpacing> {
        let token = input::agent(agent, self.robots.mode())?;
        let options = GateArgs {
            default_delay,
            max_delay,
            max_concurrency: None,
            backoff_base: None,
            backoff_max: None,
            max_retry_after: None,
        }
        .options()?;
        let now = match now {
            Some(t) if !t.is_none() => input::time(t)?,
            _ => std::time::SystemTime::now(),
        };
        Ok(spacing::spacing(
            self.robots.crawl_delay(&token),
            self.robots.request_rate(&token).as_ref(),
            now,
            &options,
        ))
    }

    /// The rules written back as a clean robots.txt.
    fn to_robots_txt(&self) -> String {
        self.robots.to_robots_txt()
    }

    /// An estimate of the heap bytes held: the compiled rules, and the body they were parsed
    /// from (kept so that a `Robots` pickles).
    #[getter]
    fn heap_size(&self) -> usize {
        self.robots.heap_size() + self.source.body.as_ref().map_or(0, |b| b.len())
    }

    /// Pickles as its body, mode and options; unpickling parses the body again (the same
    /// rules, diagnostics and lines).
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, PickledRobots<'py>)> {
        let unpickle = py
            .import("crawlgate._crawlgate")?
            .getattr("_unpickle_robots")?;
        let s = &self.source;
        Ok((
            unpickle,
            (
                s.body.as_ref().map(|b| PyBytes::new(py, b)),
                s.mode.as_str(),
                s.max_bytes,
                s.diagnostics,
            ),
        ))
    }

    /// The usage preferences in force for `agent` at `url` (`Content-Usage`, IETF AI
    /// Preferences): `{"train_ai": …, "search": …, "lines": [...], "allowed": bool}`, each
    /// preference `"allowed"`, `"disallowed"` or `"unknown"`; `lines` are those of the
    /// deciding `Content-Usage` rules. A URL the agent may not crawl has none (all unknown).
    /// Not a crawl permission.
    fn usage<'py>(
        &self,
        py: Python<'py>,
        agent: &Bound<'_, PyAny>,
        url: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let token = input::agent(agent, self.robots.mode())?;
        let url = input::url(url)?;
        let usage = self.robots.usage(&token, &url);
        let d = preferences(py, &usage.preferences)?;
        let lines: Vec<u32> = usage.rules.iter().map(|r| r.line).collect();
        d.set_item("lines", lines)?;
        d.set_item("allowed", usage.decision.allowed)?;
        Ok(d)
    }

    /// The `Content-Signal`s of the groups that apply to `agent`, combined:
    /// `{"search": …, "ai_input": …, "ai_train": …, "lines": [...]}`. Not a crawl permission.
    fn content_signals<'py>(
        &self,
        py: Python<'py>,
        agent: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let token = input::agent(agent, self.robots.mode())?;
        let s = self.robots.content_signals(&token);
        let d = signals(py, &s.signals)?;
        let lines: Vec<u32> = s.lines.iter().map(|l| l.line).collect();
        d.set_item("lines", lines)?;
        Ok(d)
    }

    /// Every `Content-Usage` rule, in file order: `(line, path or None, statement)`.
    #[getter]
    fn content_usage_rules(&self) -> Vec<(u32, Option<String>, String)> {
        self.robots
            .content_usage_rules()
            .map(|r| (r.line, r.path.map(str::to_owned), r.statement.to_owned()))
            .collect()
    }

    /// Every `Content-Signal` line, in file order: `(line, text)`.
    #[getter]
    fn content_signal_lines(&self) -> Vec<(u32, String)> {
        self.robots
            .content_signal_lines()
            .map(|s| (s.line, s.text.to_owned()))
            .collect()
    }

    /// The `License` records (RSL 1.0), in file order: `(url, line)`.
    #[getter]
    fn licenses(&self) -> Vec<(String, u32)> {
        self.robots
            .licenses()
            .iter()
            .map(|l| (l.url.clone(), l.line))
            .collect()
    }

    /// The `LLM-Policy` records, in file order: `(url, line)`.
    #[getter]
    fn llm_policies(&self) -> Vec<(String, u32)> {
        self.robots
            .llm_policies()
            .iter()
            .map(|l| (l.url.clone(), l.line))
            .collect()
    }

    /// Every catalogued AI crawler's standing in this file, as `crawlgate audit` reports it:
    /// a dict per crawler (`name`, `token`, `purpose`, `operator`, `group`, `group_lines`,
    /// `root` and `paths` — each `{"path", "access": "blocked" | "partly" | "allowed",
    /// "decision", "other"}` —, `usage`, `usage_lines`, `signals`, `signal_lines`). `paths` are
    /// asked about besides `/`; `catalogue` is the path of a catalogue file of the shape of
    /// ai.robots.txt's `robots.json` (default: the built-in one).
    #[pyo3(signature = (paths = Vec::new(), catalogue = None))]
    fn audit<'py>(
        &self,
        py: Python<'py>,
        paths: Vec<String>,
        catalogue: Option<std::path::PathBuf>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let catalogue = load_catalogue(catalogue.as_deref())?;
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        audit(&self.robots, &catalogue, &paths)
            .iter()
            .map(|a| {
                let d = PyDict::new(py);
                d.set_item("name", &a.crawler.name)?;
                d.set_item("token", a.crawler.token.as_ref().map(ProductToken::as_str))?;
                d.set_item("purpose", a.crawler.purpose.as_str())?;
                d.set_item("operator", &a.crawler.operator)?;
                d.set_item("group", a.group.as_str())?;
                d.set_item("group_lines", &a.group_lines)?;
                d.set_item("root", path_audit(py, &a.root)?)?;
                let paths = a
                    .paths
                    .iter()
                    .map(|p| path_audit(py, p))
                    .collect::<PyResult<Vec<_>>>()?;
                d.set_item("paths", paths)?;
                d.set_item("usage", preferences(py, &a.usage)?)?;
                d.set_item("usage_lines", &a.usage_lines)?;
                d.set_item("signals", signals(py, &a.signals)?)?;
                d.set_item("signal_lines", &a.signal_lines)?;
                Ok(d)
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Robots(mode={:?}, groups={}, rules={}, diagnostics={})",
            self.mode(),
            self.robots.groups().len(),
            self.robots.rule_count(),
            self.diagnostics.len()
        )
    }
}

/// The catalogue in `file` (ai.robots.txt's `robots.json` shape), or the built-in one.
pub(crate) fn load_catalogue(file: Option<&std::path::Path>) -> PyResult<Catalogue> {
    let Some(file) = file else {
        return Ok(Catalogue::builtin());
    };
    let text = std::fs::read_to_string(file)?;
    Catalogue::from_json(&text)
        .map_err(|e| PyValueError::new_err(format!("{}: {e}", file.display())))
}
