//! Reading JS arguments: bodies, agents, modes, durations and header fields.

use std::collections::HashMap;
use std::time::Duration;

use crawlgate::{Mode, ProductToken};
use napi::bindgen_prelude::*;

/// A body: a string (sent as UTF-8) or bytes (a `Buffer` or any `Uint8Array`).
pub(crate) type Body = Either<String, Uint8Array>;

/// Header fields: `[name, value]` pairs (what `[...response.headers]` gives), or an object
/// whose values are strings or arrays of strings (Node's `IncomingMessage.headers`).
pub(crate) type Headers = Either<Vec<Vec<String>>, HashMap<String, Either<String, Vec<String>>>>;

/// A bad argument value: an `Error` with code `InvalidArg`.
pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error::new(Status::InvalidArg, message.into())
}

/// The bytes of a body.
pub(crate) fn bytes(body: &Body) -> &[u8] {
    match body {
        Either::A(s) => s.as_bytes(),
        Either::B(b) => b,
    }
}

/// `"rfc"` (the default) or `"google"`, case-insensitively.
pub(crate) fn mode(s: Option<&str>) -> Result<Mode> {
    match s {
        None => Ok(Mode::Rfc),
        Some(s) => s.parse::<Mode>().map_err(invalid),
    }
}

/// A crawler's product token as `mode` takes a string agent: in `Mode::Google` verbatim (any
/// string, as google/robotstxt's API takes it); in `Mode::Rfc` a product token or User-Agent
/// header (an error when it has none: an empty agent is no crawler, not `*`).
pub(crate) fn agent(agent: &str, mode: Mode) -> Result<ProductToken> {
    match mode {
        Mode::Google => Ok(ProductToken::verbatim(agent)),
        Mode::Rfc => ProductToken::from_user_agent(agent).map_err(|e| invalid(e.to_string())),
    }
}

/// A duration in seconds (non-negative, finite).
pub(crate) fn duration(secs: f64, what: &str) -> Result<Duration> {
    if !secs.is_finite() || secs < 0.0 {
        return Err(invalid(format!(
            "{what} must be a non-negative number of seconds, not {secs}"
        )));
    }
    Duration::try_from_secs_f64(secs).map_err(|e| invalid(format!("{what} out of range: {e}")))
}

/// An optional duration in seconds.
pub(crate) fn option_duration(secs: Option<f64>, what: &str) -> Result<Option<Duration>> {
    secs.map(|s| duration(s, what)).transpose()
}

/// An HTTP status (100–999).
pub(crate) fn status(code: i64) -> Result<u16> {
    u16::try_from(code)
        .ok()
        .filter(|c| (100..=999).contains(c))
        .ok_or_else(|| invalid(format!("status {code} is not an HTTP status")))
}

/// Header fields as pairs, in order. A pair that is not `[name, value]` is an error.
pub(crate) fn header_pairs(headers: Option<Headers>) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    match headers {
        None => {}
        Some(Either::A(pairs)) => {
            for pair in pairs {
                match <[String; 2]>::try_from(pair) {
                    Ok([name, value]) => out.push((name, value)),
                    Err(p) => {
                        return Err(invalid(format!(
                            "a header must be a [name, value] pair, not {} strings",
                            p.len()
                        )))
                    }
                }
            }
        }
        Some(Either::B(map)) => {
            for (name, value) in map {
                match value {
                    Either::A(v) => out.push((name, v)),
                    Either::B(vs) => out.extend(vs.into_iter().map(|v| (name.clone(), v))),
                }
            }
        }
    }
    Ok(out)
}

/// Header fields as an `http::HeaderMap`: a field whose name or value is not valid in HTTP is
/// dropped, as a client drops a malformed header line.
pub(crate) fn header_map(pairs: &[(String, String)]) -> http::HeaderMap {
    let mut map = http::HeaderMap::new();
    for (name, value) in pairs {
        if let (Ok(n), Ok(v)) = (
            http::HeaderName::from_bytes(name.trim().as_bytes()),
            http::HeaderValue::from_str(value.trim()),
        ) {
            map.append(n, v);
        }
    }
    map
}
