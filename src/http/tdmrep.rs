//! Fetching an origin's `/.well-known/tdmrep.json` (TDMRep §4.1): the same client, redirects,
//! caps, timeouts and status table as robots.txt, the body parsed by [`TdmRep::parse`].
//!
//! A body that is not a valid file (HTML, not JSON, not an array) is still a file: one that
//! reserves nothing ("failure to provide access to such a representation implies that the
//! origin server does not implement this protocol"). Its diagnostics say why.

use std::sync::Arc;
use std::time::Duration;

use super::client::{Fetcher, LocalError, RetrievalEnd};
use crate::policy::status_outcome;
use crate::policy::{FetchOutcome, Payment, Unavailable, Unreachable};
use crate::tdmrep::{self, TdmRep, WELL_KNOWN_PATH};
use crate::Origin;

/// One fetch of `tdmrep.json`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TdmFetch {
    /// The URL requested.
    pub url: String,
    /// The URL of the last response (after redirects).
    pub final_url: String,
    /// The last HTTP status, if a response arrived.
    pub status: Option<u16>,
    /// `Cache-Control: max-age` of a 2xx.
    pub max_age: Option<Duration>,
    /// `Retry-After` of a 429 or 503.
    pub retry_after: Option<Duration>,
    /// What it means.
    pub outcome: TdmFetchOutcome,
}

/// What a fetch of `tdmrep.json` produced: robots.txt's outcomes, with the file parsed.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum TdmFetchOutcome {
    /// A 2xx: the body (at most [`tdmrep::MAX_BYTES`] + 1 bytes) parsed.
    File {
        /// The body as read.
        body: Arc<[u8]>,
        /// Its rules and diagnostics.
        parsed: Arc<tdmrep::Parsed>,
    },
    /// No file (a 4xx, a redirect that cannot be followed): the origin does not use TDMRep.
    Unavailable(Unavailable),
    /// Not reachable (429, 5xx, network, a challenge at the edge): the ladder applies.
    Unreachable(Unreachable),
    /// A 402, with its price headers.
    PaymentRequired(Payment),
}

impl Fetcher {
    /// Fetches `origin`'s `/.well-known/tdmrep.json`. The error is a failure on this side.
    pub async fn fetch_tdmrep(&self, origin: &Origin) -> Result<TdmFetch, LocalError> {
        let url = format!("{}{WELL_KNOWN_PATH}", origin);
        let seen = self
            .retrieve_with(&url, tdmrep::MAX_BYTES.saturating_add(1), None)
            .await;
        let mut max_age = None;
        let outcome = match seen.end {
            RetrievalEnd::Body(body) => {
                max_age = seen.max_age;
                let parsed = TdmRep::parse(&body);
                TdmFetchOutcome::File {
                    body: Arc::from(body),
                    parsed: Arc::new(parsed),
                }
            }
            RetrievalEnd::Challenge { status, marker } => {
                TdmFetchOutcome::Unreachable(Unreachable::Challenge { status, marker })
            }
            RetrievalEnd::Status(402) => {
                TdmFetchOutcome::PaymentRequired(seen.payment.unwrap_or_default())
            }
            RetrievalEnd::Status(code) => match status_outcome(code) {
                FetchOutcome::Unavailable(why) => TdmFetchOutcome::Unavailable(why),
                FetchOutcome::Unreachable(why) => TdmFetchOutcome::Unreachable(why),
                _ => TdmFetchOutcome::Unreachable(Unreachable::Status(code)),
            },
            RetrievalEnd::TooManyRedirects => {
                TdmFetchOutcome::Unavailable(Unavailable::TooManyRedirects)
            }
            RetrievalEnd::RedirectLoop => TdmFetchOutcome::Unavailable(Unavailable::RedirectLoop),
            RetrievalEnd::Failed(why) => TdmFetchOutcome::Unreachable(why),
            RetrievalEnd::Local(e) => return Err(e),
        };
        let retry_after = match seen.status {
            Some(429 | 503) => seen.retry_after,
            _ => None,
        };
        Ok(TdmFetch {
            url,
            final_url: seen.final_url,
            status: seen.status,
            max_age,
            retry_after,
            outcome,
        })
    }
}
