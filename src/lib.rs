//! # crawlgate
//!
//! A robots.txt parser, linter and matcher that follows [RFC 9309] and, on request, reproduces
//! google/robotstxt exactly.
//!
//! ## Overview
//!
//! - [`Robots::parse`] reads any bytes — never fails, never panics — into a compiled rule set
//!   and a list of [`Diagnostic`]s, each with a stable [`Code`], a [`Severity`] (error: the line
//!   is not used; warning: it is used), a line and a byte span.
//! - [`Robots::check`] answers "may this agent fetch this URL?" in nanoseconds and says which
//!   line decided ([`Decision`]).
//! - [`Origin`] finds where a URL's robots.txt lives.
//! - [`Mode`] picks RFC 9309 (default) or Google's library; every difference is listed there.
//! - [`policy`] is the failure ladder (404 → allow all; unreachable → stop for 12 hours, then
//!   the last good version for 30 days, then allow if the site is up), pure and clock-free.
//! - `fetch::RobotsCache` (feature `fetch`) is the engine a crawler calls before each request:
//!   it fetches each origin's robots.txt once, caches and refreshes it, and applies the ladder.
//! - `sitemap` (feature `sitemap`) reads and validates sitemaps — XML, text, RSS, Atom, gzip —
//!   as a stream of entries and diagnostics in flat memory, cross-checks their URLs against
//!   robots.txt, and walks an origin's sitemaps (`fetch::Fetcher::discover_sitemaps`).
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
//! ## Crate features
//!
//! - `fetch` (default): the crawl-policy engine, `fetch::RobotsCache`: fetching (reqwest with
//!   rustls, tokio), caching (moka) and the failure rules of [`policy`].
//! - `sitemap` (default): the sitemap reader, validator and discovery walk (quick-xml, flate2).
//! - `cli` (default): the `crawlgate` command-line tool (clap, serde_json, anyhow).
//!
//! The core — parsing, diagnostics, matching, origins, the failure ladder — builds with
//! `--no-default-features` on nom, memchr, url and thiserror alone.
//!
//! [RFC 9309]: https://www.rfc-editor.org/rfc/rfc9309.html
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod diagnostic;
#[cfg(feature = "fetch")]
pub mod fetch;
#[cfg(feature = "fetch")]
pub mod gate;
pub mod origin;
mod plain_url;
pub mod policy;
pub mod robots;
#[cfg(feature = "sitemap")]
pub mod sitemap;
#[cfg(feature = "fetch")]
pub mod store;

pub use diagnostic::{Code, Diagnostic, Severity};
pub use origin::{robots_txt_url, Origin, OriginError, Scheme};
pub use robots::{
    request_path, request_target, respelled, Agent, AgentRules, Agents, ContentSignals, Decision,
    Directive, Group, GroupMatch, Groups, Mode, Options, OtherKey, Parsed, PolicyLink, Preference,
    ProductToken, Reason, Record, Records, RequestRate, Respelled, Robots, RuleKind, RuleRef,
    RuleText, SignalRef, Signals, Sitemap, Sitemaps, TimeWindow, TokenError, Usage,
    UsagePreferences, UsageRuleRef, VisitTime, DEFAULT_MAX_BYTES, GOOGLE_MAX_LINE_BYTES,
};

/// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The manual's examples (`docs/`) are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
pub struct LibraryDoctests;

/// See [`LibraryDoctests`].
#[cfg(doctest)]
#[doc = include_str!("../docs/engine.md")]
pub struct EngineDoctests;

/// See [`LibraryDoctests`].
#[cfg(doctest)]
#[doc = include_str!("../docs/sitemaps.md")]
pub struct SitemapsDoctests;
