//! Reading Python arguments: bodies, agents, URLs, modes and times.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crawlgate::{Mode, Options, Parsed, ProductToken, Robots};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use crate::token::PyProductToken;

/// `"rfc"` or `"google"`, case-insensitively.
pub(crate) fn mode(s: &str) -> PyResult<Mode> {
    s.parse::<Mode>().map_err(PyValueError::new_err)
}

/// The options of a parse: `mode`, `max_bytes` (raises the limit) and `diagnostics`.
pub(crate) fn options(mode: Mode, max_bytes: Option<usize>, diagnostics: bool) -> Options {
    let mut options = Options::mode(mode);
    if let Some(m) = max_bytes {
        options.max_bytes = m;
    }
    options.diagnostics = diagnostics;
    options
}

/// `body` (bytes, bytearray or str) as bytes of our own: kept by `Robots` to be pickled, and
/// read with the GIL released (a bytearray could change under a borrow).
pub(crate) fn body(body: &Bound<'_, PyAny>) -> PyResult<Arc<[u8]>> {
    if let Ok(b) = body.cast::<PyBytes>() {
        return Ok(Arc::from(b.as_bytes()));
    }
    if let Ok(s) = body.cast::<PyString>() {
        return Ok(Arc::from(s.to_str()?.as_bytes()));
    }
    if let Ok(b) = body.cast::<PyByteArray>() {
        return Ok(Arc::from(b.to_vec()));
    }
    Err(PyTypeError::new_err(format!(
        "robots.txt body must be bytes, bytearray or str, not {}",
        type_name(body)
    )))
}

/// Parses `body` with the GIL released: other Python threads run while it parses, whatever
/// its size.
pub(crate) fn parse(py: Python<'_>, body: &[u8], options: &Options) -> Parsed {
    py.detach(|| Robots::parse_with(body, options))
}

/// A crawler's product token as `mode` takes it: a `ProductToken` object as it is; a str/bytes
/// agent in `Mode::Google` verbatim, any string (as google/robotstxt's API and the CLI take it),
/// in `Mode::Rfc` a product token or User-Agent header (read with
/// `ProductToken::from_user_agent`; `ValueError` when it has none).
pub(crate) fn agent(ob: &Bound<'_, PyAny>, mode: Mode) -> PyResult<ProductToken> {
    if let Ok(t) = ob.cast::<PyProductToken>() {
        return Ok(t.get().0.clone());
    }
    let text = text(ob, "agent")?;
    match mode {
        Mode::Google => Ok(ProductToken::verbatim(&text)),
        Mode::Rfc => {
            ProductToken::from_user_agent(&text).map_err(|e| PyValueError::new_err(e.to_string()))
        }
    }
}

/// A URL or path: str, or UTF-8 bytes.
pub(crate) fn url(ob: &Bound<'_, PyAny>) -> PyResult<String> {
    text(ob, "url")
}

fn text(ob: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    if let Ok(s) = ob.cast::<PyString>() {
        return Ok(s.to_str()?.to_owned());
    }
    if let Ok(b) = ob.cast::<PyBytes>() {
        return std::str::from_utf8(b.as_bytes())
            .map(str::to_owned)
            .map_err(|e| PyValueError::new_err(format!("{what} bytes are not UTF-8: {e}")));
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be str or bytes, not {}",
        type_name(ob)
    )))
}

pub(crate) fn type_name(ob: &Bound<'_, PyAny>) -> String {
    ob.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// A time: seconds since the Unix epoch (int or float), or an aware `datetime`.
pub(crate) fn time(ob: &Bound<'_, PyAny>) -> PyResult<SystemTime> {
    let secs: f64 = if ob.hasattr("timestamp")? {
        ob.call_method0("timestamp")?.extract()?
    } else {
        ob.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "a time must be seconds since the epoch (int or float) or a datetime, not {}",
                type_name(ob)
            ))
        })?
    };
    to_system_time(secs)
}

pub(crate) fn to_system_time(secs: f64) -> PyResult<SystemTime> {
    if !secs.is_finite() {
        return Err(PyValueError::new_err(format!("time {secs} is not finite")));
    }
    let magnitude = Duration::try_from_secs_f64(secs.abs())
        .map_err(|e| PyValueError::new_err(format!("time {secs} out of range: {e}")))?;
    let t = if secs >= 0.0 {
        UNIX_EPOCH.checked_add(magnitude)
    } else {
        UNIX_EPOCH.checked_sub(magnitude)
    };
    t.ok_or_else(|| PyValueError::new_err(format!("time {secs} out of range")))
}

pub(crate) fn from_system_time(t: SystemTime) -> f64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs_f64(),
        Err(e) => -e.duration().as_secs_f64(),
    }
}

/// A duration in seconds (non-negative, finite).
pub(crate) fn duration(secs: f64, what: &str) -> PyResult<Duration> {
    if !secs.is_finite() || secs < 0.0 {
        return Err(PyValueError::new_err(format!(
            "{what} must be a non-negative number of seconds, not {secs}"
        )));
    }
    Duration::try_from_secs_f64(secs)
        .map_err(|e| PyValueError::new_err(format!("{what} out of range: {e}")))
}

/// A final response's status ([`crawlgate::policy::FINAL_STATUSES`]), or `ValueError`.
pub(crate) fn status(code: i64) -> PyResult<u16> {
    u16::try_from(code)
        .ok()
        .filter(|c| crawlgate::policy::FINAL_STATUSES.contains(c))
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "status {code} is not the status of a final response (200–999: a 1xx is interim)"
            ))
        })
}
