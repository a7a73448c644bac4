//! An origin's whole crawl state, as stored: the versions of the last 30 days (runs of identical
//! fetch results coalesced), the last good version, the failure run, site-availability reports,
//! the next due time and recrawl requests. Changed only by [`Change`]s, each applied by one pure
//! function, so that a store can apply them atomically and a fleet sees one history.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use sha2::{Digest as _, Sha256};

use super::{
    Fetch, FetchOutcome, Judgement, Payment, PolicyOptions, Unavailable, Unreachable, Verdict,
    VerdictReason, DORMANT_AFTER, HISTORY_PERIOD,
};
use crate::diagnostic::Severity;

/// The most versions kept per origin. Runs of identical results are one version each, so this
/// is reached only by a site whose answers keep changing (flapping 502/503, say); failures are
/// dropped first, so the files of the last 30 days stay viewable.
pub const MAX_VERSIONS: usize = 100;

/// The SHA-256 of a robots.txt body as read: the name a body is stored under.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest([u8; 32]);

impl Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest(Sha256::digest(bytes).into())
    }

    /// The 32 bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Parses 64 hex digits.
    pub fn from_hex(hex: &str) -> Option<Digest> {
        let bytes = hex.as_bytes();
        if bytes.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, pair) in bytes.chunks_exact(2).enumerate() {
            let hi = (pair[0] as char).to_digit(16)?;
            let lo = (pair[1] as char).to_digit(16)?;
            out[i] = u8::try_from(hi * 16 + lo).ok()?;
        }
        Some(Digest(out))
    }

    /// The first 12 hex digits, as shown in listings.
    pub fn short(&self) -> String {
        self.to_string()[..12].to_owned()
    }
}

impl fmt::Display for Digest {
    /// 64 lower-case hex digits, as `sha256sum` prints them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.short())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Digest, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Digest::from_hex(&s).ok_or_else(|| serde::de::Error::custom("a digest is 64 hex digits"))
    }
}

/// A fetched robots.txt file, as remembered: its digest (the body is stored under it), size,
/// problem counts and validators.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RobotsFile {
    /// The SHA-256 of the body as read.
    pub digest: Digest,
    /// Bytes read (at most one past the parsing limit).
    pub size: u64,
    /// The size the server declared (`Content-Length` of an unencoded body), when it did.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub declared_size: Option<u64>,
    /// The file went on past the parsing limit: what follows it was not read
    /// (`content-after-limit`).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_false"))]
    pub cut: bool,
    /// Problems of severity error.
    pub errors: u32,
    /// Problems of severity warning.
    pub warnings: u32,
    /// The response's `ETag`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub etag: Option<String>,
    /// The response's `Last-Modified`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub last_modified: Option<String>,
    /// The body was an HTML page rather than a robots.txt (its content type, or how it
    /// starts): a soft 404 or a bot wall, parsed all the same (see `Fetch::html`).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_false"))]
    pub html: bool,
}

/// What a fetch gave, as remembered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Content {
    /// A robots.txt file (a 2xx, or a 304 that re-confirmed one).
    Rules(RobotsFile),
    /// No robots.txt (4xx, too many redirects).
    NoRobotsTxt(Unavailable),
    /// Not reachable.
    Unreachable(Unreachable),
    /// A 402: crawling is offered for a price.
    PaymentRequired(Payment),
}

impl Content {
    /// `"fetched"`, `"unavailable"`, `"unreachable"` or `"payment-required"`, as
    /// [`FetchOutcome::as_str`].
    pub fn as_str(&self) -> &'static str {
        match self {
            Content::Rules(_) => "fetched",
            Content::NoRobotsTxt(_) => "unavailable",
            Content::Unreachable(_) => "unreachable",
            Content::PaymentRequired(_) => "payment-required",
        }
    }

    /// The digest of the file, if this is one.
    pub fn digest(&self) -> Option<Digest> {
        match self {
            Content::Rules(f) => Some(f.digest),
            _ => None,
        }
    }

    /// Whether two results are the same version: the same file (whatever the status that
    /// confirmed it: 200, 304…), or the same failure.
    fn same_as(&self, other: &Content) -> bool {
        match (self, other) {
            (Content::Rules(a), Content::Rules(b)) => a.digest == b.digest,
            (a, b) => a == b,
        }
    }
}

/// One entry of an origin's history: a run of fetches that gave the same result.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Version {
    /// The first fetch of the run.
    #[cfg_attr(feature = "serde", serde(with = "super::unix_ms::serde"))]
    pub first_at: SystemTime,
    /// The latest fetch of the run.
    #[cfg_attr(feature = "serde", serde(with = "super::unix_ms::serde"))]
    pub last_at: SystemTime,
    /// Fetches in the run.
    pub count: u32,
    /// The HTTP status of the latest fetch of the run, if a response arrived: a 304 for a file
    /// that a later fetch re-confirmed.
    pub status: Option<u16>,
    /// The HTTP status of the run's first fetch, the one that produced its result (the 200
    /// that brought a file the later 304s re-confirm). `None` when no response arrived, and in
    /// states stored before it was recorded (read [`Version::status`] then).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub first_status: Option<u16>,
    /// Where the latest fetch was served from (after redirects).
    pub final_url: String,
    /// Redirects the latest fetch followed.
    pub redirects: u8,
    /// What the fetches gave.
    pub content: Content,
}

/// The last successful fetch: a file, or "no robots.txt".
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum GoodVersion {
    /// A robots.txt file.
    Rules(RobotsFile),
    /// There was no robots.txt (4xx).
    NoRobotsTxt(Unavailable),
}

#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Good {
    /// When it was last fetched or re-confirmed.
    #[cfg_attr(feature = "serde", serde(with = "super::unix_ms::serde"))]
    at: SystemTime,
    version: GoodVersion,
}

/// A report of whether the site's pages are being served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SiteReport {
    /// When the crawler saw it.
    #[cfg_attr(feature = "serde", serde(with = "super::unix_ms::serde"))]
    pub at: SystemTime,
    /// Whether pages were served.
    pub up: bool,
}

/// The validators of the last good file, sent as `If-None-Match` / `If-Modified-Since`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validators {
    /// The file they belong to: a 304 re-confirms it.
    pub digest: Digest,
    /// Its `ETag`.
    pub etag: Option<String>,
    /// Its `Last-Modified`.
    pub last_modified: Option<String>,
}

/// A completed fetch, ready to be applied to a state.
#[derive(Debug, Clone)]
pub struct FetchRecord {
    /// When the fetch started. Informational: order is kept by `epoch`.
    pub started_at: SystemTime,
    /// When it completed.
    pub at: SystemTime,
    /// The state's recrawl epoch when the fetch started: a fetch that started before a
    /// recrawl request is dropped when it lands after it.
    pub epoch: u64,
    /// The HTTP status, if a response arrived.
    pub status: Option<u16>,
    /// Where it was served from.
    pub final_url: String,
    /// Redirects followed.
    pub redirects: u8,
    /// What it gave.
    pub content: Content,
    /// The body of a new file. `None` for a 304, whose file must already be known.
    pub body: Option<Arc<[u8]>>,
    /// When the next fetch is due.
    pub next_due: SystemTime,
}

impl FetchRecord {
    /// The record of `fetch`. A [`FetchOutcome::NotModified`] needs the file it re-confirms,
    /// taken from `state`; if `state` does not know it, the fetch is recorded as unreachable
    /// (a 304 that confirms nothing tells nothing).
    pub fn new(
        fetch: &Fetch,
        state: &OriginState,
        started_at: SystemTime,
        at: SystemTime,
        next_due: SystemTime,
    ) -> FetchRecord {
        let (content, body) = match &fetch.outcome {
            FetchOutcome::Rules { body, parsed } => {
                let errors = parsed
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == Severity::Error)
                    .count();
                let file = RobotsFile {
                    digest: Digest::of(body),
                    size: body.len() as u64,
                    declared_size: fetch.declared_size,
                    cut: parsed
                        .diagnostics
                        .iter()
                        .any(|d| d.code == crate::Code::ContentAfterLimit),
                    errors: u32::try_from(errors).unwrap_or(u32::MAX),
                    warnings: u32::try_from(parsed.diagnostics.len() - errors).unwrap_or(u32::MAX),
                    etag: fetch.etag.clone(),
                    last_modified: fetch.last_modified.clone(),
                    html: fetch.html,
                };
                (Content::Rules(file), Some(body.clone()))
            }
            FetchOutcome::NotModified { digest } => match state.known_file(digest) {
                Some(file) => (Content::Rules(file.clone()), None),
                None => (
                    Content::Unreachable(Unreachable::Status(fetch.status.unwrap_or(304))),
                    None,
                ),
            },
            FetchOutcome::Unavailable(why) => (Content::NoRobotsTxt(*why), None),
            FetchOutcome::Unreachable(why) => (Content::Unreachable(why.clone()), None),
            FetchOutcome::PaymentRequired(p) => (Content::PaymentRequired(p.clone()), None),
        };
        FetchRecord {
            started_at,
            at,
            epoch: state.epoch,
            status: fetch.status,
            final_url: fetch.final_url.clone(),
            redirects: fetch.redirects,
            content,
            body,
            next_due,
        }
    }
}

/// One change to an origin's state.
#[derive(Debug, Clone)]
pub enum Change {
    /// A fetch completed.
    Fetched(FetchRecord),
    /// The crawler reports whether the site's pages are being served.
    SiteAvailability(SiteReport),
    /// An emergency recrawl was requested: the next fetch is due now, and fetches that started
    /// before this are dropped when they land.
    RecrawlRequested {
        /// When.
        at: SystemTime,
    },
    /// Drop the history entries older than 30 days at `at` (the newest stays).
    Prune {
        /// Now.
        at: SystemTime,
    },
    /// A copy of the state known elsewhere (a process's memory), written back to a store that
    /// lost part of it (a Redis restarted without persistence, a `FLUSHALL`, an eviction). It
    /// replaces the stored state only when the stored one knows less
    /// ([`OriginState::knows_less_than`]); otherwise it is [`Applied::Stale`]. The newer recrawl
    /// epoch and site report of the two are kept.
    Restore(Box<OriginState>),
}

/// What applying a [`Change`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Recorded; `new_version` when the fetch started a new entry of the history.
    Recorded {
        /// A new history entry (not a repeat of the last one).
        new_version: bool,
    },
    /// A fetch that started before the latest recrawl request, or a 304 for a file the state
    /// no longer knows: not recorded.
    Stale,
}

/// Everything known about one origin's robots.txt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OriginState {
    versions: VecDeque<Version>,
    good: Option<Good>,
    #[cfg_attr(feature = "serde", serde(with = "super::unix_ms::serde::option"))]
    failing_since: Option<SystemTime>,
    #[cfg_attr(feature = "serde", serde(with = "super::unix_ms::serde::option"))]
    absent_since: Option<SystemTime>,
    #[cfg_attr(feature = "serde", serde(with = "super::unix_ms::serde::option"))]
    next_due: Option<SystemTime>,
    epoch: u64,
    #[cfg_attr(feature = "serde", serde(with = "super::unix_ms::serde::option"))]
    recrawl_requested: Option<SystemTime>,
    site: Option<SiteReport>,
    /// Fetches recorded since the state was created: it only grows, so a copy with fewer knows
    /// less, whatever the clocks of the processes that recorded them said.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_zero"))]
    fetches: u64,
}

impl OriginState {
    /// A state with nothing fetched yet.
    pub fn new() -> OriginState {
        OriginState::default()
    }

    /// Applies one change. The only way a state changes.
    pub fn apply(&mut self, change: &Change) -> Applied {
        match change {
            Change::Fetched(record) => self.apply_fetch(record),
            Change::SiteAvailability(report) => {
                // Reports from several crawlers may land out of order: keep the newest.
                if self.site.is_none_or(|s| s.at <= report.at) {
                    self.site = Some(*report);
                }
                Applied::Recorded { new_version: false }
            }
            Change::RecrawlRequested { at } => {
                self.epoch += 1;
                self.recrawl_requested = Some(*at);
                self.next_due = Some(*at);
                Applied::Recorded { new_version: false }
            }
            Change::Prune { at } => {
                self.prune(*at);
                Applied::Recorded { new_version: false }
            }
            Change::Restore(known) => {
                if !self.knows_less_than(known) {
                    return Applied::Stale;
                }
                let mut restored = (**known).clone();
                restored.fetches = restored.fetches.max(self.fetches);
                restored.epoch = restored.epoch.max(self.epoch);
                if restored.epoch == self.epoch && self.epoch > known.epoch {
                    restored.recrawl_requested = self.recrawl_requested;
                    restored.next_due = self.next_due;
                }
                if self
                    .site
                    .is_some_and(|s| restored.site.is_none_or(|r| r.at < s.at))
                {
                    restored.site = self.site;
                }
                *self = restored;
                Applied::Recorded { new_version: false }
            }
        }
    }

    /// Whether this state (read from a store) knows less than `other` (a copy kept elsewhere)
    /// about the origin's robots.txt: it lost the last good version `other` has, or has
    /// recorded fewer fetches (an older revision: a store restarted from an old snapshot, a
    /// lagging replica). A store that answers like this lost data; its state must not replace
    /// the copy. Counting fetches, not comparing their times, keeps this true when the clocks
    /// of a fleet's machines disagree.
    pub fn knows_less_than(&self, other: &OriginState) -> bool {
        let good_lost = self.good.is_none() && other.good.is_some();
        let fewer = if self.fetches == 0 && other.fetches == 0 {
            // States written before fetches were counted: by their latest fetch's time.
            match (self.versions.back(), other.versions.back()) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some(mine), Some(theirs)) => mine.last_at < theirs.last_at,
            }
        } else {
            self.fetches < other.fetches
        };
        good_lost || fewer
    }

    fn apply_fetch(&mut self, r: &FetchRecord) -> Applied {
        if r.epoch < self.epoch {
            return Applied::Stale;
        }
        if let (Content::Rules(file), None) = (&r.content, &r.body) {
            if self.known_file(&file.digest).is_none() {
                return Applied::Stale;
            }
        }
        self.fetches = self.fetches.saturating_add(1);
        match &r.content {
            Content::Rules(file) => {
                self.failing_since = None;
                self.absent_since = None;
                self.good = Some(Good {
                    at: r.at,
                    version: GoodVersion::Rules(file.clone()),
                });
            }
            Content::NoRobotsTxt(why) => {
                self.failing_since = None;
                self.absent_since.get_or_insert(r.at);
                self.good = Some(Good {
                    at: r.at,
                    version: GoodVersion::NoRobotsTxt(*why),
                });
            }
            Content::Unreachable(_) => {
                self.absent_since = None;
                self.failing_since.get_or_insert(r.at);
            }
            // The site answered, and refused: not a failure run, and not a good version
            // either; the verdict reads it from the newest version.
            Content::PaymentRequired(_) => {
                self.failing_since = None;
                self.absent_since = None;
            }
        }
        self.next_due = Some(r.next_due);
        let new_version = match self.versions.back_mut() {
            Some(last) if last.content.same_as(&r.content) => {
                last.last_at = r.at;
                last.count = last.count.saturating_add(1);
                last.status = r.status;
                last.final_url.clone_from(&r.final_url);
                last.redirects = r.redirects;
                // Validators may change while the body does not.
                last.content = r.content.clone();
                false
            }
            _ => {
                self.versions.push_back(Version {
                    first_at: r.at,
                    last_at: r.at,
                    count: 1,
                    status: r.status,
                    first_status: r.status,
                    final_url: r.final_url.clone(),
                    redirects: r.redirects,
                    content: r.content.clone(),
                });
                true
            }
        };
        while self.versions.len() > MAX_VERSIONS {
            // The oldest failure goes first; the newest entry always stays.
            let last = self.versions.len() - 1;
            let i = self
                .versions
                .iter()
                .take(last)
                .position(|v| matches!(v.content, Content::Unreachable(_)))
                .unwrap_or(0);
            self.versions.remove(i);
        }
        self.prune(r.at);
        Applied::Recorded { new_version }
    }

    /// Drops versions whose last fetch is more than 30 days before `now`, except the newest.
    /// Returns how many were dropped.
    pub fn prune(&mut self, now: SystemTime) -> usize {
        let before = self.versions.len();
        let mut i = 0;
        self.versions.retain(|v| {
            let keep = within_history(i, before, v, now);
            i += 1;
            keep
        });
        before - self.versions.len()
    }

    /// The versions a listing shows at `now`: those [`prune`](Self::prune) would keep (the
    /// last 30 days, and the newest whatever its age), oldest first.
    pub fn history_at(&self, now: SystemTime) -> Vec<&Version> {
        let n = self.versions.len();
        self.versions
            .iter()
            .enumerate()
            .filter(|(i, v)| within_history(*i, n, v, now))
            .map(|(_, v)| v)
            .collect()
    }

    /// Records `fetch` as completed at `at`, started at `at` and due again at once: for tests
    /// and simulations. Returns whether it started a new history entry.
    pub fn record(&mut self, at: SystemTime, fetch: &Fetch) -> bool {
        let record = FetchRecord::new(fetch, self, at, at, at);
        matches!(
            self.apply(&Change::Fetched(record)),
            Applied::Recorded { new_version: true }
        )
    }

    /// Records whether the site's pages were being served at `at`. Used only after 30 days of
    /// failures, and only while the report is recent ([`PolicyOptions::availability_window`]).
    pub fn record_site_availability(&mut self, at: SystemTime, up: bool) {
        self.apply(&Change::SiteAvailability(SiteReport { at, up }));
    }

    /// The verdict at `now`.
    pub fn verdict_at(&self, now: SystemTime, options: &PolicyOptions) -> Judgement {
        let good_verdict = |good: &Good| match good.version {
            GoodVersion::Rules(_) => Verdict::Rules,
            GoodVersion::NoRobotsTxt(_) => Verdict::AllowAll,
        };
        let Some(since) = self.failing_since else {
            if let Some(Content::PaymentRequired(p)) = self.versions.back().map(|v| &v.content) {
                return Judgement {
                    verdict: Verdict::DisallowAll,
                    reason: VerdictReason::PaymentRequired(p.clone()),
                };
            }
            return match &self.good {
                Some(good) => Judgement {
                    verdict: good_verdict(good),
                    reason: match &good.version {
                        GoodVersion::Rules(_) => VerdictReason::Fetched,
                        GoodVersion::NoRobotsTxt(why) => VerdictReason::NoRobotsTxt(*why),
                    },
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
            let cause = match self.versions.back().map(|v| &v.content) {
                Some(Content::Unreachable(c)) => c.clone(),
                _ => Unreachable::Other("unknown".into()),
            };
            return Judgement {
                verdict: Verdict::DisallowAll,
                reason: VerdictReason::Unreachable {
                    since,
                    cause,
                    until: since + options.stop_period,
                    next_attempt: self.next_due,
                },
            };
        }
        if failing_for < options.last_good_period {
            return match &self.good {
                Some(good) => Judgement {
                    verdict: good_verdict(good),
                    reason: VerdictReason::LastGoodVersion {
                        since,
                        fetched_at: good.at,
                        until: since + options.last_good_period,
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
        let site_up = self.site.is_some_and(|r| {
            r.up && now
                .duration_since(r.at)
                .map_or(true, |age| age <= options.availability_window)
        });
        if site_up {
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

    /// The newest history entry: the result of the latest fetch.
    pub fn last_fetch(&self) -> Option<&Version> {
        self.versions.back()
    }

    /// The last successful fetch and when it was last fetched or re-confirmed.
    pub fn last_good(&self) -> Option<(SystemTime, &GoodVersion)> {
        self.good.as_ref().map(|g| (g.at, &g.version))
    }

    /// The file of the last good version, if it is one.
    pub fn good_file(&self) -> Option<&RobotsFile> {
        match self.good.as_ref().map(|g| &g.version) {
            Some(GoodVersion::Rules(file)) => Some(file),
            _ => None,
        }
    }

    /// Versions of the last 30 days, each differing from the one before, oldest first (at most
    /// [`MAX_VERSIONS`]).
    pub fn history(&self) -> impl DoubleEndedIterator<Item = &Version> + ExactSizeIterator {
        self.versions.iter()
    }

    /// The validators to send with the next fetch: those of the last good file.
    pub fn validators(&self) -> Option<Validators> {
        let file = self.good_file()?;
        if file.etag.is_none() && file.last_modified.is_none() {
            return None;
        }
        Some(Validators {
            digest: file.digest,
            etag: file.etag.clone(),
            last_modified: file.last_modified.clone(),
        })
    }

    /// When the next fetch is due (`None`: nothing recorded, due now).
    pub fn next_due(&self) -> Option<SystemTime> {
        self.next_due
    }

    /// Whether a fetch is due at `now`.
    pub fn is_due(&self, now: SystemTime) -> bool {
        self.next_due.is_none_or(|due| now >= due)
    }

    /// The recrawl epoch: how many recrawls were requested.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// When the latest recrawl was requested.
    pub fn recrawl_requested(&self) -> Option<SystemTime> {
        self.recrawl_requested
    }

    /// The latest site-availability report.
    pub fn site_report(&self) -> Option<SiteReport> {
        self.site
    }

    /// Whether the origin has answered "not found" for 30 days: it drops out of listings but is
    /// still checked.
    pub fn is_dormant(&self, now: SystemTime) -> bool {
        self.absent_since
            .is_some_and(|since| now.duration_since(since).is_ok_and(|d| d >= DORMANT_AFTER))
    }

    /// Every file digest the state refers to: the bodies a store must keep.
    pub fn digests(&self) -> Vec<Digest> {
        let mut all: Vec<Digest> = self
            .versions
            .iter()
            .filter_map(|v| v.content.digest())
            .chain(self.good_file().map(|f| f.digest))
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// The file with this digest, if the state refers to it.
    pub fn known_file(&self, digest: &Digest) -> Option<&RobotsFile> {
        self.good_file()
            .filter(|f| f.digest == *digest)
            .or_else(|| {
                self.versions.iter().rev().find_map(|v| match &v.content {
                    Content::Rules(f) if f.digest == *digest => Some(f),
                    _ => None,
                })
            })
    }
}

/// Whether version `i` of `n` is still within the history at `now`: fetched at most 30 days
/// before (or after: a clock that went back), or the newest.
fn within_history(i: usize, n: usize, v: &Version, now: SystemTime) -> bool {
    i + 1 == n
        || now
            .duration_since(v.last_at)
            .map_or(true, |age| age <= HISTORY_PERIOD)
}

#[cfg(feature = "serde")]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(feature = "serde")]
fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_hex_round_trip() {
        let d = Digest::of(b"User-agent: *\n");
        let hex = d.to_string();
        assert_eq!(hex.len(), 64);
        assert_eq!(Digest::from_hex(&hex), Some(d));
        assert_eq!(Digest::from_hex(&hex[..63]), None);
        assert_eq!(Digest::from_hex(&"g".repeat(64)), None);
        // sha256 of the empty string, as `sha256sum` prints it.
        assert_eq!(
            Digest::of(b"").to_string(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(d.short(), hex[..12]);
    }
}
