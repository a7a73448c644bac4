//! Python bindings for `crawlgate`: the module `crawlgate._crawlgate`.
//!
//! Only the crate's public API is used. Every failure is a Python exception (`ValueError` for
//! bad values, `TypeError` for wrong types); nothing here unwraps or panics on input. Parsing
//! and judging release the GIL.

#![forbid(unsafe_code)]

mod answer;
mod batch;
mod crawl;
mod gate;
mod input;
mod page;
mod policy;
mod robots;
mod runtime;
mod spacing;
mod token;

use pyo3::prelude::*;

/// The robots.txt URL of `url`'s origin (scheme, host and port; no userinfo, query or fragment).
///
/// Raises `ValueError` when `url` is not an absolute http(s) URL with a host.
#[pyfunction]
fn robots_txt_url(url: &str) -> PyResult<String> {
    crawlgate::robots_txt_url(url)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

#[pymodule]
fn _crawlgate(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<token::PyProductToken>()?;
    m.add_class::<robots::PyRobots>()?;
    m.add_class::<robots::PyDecision>()?;
    m.add_class::<robots::PyRule>()?;
    m.add_class::<robots::PyAgentRules>()?;
    m.add_class::<robots::PyDiagnostic>()?;
    m.add_class::<spacing::PyRequestRate>()?;
    m.add_class::<policy::PyOriginState>()?;
    m.add_class::<policy::PyJudgement>()?;
    m.add_class::<page::PyPageDirectives>()?;
    m.add_class::<page::PyPageSource>()?;
    m.add_class::<gate::PyRobotsCache>()?;
    m.add_class::<answer::PyAnswer>()?;
    m.add_class::<gate::PyPermit>()?;
    m.add_class::<gate::PyRecorded>()?;
    m.add_class::<spacing::PySpacing>()?;
    m.add_class::<crawl::PyCrawlPolicy>()?;
    m.add_class::<crawl::PyEdge>()?;
    m.add_class::<crawl::PyTdmPolicy>()?;
    m.add_class::<crawl::PyPolicyWarning>()?;
    m.add("Disallowed", m.py().get_type::<gate::Disallowed>())?;
    m.add_class::<batch::PyWarcBatches>()?;
    m.add_function(wrap_pyfunction!(robots_txt_url, m)?)?;
    m.add_function(wrap_pyfunction!(robots::_unpickle_robots, m)?)?;
    m.add_function(wrap_pyfunction!(batch::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(batch::schemas, m)?)?;
    m.add_function(wrap_pyfunction!(page::page_directives, m)?)?;
    m.add("DEFAULT_MAX_BYTES", crawlgate::DEFAULT_MAX_BYTES)?;
    // The gate's defaults, from the engine (`GateOptions::default()`).
    let gate = crawlgate::policy::GateOptions::default();
    m.add("DEFAULT_DELAY", gate.default_delay.as_secs_f64())?;
    m.add("MAX_DELAY", gate.max_delay.as_secs_f64())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
