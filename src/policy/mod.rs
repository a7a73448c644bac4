//! The failure rules: what a crawler may do on an origin, given what fetching its robots.txt
//! produced over time ([RFC 9309 §2.3.1], [Google's robots.txt documentation]).
//!
//! Pure: no I/O and no clock. An origin's whole crawl state is an [`OriginState`], changed only
//! by [`Change`]s that carry their own times ([`OriginState::apply`]), and asked with an explicit
//! `now` ([`OriginState::verdict_at`]), so that the 12-hour and 30-day rules are tested without
//! waiting and the same state can be stored, shared by a fleet and replayed.
//!
//! | fetch outcome | verdict |
//! |---|---|
//! | 2xx, or 304 to a conditional request | the parsed rules |
//! | 4xx except 429, more than 5 redirects | no robots.txt: allow all |
//! | 402 Payment Required (Cloudflare's pay per crawl) | disallow all, while it lasts; the price headers kept |
//! | 429, 5xx, network failure, a challenge at the edge (first 12 h of an unbroken run of failures) | disallow all |
//! | … then up to 30 days | the last good version (none: allow all, or disallow all when strict) |
//! | … after 30 days | allow all if the site was recently reported available, else disallow all |
//!
//! [RFC 9309 §2.3.1]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.3.1
//! [Google's robots.txt documentation]: https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt#http-status-codes

#[cfg(feature = "fetch")]
mod key;
mod ledger;
mod reason;
mod response;
mod schedule;
mod state;
mod unix_ms;

#[cfg(feature = "fetch")]
pub use key::{KeyKind, PoliteKey, UnknownKeyKind};
pub use ledger::{Ask, Asked, Caller, LaterWhy, Ledger, LedgerBounds, Outcome, SlotKey, SPENT_MIN};
pub use reason::Rfc3339;
pub use response::{challenge_marker, is_html_type, ChallengeMarker, CHALLENGE_MARKERS};

pub use schedule::{
    backoff_delay, jitter, spacing, window_wait, Backoff, BackoffRules, DelaySource, GateOptions,
    GateState, Pacing, Spacing, SpacingReason,
};

pub use state::{
    Applied, Change, Content, Digest, FetchRecord, GoodVersion, OriginState, RobotsFile,
    SiteReport, Validators, Version, MAX_VERSIONS,
};

#[cfg(feature = "fetch")]
pub(crate) use unix_ms::{ms, unix_ms};

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::robots::Parsed;

/// How long a crawler stops after the first failure of a run: 12 hours.
pub const STOP_PERIOD: Duration = Duration::from_secs(12 * 3600);
/// How long the last good version is used after the first failure of a run: 30 days.
pub const LAST_GOOD_PERIOD: Duration = Duration::from_secs(30 * 86_400);
/// How long versions are kept in the history: 30 days.
pub const HISTORY_PERIOD: Duration = LAST_GOOD_PERIOD;
/// How long a "site is up" report counts: 30 days.
pub const AVAILABILITY_WINDOW: Duration = LAST_GOOD_PERIOD;
/// How long an origin that answers "not found" stays listed: 30 days (it is still checked).
pub const DORMANT_AFTER: Duration = LAST_GOOD_PERIOD;

/// Why there is no robots.txt (everything is allowed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case", tag = "kind", content = "status")
)]
#[non_exhaustive]
pub enum Unavailable {
    /// A 4xx status other than 429.
    Status(u16),
    /// More than 5 consecutive redirects.
    TooManyRedirects,
    /// A redirect back to a URL already visited.
    RedirectLoop,
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::Status(s) => write!(f, "HTTP {s}"),
            Unavailable::TooManyRedirects => f.write_str("more than 5 redirects"),
            Unavailable::RedirectLoop => f.write_str("redirect loop"),
        }
    }
}

/// Why robots.txt could not be fetched (the crawler must be careful).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case", tag = "kind", content = "detail")
)]
#[non_exhaustive]
pub enum Unreachable {
    /// 429, a 5xx status, or a status that gives nothing usable (a final 1xx, 600–999).
    Status(u16),
    /// The host name did not resolve.
    Dns(String),
    /// The connection could not be made (refused, unreachable, or refused by the address
    /// policy).
    Connect(String),
    /// The TLS handshake failed.
    Tls(String),
    /// The connect or total timeout passed.
    Timeout,
    /// The connection broke while the response was read (reset, broken chunking, body cut
    /// short, bad compression).
    Body(String),
    /// The body came in a content coding the fetcher does not decode (`br`, `compress`, more
    /// than three codings…): its bytes are not the file.
    Encoding(String),
    /// Anything else the HTTP client reported.
    Other(String),
    /// A challenge at the edge: a bot-protection service (a WAF, a CDN) answered in the site's
    /// place with a challenge page (`cf-mitigated: challenge`, …: the fetcher's table of
    /// challenge markers) instead of the file.
    /// Whatever the status, it is not "no robots.txt": the site refuses the crawler.
    Challenge {
        /// The status of the challenge response.
        status: u16,
        /// The marker header as `name: value`.
        marker: String,
    },
    /// A 2xx whose body is an HTML page, not a robots.txt, read as unreachable because
    /// the fetcher's option `FetchOptions::html` says so (by default it is parsed, as Google
    /// does). The detail says what gave it away.
    HtmlPage(String),
}

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreachable::Status(s) => write!(f, "HTTP {s}"),
            Unreachable::Dns(m) => write!(f, "DNS failure: {m}"),
            // `connection refused` says it all; `connection failed: connection refused` said
            // it twice.
            Unreachable::Connect(m) if m.starts_with("connection ") => f.write_str(m),
            Unreachable::Connect(m) => write!(f, "connection failed: {m}"),
            Unreachable::Tls(m) => write!(f, "TLS failure: {m}"),
            Unreachable::Timeout => f.write_str("timed out"),
            Unreachable::Body(m) => write!(f, "response broken: {m}"),
            Unreachable::Encoding(m) => write!(f, "unusable body: {m}"),
            Unreachable::Other(m) => f.write_str(m),
            Unreachable::Challenge { status, marker } => {
                write!(f, "challenged at the edge (HTTP {status}, {marker})")
            }
            Unreachable::HtmlPage(m) => write!(f, "an HTML page, not a robots.txt ({m})"),
        }
    }
}

/// What one fetch of robots.txt produced.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum FetchOutcome {
    /// A 2xx response: its body (up to the size limit) parsed.
    Rules {
        /// The body as read: at most one byte past the parsing limit, so that the parser
        /// knows when the limit cut it.
        body: Arc<[u8]>,
        /// The parsed rules and their diagnostics.
        parsed: Arc<Parsed>,
    },
    /// A 304 to a conditional request: the version whose validators were sent is current.
    NotModified {
        /// The digest of the version the validators belong to.
        digest: Digest,
    },
    /// No robots.txt: everything is allowed.
    Unavailable(Unavailable),
    /// Not reachable: the ladder applies.
    Unreachable(Unreachable),
    /// A 402: crawling is offered for a price (Cloudflare's pay per crawl). Everything is
    /// disallowed while the site answers so; it is neither "no robots.txt" nor a failure.
    PaymentRequired(Payment),
}

/// The most price headers kept from one 402 response.
pub const MAX_PRICE_HEADERS: usize = 8;
/// The longest price header value kept, in bytes; a longer one is cut.
pub const MAX_PRICE_VALUE: usize = 256;

/// What a 402 answer said about the price: its `crawler-*` headers (`crawler-price: USD 0.01`
/// in [Cloudflare's pay per crawl]), as sent, at most [`MAX_PRICE_HEADERS`] of at most
/// [`MAX_PRICE_VALUE`] bytes each.
///
/// The values come from the site: escape them before showing them.
///
/// [Cloudflare's pay per crawl]: https://developers.cloudflare.com/ai-crawl-control/features/pay-per-crawl/crawler-integration/
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Payment {
    /// The price headers, lower-case names, in the order sent.
    #[cfg_attr(feature = "serde", serde(default))]
    pub headers: Vec<(String, String)>,
}

impl Payment {
    /// A payment answer with these headers, bounded as the type says: names lower-cased,
    /// values cut at [`MAX_PRICE_VALUE`] bytes (on a character boundary), at most
    /// [`MAX_PRICE_HEADERS`] kept.
    pub fn new<N: AsRef<str>, V: AsRef<str>>(headers: impl IntoIterator<Item = (N, V)>) -> Payment {
        let headers = headers
            .into_iter()
            .take(MAX_PRICE_HEADERS)
            .map(|(n, v)| {
                let v = v.as_ref();
                let mut end = v.len().min(MAX_PRICE_VALUE);
                while !v.is_char_boundary(end) {
                    end -= 1;
                }
                (n.as_ref().to_ascii_lowercase(), v[..end].to_owned())
            })
            .collect();
        Payment { headers }
    }

    /// The value of `crawler-price`, if sent.
    pub fn price(&self) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == "crawler-price")
            .map(|(_, v)| v.as_str())
    }
}

impl fmt::Display for Payment {
    /// `payment required (crawler-price: USD 0.01)`, or `payment required (no price given)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("payment required (")?;
        if self.headers.is_empty() {
            f.write_str("no price given")?;
        }
        for (i, (n, v)) in self.headers.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{n}: {v}")?;
        }
        f.write_str(")")
    }
}

/// The statuses of a final response: three digits ([RFC 9110 §15]) but 1xx, which are
/// interim, never the answer to a request. 600–999 are outside the standard classes but sent
/// (and accepted by HTTP clients): [`FetchOutcome::of_status`] reads them as unreachable.
/// A record of a response refuses any other status (Python's `OriginState.record` and
/// `Permit.record`, the service's `POST /v1/record`).
///
/// [RFC 9110 §15]: https://www.rfc-editor.org/rfc/rfc9110.html#section-15
pub const FINAL_STATUSES: std::ops::RangeInclusive<u16> = 200..=999;

impl FetchOutcome {
    /// What a robots.txt response means by its status alone ([Google's handling of HTTP
    /// results]); `None` for a 2xx, whose body decides ([`FetchOutcome::Rules`]).
    ///
    /// | status | outcome |
    /// |---|---|
    /// | 402 | [`FetchOutcome::PaymentRequired`], without price headers (a fetcher adds those it saw) |
    /// | 304 | [`Unreachable::Status`]: without validators it confirms nothing (a fetcher that sent them reads its 304 as [`FetchOutcome::NotModified`] first) |
    /// | 429, 5xx | [`Unreachable::Status`] |
    /// | other 3xx (a redirect not followed, "not found" for Google) and 4xx | [`Unavailable::Status`] |
    /// | anything else (a final 1xx, 600–999) | [`Unreachable::Status`]: nothing usable came back |
    ///
    /// [Google's handling of HTTP results]: https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt#handling-http-result-codes
    pub fn of_status(status: u16) -> Option<FetchOutcome> {
        Some(match status {
            200..=299 => return None,
            402 => FetchOutcome::PaymentRequired(Payment::default()),
            304 | 429 | 500..=599 => FetchOutcome::Unreachable(Unreachable::Status(status)),
            300..=499 => FetchOutcome::Unavailable(Unavailable::Status(status)),
            _ => FetchOutcome::Unreachable(Unreachable::Status(status)),
        })
    }

    /// `"fetched"`, `"not-modified"`, `"unavailable"`, `"unreachable"` or
    /// `"payment-required"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            FetchOutcome::Rules { .. } => "fetched",
            FetchOutcome::NotModified { .. } => "not-modified",
            FetchOutcome::Unavailable(_) => "unavailable",
            FetchOutcome::Unreachable(_) => "unreachable",
            FetchOutcome::PaymentRequired(_) => "payment-required",
        }
    }
}

/// One fetch with what the fetcher saw.
#[derive(Debug, Clone)]
pub struct Fetch {
    /// The robots.txt URL requested.
    pub url: String,
    /// The URL of the last response (after redirects).
    pub final_url: String,
    /// Redirects followed.
    pub redirects: u8,
    /// The last HTTP status, if a response arrived.
    pub status: Option<u16>,
    /// `Cache-Control: max-age` of a 2xx or 304 response, if any.
    pub max_age: Option<Duration>,
    /// `Retry-After` of a 429/503 response, if any.
    pub retry_after: Option<Duration>,
    /// `ETag` of a 2xx response, if any: sent back as `If-None-Match`.
    pub etag: Option<String>,
    /// `Last-Modified` of a 2xx response, if any: sent back as `If-Modified-Since`.
    pub last_modified: Option<String>,
    /// The file's size as the server declared it (`Content-Length` of a 2xx body without a
    /// content coding), which may be more than was read.
    pub declared_size: Option<u64>,
    /// The `Content-Type` of the last response, if any.
    pub content_type: Option<String>,
    /// A 2xx body that is an HTML page rather than a robots.txt: its content type is HTML, or
    /// it starts as one ([`looks_like_html`](crate::robots::looks_like_html)). A soft 404 or
    /// a bot wall; it parses to no rules, so everything would be allowed without a word.
    pub html: bool,
    /// What it means.
    pub outcome: FetchOutcome,
}

impl Fetch {
    /// A fetch with no response details: for tests, simulations and copies made elsewhere.
    pub fn new(url: impl Into<String>, status: Option<u16>, outcome: FetchOutcome) -> Fetch {
        let url = url.into();
        Fetch {
            final_url: url.clone(),
            url,
            redirects: 0,
            status,
            max_age: None,
            retry_after: None,
            etag: None,
            last_modified: None,
            declared_size: None,
            content_type: None,
            html: false,
            outcome,
        }
    }

    /// Body bytes read (0 unless 2xx).
    pub fn size(&self) -> usize {
        match &self.outcome {
            FetchOutcome::Rules { body, .. } => body.len(),
            _ => 0,
        }
    }
}

/// What a crawler may do on the origin now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Obey the rules of the last good version ([`OriginState::last_good`]), a parsed
    /// robots.txt.
    Rules,
    /// No restrictions.
    AllowAll,
    /// Fetch nothing but robots.txt.
    DisallowAll,
}

impl Verdict {
    /// `"rules"`, `"allow-all"` or `"disallow-all"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Rules => "rules",
            Verdict::AllowAll => "allow-all",
            Verdict::DisallowAll => "disallow-all",
        }
    }
}

/// Why the [`Verdict`] is what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerdictReason {
    /// robots.txt was fetched and parsed.
    Fetched,
    /// There is no robots.txt.
    NoRobotsTxt(Unavailable),
    /// No fetch has been recorded yet.
    NotFetched,
    /// Unreachable for less than 12 hours: stop crawling.
    Unreachable {
        /// The first failure of the run.
        since: SystemTime,
        /// The latest failure.
        cause: Unreachable,
        /// When the stop ends ([`PolicyOptions::stop_period`] after `since`): the last good
        /// version applies from then, if robots.txt is still unreachable.
        until: SystemTime,
        /// When robots.txt is fetched again ([`OriginState::next_due`]; `None`: at once).
        /// Usually well before `until`: a fetch that succeeds ends the stop.
        next_attempt: Option<SystemTime>,
    },
    /// Unreachable for 12 hours to 30 days: the last good version applies.
    LastGoodVersion {
        /// The first failure of the run.
        since: SystemTime,
        /// When the version in use was fetched.
        fetched_at: SystemTime,
        /// When it stops being used ([`PolicyOptions::last_good_period`] after `since`).
        until: SystemTime,
    },
    /// Unreachable for 12 hours to 30 days with no good version: no restrictions
    /// (or, with [`PolicyOptions::strict`], stop).
    NoGoodVersion {
        /// The first failure of the run.
        since: SystemTime,
    },
    /// Unreachable for over 30 days while the site's pages are served (a recent report): no
    /// restrictions.
    LongUnreachableSiteUp {
        /// The first failure of the run.
        since: SystemTime,
    },
    /// Unreachable for over 30 days and the site is not known to be generally available (no
    /// report, an old one, or a "down" report): stop.
    LongUnreachableSiteDown {
        /// The first failure of the run.
        since: SystemTime,
    },
    /// The latest fetch was a 402: crawling is offered for a price; stop.
    PaymentRequired(Payment),
}

impl VerdictReason {
    /// A stable kebab-case name: `fetched`, `no-robots-txt`, `not-fetched`, `unreachable`,
    /// `last-good-version`, `no-good-version`, `long-unreachable-site-up`,
    /// `long-unreachable-site-down`, `payment-required`.
    pub fn as_str(&self) -> &'static str {
        match self {
            VerdictReason::Fetched => "fetched",
            VerdictReason::NoRobotsTxt(_) => "no-robots-txt",
            VerdictReason::NotFetched => "not-fetched",
            VerdictReason::Unreachable { .. } => "unreachable",
            VerdictReason::LastGoodVersion { .. } => "last-good-version",
            VerdictReason::NoGoodVersion { .. } => "no-good-version",
            VerdictReason::LongUnreachableSiteUp { .. } => "long-unreachable-site-up",
            VerdictReason::LongUnreachableSiteDown { .. } => "long-unreachable-site-down",
            VerdictReason::PaymentRequired(_) => "payment-required",
        }
    }
}

/// A [`Verdict`] with its reason.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Judgement {
    /// What the crawler may do.
    pub verdict: Verdict,
    /// Why.
    pub reason: VerdictReason,
}

/// Options of the ladder.
///
/// Start from `PolicyOptions::default()` and set the fields you need (`let mut options = PolicyOptions::default();`
/// then `options.strict = …`): the type is `#[non_exhaustive]`, so a new option is not a
/// breaking change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PolicyOptions {
    /// RFC 9309's stricter reading: while unreachable with no good version, disallow all
    /// instead of allowing all.
    pub strict: bool,
    /// How long to stop after the first failure (default 12 hours).
    pub stop_period: Duration,
    /// How long the last good version is used (default 30 days from the first failure).
    pub last_good_period: Duration,
    /// How long a "site is up" report counts (default 30 days): after 30 days of failures, a
    /// site is crawled as if it had no robots.txt only while its last report is this recent.
    pub availability_window: Duration,
}

impl Default for PolicyOptions {
    fn default() -> Self {
        PolicyOptions {
            strict: false,
            stop_period: STOP_PERIOD,
            last_good_period: LAST_GOOD_PERIOD,
            availability_window: AVAILABILITY_WINDOW,
        }
    }
}
