//! The politeness routes: `POST /v1/acquire` (a slot of the origin's shared schedule) and
//! `POST /v1/record` (how a fetch went: a 429 or 503 backs the origin off).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use crawlgate::engine::{Recorded, Refused};
use serde::{Deserialize, Serialize};

use super::api::{decode, millis, rfc3339_ms, token, vet, ApiError, App};
use crate::records::state_record;
use crate::schema::Record;

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
/// ([`RobotsCache::reserve_slot`](crawlgate::engine::RobotsCache::reserve_slot): the store's schedule, shared by every replica and process on
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

/// `POST /v1/record`: how a fetch went ([`RobotsCache::record_fetch`](crawlgate::engine::RobotsCache::record_fetch)). A 429 or 503 backs
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
