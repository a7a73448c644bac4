//! The state routes: `GET /v1/robots` (an origin's report, from the state) and
//! `POST /v1/recrawl` (its robots.txt fetched now).

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use crawlgate::policy::Digest;
use serde::Deserialize;

use super::api::{decode, token, vet, ApiError, App, ErrorCode};
use crate::engine::fetch_now::fetch_now;
use crate::engine::politeness::{default_agent, now};
use crate::engine::report::{build, Inputs};
use crate::schema::Record;

/// `GET /v1/robots` query.
#[derive(Deserialize)]
pub struct RobotsQuery {
    url: String,
    /// The agent whose pace `politeness` shows; default: the service's User-Agent's token.
    agent: Option<String>,
}

/// `GET /v1/robots?url=URL[&agent=AGENT]`: the origin's report record (`crawlgate report
/// --json`) from the state, with the pace the service's permits keep for the agent now
/// (`politeness`: the backoff, the next slot).
pub async fn robots(
    State(app): State<Arc<App>>,
    query: Result<Query<RobotsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::bad("url", e.body_text()))?;
    let origin = vet(&app, &q.url, || "url".to_owned())?;
    let (agent, token) = match &q.agent {
        Some(agent) => (agent.clone(), token(&app, agent)?),
        None => {
            let t = default_agent(&app.cache.options().fetch.user_agent);
            (t.as_str().to_owned(), t)
        }
    };
    let store = app.cache.store();
    let unavailable = |e: crawlgate::store::StoreError| {
        ApiError::new(
            ErrorCode::StoreUnavailable,
            format!("the state store did not answer: {e}"),
        )
    };
    let state = store.load(&origin).await.map_err(unavailable)?;
    let not_recorded = || {
        ApiError::new(
            ErrorCode::NotRecorded,
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
    let mut report = build(&inputs).ok_or_else(not_recorded)?;
    report.politeness = now(&app.cache, &origin, &agent, &token)
        .await
        .into_iter()
        .collect();
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
