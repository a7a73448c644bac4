//! The politeness routes: `POST /v1/acquire` (a slot of the origin's shared schedule) and
//! `POST /v1/record` (how a fetch went: a 429 or 503 backs the origin off).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use crawlgate::engine::{Answer, Recorded, Refused, RetryAfterIgnored};
use crawlgate::ProductToken;
use serde::{Deserialize, Serialize};

use super::api::{decode, millis, rfc3339_ms, token, vet, ApiError, App, Place};
use super::slots::SlotId;
use crate::records::state_record;
use crate::schema::Record;

/// `POST /v1/acquire` body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcquireRequest {
    agent: String,
    url: String,
    /// Wait for the slot when it comes within the service's `--max-wait`, rather than answer
    /// at once.
    #[serde(default)]
    wait: bool,
    /// The slot being asked about again (an earlier answer's `slot`).
    #[serde(default)]
    slot: Option<String>,
}

/// `POST /v1/acquire` answer.
#[derive(Serialize)]
struct Acquired<'a> {
    r#type: &'static str,
    url: &'a str,
    /// robots.txt allows the URL.
    allowed: bool,
    /// Fetch now: the slot has come. The only leave to fetch.
    permit: bool,
    /// The slot's id, to send back when asking again; `null` when disallowed.
    slot: Option<String>,
    /// When the slot comes (RFC 3339, UTC, milliseconds); `null` when disallowed.
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

/// `POST /v1/acquire`: checks the URL and, if allowed, gives the caller's slot of the origin's
/// schedule (the store's, shared by every replica on it): a permit when it has come, else its
/// id and time. Asking again (with the id, or without it from the same agent for the same URL
/// on this replica) books nothing new: before its time the slot is repeated; at it, it is
/// confirmed ([`RobotsCache::confirm_slot`](crawlgate::engine::RobotsCache::confirm_slot):
/// robots.txt and the backoff read again; a slot a backoff reaches is replaced by a new one).
/// `wait: true` waits for a slot that comes within `--max-wait`, and answers at once when it
/// comes later. A permit is handed out once per slot (on this replica).
pub async fn acquire(
    State(app): State<Arc<App>>,
    place: Option<Extension<Place>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: AcquireRequest = decode(body)?;
    let token = token(&app, &req.agent)?;
    vet(&app, &req.url, || "url".to_owned())?;
    let started = tokio::time::Instant::now();
    let ledger = &app.slots;
    let mut asked = match &req.slot {
        Some(id) => Some(SlotId::decode(id, &token, &req.url).ok_or_else(|| {
            ApiError::bad(
                "slot",
                "not a slot of this agent and URL: send back the `slot` of an earlier answer unchanged",
            )
        })?),
        None => ledger.pending(&token, &req.url),
    };
    // A slot whose permit was handed out is spent (its fetch was made): a new one is booked.
    asked = asked.filter(|s| !ledger.spent(&s.encode(&token, &req.url)));
    let cache = &app.cache;
    // A long-poll's place among `--max-waiting`, once it waits.
    let mut waiting = None;
    loop {
        let result = match asked {
            Some(s) => cache.confirm_slot(&token, &req.url, s.at()).await,
            None => cache.reserve_slot(&token, &req.url).await,
        };
        let slot = match result {
            Ok(slot) => slot,
            Err(Refused::Disallowed { answer, .. }) => {
                ledger.forget(&token, &req.url);
                return Ok(reply(&app, &req.url, &token, &answer, None).await);
            }
            Err(e) => return Err(ApiError::bad("url", e.to_string())),
        };
        let at = slot.at + slot.wait;
        let id = match asked.filter(|_| !slot.renewed) {
            Some(s) => s,
            None => {
                app.metrics.slots.fetch_add(1, Ordering::Relaxed);
                let s = SlotId::new(at, slot.at);
                ledger.book(&token, &req.url, s);
                s
            }
        };
        let encoded = id.encode(&token, &req.url);
        let permit = slot.wait.is_zero();
        if permit {
            ledger.spend(&token, &req.url, &encoded);
        } else if req.wait && slot.wait <= app.max_wait.saturating_sub(started.elapsed()) {
            if waiting.is_none() {
                waiting = app.waiting.clone().try_acquire_owned().ok();
                if waiting.is_some() {
                    // It waits: its place in flight is for requests that answer.
                    if let Some(Extension(place)) = &place {
                        place.give_back();
                    }
                }
            }
            if waiting.is_some() {
                // Comes within the budget left: wait, then confirm it (a backoff recorded
                // meanwhile voids it).
                tokio::time::sleep(slot.wait).await;
                asked = Some(id);
                continue;
            }
            // Every long-poll place is taken: answered at once, as a slot beyond
            // `--max-wait` is.
        }
        let pace = Pace {
            permit,
            id: encoded,
            at,
            wait: slot.wait,
            spacing: slot.spacing.delay,
            key: slot.key.to_string(),
        };
        return Ok(reply(&app, &req.url, &token, &slot.answer, Some(pace)).await);
    }
}

/// The slot part of an acquire answer.
struct Pace {
    permit: bool,
    id: String,
    at: SystemTime,
    wait: Duration,
    spacing: Duration,
    key: String,
}

/// The acquire answer: the check record, and the slot when allowed (with `Retry-After` when
/// it is not a permit).
async fn reply(
    app: &App,
    url: &str,
    token: &ProductToken,
    answer: &Answer,
    pace: Option<Pace>,
) -> Response {
    let cache = &app.cache;
    let verdict = cache.judgement(&answer.origin).await.verdict;
    let rules = cache.rules(&answer.origin).await;
    let robots_txt = answer.origin.robots_txt_url();
    let crawler = std::slice::from_ref(token);
    let record = state_record(
        url,
        token,
        crawler,
        answer,
        Some(verdict),
        rules.as_ref(),
        &robots_txt,
    );
    let mut reply = Acquired {
        r#type: "acquire",
        url,
        allowed: answer.allowed,
        permit: false,
        slot: None,
        not_before: None,
        wait_ms: 0,
        spacing_ms: 0,
        key: None,
        check: Record::Check(record),
    };
    let Some(pace) = pace else {
        return Json(reply).into_response();
    };
    // Rounded up, so that a client that sleeps `wait_ms` is not early.
    let wait_ms = u64::try_from(pace.wait.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX);
    reply.permit = pace.permit;
    reply.slot = Some(pace.id);
    reply.not_before = Some(rfc3339_ms(pace.at));
    reply.wait_ms = wait_ms;
    reply.spacing_ms = millis(pace.spacing);
    reply.key = Some(pace.key);
    let mut response = Json(reply).into_response();
    if !pace.permit {
        let seconds = wait_ms.div_ceil(1000).max(1);
        response.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from(seconds),
        );
    }
    response
}

/// `POST /v1/record` body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordRequest {
    url: String,
    status: u16,
    /// The response's `Retry-After` as the client has it: a JSON number or the header's text.
    /// Any value is taken: one the engine cannot use gets the default backoff and a warning
    /// ([`RetryAfterIgnored`]).
    #[serde(default)]
    retry_after: Option<serde_json::Value>,
}

/// `retry_after` as the header's text: a string as it is, a number as JSON writes it (`120`,
/// `2.5`, `-1`); anything else is no header value at all.
fn retry_after_text(value: &serde_json::Value) -> Option<String> {
    match value {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `POST /v1/record`: how a fetch went ([`RobotsCache::record_fetch`](crawlgate::engine::RobotsCache::record_fetch)). A 429 or 503 backs
/// the origin off for every replica (`Retry-After` honoured up to the engine's cap; one that
/// cannot be read or asks for no wait gets the default, exponential, delay and a `warning`),
/// also for an origin the service holds nothing of; another answer ends a backoff run; 5xx and
/// 503 report the site down, the others up (for the 30-day rule).
pub async fn record(
    State(app): State<Arc<App>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: RecordRequest = decode(body)?;
    if !crawlgate::policy::FINAL_STATUSES.contains(&req.status) {
        return Err(ApiError::bad(
            "status",
            "not the status of a final response (200–999: a 1xx is interim)",
        ));
    }
    let origin = vet(&app, &req.url, || "url".to_owned())?;
    let backs_off = app.cache.options().gate.backs_off(req.status);
    // Read as the engine reads the header, on its clock: one rule. It matters for a backoff
    // only.
    let (retry_after, warning) = match req.retry_after.as_ref().filter(|_| backs_off) {
        None | Some(serde_json::Value::Null) => (None, None),
        Some(value) => {
            let read = retry_after_text(value)
                .ok_or(RetryAfterIgnored::Unreadable)
                .and_then(|text| app.cache.retry_after(&text));
            match read {
                Ok(wait) => (Some(wait), None),
                Err(why) => (None, Some(why.to_string())),
            }
        }
    };
    // A 429 or 503 is always recorded: the backoff lives on the politeness key, not in the
    // origin's state (evicted from a store that keeps nothing, it is still owed). Another
    // answer stands for no robots.txt fetch: an origin never checked gets no state from it.
    if !backs_off && app.cache.state(&origin).await.is_none() {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "not-checked",
            "nothing is known of this origin: check or acquire a URL of this origin first",
        )
        .field("url"));
    }
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
        warning,
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
    /// Why the `retry_after` sent was not taken (the default backoff was recorded instead).
    warning: Option<String>,
}
