//! `page_directives(headers, body, agent)`: a page's directives for one agent.

use crawlgate::page::{evaluate, Options, PageDirectives, Source};
use crawlgate::Mode;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use crate::input;

/// Where a page directive was found.
#[pyclass(
    name = "PageSource",
    module = "crawlgate._crawlgate",
    frozen,
    get_all,
    eq
)]
#[derive(Clone, PartialEq)]
pub struct PyPageSource {
    /// `"header"` or `"meta"`.
    kind: &'static str,
    /// The header's or the `<meta>`'s name, lowercase.
    name: String,
    /// The product token it is scoped to; `None` for every agent.
    agent: Option<String>,
    /// The directive as written.
    raw: String,
    /// `<meta>`: its 1-based line; header: 0.
    line: usize,
    /// Header: byte offset in the field; `<meta>`: the element's in the HTML.
    offset: usize,
    /// The rules it sets (`["noindex", "nofollow"]` for `none`); empty for an unknown one.
    rules: Vec<&'static str>,
}

#[pymethods]
impl PyPageSource {
    fn __repr__(&self) -> String {
        format!("PageSource({} {} {:?})", self.kind, self.name, self.raw)
    }
}

fn source(s: &Source, rules: &[&'static str]) -> PyPageSource {
    PyPageSource {
        kind: s.kind.as_str(),
        name: s.name.clone(),
        agent: s.agent.clone(),
        raw: s.raw.clone(),
        line: s.line,
        offset: s.offset,
        rules: rules.to_vec(),
    }
}

/// What a page says one agent may do with it (most restrictive wins), with the sources.
#[pyclass(
    name = "PageDirectives",
    module = "crawlgate._crawlgate",
    frozen,
    get_all
)]
pub struct PyPageDirectives {
    index: bool,
    follow: bool,
    archive: bool,
    snippet: bool,
    max_snippet: Option<i64>,
    image_index: bool,
    max_image_preview: Option<&'static str>,
    max_video_preview: Option<i64>,
    /// Unix seconds.
    unavailable_after: Option<i64>,
    translate: bool,
    index_if_embedded: bool,
    noai: bool,
    noimageai: bool,
    noml: bool,
    tdm_reservation: Option<bool>,
    tdm_policy: Option<String>,
    /// `Content-Usage` `train-ai`: `"allowed"`, `"disallowed"` or `"unknown"`.
    train_ai: &'static str,
    /// `Content-Usage` `search`.
    search: &'static str,
    /// Every directive that applies, headers first.
    sources: Vec<PyPageSource>,
    /// Directives not understood that apply: kept, otherwise ignored.
    unknown: Vec<PyPageSource>,
    /// `(code, severity, message)` of each problem.
    problems: Vec<(&'static str, &'static str, String)>,
}

#[pymethods]
impl PyPageDirectives {
    fn __repr__(&self) -> String {
        format!(
            "PageDirectives(index={}, follow={}, archive={}, snippet={}, noai={})",
            self.index, self.follow, self.archive, self.snippet, self.noai
        )
    }
}

impl From<PageDirectives> for PyPageDirectives {
    fn from(p: PageDirectives) -> Self {
        let r = &p.rules;
        PyPageDirectives {
            index: r.index,
            follow: r.follow,
            archive: r.archive,
            snippet: r.snippet,
            max_snippet: r.max_snippet,
            image_index: r.image_index,
            max_image_preview: r.max_image_preview.map(|i| i.as_str()),
            max_video_preview: r.max_video_preview,
            unavailable_after: r.unavailable_after,
            translate: r.translate,
            index_if_embedded: r.index_if_embedded,
            noai: r.noai,
            noimageai: r.noimageai,
            noml: r.noml,
            tdm_reservation: r.tdm_reservation,
            tdm_policy: r.tdm_policy.clone(),
            train_ai: r.content_usage.train_ai.as_str(),
            search: r.content_usage.search.as_str(),
            sources: p
                .found
                .iter()
                .map(|f| source(&f.source, f.directive.rules()))
                .collect(),
            unknown: p.unknown.iter().map(|s| source(s, &[])).collect(),
            problems: p
                .diagnostics
                .iter()
                .map(|d| (d.code.as_str(), d.severity.as_str(), d.message.to_string()))
                .collect(),
        }
    }
}

pub(crate) fn bytes_of(ob: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    if let Ok(b) = ob.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(s) = ob.cast::<PyString>() {
        return Ok(s.to_str()?.as_bytes().to_vec());
    }
    if let Ok(b) = ob.cast::<PyByteArray>() {
        return Ok(b.to_vec());
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be bytes or str, not {}",
        input::type_name(ob)
    )))
}

/// Response header fields from a mapping or an iterable of `(name, value)` pairs (str or
/// bytes; a mapping value may be a list of values, as Scrapy's `Headers`).
pub(crate) fn header_fields(headers: &Bound<'_, PyAny>) -> PyResult<Vec<(String, Vec<u8>)>> {
    let items = if headers.hasattr("items")? {
        headers.call_method0("items")?
    } else {
        headers.clone()
    };
    let mut fields: Vec<(String, Vec<u8>)> = Vec::new();
    for item in items.try_iter()? {
        let item = item?;
        let (name, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
        let name = String::from_utf8_lossy(&bytes_of(&name, "a header name")?).into_owned();
        if value.cast::<PyBytes>().is_err() && value.cast::<PyString>().is_err() {
            if let Ok(list) = value.try_iter() {
                for v in list {
                    fields.push((name.clone(), bytes_of(&v?, "a header value")?));
                }
                continue;
            }
        }
        fields.push((name, bytes_of(&value, "a header value")?));
    }
    Ok(fields)
}

/// A page's directives for `agent`: `headers` is a mapping or an iterable of `(name, value)`
/// pairs (str or bytes; a mapping value may be a list of values, as Scrapy's `Headers`), `body`
/// the first bytes of its HTML (`None` when it is not HTML). Never raises on what a site
/// sends; raises `TypeError` for wrong types and `ValueError` for an agent with no token.
#[pyfunction]
#[pyo3(signature = (headers, body, agent))]
pub fn page_directives(
    py: Python<'_>,
    headers: &Bound<'_, PyAny>,
    body: Option<&Bound<'_, PyAny>>,
    agent: &Bound<'_, PyAny>,
) -> PyResult<PyPageDirectives> {
    let agent = input::agent(agent, Mode::Rfc)?;
    let fields = header_fields(headers)?;
    let body = body.map(|b| bytes_of(b, "body")).transpose()?;
    let options = Options::default();
    let page = py.detach(|| {
        evaluate(
            fields.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
            body.as_deref(),
            &agent,
            &options,
        )
    });
    Ok(page.into())
}
