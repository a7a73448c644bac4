//! `POST /v1/check`: the robots.txt answer for a batch of URLs, written as `check --json`'s
//! records, so that the CLI and the service share one schema.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::stream::{self, StreamExt};
use serde::{Deserialize, Serialize};

use super::api::{decode, mode, token, vet, ApiError, App};
use crate::records::state_record;
use crate::schema::Record;

/// URLs of one /v1/check request answered at once (origins loaded or fetched side by side).
const CHECK_CONCURRENCY: usize = 64;

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
