//! Fetching sitemaps (features `fetch` + `sitemap`): one sitemap with
//! [`Fetcher::fetch_sitemap`], or every sitemap of an origin with
//! [`Fetcher::discover_sitemaps`], which drives a [`Walk`].
//!
//! Sitemaps are fetched like robots.txt (see [`crate::http::client`]): redirects followed by
//! hand, the address policy on every hop, the fetcher's timeouts, and the body cut one byte past
//! [`MAX_BYTES`] after any `Content-Encoding` is undone. A `.xml.gz` served without
//! `Content-Encoding` arrives still compressed; the [`Reader`](crate::sitemap::Reader)
//! decompresses it with its own 50 MiB limit, so a compression bomb is bounded at both layers.

use super::client::RetrievalEnd;
use super::{Fetcher, LocalError};
use crate::policy::{Fetch, FetchOutcome, Unreachable};
use crate::sitemap::discover::{SitemapReport, Walk, WalkOptions};
use crate::sitemap::{CrossCheck, Scope, MAX_BYTES};
use crate::{Origin, ProductToken};

/// Why a sitemap could not be fetched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SitemapFetchError {
    /// The final response was not 2xx (a 3xx not followed included).
    #[error("HTTP {0}")]
    Status(u16),
    /// More redirects than [`FetchOptions::max_redirects`](crate::http::FetchOptions::max_redirects).
    #[error("too many redirects")]
    TooManyRedirects,
    /// A redirect to a URL already requested.
    #[error("redirect loop")]
    RedirectLoop,
    /// No complete response: DNS, connection, TLS, timeout, a broken body, a refused address…
    #[error("{0}")]
    Unreachable(Unreachable),
    /// The request failed on this side (file descriptors, memory…): nothing is known of the
    /// sitemap.
    #[error("{0}")]
    Local(LocalError),
}

/// What [`Fetcher::discover_sitemaps`] found.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Discovery {
    /// The robots.txt fetch: its URL, status and outcome (with the parsed rules when 2xx).
    pub robots: Fetch,
    /// One report per sitemap fetched, in the order fetched: announced ones first, then those
    /// their indexes list.
    pub sitemaps: Vec<SitemapReport>,
    /// Sitemap URLs not fetched because [`WalkOptions::max_sitemaps`] was reached.
    pub skipped: usize,
}

impl Discovery {
    /// The robots.txt URL requested.
    pub fn robots_url(&self) -> &str {
        &self.robots.url
    }

    /// Whether some sitemaps were not fetched because of [`WalkOptions::max_sitemaps`].
    pub fn truncated(&self) -> bool {
        self.skipped > 0
    }

    /// The sitemaps with each index's children right after it (fetched in another order:
    /// every announced sitemap first).
    pub fn in_tree_order(&self) -> Vec<&SitemapReport> {
        crate::sitemap::discover::tree_order(&self.sitemaps)
    }
}

impl Fetcher {
    /// Fetches one sitemap: the body of a 2xx response, at most [`MAX_BYTES`] + 1 bytes (the
    /// extra byte lets the reader report `too-large`), still gzip-compressed if the server sent
    /// a `.gz` file as it is.
    pub async fn fetch_sitemap(&self, url: &str) -> Result<Vec<u8>, SitemapFetchError> {
        // MAX_BYTES is 50 MiB: it fits any usize this crate builds for (32 bits or more).
        let cap = usize::try_from(MAX_BYTES.saturating_add(1)).unwrap_or(usize::MAX);
        match self.retrieve(url, cap).await.end {
            RetrievalEnd::Body(body) => Ok(body),
            RetrievalEnd::Status(code) => Err(SitemapFetchError::Status(code)),
            RetrievalEnd::Challenge { status, marker } => {
                Err(SitemapFetchError::Unreachable(Unreachable::Challenge {
                    status,
                    marker,
                }))
            }
            RetrievalEnd::TooManyRedirects => Err(SitemapFetchError::TooManyRedirects),
            RetrievalEnd::RedirectLoop => Err(SitemapFetchError::RedirectLoop),
            RetrievalEnd::Failed(why) => Err(SitemapFetchError::Unreachable(why)),
            RetrievalEnd::Local(e) => Err(SitemapFetchError::Local(e)),
        }
    }

    /// Fetches `origin`'s robots.txt, then every sitemap it announces and, one level down, the
    /// sitemaps their indexes list (see [`Walk`] for the rules), one at a time. With `agent`,
    /// every entry's URLs on `origin` are checked against that robots.txt for that agent
    /// (`blocked-by-robots`). A robots.txt that is not 2xx announces nothing. A request that
    /// fails on this side ends the walk with that error: a report would blame the site.
    pub async fn discover_sitemaps(
        &self,
        origin: &Origin,
        agent: Option<&ProductToken>,
        options: WalkOptions,
    ) -> Result<Discovery, LocalError> {
        let robots = self.fetch(origin).await?;
        let parsed = match &robots.outcome {
            FetchOutcome::Rules { parsed, .. } => Some(parsed.clone()),
            // Unconditional: a 304 cannot happen.
            FetchOutcome::NotModified { .. }
            | FetchOutcome::Unavailable(_)
            | FetchOutcome::Unreachable(_)
            | FetchOutcome::PaymentRequired(_) => None,
        };
        let announced: Vec<String> = parsed
            .as_ref()
            .map(|p| p.robots.sitemaps().map(|s| s.url.to_owned()).collect())
            .unwrap_or_default();
        let cross_check = match (&parsed, agent) {
            (Some(p), Some(agent)) => Some(CrossCheck::scoped(&p.robots, agent, origin.clone())),
            _ => None,
        };
        let mut options = options;
        // Announced in robots.txt, a sitemap may list any URL of this origin, and of the one
        // that served robots.txt after a redirect (apex → www, http → https).
        if options.scope.is_none() {
            let scope = match Origin::from_url(&robots.final_url) {
                Ok(served_by) => Scope::site_served_by(origin.clone(), served_by),
                Err(_) => Scope::site(origin.clone()),
            };
            options.scope = Some(scope);
        }
        let mut walk = Walk::new(announced, options);
        // Sequential on purpose: one origin's sitemaps, one connection at a time, as polite
        // crawlers fetch; at most one body (50 MiB) in memory.
        while let Some(request) = walk.next_request() {
            let body = match self.fetch_sitemap(&request.url).await {
                Err(SitemapFetchError::Local(e)) => return Err(e),
                body => body,
            };
            let body = body.as_deref().map_err(ToString::to_string);
            walk.record(request, body, cross_check.as_ref());
        }
        let report = walk.finish();
        Ok(Discovery {
            robots,
            sitemaps: report.sitemaps,
            skipped: report.skipped,
        })
    }
}
