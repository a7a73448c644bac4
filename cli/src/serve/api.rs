//! The routes' handlers: request bodies decoded (a bad field named in the 400), URLs vetted
//! (http(s) only; private targets refused unless allowed), the engine asked, and the answers
//! written as the CLI's JSON records, so that `check --json` and the service share one schema.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use crawlgate::engine::{Recorded, Refused, RobotsCache};
use crawlgate::http::AddressPolicy;
use crawlgate::policy::Digest;
use crawlgate::{Mode, Origin, ProductToken};
use futures_util::stream::{self, StreamExt};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::metrics::Metrics;
use crate::engine::fetch_now::fetch_now;
use crate::engine::report::{build, Inputs};
use crate::records::state_record;
use crate::schema::Record;

/// URLs of one /v1/check request answered at once (origins loaded or fetched side by side).
const CHECK_CONCURRENCY: usize = 64;

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
}

/// A JSON error: `{"error": {"code", "message", "field"}}`.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub field: Option<String>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            field: None,
        }
    }

    fn field(mut self, field: impl Into<String>) -> ApiError {
        self.field = Some(field.into());
        self
    }

    fn bad(field: impl Into<String>, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad-field", message).field(field)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code,
                message: &self.message,
                field: self.field.as_deref(),
            },
        };
        (self.status, Json(body)).into_response()
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
            ApiError::new(status, "body-too-large", "the request body is too large")
        } else {
            ApiError::new(StatusCode::BAD_REQUEST, "bad-body", e.body_text())
        }
    })?;
    let mut de = serde_json::Deserializer::from_slice(&bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let field = if path == "." { None } else { Some(path) };
        let code = if inner.is_syntax() || inner.is_eof() {
            "bad-json"
        } else {
            "bad-field"
        };
        ApiError {
            status: StatusCode::BAD_REQUEST,
            code,
            message: inner.to_string(),
            field,
        }
    })?;
    de.end()
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad-json", e.to_string()))?;
    Ok(value)
}

/// The product token of `agent` in the service's mode.
fn token(app: &App, agent: &str) -> Result<ProductToken, ApiError> {
    let tokens = crate::crawler::tokens(&[agent.to_owned()], app.mode)
        .map_err(|e| ApiError::bad("agent", e.to_string()))?;
    tokens
        .into_iter()
        .next()
        .ok_or_else(|| ApiError::bad("agent", "no product token in the agent"))
}

/// `mode`, when a request names one: it must be the service's.
fn mode(app: &App, mode: Option<&str>) -> Result<(), ApiError> {
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
fn vet(app: &App, url: &str, field: impl Fn() -> String) -> Result<Origin, ApiError> {
    let origin = Origin::from_url(url).map_err(|e| ApiError::bad(field(), e.to_string()))?;
    if !app.allow_private && is_private(origin.host()) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "private-target",
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

/// `POST /v1/check` body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {
    agent: String,
    urls: Vec<String>,
    #[serde(default)]
    mode: Option<String>,
}

/// `POST /v1/check`: one `check` record per URL, in order.
pub async fn check(
    State(app): State<Arc<App>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: CheckRequest = decode(body)?;
    mode(&app, req.mode.as_deref())?;
    let token = token(&app, &req.agent)?;
    if req.urls.is_empty() {
        return Err(ApiError::bad("urls", "no URLs to check"));
    }
    if req.urls.len() > app.max_urls {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too-many-urls",
            format!(
                "{} URLs in one request; at most {} (crawlgate serve --max-urls)",
                req.urls.len(),
                app.max_urls
            ),
        )
        .field("urls"));
    }
    for (i, url) in req.urls.iter().enumerate() {
        vet(&app, url, || format!("urls[{i}]"))?;
    }
    let crawler = std::slice::from_ref(&token);
    let mut results = Vec::with_capacity(req.urls.len());
    // Up to CHECK_CONCURRENCY URLs at once, answers in order: the origins not in memory are
    // read (or fetched) side by side; the rules and verdict come from memory once loaded.
    // One lookup per URL gives the answer, the verdict and the rules together.
    // (By index: a closure over borrowed items would not be a `Send` future for every
    // lifetime, which the router needs.)
    let (cache, token_ref, urls) = (&app.cache, &token, &req.urls);
    let answers: Vec<_> = stream::iter(0..urls.len())
        .map(|i| cache.check_in_force(token_ref, &urls[i]))
        .buffered(CHECK_CONCURRENCY)
        .collect()
        .await;
    let answers = answers
        .into_iter()
        .enumerate()
        .map(|(i, a)| a.map_err(|e| ApiError::bad(format!("urls[{i}]"), e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let robots_txts: Vec<String> = answers
        .iter()
        .map(|(a, _, _)| a.origin.robots_txt_url())
        .collect();
    for ((url, (answer, verdict, rules)), robots_txt) in
        req.urls.iter().zip(&answers).zip(&robots_txts)
    {
        let r = state_record(
            url,
            &token,
            crawler,
            answer,
            Some(*verdict),
            rules.as_ref(),
            robots_txt,
        );
        results.push(Record::Check(r));
    }
    app.metrics
        .urls_checked
        .fetch_add(results.len() as u64, Ordering::Relaxed);
    Ok(Json(Checked { results }).into_response())
}

/// `POST /v1/check` answer (a struct, so that the records keep their field order).
#[derive(Serialize)]
struct Checked<'a> {
    results: Vec<Record<'a>>,
}

/// `POST /v1/acquire` body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcquireRequest {
    agent: String,
    url: String,
    /// Wait for the slot (up to the service's `--max-wait`) rather than answer at once.
    #[serde(default)]
    wait: bool,
}

/// `POST /v1/acquire` answer.
#[derive(Serialize)]
struct Acquired<'a> {
    r#type: &'static str,
    url: &'a str,
    /// robots.txt allows the URL.
    allowed: bool,
    /// Fetch now: the reserved slot has come.
    permit: bool,
    /// When the reserved slot comes (RFC 3339, UTC, milliseconds); `null` when disallowed.
    not_before: Option<String>,
    /// Milliseconds until then (0: now).
    wait_ms: u64,
    /// The spacing between this origin's fetches, in milliseconds.
    spacing_ms: u64,
    /// The politeness key the slot was reserved under (`crawlgate serve --politeness-key`):
    /// requests with one key share one schedule; `null` when disallowed.
    key: Option<String>,
    /// The check record of the URL.
    check: Record<'a>,
}

/// `POST /v1/acquire`: checks the URL and, if allowed, reserves the origin's next slot
/// ([`RobotsCache::reserve_slot`]: the store's schedule, shared by every replica and process on
/// it): a permit now, or the time it comes (`wait: true` waits for it, up to `--max-wait`).
/// The slot is the caller's: fetch at `not_before` without acquiring again, then
/// `POST /v1/record` the response.
pub async fn acquire(
    State(app): State<Arc<App>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: AcquireRequest = decode(body)?;
    let token = token(&app, &req.agent)?;
    vet(&app, &req.url, || "url".to_owned())?;
    let cache = &app.cache;
    let (answer, slot) = match cache.reserve_slot(&token, &req.url).await {
        Ok(slot) => {
            app.metrics.slots.fetch_add(1, Ordering::Relaxed);
            let timing = (slot.spacing.delay, slot.at, slot.wait, slot.key.to_string());
            (slot.answer, Some(timing))
        }
        Err(Refused::Disallowed { answer, .. }) => (*answer, None),
        Err(Refused::Check(e)) => return Err(ApiError::bad("url", e.to_string())),
        Err(e) => return Err(ApiError::bad("url", e.to_string())),
    };
    let verdict = cache.judgement(&answer.origin).await.verdict;
    let rules = cache.rules(&answer.origin).await;
    let robots_txt = answer.origin.robots_txt_url();
    let crawler = std::slice::from_ref(&token);
    let record = state_record(
        &req.url,
        &token,
        crawler,
        &answer,
        Some(verdict),
        rules.as_ref(),
        &robots_txt,
    );
    let mut reply = Acquired {
        r#type: "acquire",
        url: &req.url,
        allowed: answer.allowed,
        permit: false,
        not_before: None,
        wait_ms: 0,
        spacing_ms: 0,
        key: None,
        check: Record::Check(record),
    };
    if let Some((spacing, at, wait, key)) = slot {
        reply.key = Some(key);
        let mut left = wait;
        if req.wait && !wait.is_zero() {
            let nap = wait.min(app.max_wait);
            tokio::time::sleep(nap).await;
            left = wait - nap;
        }
        reply.spacing_ms = millis(spacing);
        reply.permit = left.is_zero();
        reply.wait_ms = millis(left);
        reply.not_before = Some(rfc3339_ms(at + wait));
    }
    Ok(Json(reply).into_response())
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// `POST /v1/record` body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordRequest {
    url: String,
    status: u16,
    /// The response's `Retry-After`, in seconds.
    #[serde(default)]
    retry_after: Option<u64>,
}

/// `POST /v1/record`: how a fetch went ([`RobotsCache::record_fetch`]). A 429 or 503 backs
/// the origin off for every replica (`Retry-After` honoured up to the engine's cap, else
/// exponential); another answer ends a backoff run; 5xx and 503 report the site down, the
/// others up (for the 30-day rule).
pub async fn record(
    State(app): State<Arc<App>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: RecordRequest = decode(body)?;
    if !(100..=599).contains(&req.status) {
        return Err(ApiError::bad("status", "not an HTTP status (100–599)"));
    }
    let origin = vet(&app, &req.url, || "url".to_owned())?;
    let retry_after = req.retry_after.map(Duration::from_secs);
    let (recorded, backoff) = match app
        .cache
        .record_fetch(&origin, req.status, retry_after)
        .await
    {
        Recorded::BackedOff(wait) => {
            app.metrics.backoffs.fetch_add(1, Ordering::Relaxed);
            ("backed-off", Some(millis(wait)))
        }
        Recorded::Failed => ("failed", None),
        Recorded::Served => ("served", None),
        _ => ("served", None),
    };
    Ok(Json(RecordedReply {
        r#type: "recorded",
        url: &req.url,
        status: req.status,
        recorded,
        backoff_ms: backoff,
    })
    .into_response())
}

/// `POST /v1/record` answer.
#[derive(Serialize)]
struct RecordedReply<'a> {
    r#type: &'static str,
    url: &'a str,
    status: u16,
    /// `backed-off`, `served` or `failed`.
    recorded: &'static str,
    /// How long the origin is backed off, in milliseconds (after a 429 or 503).
    backoff_ms: Option<u64>,
}

/// `GET /v1/robots` query.
#[derive(Deserialize)]
pub struct RobotsQuery {
    url: String,
}

/// `GET /v1/robots?url=URL`: the origin's report record (`crawlgate report --json`), from the
/// state; nothing is fetched.
pub async fn robots(
    State(app): State<Arc<App>>,
    query: Result<Query<RobotsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::bad("url", e.body_text()))?;
    let origin = vet(&app, &q.url, || "url".to_owned())?;
    let store = app.cache.store();
    let unavailable = |e: crawlgate::store::StoreError| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "store-unavailable",
            format!("the state store did not answer: {e}"),
        )
    };
    let state = store.load(&origin).await.map_err(unavailable)?;
    let not_recorded = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not-recorded",
            format!(
                "nothing recorded for {}: check or recrawl a URL of it first",
                origin.robots_txt_url()
            ),
        )
    };
    let Some(state) = state else {
        return Err(not_recorded());
    };
    let mut bodies: HashMap<Digest, Arc<[u8]>> = HashMap::new();
    for digest in state.digests() {
        if let Some(body) = store.body(&origin, &digest).await.map_err(unavailable)? {
            bodies.insert(digest, body);
        }
    }
    let inputs = Inputs {
        origin: &origin,
        state: &state,
        bodies: &bodies,
        now: app.cache.now(),
        agents: &[],
        urls: &[],
        mode: app.mode,
    };
    let report = build(&inputs).ok_or_else(not_recorded)?;
    Ok(Json(Record::Report(&report)).into_response())
}

/// `POST /v1/recrawl` body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecrawlRequest {
    url: String,
}

/// `POST /v1/recrawl`: fetches the origin's robots.txt now, whatever the state says, and
/// answers with the `fetch` record (`crawlgate recrawl --json`).
pub async fn recrawl(
    State(app): State<Arc<App>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: RecrawlRequest = decode(body)?;
    let origin = vet(&app, &req.url, || "url".to_owned())?;
    let fetched = fetch_now(&app.cache, &origin).await;
    Ok(Json(Record::Fetch(fetched.record())).into_response())
}

/// `GET /healthz`: the process is up.
pub async fn healthz() -> Response {
    Json(json!({"status": "ok"})).into_response()
}

/// `GET /readyz`: the state store answers (a read of an origin nobody crawls).
pub async fn readyz(State(app): State<Arc<App>>) -> Response {
    let probe = Origin::from_url("http://readyz.crawlgate.invalid/");
    let result = match probe {
        Ok(o) => app.cache.store().load(&o).await.map(|_| ()),
        Err(_) => Ok(()),
    };
    match result {
        Ok(()) => Json(json!({"status": "ready"})).into_response(),
        Err(e) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "store-unavailable",
            format!("the state store did not answer: {e}"),
        )
        .into_response(),
    }
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
    ApiError::new(StatusCode::NOT_FOUND, "not-found", "no such route")
}

/// A known path with another method.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method-not-allowed",
        "this route takes another method",
    )
}

/// RFC 3339 in UTC with milliseconds.
fn rfc3339_ms(t: SystemTime) -> String {
    let whole = crate::clock::rfc3339(t);
    let ms = t
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_millis());
    match whole.strip_suffix('Z') {
        Some(s) => format!("{s}.{ms:03}Z"),
        None => whole,
    }
}
