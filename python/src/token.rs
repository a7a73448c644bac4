//! `ProductToken`: a crawler's name as robots.txt matches it (the floor every other module
//! reads agents with).

use crawlgate::ProductToken;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A crawler's product token (`[A-Za-z0-9_-]+`, compared case-insensitively).
///
/// `ProductToken("Googlebot")` validates a token; `ProductToken.from_user_agent(header)` reads
/// it from a User-Agent header; `ProductToken.verbatim(s)` takes any string unvalidated, as
/// google/robotstxt's API does. Build one once and pass it to `check` in hot loops.
#[pyclass(
    name = "ProductToken",
    module = "crawlgate._crawlgate",
    frozen,
    eq,
    hash
)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyProductToken(pub(crate) ProductToken);

#[pymethods]
impl PyProductToken {
    /// Validates `token`; raises `ValueError` if it is not a product token.
    #[new]
    fn new(token: &str) -> PyResult<Self> {
        ProductToken::new(token)
            .map(PyProductToken)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The crawler's token read from its User-Agent header (`MyBot/1.0 (+https://…)` →
    /// `mybot`; `Mozilla/5.0 (compatible; Googlebot/2.1; …)` → `googlebot`). Raises
    /// `ValueError` for a browser's own header or a string with no token.
    #[staticmethod]
    fn from_user_agent(header: &str) -> PyResult<Self> {
        ProductToken::from_user_agent(header)
            .map(PyProductToken)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Any string, unvalidated, compared whole and case-insensitively (google/robotstxt's API);
    /// in RFC mode also with a group's whole `user-agent` value that is not a token
    /// (`User-agent: UnicödeBöt`).
    #[staticmethod]
    fn verbatim(agent: &str) -> Self {
        PyProductToken(ProductToken::verbatim(agent))
    }

    /// The token, lowercased.
    #[getter]
    fn value(&self) -> &str {
        self.0.as_str()
    }

    fn __str__(&self) -> &str {
        self.0.as_str()
    }

    fn __repr__(&self) -> String {
        format!("ProductToken({:?})", self.0.as_str())
    }
}
