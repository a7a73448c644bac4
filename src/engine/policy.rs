//! The whole crawl policy of one URL ([`CrawlPolicy`]): robots.txt's answer, a refusal at the
//! edge, TDMRep (the well-known file and the page's own fields) and the page's directives, each
//! part with its source; and a fetched page's directives read with the engine's options
//! ([`RobotsCache::page_directives`]).

use crate::engine::{Answer, RobotsCache, TdmAnswer, TdmReservation};
use crate::page::{self, PageDirectives, SourceKind};
use crate::policy::{is_html_type, Payment, Unreachable, Verdict, VerdictReason};
use crate::robots::ProductToken;

use super::cache::CheckError;

/// What stands at the edge of the site, from the latest robots.txt fetch: a bot-protection
/// challenge, a price, or no answer at all.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Edge {
    /// A challenge page answered instead of robots.txt (one of
    /// [`CHALLENGE_MARKERS`](crate::http::CHALLENGE_MARKERS)): treated as unreachable.
    Challenge {
        /// The challenge's status.
        status: u16,
        /// The marker, `name: value`.
        marker: String,
    },
    /// HTTP 402: crawling is offered for a price (the price headers kept).
    PaymentRequired(Payment),
    /// robots.txt could not be fetched (the 12-hour stop is running).
    Unreachable(Unreachable),
}

impl Edge {
    /// `challenge`, `payment-required` or `unreachable`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Edge::Challenge { .. } => "challenge",
            Edge::PaymentRequired(_) => "payment-required",
            Edge::Unreachable(_) => "unreachable",
        }
    }

    /// The edge status an answer's reason shows, if any.
    fn of(reason: &VerdictReason) -> Option<Edge> {
        match reason {
            VerdictReason::Unreachable { cause, .. } => Some(match cause {
                Unreachable::Challenge { status, marker } => Edge::Challenge {
                    status: *status,
                    marker: marker.clone(),
                },
                other => Edge::Unreachable(other.clone()),
            }),
            VerdictReason::PaymentRequired(p) => Some(Edge::PaymentRequired(p.clone())),
            _ => None,
        }
    }
}

/// Where the TDM reservation in force comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TdmSource {
    /// The page's `tdm-reservation` response header.
    Header,
    /// The page's `<meta name="tdm-reservation">` (or `http-equiv`).
    Meta,
    /// The origin's `/.well-known/tdmrep.json`.
    File,
}

impl TdmSource {
    /// `header`, `meta` or `file`.
    pub fn as_str(self) -> &'static str {
        match self {
            TdmSource::Header => "header",
            TdmSource::Meta => "meta",
            TdmSource::File => "file",
        }
    }
}

/// TDMRep for the URL: the page's own fields supersede the well-known file (TDMRep §5,
/// "processing priority"), the file's answer is kept either way.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TdmPart {
    /// The reservation in force.
    pub reservation: TdmReservation,
    /// The TDM policy's URL in force, if any.
    pub policy: Option<String>,
    /// Where the reservation in force comes from.
    pub source: TdmSource,
    /// The well-known file's answer (`None`: it could not be asked, see `file_error`).
    pub file: Option<TdmAnswer>,
    /// Why the file could not be asked (a failure on this side).
    pub file_error: Option<String>,
}

/// A page fetched for the URL, with its directives for the agent.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PagePart {
    /// The final status.
    pub status: u16,
    /// The final URL, when redirects were followed to another.
    pub final_url: Option<String>,
    /// Its directives for the agent, with their sources.
    pub directives: PageDirectives,
}

impl PagePart {
    /// A page's part: its final status and URL, and its directives.
    pub fn new(status: u16, final_url: Option<String>, directives: PageDirectives) -> PagePart {
        PagePart {
            status,
            final_url,
            directives,
        }
    }
}

/// A warning about how the parts combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PolicyWarning {
    /// robots.txt disallows the URL and the page says `noindex`: a crawler that obeys
    /// robots.txt never fetches the page, so it never sees the `noindex`, and the URL can still
    /// be indexed from links to it. Google: "For the noindex rule to be effective, the page or
    /// resource must not be blocked by a robots.txt file […] If the page is blocked by a
    /// robots.txt file or the crawler can't access the page, the crawler will never see the
    /// noindex rule, and the page can still appear in search results" (Google Search Central,
    /// "Block Search indexing with noindex").
    NoindexUnseen,
}

impl PolicyWarning {
    /// A stable kebab-case code: `noindex-unseen`.
    pub fn code(self) -> &'static str {
        match self {
            PolicyWarning::NoindexUnseen => "noindex-unseen",
        }
    }

    /// What it means, in words.
    pub fn message(self) -> &'static str {
        match self {
            PolicyWarning::NoindexUnseen => {
                "robots.txt disallows this URL, so crawlers never fetch the page and never see \
                 its noindex: the URL can still be indexed from links to it. To keep it out of \
                 an index, allow the URL in robots.txt and keep the noindex"
            }
        }
    }
}

/// The whole crawl policy of one URL for one agent, each part with its source: may it be
/// fetched (robots.txt and the edge), may it be mined (TDMRep), and what the page says may be
/// done with it (its directives, when a page was fetched).
///
/// With feature `serde` it serializes as the command line's `policy` record (without its
/// `type`): `url`, `agent`, `allowed`, `robots`, `edge`, `tdm`, `page`, `warnings`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CrawlPolicy {
    /// The URL as given.
    pub url: String,
    /// The agent's product token.
    pub agent: String,
    /// robots.txt's answer (allowed, the deciding rule, the verdict's reason).
    pub robots: Answer,
    /// The origin's verdict.
    pub verdict: Verdict,
    /// A refusal at the edge seen when robots.txt was fetched.
    pub edge: Option<Edge>,
    /// TDMRep.
    pub tdm: TdmPart,
    /// The page, when one was fetched.
    pub page: Option<PagePart>,
    /// How the parts combine badly.
    pub warnings: Vec<PolicyWarning>,
}

impl CrawlPolicy {
    /// May the agent fetch the URL (robots.txt and the edge)?
    pub fn allowed(&self) -> bool {
        self.robots.allowed
    }

    /// Combines the parts and works out the warnings.
    pub fn new(
        agent: &ProductToken,
        url: &str,
        robots: Answer,
        verdict: Verdict,
        file: Result<TdmAnswer, String>,
        page: Option<PagePart>,
    ) -> CrawlPolicy {
        let edge = Edge::of(&robots.reason);
        let (file, file_error) = match file {
            Ok(a) => (Some(a), None),
            Err(e) => (None, Some(e)),
        };
        let from_page = page.as_ref().and_then(|p| {
            let rules = &p.directives.rules;
            let reserved = rules.tdm_reservation?;
            let kind = p
                .directives
                .sources("tdm-reservation")
                .last()
                .map_or(SourceKind::Header, |f| f.source.kind);
            Some((reserved, rules.tdm_policy.clone(), kind))
        });
        let tdm = match from_page {
            Some((reserved, policy, kind)) => TdmPart {
                reservation: if reserved {
                    TdmReservation::Reserved
                } else {
                    TdmReservation::NotReserved
                },
                policy: policy.filter(|_| reserved),
                source: match kind {
                    SourceKind::Header => TdmSource::Header,
                    SourceKind::Meta => TdmSource::Meta,
                },
                file,
                file_error,
            },
            None => TdmPart {
                reservation: file
                    .as_ref()
                    .map_or(TdmReservation::Unknown, |a| a.reservation),
                policy: file.as_ref().and_then(|a| a.policy.clone()),
                source: TdmSource::File,
                file,
                file_error,
            },
        };
        let mut warnings = Vec::new();
        if !robots.allowed && page.as_ref().is_some_and(|p| !p.directives.rules.index) {
            warnings.push(PolicyWarning::NoindexUnseen);
        }
        CrawlPolicy {
            url: url.to_owned(),
            agent: agent.as_str().to_owned(),
            robots,
            verdict,
            edge,
            tdm,
            page,
            warnings,
        }
    }
}

impl RobotsCache {
    /// A fetched page's directives for `token`: its response `headers` (all of them or only
    /// the directive fields; names in any case) and the first bytes of its body, read with the
    /// engine's [`CacheOptions::page`](super::CacheOptions::page) limits. The body's `<meta>`
    /// are read only for a 2xx `status` whose `Content-Type` (when given) is HTML; headers
    /// always count. No I/O.
    pub fn page_directives<I, N, V>(
        &self,
        token: &ProductToken,
        status: u16,
        headers: I,
        first_bytes: Option<&[u8]>,
    ) -> PageDirectives
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<str>,
        V: AsRef<[u8]>,
    {
        let headers: Vec<(N, V)> = headers.into_iter().collect();
        let html_type = headers
            .iter()
            .find(|(n, _)| n.as_ref().eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| is_html_type(v.as_ref()));
        let body = first_bytes.filter(|b| {
            (200..300).contains(&status)
                && html_type.unwrap_or_else(|| b.trim_ascii_start().first() == Some(&b'<'))
        });
        page::evaluate(headers, body, token, &self.options().page)
    }

    /// The whole crawl policy of `url` for `token`: robots.txt's answer ([`RobotsCache::check`]),
    /// the edge status it shows, TDMRep's well-known file ([`RobotsCache::tdm`]) and, when the
    /// caller fetched the page, its directives (from [`RobotsCache::page_directives`]).
    pub async fn crawl_policy(
        &self,
        token: &ProductToken,
        url: &str,
        page: Option<PagePart>,
    ) -> Result<CrawlPolicy, CheckError> {
        let (robots, verdict) = self.check_with_verdict(token, url).await?;
        let file = self.tdm(url).await.map_err(|e| e.to_string());
        Ok(CrawlPolicy::new(token, url, robots, verdict, file, page))
    }
}

#[cfg(feature = "serde")]
mod ser {
    use serde::ser::{Serialize, Serializer};
    use serde::Serialize as Derive;

    use super::{CrawlPolicy, Edge};
    use crate::page::Json;
    use crate::robots::RuleKind;

    #[derive(Derive)]
    struct View<'a> {
        url: &'a str,
        agent: &'a str,
        allowed: bool,
        robots: Robots<'a>,
        edge: Option<EdgeView<'a>>,
        tdm: Tdm<'a>,
        page: Option<Page<'a>>,
        warnings: Vec<Warning>,
    }

    #[derive(Derive)]
    struct Robots<'a> {
        robots_txt: String,
        allowed: bool,
        verdict: &'static str,
        reason: &'static str,
        reason_text: String,
        line: Option<u32>,
        rule: Option<&'a str>,
        kind: Option<&'static str>,
    }

    #[derive(Derive)]
    struct EdgeView<'a> {
        kind: &'static str,
        status: Option<u16>,
        marker: Option<&'a str>,
        cause: Option<String>,
        price: Vec<(&'a str, &'a str)>,
    }

    #[derive(Derive)]
    struct Tdm<'a> {
        reservation: &'static str,
        policy: Option<&'a str>,
        source: &'static str,
        file: Option<&'a str>,
        file_reservation: Option<&'static str>,
        file_reason: Option<&'static str>,
        rule: Option<usize>,
        location: Option<&'a str>,
        file_error: Option<&'a str>,
    }

    #[derive(Derive)]
    struct Page<'a> {
        status: u16,
        final_url: Option<&'a str>,
        #[serde(flatten)]
        directives: Json<'a>,
    }

    #[derive(Derive)]
    struct Warning {
        code: &'static str,
        message: &'static str,
    }

    impl Serialize for CrawlPolicy {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let r = &self.robots;
            let edge = self.edge.as_ref().map(|e| {
                let mut v = EdgeView {
                    kind: e.as_str(),
                    status: None,
                    marker: None,
                    cause: None,
                    price: Vec::new(),
                };
                match e {
                    Edge::Challenge { status, marker } => {
                        v.status = Some(*status);
                        v.marker = Some(marker);
                    }
                    Edge::PaymentRequired(p) => {
                        v.status = Some(402);
                        v.price = p
                            .headers
                            .iter()
                            .map(|(n, v)| (n.as_str(), v.as_str()))
                            .collect();
                    }
                    Edge::Unreachable(cause) => v.cause = Some(cause.to_string()),
                }
                v
            });
            let t = &self.tdm;
            let file = t.file.as_ref();
            let page = self.page.as_ref().map(|p| Page {
                status: p.status,
                final_url: p.final_url.as_deref(),
                directives: p.directives.json(),
            });
            View {
                url: &self.url,
                agent: &self.agent,
                allowed: self.allowed(),
                robots: Robots {
                    robots_txt: r.origin.robots_txt_url(),
                    allowed: r.allowed,
                    verdict: self.verdict.as_str(),
                    reason: r.reason.as_str(),
                    reason_text: r.reason.to_string(),
                    line: r.rule.as_ref().map(|d| d.line),
                    rule: r.rule.as_ref().map(|d| d.text.as_str()),
                    kind: r.rule.as_ref().map(|d| match d.kind {
                        RuleKind::Allow => "allow",
                        RuleKind::Disallow => "disallow",
                    }),
                },
                edge,
                tdm: Tdm {
                    reservation: t.reservation.as_str(),
                    policy: t.policy.as_deref(),
                    source: t.source.as_str(),
                    file: file.map(|a| a.file_url.as_str()),
                    file_reservation: file.map(|a| a.reservation.as_str()),
                    file_reason: file.map(|a| a.reason.as_str()),
                    rule: file.and_then(|a| a.rule.as_ref()).map(|r| r.number),
                    location: file
                        .and_then(|a| a.rule.as_ref())
                        .map(|r| r.location.as_str()),
                    file_error: t.file_error.as_deref(),
                },
                page,
                warnings: self
                    .warnings
                    .iter()
                    .map(|w| Warning {
                        code: w.code(),
                        message: w.message(),
                    })
                    .collect(),
            }
            .serialize(serializer)
        }
    }
}
