//! What the routes share: the service's state ([`App`]), JSON errors ([`ApiError`]), request
//! bodies decoded (a bad field named in the 400), URLs vetted (http(s) only; private targets
//! refused unless allowed); and the small routes (health, metrics, the OpenAPI document).
//! The engine's routes are siblings: [`super::check`], [`super::pace`], [`super::robots`].

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use crawlgate::engine::RobotsCache;
use crawlgate::http::AddressPolicy;
use crawlgate::{Mode, Origin, ProductToken};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::json;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::metrics::Metrics;

/// What every handler shares.
pub struct App {
    pub cache: RobotsCache,
    pub metrics: Metrics,
    /// SHA-256 of each bearer token; empty: no token asked for.
    pub tokens: Vec<[u8; 32]>,
    pub allow_private: bool,
    pub max_urls: usize,
    pub max_wait: Duration,
    pub mode: Mode,
    /// When `/readyz` last probed the store ([`PROBE_EVERY`]); held while a probe runs, so
    /// that probes at once make one.
    pub probed: tokio::sync::Mutex<Option<tokio::time::Instant>>,
    /// The places of requests handled at once (`--max-in-flight`).
    pub places: Arc<Semaphore>,
    /// The places of long-polls waiting for their slot (`--max-waiting`): a waiting acquire
    /// holds one of these instead of a place in flight, so that waits do not take the places
    /// answers need.
    pub waiting: Arc<Semaphore>,
}

/// A request's place among `--max-in-flight`, which its handler may give back early (a
/// long-poll, while it waits). Dropped with the request otherwise.
#[derive(Clone)]
pub struct Place(Arc<std::sync::Mutex<Option<OwnedSemaphorePermit>>>);

impl Place {
    pub fn new(permit: OwnedSemaphorePermit) -> Place {
        Place(Arc::new(std::sync::Mutex::new(Some(permit))))
    }

    /// Frees the place now.
    pub fn give_back(&self) {
        let taken = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        drop(taken);
    }
}

/// `/readyz` probes the store at most this often; between probes it answers from the health
/// the requests keep. A balancer polling every few seconds gets a probe each time; a flood of
/// probes costs the store one round trip a second.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);

/// Every error the service answers with: one table of its status and its code, which
/// docs/serve.md's "Errors" lists row for row (a test holds the two together).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    BadJson,
    BadField,
    BadBody,
    Unauthorized,
    PrivateTarget,
    HostNotAllowed,
    CrossOrigin,
    NotFound,
    NotRecorded,
    MethodNotAllowed,
    BodyTimeout,
    NotChecked,
    BodyTooLarge,
    TooManyUrls,
    UriTooLong,
    UnsupportedMediaType,
    HeadersTooLarge,
    Internal,
    Timeout,
    StoreUnavailable,
}

impl ErrorCode {
    /// Every code, in the order of the docs' table.
    #[cfg(test)]
    pub const ALL: [ErrorCode; 20] = [
        ErrorCode::BadJson,
        ErrorCode::BadField,
        ErrorCode::BadBody,
        ErrorCode::Unauthorized,
        ErrorCode::PrivateTarget,
        ErrorCode::HostNotAllowed,
        ErrorCode::CrossOrigin,
        ErrorCode::NotFound,
        ErrorCode::NotRecorded,
        ErrorCode::MethodNotAllowed,
        ErrorCode::BodyTimeout,
        ErrorCode::NotChecked,
        ErrorCode::BodyTooLarge,
        ErrorCode::TooManyUrls,
        ErrorCode::UriTooLong,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::HeadersTooLarge,
        ErrorCode::Internal,
        ErrorCode::Timeout,
        ErrorCode::StoreUnavailable,
    ];

    /// Its HTTP status and its `code`.
    pub fn parts(self) -> (StatusCode, &'static str) {
        use ErrorCode::*;
        match self {
            BadJson => (StatusCode::BAD_REQUEST, "bad-json"),
            BadField => (StatusCode::BAD_REQUEST, "bad-field"),
            BadBody => (StatusCode::BAD_REQUEST, "bad-body"),
            Unauthorized => (StatusCode::UNAUTHORIZED, "unauthorized"),
            PrivateTarget => (StatusCode::FORBIDDEN, "private-target"),
            HostNotAllowed => (StatusCode::FORBIDDEN, "host-not-allowed"),
            CrossOrigin => (StatusCode::FORBIDDEN, "cross-origin"),
            NotFound => (StatusCode::NOT_FOUND, "not-found"),
            NotRecorded => (StatusCode::NOT_FOUND, "not-recorded"),
            MethodNotAllowed => (StatusCode::METHOD_NOT_ALLOWED, "method-not-allowed"),
            BodyTimeout => (StatusCode::REQUEST_TIMEOUT, "body-timeout"),
            NotChecked => (StatusCode::CONFLICT, "not-checked"),
            BodyTooLarge => (StatusCode::PAYLOAD_TOO_LARGE, "body-too-large"),
            TooManyUrls => (StatusCode::PAYLOAD_TOO_LARGE, "too-many-urls"),
            UriTooLong => (StatusCode::URI_TOO_LONG, "uri-too-long"),
            UnsupportedMediaType => (StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type"),
            HeadersTooLarge => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "headers-too-large",
            ),
            Internal => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
            Timeout => (StatusCode::SERVICE_UNAVAILABLE, "timeout"),
            StoreUnavailable => (StatusCode::SERVICE_UNAVAILABLE, "store-unavailable"),
        }
    }
}

/// A JSON error: `{"error": {"code", "message", "field"}}`.
#[derive(Debug)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub field: Option<String>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            field: None,
        }
    }

    pub(super) fn field(mut self, field: impl Into<String>) -> ApiError {
        self.field = Some(field.into());
        self
    }

    pub(super) fn bad(field: impl Into<String>, message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::BadField, message).field(field)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.code.parts();
        let body = ErrorBody {
            error: ErrorDetail {
                code,
                message: &self.message,
                field: self.field.as_deref(),
            },
        };
        (status, Json(body)).into_response()
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    code: &'static str,
    message: &'a str,
    field: Option<&'a str>,
}

/// The body as JSON of type `T`, or the 4xx that says why not (413 when too large, 400 naming
/// the field otherwise).
pub fn decode<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = body.map_err(|e| {
        let status = e.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(ErrorCode::BodyTooLarge, "the request body is too large")
        } else {
            ApiError::new(ErrorCode::BadBody, e.body_text())
        }
    })?;
    let mut de = serde_json::Deserializer::from_slice(&bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = inner.to_string();
        // A missing field is an error of the object that lacks it: serde names it only in its
        // message ("missing field `agent`"). (An unknown one is in the path already.)
        let named = missing_field(&message);
        let field = match (path.as_str(), named) {
            (".", None) => None,
            (".", Some(name)) => Some(name.to_owned()),
            (_, Some(name)) => Some(format!("{path}.{name}")),
            (_, None) => Some(path),
        };
        let code = if inner.is_syntax() || inner.is_eof() {
            ErrorCode::BadJson
        } else {
            ErrorCode::BadField
        };
        ApiError {
            code,
            message,
            field,
        }
    })?;
    de.end()
        .map_err(|e| ApiError::new(ErrorCode::BadJson, e.to_string()))?;
    Ok(value)
}

/// The field serde's message names, for a missing field.
fn missing_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next().filter(|name| !name.is_empty())
}

/// The product token of `agent` in the service's mode.
pub(super) fn token(app: &App, agent: &str) -> Result<ProductToken, ApiError> {
    let tokens = crate::crawler::tokens(&[agent.to_owned()], app.mode)
        .map_err(|e| ApiError::bad("agent", e.to_string()))?;
    tokens
        .into_iter()
        .next()
        .ok_or_else(|| ApiError::bad("agent", "no product token in the agent"))
}

/// `mode`, when a request names one: it must be the service's.
pub(super) fn mode(app: &App, mode: Option<&str>) -> Result<(), ApiError> {
    match mode {
        None => Ok(()),
        Some(m) if m == app.mode.as_str() => Ok(()),
        Some(m) => Err(ApiError::bad(
            "mode",
            format!(
                "this service answers in mode {:?}, not {:?} (crawlgate serve --mode)",
                app.mode.as_str(),
                m
            ),
        )),
    }
}

/// The URL's origin, if the service may fetch its robots.txt: an http(s) URL whose host is
/// not a loopback, private or link-local address (nor `localhost`) unless allowed. A host
/// name that resolves to such an address is refused by the fetcher itself (no packet sent).
pub(super) fn vet(app: &App, url: &str, field: impl Fn() -> String) -> Result<Origin, ApiError> {
    let origin = Origin::from_url(url).map_err(|e| ApiError::bad(field(), e.to_string()))?;
    if !app.allow_private && is_private(origin.host()) {
        return Err(ApiError::new(ErrorCode::PrivateTarget,
            format!(
                "{} is a loopback, private or link-local address: not fetched (crawlgate serve --allow-private)",
                origin.host()
            ),
        )
        .field(field()));
    }
    Ok(origin)
}

fn is_private(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return !AddressPolicy::PublicOnly.allows(ip);
    }
    let lower = bare.trim_end_matches('.').to_ascii_lowercase();
    lower == "localhost" || lower.ends_with(".localhost")
}

/// `GET /healthz`: the process is up.
pub async fn healthz() -> Response {
    Json(json!({"status": "ok"})).into_response()
}

/// `GET /readyz`: the state store takes what the engine writes. The store itself is asked
/// ([`RobotsCache::probe_store`](crawlgate::engine::RobotsCache::probe_store): the changes
/// pending are written, else a read is made), at most once per [`PROBE_EVERY`], so readiness
/// comes back as soon as the store does, with no other request. Not ready while the last
/// store operation failed (a full disk fails writes while reads still answer), nor while
/// changes are pending that the store does not take. The same status as `crawlgate_store_up`
/// in /metrics.
pub async fn readyz(State(app): State<Arc<App>>) -> Response {
    let status = {
        let mut probed = app.probed.lock().await;
        let due = probed.is_none_or(|at| at.elapsed() >= PROBE_EVERY);
        if due {
            let status = app.cache.probe_store().await;
            *probed = Some(tokio::time::Instant::now());
            status
        } else {
            app.cache.store_status()
        }
    };
    if !status.available {
        let why = status.last_error.as_deref().unwrap_or("an unknown error");
        return not_ready(format!(
            "the state store failed the last operation ({} failures since the start, {} changes pending): {why}",
            status.errors, status.pending
        ));
    }
    if status.pending > 0 {
        return not_ready(format!(
            "{} changes are pending: the state store has not taken them yet",
            status.pending
        ));
    }
    Json(json!({"status": "ready"})).into_response()
}

fn not_ready(message: String) -> Response {
    ApiError::new(ErrorCode::StoreUnavailable, message).into_response()
}

/// `GET /metrics`.
pub async fn metrics(State(app): State<Arc<App>>) -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        app.metrics.render(&app.cache),
    )
        .into_response()
}

/// The OpenAPI description of the routes.
pub const OPENAPI: &str = include_str!("openapi.json");

/// `GET /openapi.json`.
pub async fn openapi() -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        OPENAPI,
    )
        .into_response()
}

/// Any other path.
pub async fn not_found() -> ApiError {
    ApiError::new(ErrorCode::NotFound, "no such route")
}

/// A known path with another method.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        "this route takes another method",
    )
}

/// A duration in whole milliseconds (saturating).
pub(super) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// RFC 3339 in UTC with milliseconds.
pub(super) fn rfc3339_ms(t: SystemTime) -> String {
    let whole = crate::clock::rfc3339(t);
    let ms = t
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_millis());
    match whole.strip_suffix('Z') {
        Some(s) => format!("{s}.{ms:03}Z"),
        None => whole,
    }
}

/// docs/serve.md's "Errors" table lists every code with its status, and nothing else.
#[cfg(test)]
mod error_table {
    use super::ErrorCode;

    #[test]
    fn the_docs_list_every_code_with_its_status() {
        let docs = include_str!("../../../docs/serve.md");
        let section = docs
            .split("\n## Errors\n")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("docs/serve.md has an Errors section");
        let mut listed = Vec::new();
        for row in section.lines().filter(|l| l.starts_with("| ")) {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let Ok(status) = cells[1].parse::<u16>() else {
                continue;
            };
            for code in cells[2].split(',').map(|c| c.trim().trim_matches('`')) {
                listed.push((status, code.to_owned()));
            }
        }
        let table: Vec<(u16, String)> = ErrorCode::ALL
            .iter()
            .map(|c| {
                let (status, code) = c.parts();
                (status.as_u16(), code.to_owned())
            })
            .collect();
        assert_eq!(listed, table);
    }
}
