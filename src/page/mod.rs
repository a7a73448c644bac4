//! Page-level directives: what a crawler may *do* with a page it fetched, from the response's
//! headers and the head of its HTML, for one agent.
//!
//! robots.txt says whether a URL may be fetched; the page itself says whether it may be
//! indexed, followed, cached, quoted, or used for AI. [`evaluate`] reads, with no I/O:
//!
//! - **`Robots-Tag`** (draft-illyes-repext §3.1.1), a structured-field List of product tokens
//!   with the rules as parameters: `Robots-Tag: *;nosnippet, ExampleBot;noindex`.
//! - **`X-Robots-Tag`**, Google's legacy comma lists with an optional `agent:` prefix that
//!   scopes the rest of the field (`X-Robots-Tag: otherbot: noindex, nofollow`). The draft
//!   accepts the legacy name for the structured syntax, and sites send both syntaxes under both
//!   names, so the syntax is told by the value: a value that parses as a structured List in
//!   which some member has parameters is structured; anything else is the legacy syntax (a
//!   `Robots-Tag` read that way is reported, `legacy-syntax`). The `unavailable_after:` trap —
//!   its colon looks like an agent prefix and an RFC 822 date has a comma — is handled: the
//!   directives that take a value are never agents, and a date's comma stays in the date.
//! - **`<meta name="robots">`** and **`<meta name="TOKEN">`** in the document's head, scanned
//!   by a WHATWG tokenizer (see [`html`](self) below) within a byte budget; and
//!   `<meta http-equiv="X-Robots-Tag">`, read as the header (Google documents the header and
//!   the robots `<meta>`, not this pragma; sites write it meaning the header). Directives are
//!   separated by commas: `noindex nofollow` is one unknown directive, as Google reads it.
//! - **AI uses**: `noai`, `noimageai` (DeviantArt, ArtStation, Misskey), `noml` (Mojeek) as
//!   robots directives; TDMRep's `tdm-reservation: 1|0` and `tdm-policy: URL` as headers and
//!   as `<meta>` (W3C TDM Reservation Protocol, "TDM Header Field" and "TDM Metadata in HTML
//!   Content"); the `Content-Usage` response header (draft-ietf-aipref-attach §2), read with the
//!   same vocabulary parser as robots.txt's `Content-Usage` rule.
//!
//! # Merging
//!
//! The directives for the agent's own product token and the generic ones (`*` in
//! `Robots-Tag`, no prefix in `X-Robots-Tag`, `<meta name="robots">`) all apply, from every
//! header and every `<meta>`, and **the most restrictive wins**: a flag set anywhere is set;
//! `max-snippet` and `max-video-preview` take the smallest limit (`-1`, no limit, only when no
//! source sets one); `max-image-preview` the smallest of `none` < `standard` < `large`;
//! `unavailable_after` the earliest date. This is draft-illyes-repext §3.1.1 ("the implementor
//! MUST apply the union of all restrictive rules"; a rule for `*` applies to every accessor)
//! and §3.1.2 (an accessor cannot opt out of a restriction in the global `robots` tag by being
//! named in a tag of its own), and Google's "Robots meta tag, data-nosnippet, and
//! X-Robots-Tag specifications": "In the case of conflicting robots rules, the more
//! restrictive rule applies" and rules for Googlebot combine with those for `robots`.
//! `nosnippet` and `max-snippet:0` both mean no snippet; `none` is `noindex, nofollow`;
//! `nocache` (Bing) is `noarchive`; `all`, `index` and `follow` change nothing.
//!
//! TDMRep is not a robots rule and merges as its specification says: a value found later
//! supersedes an earlier one (headers first, then `<meta>`), an absent value never resets one,
//! and a value other than `0` or `1` is an error that leaves it unset. `Content-Usage`
//! preferences combine per category (draft-ietf-aipref-vocab §5.1: disallowed if any says so).
//!
//! # Limits
//!
//! Each header field and each `content` attribute is read up to [`Options::field_limit`]
//! (8 KiB by default, the draft's floor): a directive the limit cuts, and what follows it, is
//! ignored. The HTML scan stops at the end of the head (`<body>`, or the first
//! element or text a browser would put in the body) and never reads more than
//! [`Options::html_budget`] bytes, so a hostile 10 MB page without `</head>` costs the budget
//! and no more.
//!
//! # Examples
//!
//! ```
//! use crawlgate::page::{evaluate, Options};
//! use crawlgate::ProductToken;
//!
//! let bot = ProductToken::new("ExampleBot")?;
//! let headers = [("Robots-Tag", "*;nosnippet, ExampleBot;noindex")];
//! let html = br#"<html><head><meta name="robots" content="max-image-preview:none, noai"></head>"#;
//! let page = evaluate(headers, Some(html), &bot, &Options::default());
//! assert!(!page.rules.index && !page.rules.snippet && page.rules.noai);
//! let from: Vec<_> = page.sources("noindex").map(|f| f.source.name.as_str()).collect();
//! assert_eq!(from, ["robots-tag"]);
//! # Ok::<(), crawlgate::TokenError>(())
//! ```

mod date;
mod diagnostic;
mod field;
mod html;
#[cfg(feature = "serde")]
mod json;

use std::borrow::Cow;
use std::fmt;

use crate::diagnostic::Code as RobotsCode;
use crate::robots::{parse_content_usage, ProductToken, UsagePreferences};

pub use diagnostic::{Code, Diagnostic};
#[cfg(feature = "serde")]
pub use json::Json;

/// The default per-field limit: 8 KiB, draft-illyes-repext §3.1.1's floor.
pub const DEFAULT_FIELD_LIMIT: usize = 8 * 1024;

/// The default HTML byte budget: 512 KiB. Heads of real pages, inline scripts and styles
/// included, are rarely a fifth of that.
pub const DEFAULT_HTML_BUDGET: usize = 512 * 1024;

/// How much of a page to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Bytes read of each header field and each `<meta content>` (at least 8 KiB is advised).
    pub field_limit: usize,
    /// Bytes of the HTML scanned at most.
    pub html_budget: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            field_limit: DEFAULT_FIELD_LIMIT,
            html_budget: DEFAULT_HTML_BUDGET,
        }
    }
}

/// Where a directive was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceKind {
    /// A response header field.
    Header,
    /// A `<meta>` element of the HTML head.
    Meta,
}

impl SourceKind {
    /// `"header"` or `"meta"`.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Header => "header",
            SourceKind::Meta => "meta",
        }
    }
}

/// One directive's source: the field or element, its scope, the text as written and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Header or `<meta>`.
    pub kind: SourceKind,
    /// The header's name or the `<meta>`'s `name`, lowercase (`x-robots-tag`, `robots`).
    pub name: String,
    /// The product token it is scoped to (lowercase); `None` for every agent.
    pub agent: Option<String>,
    /// The directive as written (`max-snippet:20`), as it came: escape it before showing it.
    pub raw: String,
    /// Header: the field's index among the headers given (0-based); `<meta>`: the element's
    /// index among the head's `<meta>` elements read (`robots`, the agent's, TDMRep's).
    pub index: usize,
    /// Header: byte offset of the directive in the field's value; `<meta>`: byte offset of the
    /// element's `<` in the HTML.
    pub offset: usize,
    /// `<meta>`: the 1-based line of the element in the HTML; header: 0.
    pub line: usize,
}

impl Source {
    /// Where, for people: `header x-robots-tag #0 @12`, `meta robots line 5`.
    pub fn place(&self) -> String {
        match self.kind {
            SourceKind::Header => format!("header {} #{} @{}", self.name, self.index, self.offset),
            SourceKind::Meta => format!("meta {} line {}", self.name, self.line),
        }
    }
}

/// `max-image-preview`'s values, least to most permissive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ImagePreview {
    /// No image preview.
    None,
    /// A default-size preview.
    Standard,
    /// A preview up to the viewport's width.
    Large,
}

impl ImagePreview {
    /// `"none"`, `"standard"` or `"large"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ImagePreview::None => "none",
            ImagePreview::Standard => "standard",
            ImagePreview::Large => "large",
        }
    }
}

/// One directive, understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    /// `noindex`.
    NoIndex,
    /// `nofollow`.
    NoFollow,
    /// `none`: `noindex` and `nofollow`.
    None,
    /// `noarchive` (or Bing's `nocache`).
    NoArchive,
    /// `nosnippet`.
    NoSnippet,
    /// `max-snippet:N` (`-1`: no limit; `0`: no snippet).
    MaxSnippet(i64),
    /// `max-image-preview:none|standard|large`.
    MaxImagePreview(ImagePreview),
    /// `max-video-preview:N` seconds (`-1`: no limit; `0`: a still image at most).
    MaxVideoPreview(i64),
    /// `unavailable_after:DATE`, as Unix seconds.
    UnavailableAfter(i64),
    /// `noimageindex`.
    NoImageIndex,
    /// `notranslate`.
    NoTranslate,
    /// `indexifembedded`.
    IndexIfEmbedded,
    /// `noai`: no use for AI.
    NoAi,
    /// `noimageai`: the page's images not used for AI.
    NoImageAi,
    /// `noml`: no use for machine learning (Mojeek).
    NoMl,
    /// `all`, `index`, `follow`: change nothing.
    All,
    /// TDMRep `tdm-reservation`: `true` for `1` (rights reserved).
    TdmReservation(bool),
    /// TDMRep `tdm-policy`: the policy's URL as written.
    TdmPolicy(String),
    /// `Content-Usage` response header preferences.
    ContentUsage(UsagePreferences),
}

impl Directive {
    /// The rules it sets, by name (`none` sets `noindex` and `nofollow`; `nosnippet` and
    /// `max-snippet` both set `snippet`).
    pub fn rules(&self) -> &'static [&'static str] {
        match self {
            Directive::NoIndex => &["noindex"],
            Directive::NoFollow => &["nofollow"],
            Directive::None => &["noindex", "nofollow"],
            Directive::NoArchive => &["noarchive"],
            Directive::NoSnippet => &["nosnippet", "snippet"],
            Directive::MaxSnippet(_) => &["max-snippet", "snippet"],
            Directive::MaxImagePreview(_) => &["max-image-preview"],
            Directive::MaxVideoPreview(_) => &["max-video-preview"],
            Directive::UnavailableAfter(_) => &["unavailable_after"],
            Directive::NoImageIndex => &["noimageindex"],
            Directive::NoTranslate => &["notranslate"],
            Directive::IndexIfEmbedded => &["indexifembedded"],
            Directive::NoAi => &["noai"],
            Directive::NoImageAi => &["noimageai"],
            Directive::NoMl => &["noml"],
            Directive::All => &["all"],
            Directive::TdmReservation(_) => &["tdm-reservation"],
            Directive::TdmPolicy(_) => &["tdm-policy"],
            Directive::ContentUsage(_) => &["content-usage"],
        }
    }
}

/// A directive that applies to the agent, with where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// What it says.
    pub directive: Directive,
    /// Where it was said.
    pub source: Source,
}

/// The merged answer (most restrictive wins): what the agent may do with the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    /// May be indexed (no `noindex`, no `none`).
    pub index: bool,
    /// Links may be followed (no `nofollow`, no `none`).
    pub follow: bool,
    /// A cached copy may be shown (no `noarchive`/`nocache`).
    pub archive: bool,
    /// A text snippet may be shown (no `nosnippet`, no `max-snippet:0`).
    pub snippet: bool,
    /// The smallest `max-snippet` (characters; `-1` no limit), if any source set one.
    pub max_snippet: Option<i64>,
    /// Images on the page may be indexed (no `noimageindex`).
    pub image_index: bool,
    /// The most restrictive `max-image-preview`, if any.
    pub max_image_preview: Option<ImagePreview>,
    /// The smallest `max-video-preview` (seconds; `-1` no limit), if any.
    pub max_video_preview: Option<i64>,
    /// The earliest `unavailable_after`, Unix seconds.
    pub unavailable_after: Option<i64>,
    /// A translation may be offered (no `notranslate`).
    pub translate: bool,
    /// `indexifembedded`: may be indexed when embedded in another page despite `noindex`.
    pub index_if_embedded: bool,
    /// `noai`.
    pub noai: bool,
    /// `noimageai`.
    pub noimageai: bool,
    /// `noml`.
    pub noml: bool,
    /// TDMRep `tdm-reservation` (`Some(true)`: text and data mining rights reserved).
    pub tdm_reservation: Option<bool>,
    /// TDMRep `tdm-policy` URL.
    pub tdm_policy: Option<String>,
    /// `Content-Usage` header preferences, combined.
    pub content_usage: UsagePreferences,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            index: true,
            follow: true,
            archive: true,
            snippet: true,
            max_snippet: None,
            image_index: true,
            max_image_preview: None,
            max_video_preview: None,
            unavailable_after: None,
            translate: true,
            index_if_embedded: false,
            noai: false,
            noimageai: false,
            noml: false,
            tdm_reservation: None,
            tdm_policy: None,
            content_usage: UsagePreferences::default(),
        }
    }
}

/// The smaller limit, `-1` (no limit) being the largest.
fn tighter(a: Option<i64>, b: i64) -> i64 {
    match a {
        None => b,
        Some(a) if a < 0 => b,
        Some(a) if b < 0 => a,
        Some(a) => a.min(b),
    }
}

/// The page's directives for one agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageDirectives {
    /// The merged answer.
    pub rules: Rules,
    /// Every directive that applies to the agent, headers first, in the order read.
    pub found: Vec<Found>,
    /// Directives not understood that apply to the agent: kept, otherwise ignored.
    pub unknown: Vec<Source>,
    /// Every problem found, for any agent.
    pub diagnostics: Vec<Diagnostic>,
    /// Bytes of the HTML scanned.
    pub html_scanned: usize,
}

impl PageDirectives {
    /// The directives that set `rule` (`"noindex"`, `"snippet"`, `"max-snippet"`, … as
    /// [`Directive::rules`] names them).
    pub fn sources<'a>(&'a self, rule: &'a str) -> impl Iterator<Item = &'a Found> + 'a {
        self.found
            .iter()
            .filter(move |f| f.directive.rules().contains(&rule))
    }
}

impl fmt::Display for PageDirectives {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.rules;
        write!(
            f,
            "index={} follow={} archive={} snippet={}",
            r.index, r.follow, r.archive, r.snippet
        )
    }
}

struct Reader<'a> {
    agent: &'a str,
    limit: usize,
    out: PageDirectives,
}

impl Reader<'_> {
    fn problem(&mut self, code: Code, source: Source, message: impl Into<Cow<'static, str>>) {
        self.out.diagnostics.push(Diagnostic {
            code,
            severity: code.default_severity(),
            source,
            message: message.into(),
        });
    }

    fn found(&mut self, directive: Directive, source: Source) {
        self.out.found.push(Found { directive, source });
    }

    /// A robots directive: understood, checked, and kept when it applies to the agent.
    fn robots(&mut self, piece: field::Piece, template: &Source) {
        let applies = piece.agent.as_deref().is_none_or(|a| a == self.agent);
        let source = Source {
            agent: piece.agent.clone(),
            raw: piece.raw.clone(),
            offset: template.offset + piece.offset,
            ..template.clone()
        };
        let int = |v: &Option<String>| -> Option<i64> {
            v.as_deref()
                .and_then(|v| v.trim().parse::<i64>().ok())
                .filter(|&n| n >= -1)
        };
        let directive = match (piece.name.as_str(), &piece.value) {
            ("noindex", None) => Ok(Directive::NoIndex),
            ("nofollow", None) => Ok(Directive::NoFollow),
            ("none", None) => Ok(Directive::None),
            ("noarchive" | "nocache", None) => Ok(Directive::NoArchive),
            ("nosnippet", None) => Ok(Directive::NoSnippet),
            ("noimageindex", None) => Ok(Directive::NoImageIndex),
            ("notranslate", None) => Ok(Directive::NoTranslate),
            ("indexifembedded", None) => Ok(Directive::IndexIfEmbedded),
            ("noai", None) => Ok(Directive::NoAi),
            ("noimageai", None) => Ok(Directive::NoImageAi),
            ("noml", None) => Ok(Directive::NoMl),
            ("all" | "index" | "follow", None) => Ok(Directive::All),
            ("max-snippet", v) => int(v)
                .map(Directive::MaxSnippet)
                .ok_or("`max-snippet` takes a number of characters, -1 or more"),
            ("max-video-preview", v) => int(v)
                .map(Directive::MaxVideoPreview)
                .ok_or("`max-video-preview` takes a number of seconds, -1 or more"),
            ("max-image-preview", v) => {
                match v
                    .as_deref()
                    .map(|v| v.trim().to_ascii_lowercase())
                    .as_deref()
                {
                    Some("none") => Ok(Directive::MaxImagePreview(ImagePreview::None)),
                    Some("standard") => Ok(Directive::MaxImagePreview(ImagePreview::Standard)),
                    Some("large") => Ok(Directive::MaxImagePreview(ImagePreview::Large)),
                    _ => Err("`max-image-preview` takes `none`, `standard` or `large`"),
                }
            }
            ("unavailable_after" | "unavailable-after", v) => v
                .as_deref()
                .and_then(date::parse)
                .map(Directive::UnavailableAfter)
                .ok_or("`unavailable_after` takes a date (RFC 822, RFC 850 or ISO 8601)"),
            (name, None) if is_space_separated(name) => {
                self.problem(
                    Code::UnknownDirective,
                    source.clone(),
                    "directives separated by spaces, not commas: read as one unknown \
                     directive, as Google does (\"if you have multiple content values, you \
                     must place a comma between them\"); write `noindex, nofollow`",
                );
                if applies {
                    self.out.unknown.push(source);
                }
                return;
            }
            _ => {
                self.problem(
                    Code::UnknownDirective,
                    source.clone(),
                    "a directive crawlgate does not know: kept, and otherwise ignored",
                );
                if applies {
                    self.out.unknown.push(source);
                }
                return;
            }
        };
        match directive {
            Ok(d) if applies => self.found(d, source),
            Ok(_) => {}
            Err(why) => self.problem(Code::InvalidValue, source, why),
        }
    }

    /// A `Robots-Tag` or `X-Robots-Tag` field.
    fn robots_field(&mut self, value: &[u8], template: &Source) {
        let (value, was_cut) = cut_bytes(value, self.limit);
        if was_cut {
            self.problem(
                Code::FieldTooLong,
                template.clone(),
                format!(
                    "longer than {} bytes: the rest, and a directive the limit cuts, is ignored",
                    self.limit
                ),
            );
        }
        let structured = match field::sf_list(value) {
            Ok(members) if members.iter().any(|m| !m.params.is_empty()) => Some(members),
            Err((members, _)) if was_cut && members.iter().any(|m| !m.params.is_empty()) => {
                Some(members)
            }
            Err((_, e)) if value.contains(&b';') => {
                self.problem(
                    Code::MalformedField,
                    Source {
                        offset: e.at,
                        raw: String::from_utf8_lossy(value).into_owned(),
                        ..template.clone()
                    },
                    format!(
                        "not a structured-field List: expected {} at byte {}",
                        e.what, e.at
                    ),
                );
                return;
            }
            _ => None,
        };
        let pieces = match structured {
            Some(members) => field::structured(&members),
            None => {
                let text = field::text(value);
                let mut text: &str = &text;
                if was_cut {
                    // The piece the limit cut is dropped.
                    text = text.rfind(',').map_or("", |i| &text[..i]);
                }
                let pieces = field::legacy(text, true);
                if template.name == "robots-tag" && !pieces.is_empty() {
                    self.problem(
                        Code::LegacySyntax,
                        template.clone(),
                        "`Robots-Tag` in the legacy `X-Robots-Tag` syntax: read as such",
                    );
                }
                pieces
            }
        };
        for piece in pieces {
            self.robots(piece, template);
        }
    }

    fn tdm(&mut self, name: &str, value: &str, source: Source) {
        let value = value.trim();
        if name == "tdm-reservation" {
            match value {
                "1" => self.found(Directive::TdmReservation(true), source),
                "0" => self.found(Directive::TdmReservation(false), source),
                _ => self.problem(
                    Code::InvalidValue,
                    source,
                    "`tdm-reservation` is `0` or `1`; anything else leaves it unset",
                ),
            }
        } else if value.is_empty() {
            self.problem(Code::InvalidValue, source, "an empty `tdm-policy`");
        } else {
            self.found(Directive::TdmPolicy(value.to_owned()), source);
        }
    }

    fn content_usage(&mut self, value: &[u8], source: Source) {
        let (value, _) = cut_bytes(value, self.limit);
        let trimmed = value.trim_ascii();
        let mut problems = Vec::new();
        let parsed = parse_content_usage(trimmed, &mut problems);
        let malformed = problems
            .iter()
            .any(|(c, _, _)| *c != RobotsCode::UnknownUsageLabel);
        for (code, _, message) in problems {
            let code = if code == RobotsCode::UnknownUsageLabel {
                Code::UnknownDirective
            } else {
                Code::MalformedField
            };
            self.problem(code, source.clone(), message);
        }
        if let Some(p) = parsed {
            if p.path.is_none() && !malformed {
                self.found(Directive::ContentUsage(p.preferences), source);
            }
        }
    }

    fn merge(&mut self) {
        let mut r = Rules::default();
        let mut conflicts = Vec::new();
        for f in &self.out.found {
            match &f.directive {
                Directive::NoIndex => r.index = false,
                Directive::NoFollow => r.follow = false,
                Directive::None => {
                    r.index = false;
                    r.follow = false;
                }
                Directive::NoArchive => r.archive = false,
                Directive::NoSnippet => r.snippet = false,
                Directive::MaxSnippet(n) => {
                    if r.max_snippet.is_some_and(|m| m != *n) {
                        conflicts.push(f.source.clone());
                    }
                    r.max_snippet = Some(tighter(r.max_snippet, *n));
                }
                Directive::MaxImagePreview(p) => {
                    if r.max_image_preview.is_some_and(|m| m != *p) {
                        conflicts.push(f.source.clone());
                    }
                    r.max_image_preview = Some(r.max_image_preview.map_or(*p, |m| m.min(*p)));
                }
                Directive::MaxVideoPreview(n) => {
                    if r.max_video_preview.is_some_and(|m| m != *n) {
                        conflicts.push(f.source.clone());
                    }
                    r.max_video_preview = Some(tighter(r.max_video_preview, *n));
                }
                Directive::UnavailableAfter(t) => {
                    r.unavailable_after = Some(r.unavailable_after.map_or(*t, |u| u.min(*t)));
                }
                Directive::NoImageIndex => r.image_index = false,
                Directive::NoTranslate => r.translate = false,
                Directive::IndexIfEmbedded => r.index_if_embedded = true,
                Directive::NoAi => r.noai = true,
                Directive::NoImageAi => r.noimageai = true,
                Directive::NoMl => r.noml = true,
                Directive::All => {}
                Directive::TdmReservation(b) => {
                    if r.tdm_reservation.is_some_and(|m| m != *b) {
                        conflicts.push(f.source.clone());
                    }
                    r.tdm_reservation = Some(*b);
                }
                Directive::TdmPolicy(u) => {
                    if r.tdm_policy.as_ref().is_some_and(|m| m != u) {
                        conflicts.push(f.source.clone());
                    }
                    r.tdm_policy = Some(u.clone());
                }
                Directive::ContentUsage(p) => r.content_usage = r.content_usage.combine(*p),
            }
        }
        if r.max_snippet == Some(0) {
            r.snippet = false;
        }
        self.out.rules = r;
        for source in conflicts {
            self.problem(
                Code::ConflictingValues,
                source,
                "another source gives this directive another value: the most restrictive \
                 is used (TDMRep: the later one)",
            );
        }
    }
}

/// Directives that take no value, as [`Reader::robots`] knows them.
const FLAGS: &[&str] = &[
    "noindex",
    "nofollow",
    "none",
    "noarchive",
    "nocache",
    "nosnippet",
    "noimageindex",
    "notranslate",
    "indexifembedded",
    "noai",
    "noimageai",
    "noml",
    "all",
    "index",
    "follow",
];

/// `noindex nofollow`: two or more known directives with spaces and no comma between them.
fn is_space_separated(name: &str) -> bool {
    let mut words = name.split_ascii_whitespace();
    let first = words.next();
    let rest: Vec<&str> = words.collect();
    first.is_some_and(|w| FLAGS.contains(&w))
        && !rest.is_empty()
        && rest.iter().all(|w| FLAGS.contains(w))
}

fn cut_bytes(value: &[u8], limit: usize) -> (&[u8], bool) {
    if value.len() <= limit {
        (value, false)
    } else {
        (&value[..limit], true)
    }
}

/// Reads a page's directives for `agent`: `headers` are the response's fields (name, value;
/// names in any case, a name may repeat), `html` the first bytes of its body when it is HTML.
/// Never fails, never panics; problems are in [`PageDirectives::diagnostics`].
pub fn evaluate<I, N, V>(
    headers: I,
    html: Option<&[u8]>,
    agent: &ProductToken,
    options: &Options,
) -> PageDirectives
where
    I: IntoIterator<Item = (N, V)>,
    N: AsRef<str>,
    V: AsRef<[u8]>,
{
    let mut reader = Reader {
        agent: agent.as_str(),
        limit: options.field_limit,
        out: PageDirectives {
            rules: Rules::default(),
            found: Vec::new(),
            unknown: Vec::new(),
            diagnostics: Vec::new(),
            html_scanned: 0,
        },
    };
    for (index, (name, value)) in headers.into_iter().enumerate() {
        let name = name.as_ref().trim().to_ascii_lowercase();
        let value = value.as_ref();
        let template = Source {
            kind: SourceKind::Header,
            name: name.clone(),
            agent: None,
            raw: String::new(),
            index,
            offset: 0,
            line: 0,
        };
        match name.as_str() {
            "robots-tag" | "x-robots-tag" => reader.robots_field(value, &template),
            "tdm-reservation" | "tdm-policy" => {
                let (v, _) = cut_bytes(value, options.field_limit);
                let text = String::from_utf8_lossy(v).into_owned();
                let source = Source {
                    raw: text.trim().to_owned(),
                    ..template
                };
                reader.tdm(&name, &text, source);
            }
            "content-usage" => {
                let source = Source {
                    raw: String::from_utf8_lossy(value.trim_ascii()).into_owned(),
                    ..template
                };
                reader.content_usage(value, source);
            }
            _ => {}
        }
    }
    if let Some(html) = html {
        let agent = reader.agent;
        let head = html::scan(html, options.html_budget, options.field_limit, |name| {
            name == "robots" || name == agent || name == "tdm-reservation" || name == "tdm-policy"
        });
        reader.out.html_scanned = head.scanned;
        if head.budget_hit {
            let source = Source {
                kind: SourceKind::Meta,
                name: String::new(),
                agent: None,
                raw: String::new(),
                index: head.metas.len(),
                offset: head.scanned,
                line: 0,
            };
            reader.problem(
                Code::HtmlBudget,
                source,
                format!(
                    "the head did not end within the first {} bytes: `<meta>` after them is not read",
                    options.html_budget
                ),
            );
        }
        for (index, meta) in head.metas.into_iter().enumerate() {
            let template = Source {
                kind: SourceKind::Meta,
                name: meta.name.clone(),
                agent: None,
                raw: String::new(),
                index,
                offset: meta.offset,
                line: meta.line,
            };
            let ours = meta.name == reader.agent && !meta.http_equiv;
            if !(meta.name == "robots" || ours || meta.name.starts_with("tdm-") || meta.http_equiv)
            {
                continue;
            }
            if meta.cut {
                reader.problem(
                    Code::FieldTooLong,
                    template.clone(),
                    "a `content` longer than the field limit: the rest is ignored",
                );
            }
            if meta.http_equiv {
                // `<meta http-equiv="X-Robots-Tag" content="…">`: the header's legacy syntax,
                // `agent:` prefixes included. Google documents the robots `<meta>` and the
                // header, not this pragma (HTML defines no such `http-equiv` state, browsers
                // ignore it), but sites write it meaning the header; it is read as the
                // header is, its directives placed at the element.
                let mut text: &str = &meta.content;
                if meta.cut {
                    text = text.rfind(',').map_or("", |i| &text[..i]);
                }
                for mut piece in field::legacy(text, true) {
                    piece.offset = 0;
                    reader.robots(piece, &template);
                }
                continue;
            }
            if meta.name.starts_with("tdm-") && !ours {
                if matches!(meta.name.as_str(), "tdm-reservation" | "tdm-policy") {
                    let source = Source {
                        raw: meta.content.trim().to_owned(),
                        ..template
                    };
                    reader.tdm(&meta.name, &meta.content, source);
                }
                continue;
            }
            let mut text: &str = &meta.content;
            if meta.cut {
                text = text.rfind(',').map_or("", |i| &text[..i]);
            }
            let agent = ours.then(|| meta.name.clone());
            for mut piece in field::legacy(text, false) {
                piece.agent = agent.clone();
                // A `<meta>`'s directives are placed at the element.
                piece.offset = 0;
                reader.robots(piece, &template);
            }
        }
    }
    reader.merge();
    reader.out
}
