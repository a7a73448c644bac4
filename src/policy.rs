//! The failure rules: what a crawler may do on an origin, given what fetching its robots.txt
//! produced over time ([RFC 9309 §2.3.1], Google's documented behaviour; SPEC §4).
//!
//! Pure: no I/O and no clock. [`OriginState::record`] takes each fetch with the time it
//! happened, [`OriginState::verdict_at`] answers for an explicit `now`, so that the 12-hour and
//! 30-day rules are tested without waiting.
//!
//! | fetch outcome | verdict |
//! |---|---|
//! | 2xx | the parsed rules |
//! | 4xx except 429, more than 5 redirects | no robots.txt: allow all |
//! | 429, 5xx, network failure (first 12 h of an unbroken run of failures) | disallow all |
//! | … then up to 30 days | the last good version (none: allow all, or disallow all when strict) |
//! | … after 30 days | allow all if the site is generally available, else disallow all |
//!
//! [RFC 9309 §2.3.1]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.3.1

use std::collections::VecDeque;
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

/// Why there is no robots.txt (everything is allowed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// Anything else the HTTP client reported.
    Other(String),
}

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreachable::Status(s) => write!(f, "HTTP {s}"),
            Unreachable::Dns(m) => write!(f, "DNS failure: {m}"),
            Unreachable::Connect(m) => write!(f, "connection failed: {m}"),
            Unreachable::Tls(m) => write!(f, "TLS failure: {m}"),
            Unreachable::Timeout => f.write_str("timed out"),
            Unreachable::Body(m) => write!(f, "response broken: {m}"),
            Unreachable::Other(m) => f.write_str(m),
        }
    }
}

/// What one fetch of robots.txt produced.
#[derive(Debug, Clone)]
pub enum FetchOutcome {
    /// A 2xx response: its body (up to the size limit) parsed.
    Rules {
        /// The body as read: at most one byte past the parsing limit, so that the parser
        /// knows when the limit cut it.
        body: Arc<[u8]>,
        /// The parsed rules and their diagnostics.
        parsed: Arc<Parsed>,
    },
    /// No robots.txt: everything is allowed.
    Unavailable(Unavailable),
    /// Not reachable: the ladder applies.
    Unreachable(Unreachable),
}

impl FetchOutcome {
    /// `"fetched"`, `"not-found"` or `"unreachable"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            FetchOutcome::Rules { .. } => "fetched",
            FetchOutcome::Unavailable(_) => "not-found",
            FetchOutcome::Unreachable(_) => "unreachable",
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
    /// `Cache-Control: max-age` of a 2xx response, if any.
    pub max_age: Option<Duration>,
    /// `Retry-After` of a 429/503 response, if any.
    pub retry_after: Option<Duration>,
    /// What it means.
    pub outcome: FetchOutcome,
}

impl Fetch {
    /// Body bytes read (0 unless 2xx).
    pub fn size(&self) -> usize {
        match &self.outcome {
            FetchOutcome::Rules { body, .. } => body.len(),
            _ => 0,
        }
    }
}

/// The last successful fetch: rules, or "no robots.txt".
#[derive(Debug, Clone)]
pub enum GoodVersion {
    /// A parsed robots.txt.
    Rules(Arc<Parsed>),
    /// There was no robots.txt (4xx).
    NoRobotsTxt(Unavailable),
}

/// What a crawler may do on the origin now.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Obey these rules.
    Rules(Arc<Parsed>),
    /// No restrictions.
    AllowAll,
    /// Fetch nothing but robots.txt.
    DisallowAll,
}

impl Verdict {
    /// `"rules"`, `"allow-all"` or `"disallow-all"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Rules(_) => "rules",
            Verdict::AllowAll => "allow-all",
            Verdict::DisallowAll => "disallow-all",
        }
    }
}

/// Why the [`Verdict`] is what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    },
    /// Unreachable for 12 hours to 30 days: the last good version applies.
    LastGoodVersion {
        /// The first failure of the run.
        since: SystemTime,
        /// When the version in use was fetched.
        fetched_at: SystemTime,
    },
    /// Unreachable for 12 hours to 30 days with no good version: no restrictions
    /// (or, with [`PolicyOptions::strict`], stop).
    NoGoodVersion {
        /// The first failure of the run.
        since: SystemTime,
    },
    /// Unreachable for over 30 days while the site's pages are served: no restrictions.
    LongUnreachableSiteUp {
        /// The first failure of the run.
        since: SystemTime,
    },
    /// Unreachable for over 30 days and the site is not generally available: stop.
    LongUnreachableSiteDown {
        /// The first failure of the run.
        since: SystemTime,
    },
}

impl VerdictReason {
    /// A stable kebab-case name: `fetched`, `no-robots-txt`, `not-fetched`, `unreachable`,
    /// `last-good-version`, `no-good-version`, `long-unreachable-site-up`,
    /// `long-unreachable-site-down`.
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
        }
    }
}

impl fmt::Display for VerdictReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerdictReason::Fetched => f.write_str("robots.txt fetched"),
            VerdictReason::NoRobotsTxt(why) => {
                write!(f, "no robots.txt ({why}): everything allowed")
            }
            VerdictReason::NotFetched => f.write_str("robots.txt not fetched yet"),
            VerdictReason::Unreachable { cause, .. } => {
                write!(
                    f,
                    "robots.txt unreachable ({cause}): crawling stopped for 12 hours"
                )
            }
            VerdictReason::LastGoodVersion { .. } => {
                f.write_str("robots.txt unreachable for over 12 hours: using the last good version")
            }
            VerdictReason::NoGoodVersion { .. } => {
                f.write_str("robots.txt unreachable and never fetched: no known restrictions")
            }
            VerdictReason::LongUnreachableSiteUp { .. } => f.write_str(
                "robots.txt unreachable for over 30 days while the site is up: everything allowed",
            ),
            VerdictReason::LongUnreachableSiteDown { .. } => f.write_str(
                "robots.txt unreachable for over 30 days and the site is down: crawling stopped",
            ),
        }
    }
}

/// A [`Verdict`] with its reason.
#[derive(Debug, Clone)]
pub struct Judgement {
    /// What the crawler may do.
    pub verdict: Verdict,
    /// Why.
    pub reason: VerdictReason,
}

/// Options of the ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicyOptions {
    /// RFC 9309's stricter reading: while unreachable with no good version, disallow all
    /// instead of allowing all.
    pub strict: bool,
    /// How long to stop after the first failure (default 12 hours).
    pub stop_period: Duration,
    /// How long the last good version is used (default 30 days from the first failure).
    pub last_good_period: Duration,
}

impl Default for PolicyOptions {
    fn default() -> Self {
        PolicyOptions {
            strict: false,
            stop_period: STOP_PERIOD,
            last_good_period: LAST_GOOD_PERIOD,
        }
    }
}

/// One fetch kept in an origin's history.
#[derive(Debug, Clone)]
pub struct HistoryEntry {
    /// When it was fetched.
    pub at: SystemTime,
    /// The fetch.
    pub fetch: Arc<Fetch>,
}

/// Everything known about one origin's robots.txt.
#[derive(Debug, Clone, Default)]
pub struct OriginState {
    good: Option<(SystemTime, GoodVersion)>,
    failing_since: Option<SystemTime>,
    last: Option<HistoryEntry>,
    history: VecDeque<HistoryEntry>,
    site_available: Option<bool>,
}

impl OriginState {
    /// A state with nothing fetched yet.
    pub fn new() -> OriginState {
        OriginState::default()
    }

    /// Records a fetch that completed at `at`. Returns whether the content changed from the
    /// previous fetch (and so entered the history).
    pub fn record(&mut self, at: SystemTime, fetch: Fetch) -> bool {
        match &fetch.outcome {
            FetchOutcome::Rules { parsed, .. } => {
                self.failing_since = None;
                self.good = Some((at, GoodVersion::Rules(parsed.clone())));
            }
            FetchOutcome::Unavailable(why) => {
                self.failing_since = None;
                self.good = Some((at, GoodVersion::NoRobotsTxt(*why)));
            }
            FetchOutcome::Unreachable(_) => {
                self.failing_since.get_or_insert(at);
            }
        }
        let entry = HistoryEntry {
            at,
            fetch: Arc::new(fetch),
        };
        let changed = self
            .history
            .back()
            .is_none_or(|prev| !same_content(&prev.fetch, &entry.fetch));
        if changed {
            self.history.push_back(entry.clone());
        }
        self.last = Some(entry);
        // Keep 30 days, and always the newest version.
        while self.history.len() > 1
            && self.history.front().is_some_and(|e| {
                at.duration_since(e.at)
                    .is_ok_and(|age| age > HISTORY_PERIOD)
            })
        {
            self.history.pop_front();
        }
        changed
    }

    /// Records whether the site's pages are being served (the crawler knows; crawlgate does
    /// not guess). Used only after 30 days of failures.
    pub fn record_site_availability(&mut self, available: bool) {
        self.site_available = Some(available);
    }

    /// The verdict at `now`.
    pub fn verdict_at(&self, now: SystemTime, options: &PolicyOptions) -> Judgement {
        let Some(since) = self.failing_since else {
            return match &self.good {
                Some((_, GoodVersion::Rules(parsed))) => Judgement {
                    verdict: Verdict::Rules(parsed.clone()),
                    reason: VerdictReason::Fetched,
                },
                Some((_, GoodVersion::NoRobotsTxt(why))) => Judgement {
                    verdict: Verdict::AllowAll,
                    reason: VerdictReason::NoRobotsTxt(*why),
                },
                // Nothing fetched: the caller fetches before asking; be safe meanwhile.
                None => Judgement {
                    verdict: Verdict::DisallowAll,
                    reason: VerdictReason::NotFetched,
                },
            };
        };
        // A clock that went backwards counts as no time passed.
        let failing_for = now.duration_since(since).unwrap_or(Duration::ZERO);
        if failing_for < options.stop_period {
            let cause = match self.last.as_ref().map(|e| &e.fetch.outcome) {
                Some(FetchOutcome::Unreachable(c)) => c.clone(),
                _ => Unreachable::Other("unknown".into()),
            };
            return Judgement {
                verdict: Verdict::DisallowAll,
                reason: VerdictReason::Unreachable { since, cause },
            };
        }
        if failing_for < options.last_good_period {
            return match &self.good {
                Some((fetched_at, good)) => Judgement {
                    verdict: match good {
                        GoodVersion::Rules(parsed) => Verdict::Rules(parsed.clone()),
                        GoodVersion::NoRobotsTxt(_) => Verdict::AllowAll,
                    },
                    reason: VerdictReason::LastGoodVersion {
                        since,
                        fetched_at: *fetched_at,
                    },
                },
                None => Judgement {
                    verdict: if options.strict {
                        Verdict::DisallowAll
                    } else {
                        Verdict::AllowAll
                    },
                    reason: VerdictReason::NoGoodVersion { since },
                },
            };
        }
        if self.site_available == Some(true) {
            Judgement {
                verdict: Verdict::AllowAll,
                reason: VerdictReason::LongUnreachableSiteUp { since },
            }
        } else {
            Judgement {
                verdict: Verdict::DisallowAll,
                reason: VerdictReason::LongUnreachableSiteDown { since },
            }
        }
    }

    /// The start of the current unbroken run of failures, if robots.txt is failing.
    pub fn failing_since(&self) -> Option<SystemTime> {
        self.failing_since
    }

    /// The latest fetch and when it completed.
    pub fn last_fetch(&self) -> Option<&HistoryEntry> {
        self.last.as_ref()
    }

    /// The last successful fetch and when it happened.
    pub fn last_good(&self) -> Option<(SystemTime, &GoodVersion)> {
        self.good.as_ref().map(|(at, g)| (*at, g))
    }

    /// Fetches of the last 30 days that differ from the fetch before them, oldest first.
    pub fn history(&self) -> impl Iterator<Item = &HistoryEntry> {
        self.history.iter()
    }
}

/// Same content: same status and, for 2xx, the same body.
fn same_content(a: &Fetch, b: &Fetch) -> bool {
    a.status == b.status
        && match (&a.outcome, &b.outcome) {
            (FetchOutcome::Rules { body: x, .. }, FetchOutcome::Rules { body: y, .. }) => x == y,
            (FetchOutcome::Unavailable(x), FetchOutcome::Unavailable(y)) => x == y,
            (FetchOutcome::Unreachable(x), FetchOutcome::Unreachable(y)) => x == y,
            _ => false,
        }
}
