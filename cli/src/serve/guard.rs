//! The checks every request passes before a handler, each with a JSON error:
//! the size of its head (414, 431), whom it is from (`Host` against DNS rebinding, `Origin`
//! and `Sec-Fetch-Site` against web pages: 403), its media type (415), and its body, read
//! whole within a deadline before the request takes a place in flight (408, 413).

use std::net::{IpAddr, Ipv6Addr};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN};
use axum::http::{HeaderValue, Method, Version};
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};

use super::api::{ApiError, ErrorCode};

/// The longest request target (path and query).
pub const MAX_TARGET: usize = 8 * 1024;
/// The most header fields in a request, and their bytes in all (names, values, `: ` and
/// line ends).
pub const MAX_HEADERS: usize = 100;
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// What the checks are set with.
pub struct Guard {
    /// The host names answered besides loopback ones; `None`: any.
    pub hosts: Option<Vec<String>>,
    pub max_body: usize,
    pub body_timeout: Duration,
}

impl Guard {
    /// The `Host` rule for a listen address and `--allow-host` names: on a loopback address,
    /// or with names given, loopback hosts and those names only.
    pub fn hosts(loopback: bool, allowed: &[String]) -> Option<Vec<String>> {
        (loopback || !allowed.is_empty())
            .then(|| allowed.iter().map(|h| bare_host(h).to_owned()).collect())
    }
}

/// 414 for a request target over [`MAX_TARGET`], 431 for headers over [`MAX_HEADERS`] or
/// [`MAX_HEADER_BYTES`]: the answer, for a head too large.
pub fn head(request: &Request) -> Option<Response> {
    head_error(request).map(|error| closing(error, request.version()))
}

fn head_error(request: &Request) -> Option<ApiError> {
    let target = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if target > MAX_TARGET {
        return Some(ApiError::new(
            ErrorCode::UriTooLong,
            format!("the request target is over {MAX_TARGET} bytes"),
        ));
    }
    let headers = request.headers();
    let bytes: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    (headers.len() > MAX_HEADERS || bytes > MAX_HEADER_BYTES).then(|| {
        ApiError::new(ErrorCode::HeadersTooLarge,
            format!(
                "the request has {} header fields in {bytes} bytes; at most {MAX_HEADERS} in {MAX_HEADER_BYTES} bytes are read",
                headers.len()
            ),
        )
    })
}

/// The site a request comes from and is for: its `Host` headers and its target's authority
/// (HTTP/2's `:authority`) must each be loopback or allowed (else 403 `host-not-allowed`:
/// DNS rebinding); and a request from a web page of another origin is refused (403
/// `cross-origin`). The answer, for a request refused.
pub fn site(guard: &Guard, request: &Request) -> Option<Response> {
    if !host_known(guard, request) {
        return Some(
            ApiError::new(ErrorCode::HostNotAllowed,
                "the Host is not one this service answers to (loopback, or crawlgate serve --allow-host)",
            )
            .into_response(),
        );
    }
    from_another_site(request).then(|| {
        ApiError::new(
            ErrorCode::CrossOrigin,
            "a request from a web page of another origin is refused",
        )
        .into_response()
    })
}

// (The checks are plain functions: their closures' borrows must not live in the async
// middleware's state across its await.)
fn host_known(guard: &Guard, request: &Request) -> bool {
    let Some(allowed) = &guard.hosts else {
        return true;
    };
    let mut named = request
        .headers()
        .get_all(HOST)
        .iter()
        .map(|v| v.to_str().unwrap_or(""))
        .chain(request.uri().authority().map(|a| a.as_str()))
        .peekable();
    let known = named.peek().is_some()
        && named.all(|h| {
            let host = bare_host(h);
            is_loopback(host) || allowed.iter().any(|a| a.eq_ignore_ascii_case(host))
        });
    known
}

/// A request from a web page of another origin: an `Origin` that is not the service's own
/// (the request's host), or `Sec-Fetch-Site` `cross-site` or `same-site`.
fn from_another_site(request: &Request) -> bool {
    let headers = request.headers();
    let own = headers
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()));
    let foreign_origin = headers.get(ORIGIN).is_some_and(|o| {
        let authority = o
            .to_str()
            .ok()
            .and_then(|o| o.split_once("://"))
            .map(|(_, rest)| rest);
        !matches!((authority, own), (Some(a), Some(h)) if a.eq_ignore_ascii_case(h))
    });
    let foreign_site = headers
        .get("sec-fetch-site")
        .is_some_and(|s| s == "cross-site" || s == "same-site");
    foreign_origin || foreign_site
}

fn is_json(request: &Request) -> bool {
    request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// The body: a POST's must be declared `application/json` (parameters allowed; 415
/// otherwise, so that a web page's form or `text/plain` request is never acted on); it is
/// read whole within `body_timeout` and handed on buffered, so that a slow body never holds a
/// place in flight. A declared length over `max_body` is a 413 before any of it is read; a
/// body that does not come in time is a 408. The request with its body read, or the answer.
pub async fn body(guard: &Guard, request: Request) -> Result<Request, Response> {
    if request.method() == Method::POST && !is_json(&request) {
        return Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "the body must be sent as Content-Type: application/json",
        )
        .into_response());
    }
    let version = request.version();
    if declared_length(&request).is_some_and(|n| n > guard.max_body as u64) {
        return Err(closing(too_large(), version));
    }
    let (parts, body) = request.into_parts();
    let read = Limited::new(body, guard.max_body).collect();
    let bytes = match tokio::time::timeout(guard.body_timeout, read).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.is::<LengthLimitError>() => return Err(closing(too_large(), version)),
        Ok(Err(_)) => {
            return Err(closing(
                ApiError::new(ErrorCode::BadBody, "the request body could not be read"),
                version,
            ))
        }
        Err(_) => {
            return Err(closing(
                ApiError::new(
                    ErrorCode::BodyTimeout,
                    format!(
                    "the request body did not come within {} s (crawlgate serve --body-timeout)",
                    guard.body_timeout.as_secs_f64()
                ),
                ),
                version,
            ))
        }
    };
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

fn declared_length(request: &Request) -> Option<u64> {
    request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
}

fn too_large() -> ApiError {
    ApiError::new(
        ErrorCode::BodyTooLarge,
        "the request body is too large (crawlgate serve --max-body)",
    )
}

/// The error, closing an HTTP/1 connection whose request was not read to its end (what is
/// left of it would be taken for the next request).
fn closing(error: ApiError, version: Version) -> Response {
    let mut response = error.into_response();
    if version < Version::HTTP_2 {
        response
            .headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// The host of a `Host` value or authority: without its port or the brackets of an IPv6
/// address, nor a final dot.
fn bare_host(value: &str) -> &str {
    let value = value.trim();
    // Anything before an `@` (userinfo) is not the host.
    let value = value.rsplit_once('@').map_or(value, |(_, h)| h);
    let host = if let Some(rest) = value.strip_prefix('[') {
        rest.split_once(']').map_or(rest, |(h, _)| h)
    } else {
        match value.rsplit_once(':') {
            Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
            _ => value,
        }
    };
    host.strip_suffix('.').unwrap_or(host)
}

/// `localhost`, 127.0.0.0/8 or `::1` (and IPv4 loopback mapped into IPv6).
fn is_loopback(host: &str) -> bool {
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => v4.is_loopback(),
        Ok(IpAddr::V6(v6)) => {
            v6 == Ipv6Addr::LOCALHOST || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        Err(_) => false,
    }
}

/// Whether the listen address is a loopback one (where `Host` is checked by default).
pub fn listens_on_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_with_and_without_ports() {
        for h in [
            "localhost",
            "LOCALHOST:8477",
            "localhost.",
            "127.0.0.1",
            "127.0.0.1:1",
            "127.255.0.9:80",
            "[::1]",
            "[::1]:8477",
        ] {
            assert!(is_loopback(bare_host(h)), "{h}");
        }
        for h in [
            "evil.example",
            "evil.example:8477",
            "128.0.0.1",
            "[::2]:80",
            "localhost.evil.example",
            "127.0.0.1.evil.example",
            "",
        ] {
            assert!(!is_loopback(bare_host(h)), "{h}");
        }
    }
}
