//! One page fetched for its directives: the final response's status, its page-directive
//! header fields, and the first bytes of its body, read once through the [`Fetcher`]'s
//! redirects, caps, timeouts and address policy. [`crate::page::evaluate`] reads them.

use super::client::{Fetcher, LocalError, RetrievalEnd};
use crate::policy::Unreachable;

/// Why a page could not be fetched at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PageFetchError {
    /// More redirects than [`FetchOptions::max_redirects`](crate::http::FetchOptions::max_redirects).
    #[error("too many redirects")]
    TooManyRedirects,
    /// A redirect to a URL already requested.
    #[error("redirect loop")]
    RedirectLoop,
    /// No complete response: DNS, connection, TLS, timeout, a broken body, a refused address…
    #[error("{0}")]
    Unreachable(Unreachable),
    /// The request failed on this side.
    #[error("{0}")]
    Local(LocalError),
    /// A bot-protection challenge answered instead of the page (one of
    /// [`CHALLENGE_MARKERS`](crate::http::CHALLENGE_MARKERS)): its directives are not the page's.
    #[error("a challenge instead of the page (HTTP {status}, {marker})")]
    Challenge {
        /// The challenge's status.
        status: u16,
        /// The marker, `name: value`.
        marker: String,
    },
}

/// A page's response, as far as its directives go.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PageResponse {
    /// The URL of the final response (after redirects).
    pub final_url: String,
    /// Redirects followed.
    pub redirects: u8,
    /// The final status.
    pub status: u16,
    /// Its `Content-Type`.
    pub content_type: Option<String>,
    /// Its page-directive fields (`x-robots-tag`, `robots-tag`, `tdm-reservation`,
    /// `tdm-policy`, `content-usage`), names lowercase, in order.
    pub headers: Vec<(String, Vec<u8>)>,
    /// The first bytes of a 2xx body (decoded), at most the cap; empty otherwise.
    pub body: Vec<u8>,
}

impl PageResponse {
    /// Whether the body is HTML by its `Content-Type` (or, with none, by its first bytes).
    pub fn is_html(&self) -> bool {
        match &self.content_type {
            Some(t) => {
                let t = t.to_ascii_lowercase();
                t.starts_with("text/html") || t.starts_with("application/xhtml+xml")
            }
            None => {
                let head = self.body.trim_ascii_start();
                head.first() == Some(&b'<')
            }
        }
    }
}

impl Fetcher {
    /// `GET url` once, following redirects, reading at most `cap` bytes of a 2xx body (the
    /// HTML byte budget of [`crate::page::Options`] is the natural cap).
    pub async fn fetch_page(&self, url: &str, cap: usize) -> Result<PageResponse, PageFetchError> {
        let seen = self.retrieve_with(url, cap, None).await;
        let body = match seen.end {
            RetrievalEnd::Body(body) => body,
            RetrievalEnd::Status(_) => Vec::new(),
            RetrievalEnd::TooManyRedirects => return Err(PageFetchError::TooManyRedirects),
            RetrievalEnd::RedirectLoop => return Err(PageFetchError::RedirectLoop),
            RetrievalEnd::Failed(why) => return Err(PageFetchError::Unreachable(why)),
            RetrievalEnd::Local(e) => return Err(PageFetchError::Local(e)),
            RetrievalEnd::Challenge { status, marker } => {
                return Err(PageFetchError::Challenge { status, marker })
            }
        };
        Ok(PageResponse {
            final_url: seen.final_url,
            redirects: seen.redirects,
            status: seen.status.unwrap_or(0),
            content_type: seen.content_type,
            headers: seen.page_headers,
            body,
        })
    }
}
