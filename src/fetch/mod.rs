//! The crawl-policy engine (feature `fetch`): fetch an origin's robots.txt, cache it, and
//! apply the failure rules of [`crate::policy`].
//!
//! - `answer`: the engine's [`Answer`] for one URL.
//! - [`client`]: one fetch, with redirects followed by hand, a byte cap, timeouts and an
//!   optional address policy; every failure becomes a [`crate::policy::FetchOutcome`].
//! - `cache`: the engine, [`RobotsCache`]: states in a [`crate::store::Store`], compiled rules in
//!   memory, one fetch per origin (per fleet, with a shared store), refresh while answering.
//! - [`sitemaps`] (with feature `sitemap`): fetch a sitemap, or walk an origin's sitemaps.

mod address;
mod answer;
pub mod cache;
mod classify;
pub mod client;
mod decode;
pub(crate) mod headers;
#[cfg(feature = "sitemap")]
pub mod sitemaps;

pub use address::AddressPolicy;
pub use answer::{Answer, DecidingRule, SitemapUrls};
pub use cache::{
    CacheOptions, CheckError, Clock, LocalFailures, ManualClock, RobotsCache, Sleep, StoreStatus,
    SystemClock,
};
pub use client::{
    default_max_in_flight, FetchError, FetchOptions, Fetcher, LocalError, MAX_REDIRECT_URL,
    MAX_RESPONSE_HEADERS,
};
#[cfg(feature = "sitemap")]
pub use sitemaps::{Discovery, SitemapFetchError};
