//! The politeness routes: `POST /v1/acquire` (a slot of the origin's shared schedule) and
//! `POST /v1/record` (how a fetch went: a 429 or 503 backs the origin off).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use crawlgate::engine::{Answer, Recorded, Refused, RetryAfterIgnored};
use crawlgate::policy::Outcome;
use crawlgate::ProductToken;
use serde::{Deserialize, Serialize};

use super::api::{decode, millis, rfc3339_ms, token, vet, ApiError, App, ErrorCode, Place};
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
    /// The slot being asked about again (an earlier answer's `slot`). Slots belong to the
    /// (agent, URL) that booked them, so it is only read for its shape: asking without it
    /// gets the same answer.
    #[serde(default)]
    slot: Option<String>,
}

/// The longest `slot` taken (an id is 32 characters).
const MAX_SLOT_ID: usize = 64;

/// `POST /v1/acquire` answer.
#[derive(Serialize)]
struct Acquired<'a> {
    r#type: &'static str,
    url: &'a str,
    /// robots.txt allows the URL.
    allowed: bool,
    /// Fetch now: the slot has come. The only leave to fetch.
    permit: bool,
    /// The slot's id (128 random bits, hex), to send back when asking again; `null` when
    /// disallowed or when nothing was booked (`later`).
    slot: Option<String>,
    /// When the slot comes, or when to ask again if nothing was booked (RFC 3339, UTC,
    /// milliseconds); `null` when disallowed.
    not_before: Option<String>,
    /// Milliseconds until then (0: now).
    wait_ms: u64,
    /// The spacing between this origin's fetches, in milliseconds.
    spacing_ms: u64,
    /// The politeness key the slot is on (`crawlgate serve --politeness-key`): requests with
    /// one key share one schedule; `null` when disallowed.
    key: Option<String>,
    /// Why nothing was booked (`ahead`: the key's bookings reach past the bound ahead;
    /// `agent-full`: the agent holds its bound of pending slots on the key; `just-served`:
    /// this agent and URL had a permit less than a spacing ago); `null` otherwise.
    later: Option<&'static str>,
    /// The check record of the URL.
    check: Record<'a>,
}

/// `POST /v1/acquire`: checks the URL and, if allowed, asks the politeness key's slot ledger
/// ([`RobotsCache::ask_slot`](crawlgate::engine::RobotsCache::ask_slot): the store's, shared
/// by every replica on it): a permit when the caller's slot has come, else its id and time,
/// or, when the bounds on booking ahead are reached, when to come back (nothing booked).
/// Asking again, on any replica, books nothing new; a slot's permit is given once.
/// `wait: true` waits for a slot that comes within `--max-wait`, and answers at once when it
/// comes later.
pub async fn acquire(
    State(app): State<Arc<App>>,
    place: Option<Extension<Place>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let req: AcquireRequest = decode(body)?;
    let token = token(&app, &req.agent)?;
    vet(&app, &req.url, || "url".to_owned())?;
    if req.slot.as_ref().is_some_and(|id| id.len() > MAX_SLOT_ID) {
        return Err(ApiError::bad(
            "slot",
            "not a slot id: send back the `slot` of an earlier answer unchanged",
        ));
    }
    let started = tokio::time::Instant::now();
    let cache = &app.cache;
    // A long-poll's place among `--max-waiting`, once it waits.
    let mut waiting = None;
    loop {
        let slot = match cache.ask_slot(&token, &req.url).await {
            Ok(slot) => slot,
            Err(Refused::Disallowed { answer, .. }) => {
                return Ok(reply(&app, &req.url, &token, &answer, None).await);
            }
            Err(e) => return Err(ApiError::bad("url", e.to_string())),
        };
        let (permit, id, later) = match slot.outcome {
            Outcome::Permit { id } => (true, Some(id), None),
            Outcome::Wait { id, booked, .. } => {
                if booked {
                    app.metrics.slots.fetch_add(1, Ordering::Relaxed);
                }
                (false, Some(id), None)
            }
            Outcome::Later { why, .. } => (false, None, Some(why.as_str())),
            _ => (false, None, Some("later")),
        };
        if !permit && req.wait && slot.wait <= app.max_wait.saturating_sub(started.elapsed()) {
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
                // Comes within the budget left: wait, then ask again (a backoff recorded
                // meanwhile voids the slot).
                tokio::time::sleep(slot.wait).await;
                continue;
            }
            // Every long-poll place is taken: answered at once, as a slot beyond
            // `--max-wait` is.
        }
        let pace = Pace {
            permit,
            id: id.map(|id| format!("{id:032x}")),
            later,
            at: slot.at + slot.wait,
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
    id: Option<String>,
    later: Option<&'static str>,
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
        later: None,
        check: Record::Check(record),
    };
    let Some(pace) = pace else {
        return Json(reply).into_response();
    };
    // Rounded up, so that a client that sleeps `wait_ms` is not early.
    let wait_ms = u64::try_from(pace.wait.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX);
    reply.permit = pace.permit;
    reply.slot = pace.id;
    reply.later = pace.later;
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
            ErrorCode::NotChecked,
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
