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
//! - [`RobotsCache::ask_slot`]: the same for a caller that waits elsewhere (a service, a
//!   queue): the caller's [`Slot`] of the key's slot ledger, shared on a shared store.
//! - [`GateMiddleware`] (feature `middleware`): the same for every request of a
//!   `reqwest_middleware` client.
//!
//! Time goes through a [`Clock`]: [`SystemClock`] in a crawler, [`ManualClock`] in a test.
//!
//! - `cache`: the engine and its options; `answer`: one URL's [`Answer`]; `gate`: `acquire`,
//!   permits and backoff; `slots`: the gate's state in the process (per-key concurrency);
//!   `keys`: politeness keys and fleet-wide in-flight places; `stats`: the counters
//!   ([`RobotsCache::stats`]); `clock`: time; `middleware`: the reqwest-middleware layer.
//!
//! # Gating requests: not only *may I* fetch this URL, but *when*
//!
//! [`RobotsCache::acquire`] checks the URL against robots.txt and refuses at once if it is
//! disallowed ([`Refused::Disallowed`], with the reason and the deciding rule). Otherwise it
//! waits for the origin's next slot and returns a [`Permit`]; the crawler fetches the page and
//! tells the permit how it went ([`Permit::record`]).
//!
//! ```no_run
//! use crawlgate::engine::{CacheOptions, RobotsCache};
//! use crawlgate::ProductToken;
//!
//! # async fn crawl() -> Result<(), Box<dyn std::error::Error>> {
//! let cache = RobotsCache::new(CacheOptions::default())?;
//! let bot = ProductToken::new("ExampleBot")?;
//! let client = reqwest::Client::new();
//! let url = "https://example.com/page";
//! match cache.acquire(&bot, url).await {
//!     Ok(permit) => {
//!         let response = client.get(url).send().await?;
//!         permit.record_response(response.status().as_u16(), response.headers()).await;
//!         // … use `response`
//!     }
//!     Err(refused) => eprintln!("skipped: {refused}"),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! ## The schedule
//!
//! - **Spacing** ([`spacing`](crate::policy::spacing)): the largest of the agent's `Crawl-delay`, its `Request-rate`
//!   (`n/m`: one request per `m / n`, only inside the rate's UTC window if it has one) and
//!   [`GateOptions::default_delay`](crate::policy::GateOptions::default_delay) (1 s), **capped** at [`GateOptions::max_delay`](crate::policy::GateOptions::max_delay) (60 s): the
//!   cap bounds how long a crawler waits between two requests to one origin, so a
//!   `Crawl-delay: 86400` is honoured as one request a minute. [`Spacing::capped`](crate::policy::Spacing::capped) (on
//!   [`Permit::spacing`]) says when the cap applied. A `Visit-time` window
//!   ([`Answer::visit_time`]) holds permits until it opens
//!   ([`GateOptions::visit_time`](crate::policy::GateOptions::visit_time)).
//! - **Slots**: each acquire reserves the origin's next slot in the [`Store`](crate::store::Store)
//!   (slot = the latest of now, the previous slot + spacing, the end of a backoff), so that
//!   waiters are served in arrival order, and origins are independent.
//! - **Backoff**: a backoff status ([`GateOptions::backoff_statuses`](crate::policy::GateOptions::backoff_statuses): 429, 503) recorded on a permit holds the origin's slots back for its
//!   `Retry-After` (seconds or an HTTP date, up to [`GateOptions::max_retry_after`](crate::policy::GateOptions::max_retry_after), 1 hour),
//!   else for [`GateOptions::backoff_base`](crate::policy::GateOptions::backoff_base) (60 s) doubling with each one in a row up to
//!   [`GateOptions::backoff_max`](crate::policy::GateOptions::backoff_max) (one day), with ±10 % jitter; any other answer starts the doubling over, and so do
//!   30 quiet minutes after the backoff. Slots already reserved wait for the backoff too.
//! - **Politeness keys**: slots, backoffs and the concurrency limit belong to a
//!   [`PoliteKey`](crate::policy::PoliteKey), chosen by [`GateOptions::key`](crate::policy::GateOptions::key):
//!   the origin (default), the host, the registrable domain, or the server's IP address (IPv6
//!   by /64). robots.txt stays per origin. [`Permit::key`] names it.
//! - **Concurrency**: at most [`GateOptions::max_concurrency`](crate::policy::GateOptions::max_concurrency) permits (default 1) of one
//!   key are alive at once in this process; the next waiter takes its slot when one is
//!   recorded or dropped. With the Redis store the limit holds across the fleet: each permit
//!   also holds a lease with an expiry ([`GateOptions::in_flight_expiry`](crate::policy::GateOptions::in_flight_expiry), 60 s), taken
//!   once its slot has come and released with it, so that a killed process frees its places.
//! - **Availability**: a permit's outcome is also the site-availability report the 30-day
//!   rule needs ([`RobotsCache::record_page_fetch`]): 2xx–4xx (but 429) say the site is up,
//!   5xx and unreachable say it is down; the same report again is written at most every
//!   [`GateOptions::availability_interval`](crate::policy::GateOptions::availability_interval).
//! - **Events**: `tracing` target `crawlgate::gate`: each backoff (info), each capped spacing
//!   (debug).
//!
//! ## Time and fleets
//!
//! Waiting goes through the engine's [`Clock`] ([`Clock::sleep`]): a
//! [`ManualClock`] runs a schedule of minutes in a test in no time.
//!
//! With the Redis store, the processes of a fleet share one schedule per key: a slot is
//! reserved by one Lua script that reads the Redis server's `TIME`, so that every process
//! measures against the same clock, and returns the wait as a duration, which each process
//! sleeps on its own clock. Clock skew between machines therefore does not matter; network
//! latency to Redis (the answer's trip back) is the only error, and it only makes waits later.
//! The embedded and memory stores keep the schedule in the process (the embedded store also
//! writes backoffs to disk, so that a restarted crawler still honours a `Retry-After`). If the
//! store fails, the gate keeps spacing in the process and says so through
//! [`RobotsCache::store_status`].
//!
//! ## Wrapping a client
//!
//! With feature `middleware`, `GateMiddleware` does all of the above for
//! every request of a [reqwest-middleware](https://docs.rs/reqwest-middleware) client: see
//! `examples/gate_middleware.rs`.
//!
//! [`Clock::sleep`]: Clock::sleep

mod answer;
mod cache;
mod clock;
mod gate;
mod keys;
#[cfg(feature = "middleware")]
mod middleware;
mod options;
mod policy;
mod politeness;
mod slots;
mod stats;
mod tdm;

pub use answer::{Answer, DecidingRule, SitemapUrls};
#[cfg(feature = "redb")]
pub use cache::OpenError;
pub use cache::{CheckError, LocalFailures, RobotsCache, StoreStatus};
pub use clock::{Clock, ManualClock, Sleep, SystemClock};
pub use gate::{Permit, Recorded, Refused, RetryAfterIgnored, Slot};
#[cfg(feature = "middleware")]
pub use middleware::{refusal, GateMiddleware};
pub use options::CacheOptions;
pub use policy::{CrawlPolicy, Edge, PagePart, PolicyWarning, TdmPart, TdmSource};
pub use politeness::{Politeness, ScheduleSource};
pub use stats::{CacheStats, FetchClass};
pub use tdm::{TdmAnswer, TdmError, TdmReservation};

/// Locks, recovering from a poisoned lock: the engine's data behind locks are plain values,
/// still consistent.
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
