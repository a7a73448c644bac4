//! HTTP (feature `fetch`): one fetch of a robots.txt or a sitemap, turned into bytes and an
//! outcome the failure rules of [`crate::policy`] understand.
//!
//! - [`client`]: [`Fetcher`], one fetch, with redirects followed by hand, a byte cap, timeouts,
//!   a cap on fetches in flight and an optional [`AddressPolicy`]; every failure becomes a
//!   [`crate::policy::FetchOutcome`], and a failure of this machine (file descriptors, memory)
//!   a [`LocalError`], never the site's fault.
//! - `decode`, `headers`, `address`, `classify`: content codings, the headers a fetch reads,
//!   which addresses may be connected to, and what an error means.
//! - [`page`]: one page's status, page-directive headers and first bytes, for
//!   [`crate::page::evaluate`].
//! - [`sitemaps`] (with feature `sitemap`): fetch a sitemap, or walk an origin's sitemaps.
//! - `tdmrep`: [`Fetcher::fetch_tdmrep`], an origin's `/.well-known/tdmrep.json` ([`TdmFetch`]).
//!
//! The engine ([`crate::engine::RobotsCache`]) decides when to fetch; this module only fetches.

mod address;
mod classify;
pub mod client;
mod decode;
pub(crate) mod headers;
pub mod page;
#[cfg(feature = "sitemap")]
pub mod sitemaps;
mod tdmrep;

pub use address::AddressPolicy;
pub use client::{
    default_max_in_flight, response_fetch, FetchError, FetchOptions, Fetcher, HtmlRobotsTxt,
    LocalError, MAX_REDIRECT_URL, MAX_RESPONSE_HEADERS,
};
pub use headers::{ChallengeMarker, CHALLENGE_MARKERS};
pub use page::{PageFetchError, PageResponse};
#[cfg(feature = "sitemap")]
pub use sitemaps::{Discovery, SitemapFetchError};
pub use tdmrep::{TdmFetch, TdmFetchOutcome};
