//! `POST /v1/check`: the robots.txt answer for a batch of URLs, written as `check --json`'s
//! records, so that the CLI and the service share one schema.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::stream::{self, StreamExt};
use serde::{Deserialize, Serialize};

use super::api::{decode, mode, token, vet, ApiError, App, ErrorCode};
use crate::records::state_record;
use crate::schema::{InputError, Record};

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

/// `POST /v1/check`: one `check` record per URL, in order; an `error` record in the place of a
/// URL that cannot be checked.
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
            ErrorCode::TooManyUrls,
            format!(
                "{} URLs in one request; at most {} (crawlgate serve --max-urls)",
                req.urls.len(),
                app.max_urls
            ),
        )
        .field("urls"));
    }
    // A URL that cannot be checked (not a URL, no robots.txt origin, a private target) is
    // answered in place with `check --json`'s error record; the others are checked. Nothing
    // is fetched for a refused one.
    let vetted: Vec<Result<(), String>> = req
        .urls
        .iter()
        .enumerate()
        .map(|(i, url)| {
            vet(&app, url, || format!("urls[{i}]"))
                .map(drop)
                .map_err(|e| e.message)
        })
        .collect();
    let crawler = std::slice::from_ref(&token);
    // Up to CHECK_CONCURRENCY URLs at once, answers in order: the origins not in memory are
    // read (or fetched) side by side; the rules and verdict come from memory once loaded.
    // One lookup per URL gives the answer, the verdict and the rules together.
    // (By index: a closure over borrowed items would not be a `Send` future for every
    // lifetime, which the router needs.)
    let (cache, token_ref, urls, vetted_ref) = (&app.cache, &token, &req.urls, &vetted);
    let answers: Vec<Result<_, String>> = stream::iter(0..urls.len())
        .map(|i| async move {
            match &vetted_ref[i] {
                Ok(()) => cache
                    .check_in_force(token_ref, &urls[i])
                    .await
                    .map_err(|e| e.to_string()),
                Err(message) => Err(message.clone()),
            }
        })
        .buffered(CHECK_CONCURRENCY)
        .collect()
        .await;
    // Kept apart: the records borrow them. (Empty for a URL answered with an error.)
    let robots_txts: Vec<String> = answers
        .iter()
        .map(|a| {
            a.as_ref()
                .map_or_else(|_| String::new(), |(a, _, _)| a.origin.robots_txt_url())
        })
        .collect();
    let mut results = Vec::with_capacity(req.urls.len());
    let mut checked = 0u64;
    for ((url, answered), robots_txt) in req.urls.iter().zip(&answers).zip(&robots_txts) {
        results.push(match answered {
            Ok((answer, verdict, rules)) => {
                checked += 1;
                Record::Check(state_record(
                    url,
                    &token,
                    crawler,
                    answer,
                    Some(*verdict),
                    rules.as_ref(),
                    robots_txt,
                ))
            }
            Err(message) => Record::Error(InputError {
                url: Some(url),
                message,
            }),
        });
    }
    app.metrics
        .urls_checked
        .fetch_add(checked, Ordering::Relaxed);
    Ok(Json(Checked { results }).into_response())
}

/// `POST /v1/check` answer (a struct, so that the records keep their field order).
#[derive(Serialize)]
struct Checked<'a> {
    results: Vec<Record<'a>>,
}
