//! # crawlgate
//!
//! The crawl-policy engine for crawlers: before each request, *may this agent fetch this URL,
//! and when?* It parses and lints robots.txt by [RFC 9309] (or exactly as google/robotstxt
//! does, on request), fetches each origin's robots.txt once, keeps its state durable, applies
//! the failure rules, paces requests, and answers from compiled rules in nanoseconds.
//!
//! ## Overview
//!
//! The crate is built in floors; each uses only the floors below it.
//!
//! - **The core** (no features): [`Robots::parse`] reads any bytes — never fails, never panics
//!   — into compiled rules and [`Diagnostic`]s, each with a stable [`Code`], a [`Severity`], a
//!   line and a byte span. [`Robots::check`] answers for a URL and says which line decided
//!   ([`Decision`]); it judges the path an HTTP client requests ([`request_target`]). [`Mode`]
//!   picks RFC 9309 (default) or Google's library, every difference listed there. [`Origin`]
//!   finds where a URL's robots.txt lives. `sitemap` (feature `sitemap`) reads and validates
//!   sitemaps — XML, text, RSS, Atom, gzip — as a stream in flat memory and cross-checks their
//!   URLs against robots.txt.
//! - [`page`]: page-level directives — `Robots-Tag`/`X-Robots-Tag` headers, `<meta name="robots">`,
//!   `noai`, TDMRep and `Content-Usage` — for one agent, merged, each with its source.
//! - [`policy`]: the failure ladder (4xx: allow all; 5xx, 429, unreachable: stop for 12
//!   hours, then the last good version for 30 days) over an origin's stored state, and the
//!   gate's arithmetic (crawl-delay, request-rate, backoff): pure and clock-free.
//! - `store` (feature `fetch`): where each origin's state lives — `MemoryStore`, the
//!   crash-safe embedded file `EmbeddedStore` (feature `redb`, the default), `RedisStore` for
//!   a fleet (feature `redis`: one fetch per origin for the whole fleet, a shared schedule).
//! - `http` (feature `fetch`): one fetch of a robots.txt or a sitemap, with redirects, byte
//!   caps, timeouts and an address policy; a failure on this machine is never the site's.
//! - `engine` (feature `fetch`): `RobotsCache`, what a crawler calls: `check` (an `Answer`
//!   with the deciding rule, crawl-delay, request-rate, sitemaps), `acquire` (a `Permit` once
//!   the origin's next slot has come, or `Refused`), and `GateMiddleware` (feature
//!   `middleware`) for a `reqwest_middleware` client.
//!
//! ## Examples
//!
//! ```
//! use crawlgate::{Code, ProductToken, Robots, Severity};
//!
//! let body = b"User-agent: *\nCrawl-delay: 10\n\nUser-agent: BadBot\nDisalow: /\n";
//! let parsed = Robots::parse(body);
//!
//! // Problems, with stable codes.
//! let codes: Vec<_> = parsed.diagnostics.iter().map(|d| (d.line, d.code, d.severity)).collect();
//! assert_eq!(codes, [
//!     (2, Code::IgnoredDirective, Severity::Warning),
//!     (4, Code::AgentsJoined, Severity::Warning),
//!     (5, Code::MisspelledKey, Severity::Warning),
//! ]);
//!
//! // Decisions that explain themselves. `Crawl-delay` does not end a group, so `*` and BadBot
//! // share one group and `Disalow: /` blocks every crawler: the trap `agents-joined` warns of.
//! let googlebot = ProductToken::new("Googlebot")?;
//! let d = parsed.robots.check(&googlebot, "https://example.com/private/report.pdf");
//! assert!(!d.allowed);
//! assert_eq!(d.rule().map(|r| (r.line, r.text.to_string())), Some((5, "Disalow: /".into())));
//! # Ok::<(), crawlgate::TokenError>(())
//! ```
//!
//! The engine, before each request (it fetches `https://example.com/robots.txt` once):
//!
//! ```no_run
//! # #[cfg(feature = "fetch")]
//! # async fn crawl() -> Result<(), Box<dyn std::error::Error>> {
//! use crawlgate::engine::{CacheOptions, RobotsCache};
//! use crawlgate::ProductToken;
//!
//! let cache = RobotsCache::new(CacheOptions::default())?;
//! let bot = ProductToken::new("ExampleBot")?;
//! let url = "https://example.com/page";
//! match cache.acquire(&bot, url).await {
//!     Ok(permit) => {
//!         let response = reqwest::get(url).await?;
//!         permit.record_response(response.status().as_u16(), response.headers()).await;
//!     }
//!     Err(refused) => eprintln!("skipped: {refused}"),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! ## Crate features
//!
//! - `fetch` (default): the engine (`engine`), the HTTP client (`http`) and the stores
//!   (`store`, with the in-memory one): reqwest with rustls, tokio, moka, tracing.
//! - `redb` (default): the embedded on-disk store (redb); implies `fetch` and `serde`.
//! - `redis` (default): the Redis store, for fleets; implies `fetch` and `serde`.
//! - `sitemap` (default): the sitemap reader, validator and discovery walk (quick-xml, flate2).
//! - `audit` (default): `audit`, which AI crawlers a robots.txt lets read what, against the
//!   embedded ai.robots.txt catalogue or one of the same shape; implies `serde`.
//! - `serde`: stored states and sitemap entries as JSON (serde, serde_json).
//! - `middleware`: `engine::GateMiddleware` for reqwest-middleware clients; implies `fetch`.
//! - `batch`: `batch`, robots.txt captures (WARC, WARC.gz, rows) judged and audited into Arrow
//!   record batches (flate2, arrow-array, arrow-schema); implies `audit`.
//!
//! With `--no-default-features` the core — parsing, diagnostics, matching, origins, the
//! failure ladder, page directives — builds on nom, memchr, aho-corasick, url, sha2, html5gum
//! and thiserror alone.
//!
//! [RFC 9309]: https://www.rfc-editor.org/rfc/rfc9309.html
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "audit")]
pub mod audit;
#[cfg(feature = "batch")]
pub mod batch;
pub mod diagnostic;
#[cfg(feature = "fetch")]
pub mod engine;
#[cfg(feature = "fetch")]
pub mod http;
pub mod origin;
pub mod page;
mod plain_url;
pub mod policy;
pub mod robots;
#[cfg(feature = "sitemap")]
pub mod sitemap;
#[cfg(feature = "fetch")]
pub mod store;
#[cfg(feature = "tdmrep")]
pub mod tdmrep;

pub use diagnostic::{Code, Diagnostic, Severity};
pub use origin::{robots_txt_url, Origin, OriginError, Scheme, MAX_HOST_LEN, MAX_LABEL_LEN};
pub use robots::{
    request_path, request_target, respelled, Agent, AgentRules, Agents, ContentSignals, Decision,
    Directive, Group, GroupMatch, Groups, Mode, Options, OtherKey, Parsed, PolicyLink, Preference,
    ProductToken, Reason, Record, Records, RequestRate, Respelled, Robots, RuleKind, RuleRef,
    RuleText, SignalRef, Signals, Sitemap, Sitemaps, TimeWindow, TokenError, Usage,
    UsagePreferences, UsageRuleRef, VisitTime, DEFAULT_MAX_BYTES, GOOGLE_MAX_LINE_BYTES,
};

/// The engine's and the HTTP client's former paths (`crawlgate::fetch::RobotsCache` is
/// [`engine::RobotsCache`], `crawlgate::fetch::Fetcher` is [`http::Fetcher`]), kept so that
/// code written against them still builds.
#[cfg(feature = "fetch")]
#[doc(hidden)]
pub mod fetch {
    pub use crate::engine::{
        Answer, CacheOptions, CheckError, Clock, DecidingRule, LocalFailures, ManualClock,
        RobotsCache, SitemapUrls, Sleep, StoreStatus, SystemClock,
    };
    pub use crate::http::{
        client, default_max_in_flight, AddressPolicy, FetchError, FetchOptions, Fetcher,
        LocalError, MAX_REDIRECT_URL, MAX_RESPONSE_HEADERS,
    };
    #[cfg(feature = "sitemap")]
    pub use crate::http::{sitemaps, Discovery, SitemapFetchError};
    /// The engine's former module.
    pub mod cache {
        pub use crate::engine::{
            CacheOptions, CheckError, Clock, LocalFailures, ManualClock, RobotsCache, Sleep,
            StoreStatus, SystemClock,
        };
    }
}

/// The gate's former paths (`crawlgate::gate::Permit` is [`engine::Permit`],
/// `crawlgate::gate::GateOptions` is [`policy::GateOptions`]), kept so that code written
/// against them still builds.
#[cfg(feature = "fetch")]
#[doc(hidden)]
pub mod gate {
    #[cfg(feature = "middleware")]
    pub use crate::engine::{refusal, GateMiddleware};
    pub use crate::engine::{Permit, Recorded, Refused};
    pub use crate::policy::{
        backoff_delay, jitter, spacing, window_wait, BackoffRules, DelaySource, GateOptions,
        GateState, Spacing,
    };
    /// The middleware's former module.
    #[cfg(feature = "middleware")]
    pub mod middleware {
        pub use crate::engine::{refusal, GateMiddleware};
    }
}

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The manual's examples (`docs/`) are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
pub struct LibraryDoctests;

/// See [`LibraryDoctests`].
#[cfg(all(doctest, feature = "audit"))]
#[doc = include_str!("../docs/audit.md")]
pub struct AuditDoctests;

/// See [`LibraryDoctests`].
#[cfg(doctest)]
#[doc = include_str!("../docs/engine.md")]
pub struct EngineDoctests;

/// See [`LibraryDoctests`].
#[cfg(doctest)]
#[doc = include_str!("../docs/sitemaps.md")]
pub struct SitemapsDoctests;

/// See [`LibraryDoctests`].
#[cfg(all(doctest, feature = "fetch"))]
#[doc = include_str!("../docs/tdmrep.md")]
pub struct TdmrepDoctests;
#[cfg(doctest)]
#[doc = include_str!("../docs/page.md")]
pub struct PageDoctests;
