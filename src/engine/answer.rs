//! The engine's answer for one URL ([`Answer`]): what a judgement of the origin and its rules in
//! force say of the URL, with the deciding rule, crawl-delay, request-rate and sitemaps.

use std::sync::Arc;
use std::time::Duration;

use crate::origin::Origin;
use crate::policy::{Judgement, Verdict, VerdictReason};
use crate::robots::{
    is_robots_txt, request_path, respelled, Parsed, ProductToken, RequestRate, RuleKind, VisitTime,
};

/// The rule that decided, owned (the rules may be replaced by a refresh at any time).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DecidingRule {
    /// Allow or disallow.
    pub kind: RuleKind,
    /// 1-based line in the robots.txt.
    pub line: u32,
    /// The line as written.
    pub text: String,
}

/// The engine's answer for one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Answer {
    /// May the agent fetch the URL?
    pub allowed: bool,
    /// The URL's robots.txt origin.
    pub origin: Origin,
    /// Why the origin's verdict is what it is (fetched, no robots.txt, unreachable…).
    pub reason: VerdictReason,
    /// The rule that decided, when the verdict was a set of rules and a rule matched.
    pub rule: Option<DecidingRule>,
    /// The agent's `Crawl-delay` as written (uncapped; [`RobotsCache::acquire`] caps it), when
    /// the verdict is a set of rules that gives one.
    ///
    /// [`RobotsCache::acquire`]: super::RobotsCache::acquire
    pub crawl_delay: Option<Duration>,
    /// The agent's `Request-rate`, when the verdict is a set of rules that gives one.
    pub request_rate: Option<RequestRate>,
    /// The agent's `Visit-time`, when the verdict is a set of rules that gives one: the gate
    /// waits for its window ([`GateOptions::visit_time`](crate::policy::GateOptions::visit_time)).
    pub visit_time: Option<VisitTime>,
    /// The `Sitemap` URLs of the rules in force, as written (empty without rules).
    pub sitemaps: SitemapUrls,
    /// The URL as an HTTP client spells and requests it, when that is not the URL as given:
    /// its path was judged, not the given one's (`https://h/x/../private` is judged as
    /// `https://h/private`; see [`request_target`](crate::request_target)). `None` when the
    /// two agree.
    pub judged_url: Option<String>,
}

/// The `Sitemap` URLs of the rules in force, as written, in file order.
///
/// They are read from the compiled file the engine holds for the origin, not copied: an
/// engine caching many origins would otherwise hold every list twice (255 bytes an origin on
/// the bench corpus). Cloning one is a reference count. The other side of that: an answer
/// kept keeps the compiled file it was read from, even after the engine has replaced or
/// evicted it; to keep the URLs longer than the answer's use, copy them
/// (`iter().map(str::to_owned)`).
#[derive(Clone, Default)]
pub struct SitemapUrls(Option<Arc<Parsed>>);

impl SitemapUrls {
    /// The URLs of `parsed`'s `Sitemap:` lines (no reference is kept when it has none).
    fn of(parsed: &Arc<Parsed>) -> SitemapUrls {
        if parsed.robots.sitemaps().len() == 0 {
            SitemapUrls(None)
        } else {
            SitemapUrls(Some(Arc::clone(parsed)))
        }
    }

    /// The URLs, in file order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &str> + '_ {
        self.0
            .iter()
            .flat_map(|p| p.robots.sitemaps())
            .map(|s| s.url)
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |p| p.robots.sitemaps().len())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Equal when they list the same URLs in the same order, whichever files hold them.
impl PartialEq for SitemapUrls {
    fn eq(&self, other: &SitemapUrls) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for SitemapUrls {}

impl std::fmt::Debug for SitemapUrls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Applies a judgement to one URL. `rules` are the parsed last good file (needed when the
/// verdict is [`Verdict::Rules`]; without them nothing but robots.txt is allowed).
pub(crate) fn answer(
    origin: Origin,
    judgement: &Judgement,
    rules: Option<&Arc<Parsed>>,
    token: &ProductToken,
    url: &str,
) -> Answer {
    // The engine judges what a client requests, in either mode: a crawler passes the same
    // string to its HTTP client, which resolves `/x/../` and reads `\` as `/`.
    let respelled = respelled(url);
    let path = match &respelled {
        Some(r) => std::borrow::Cow::Borrowed(r.path.as_str()),
        None => request_path(url),
    };
    let robots_txt = || is_robots_txt(&path);
    let (mut crawl_delay, mut request_rate, mut visit_time) = (None, None, None);
    let mut sitemaps = SitemapUrls::default();
    if let (Verdict::Rules, Some(parsed)) = (&judgement.verdict, rules) {
        // Most files have no records outside the protocol: then the lookups are skipped.
        if parsed.robots.records().len() != 0 {
            crawl_delay = parsed
                .robots
                .crawl_delay(token)
                // A finite, non-negative number; only an overflow fails: saturate.
                .map(|d| Duration::try_from_secs_f64(d).unwrap_or(Duration::MAX));
            request_rate = parsed.robots.request_rate(token);
            visit_time = parsed.robots.visit_time(token);
        }
        sitemaps = SitemapUrls::of(parsed);
    }
    let (allowed, rule) = match (&judgement.verdict, rules) {
        (Verdict::Rules, Some(parsed)) => {
            let d = parsed.robots.check_path(token, &path);
            let rule = d.rule().map(|r| DecidingRule {
                kind: r.kind,
                line: r.line,
                text: r.text.to_string(),
            });
            (d.allowed, rule)
        }
        // The file could not be read back from the store: be safe until it is fetched again.
        (Verdict::Rules, None) => (robots_txt(), None),
        (Verdict::AllowAll, _) => (true, None),
        // robots.txt itself stays fetchable (RFC 9309 §2.2.2).
        (Verdict::DisallowAll, _) => (robots_txt(), None),
    };
    Answer {
        allowed,
        origin,
        reason: judgement.reason.clone(),
        rule,
        crawl_delay,
        request_rate,
        visit_time,
        sitemaps,
        judged_url: respelled.map(|r| r.url),
    }
}
