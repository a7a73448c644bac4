//! The crawl-policy engine (feature `fetch`): what a crawler calls before each request.
//!
//! [`RobotsCache`] resolves a URL's origin, fetches its robots.txt once however many tasks ask
//! (once per fleet with a shared [`Store`](crate::store::Store)), keeps each origin's state in
//! the store and the compiled rules in memory, refreshes them while answering, and applies the
//! failure rules of [`crate::policy`]. Its answers:
//!
//! - [`RobotsCache::check`]: may this agent fetch this URL? An [`Answer`], with the deciding
//!   rule, crawl-delay, request-rate and sitemaps.
//! - [`RobotsCache::acquire`]: may it, and *when*? A [`Permit`] once the origin's next slot
//!   has come (crawl-delay, request-rate, backoff), or [`Refused`].
//! - [`GateMiddleware`] (feature `middleware`): the same for every request of a
//!   `reqwest_middleware` client.
//!
//! Time goes through a [`Clock`]: [`SystemClock`] in a crawler, [`ManualClock`] in a test.
//!
//! - `cache`: the engine and its options; `answer`: one URL's [`Answer`]; `gate`: `acquire`,
//!   permits and backoff; `clock`: time; `middleware`: the reqwest-middleware layer.

mod answer;
mod cache;
mod clock;
mod gate;
#[cfg(feature = "middleware")]
mod middleware;
mod slots;

pub use answer::{Answer, DecidingRule, SitemapUrls};
pub use cache::{CacheOptions, CheckError, LocalFailures, RobotsCache, StoreStatus};
pub use clock::{Clock, ManualClock, Sleep, SystemClock};
pub use gate::{Permit, Recorded, Refused};
#[cfg(feature = "middleware")]
pub use middleware::{refusal, GateMiddleware};

/// Locks, recovering from a poisoned lock: the engine's data behind locks are plain values,
/// still consistent.
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
