//! The robots.txt core: parse bytes into a compiled [`Robots`], then answer [`Robots::check`].
//! No I/O.
//!
//! - `lexer`: one line → key, separator, value (nom).
//! - `parse`: lines → groups, rules and records, with [`Diagnostic`]s.
//! - `pattern`: percent-normalisation and `*`/`$` matching.
//! - `matcher`: group choice for a [`ProductToken`], longest match, [`Decision`].
//! - `prefix`, `segments`: the indexes that keep a check of an agent with many rules cheap
//!   (rules whose literal prefix fits the path; all wildcard segments found in one pass).
//! - `usage`, `sfv`: `Content-Usage`, `Content-Signal`, `License`, `LLM-Policy` (signals about
//!   the use of content, never crawl permissions) and the structured-field dictionaries they
//!   are written in.
//! - `lint`: the semantic lint (merged groups, dead rules) over the compiled rule lists.
//!
//! [`Diagnostic`]: crate::Diagnostic

/// Implements `Iterator` (with `DoubleEndedIterator`, `ExactSizeIterator`, `FusedIterator`,
/// `Clone` and `Debug`) for a view of the compiled file that gives each slot's item through
/// the `Robots` method `view`. Defined before the modules, so that `group` can use it too.
macro_rules! slot_iterator {
    ($(#[$doc:meta])* $name:ident, $slot:ty, $item:ty, $view:ident) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name<'a> {
            robots: &'a Robots,
            slots: std::slice::Iter<'a, $slot>,
        }

        impl<'a> Iterator for $name<'a> {
            type Item = $item;

            fn next(&mut self) -> Option<$item> {
                self.slots.next().map(|s| self.robots.$view(s))
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                self.slots.size_hint()
            }
        }

        impl DoubleEndedIterator for $name<'_> {
            fn next_back(&mut self) -> Option<Self::Item> {
                self.slots.next_back().map(|s| self.robots.$view(s))
            }
        }

        impl ExactSizeIterator for $name<'_> {}

        impl std::iter::FusedIterator for $name<'_> {}

        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_list().entries(self.clone()).finish()
            }
        }
    };
}

mod agent;
mod buckets;
mod canonical;
pub(crate) mod crawler_lint;
mod directive;
mod group;
mod lexer;
mod lint;
mod matcher;
mod parse;
mod path;
mod pattern;
mod prefix;
mod rate;
mod search;
mod segments;
mod sfv;
mod swar;
mod usage;

// The `Content-Usage` statement reader, for the response header (`crate::page`).
pub(crate) use usage::parse_content_usage;

use std::ops::Range;

pub use agent::{ProductToken, TokenError};
pub use directive::{Directive, OtherKey};
pub use group::{Agent, Agents, Group, Groups};
pub use matcher::{AgentRules, Decision, GroupMatch, Reason};
pub use parse::looks_like_html;
#[cfg(feature = "fetch")]
pub(crate) use path::is_robots_txt;
pub use path::{request_path, request_target, respelled, Respelled};
pub use rate::{RequestRate, TimeWindow, VisitTime};
pub use usage::{
    ContentSignals, PolicyLink, Preference, SignalRef, Signals, Usage, UsagePreferences,
    UsageRuleRef,
};

use crate::Diagnostic;

/// The parsing limit used unless [`Options::max_bytes`] raises it: Google reads the first
/// 500 KiB (512,000 bytes); RFC 9309 §2.5 requires at least 500 KiB.
pub const DEFAULT_MAX_BYTES: usize = 512_000;

/// google/robotstxt keeps at most this many bytes of a line (2083 × 8 − 1).
pub const GOOGLE_MAX_LINE_BYTES: usize = 16_663;

/// How to read a file and match URLs.
///
/// Every difference between the modes, in one place:
///
/// | | `Rfc` (default) | `Google` |
/// |---|---|---|
/// | percent-encoding | pattern **and** URL normalised (RFC 9309 §2.2.2): an ASCII character and its `%XX` are the same (`%62` = `b`, `%2F` = `/`), non-ASCII bytes are `%XX`, hex case is irrelevant; `*` and `$` match `%2A` and `%24` | only the pattern is escaped (non-ASCII → `%XX`, hex upper-cased); the URL is compared as given, `%62` ≠ `b` |
/// | the URL's spelling | judged as an HTTP client requests it ([`request_target`]): TAB, LF and CR removed, `\` read as `/`, dot segments (`/x/../`, `/%2e/`) resolved, so that `/x/../private` is `/private` | judged as written, as google/robotstxt does (Googlebot normalises before it asks); the engine and the command line normalise in both modes, as they stand for a client about to send the request |
/// | `Allow: /dir/index.html` | a plain rule | also allows `/dir/` exactly (google/robotstxt rewrites it to `/dir/$`) |
/// | keys | exact key or one of Google's misspellings | also any key that *starts with* a known key (`disallowed:` is `disallow`) |
/// | long lines | used whole (with a `line-too-long` warning) | cut at 16,663 bytes |
/// | `/robots.txt` | always allowed ("implicitly allowed", RFC 9309 §2.2.2) | matched like any path |
/// | non-UTF-8 bytes in a rule | the rule is dropped (`invalid-utf8` error) | the rule is used, bytes escaped (warning) |
/// | a BOM at the start of a later line | skipped (warning) | left in: the line is not understood (error) |
/// | `user-agent` values | read up to the first character that is not a letter, digit, `_` or `-`: `MJ12bot` is the group of `MJ12bot` | read up to the first that is not a letter, `_` or `-`, as google/robotstxt does: `MJ12bot` is the group of `MJ` (a warning says so) |
/// | a `user-agent` with no token in front (`User-agent:`, `User-agent: *bot`; in `Google` also `User-agent: 360Spider`) | its group applies to no crawler's token (a non-empty value: see the next row) | its group applies to the empty agent (`ProductToken::verbatim("")`), as in google/robotstxt's API |
/// | a `user-agent` value that is not a token (`UnicödeBöt`, `Foo Bar`, `*bot`) | also the group of a crawler given verbatim by that whole name ([`ProductToken::verbatim`]), case-insensitively (Unicode-aware); the warning stays | only its token in front counts, as in google/robotstxt: `ProductToken::verbatim("UnicödeBöt")` gets the `*` group |
/// | size limit | the first 512,000 bytes (RFC 9309 §2.5: at least 500 KiB) | the same, **unlike google/robotstxt's library**, which has none: Googlebot reads only the first 500 KiB, so rules after byte 512,000 are ignored here too (the one deliberate difference from the library; [`Options::max_bytes`] reads more) |
///
/// Common to both: Google's key misspellings and the missing colon (`disallow /x`, key and
/// value separated by spaces or tabs only) are accepted, `user-agent` values are read up to
/// their product token, a crawler gets the groups whose token equals its own (else `*`; see
/// [`ProductToken`]), and the longest match wins with `allow` on ties.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// RFC 9309, with the leniencies it allows.
    #[default]
    Rfc,
    /// google/robotstxt's behaviour, exactly, but for the size limit (see the table).
    Google,
}

impl Mode {
    /// `"rfc"` or `"google"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Rfc => "rfc",
            Mode::Google => "google",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;
    /// `"rfc"` or `"google"`, case-insensitively.
    fn from_str(s: &str) -> Result<Mode, String> {
        match s.to_ascii_lowercase().as_str() {
            "rfc" => Ok(Mode::Rfc),
            "google" => Ok(Mode::Google),
            _ => Err(format!(
                "unknown mode {s:?}: expected \"rfc\" or \"google\""
            )),
        }
    }
}

/// Parsing options.
///
/// Start from `Options::default()` and set the fields you need (`let mut options = Options::default();`
/// then `options.max_bytes = …`): the type is `#[non_exhaustive]`, so a new option is not a
/// breaking change.
///
/// A crawler that only asks for verdicts parses without looking for problems:
///
/// ```
/// use crawlgate::{Options, ProductToken, Robots};
///
/// let body = b"User-agent: *\nDisalow: /typo\nDisallow: /private/\n";
/// let mut options = Options::default();
/// options.diagnostics = false;
/// let quiet = Robots::parse_with(body, &options);
/// assert!(quiet.diagnostics.is_empty());
/// // The same rules as a parse that reports the misspelled key (and still uses it).
/// let full = Robots::parse(body);
/// assert_eq!(full.diagnostics.len(), 1);
/// let bot = ProductToken::new("ExampleBot")?;
/// for path in ["/typo", "/private/x", "/public"] {
///     assert_eq!(quiet.robots.is_allowed(&bot, path), full.robots.is_allowed(&bot, path));
/// }
/// # Ok::<(), crawlgate::TokenError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Matching and leniency mode.
    pub mode: Mode,
    /// Bytes read; content past this is ignored, and a line it cuts is dropped. Values below
    /// [`DEFAULT_MAX_BYTES`] are raised to it.
    pub max_bytes: usize,
    /// Whether to look for problems (default `true`). When `false`, [`Parsed::diagnostics`] is
    /// empty and the parse skips the lint and the messages (on the bench corpus it then takes
    /// about 30% less time); the compiled rules, and so every verdict, are the same. For a
    /// crawler that only asks for verdicts: the engine (feature `fetch`) parses stored files
    /// this way unless `CacheOptions::keep_diagnostics` is set.
    pub diagnostics: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::Rfc,
            max_bytes: DEFAULT_MAX_BYTES,
            diagnostics: true,
        }
    }
}

impl Options {
    /// Default options in `mode`.
    pub fn mode(mode: Mode) -> Self {
        Options {
            mode,
            ..Options::default()
        }
    }
}

/// The result of parsing: the rules and every problem found. Parsing never fails.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The compiled rules.
    pub robots: Robots,
    /// Problems, in line order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Allow or disallow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// `allow`.
    Allow,
    /// `disallow`.
    Disallow,
}

impl RuleKind {
    /// `"allow"` or `"disallow"`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Allow => "allow",
            RuleKind::Disallow => "disallow",
        }
    }
}

/// An `allow`/`disallow` rule while parsing (the compiled file keeps its matcher slot only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rule {
    pub kind: RuleKind,
    /// Added by Google mode for `Allow: …/index.html`.
    pub index_html: bool,
    pub line: u32,
    /// Index into `Robots::spellings` of the key and separator as written, or
    /// `Slot::NO_SPELLING` (then in `Robots::written`).
    pub spelling: u8,
    /// The value as written is the canonical text (and `$` when anchored); else it is in
    /// `Robots::written`.
    pub shared: bool,
    /// Compiling the value found nothing to report (no literal `$`, no control byte): a later
    /// rule with the same value may take its compiled form as it is.
    pub clean: bool,
}

/// Keys of `Robots::written`: `line << 2 | tag`.
const TAG_KEY: u64 = 0;
const TAG_VALUE: u64 = 1;
/// An `index_html` rule's source value (its text is the source's line).
const TAG_SOURCE: u64 = 2;
/// An `index_html` rule's own value, when not its canonical text.
const TAG_DERIVED: u64 = 3;

/// A rule's line as written, without comment and surrounding whitespace (`Disallow: /private`):
/// the key with its separator as written, then the value. The compiled file keeps each
/// distinct spelling of the key once rather than every line, so this is two borrowed parts;
/// it prints (`Display`, `to_string`) and compares with a `str` as the whole line.
#[derive(Debug, Clone, Copy)]
pub struct RuleText<'a> {
    key: &'a str,
    value: &'a str,
}

impl<'a> RuleText<'a> {
    /// The key and separator as written (`Disallow: `).
    pub fn key(&self) -> &'a str {
        self.key
    }

    /// The value as written (`/private`); for an `index_html` rule, its source rule's value.
    pub fn value(&self) -> &'a str {
        self.value
    }

    /// The line's length in bytes.
    pub fn len(&self) -> usize {
        self.key.len() + self.value.len()
    }

    /// Always `false` (a rule has a key): for symmetry with [`RuleText::len`].
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Does the line equal `s`?
    fn eq_str(&self, s: &str) -> bool {
        s.len() == self.len() && s.starts_with(self.key) && s.ends_with(self.value)
    }
}

impl std::fmt::Display for RuleText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if f.width().is_none() && f.precision().is_none() {
            f.write_str(self.key)?;
            f.write_str(self.value)
        } else {
            // Padding and alignment apply to the whole line.
            f.pad(&[self.key, self.value].concat())
        }
    }
}

impl PartialEq for RuleText<'_> {
    fn eq(&self, other: &RuleText<'_>) -> bool {
        self.len() == other.len()
            && self
                .key
                .bytes()
                .chain(self.value.bytes())
                .eq(other.key.bytes().chain(other.value.bytes()))
    }
}

impl Eq for RuleText<'_> {}

impl PartialEq<str> for RuleText<'_> {
    fn eq(&self, other: &str) -> bool {
        self.eq_str(other)
    }
}

impl PartialEq<&str> for RuleText<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.eq_str(other)
    }
}

impl PartialEq<String> for RuleText<'_> {
    fn eq(&self, other: &String) -> bool {
        self.eq_str(other)
    }
}

impl PartialEq<RuleText<'_>> for str {
    fn eq(&self, other: &RuleText<'_>) -> bool {
        other.eq_str(self)
    }
}

impl PartialEq<RuleText<'_>> for &str {
    fn eq(&self, other: &RuleText<'_>) -> bool {
        other.eq_str(self)
    }
}

/// A rule, as the file wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleRef<'a> {
    /// Allow or disallow.
    pub kind: RuleKind,
    /// 1-based line.
    pub line: u32,
    /// The line as written, without comment and surrounding whitespace (`Disallow: /private`);
    /// for an `index_html` rule, its source rule's line.
    pub text: RuleText<'a>,
    /// The path pattern as written (`/private`); for an `index_html` rule, the pattern derived
    /// from it (`/dir/$`).
    pub pattern: &'a str,
    /// `Mode::Google` only: this is the `/dir/$` rule google/robotstxt derives from
    /// `Allow: /dir/index.html` on the same line (`text` is that line).
    pub index_html: bool,
}

/// A `sitemap` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sitemap<'a> {
    /// The absolute URL, as written.
    pub url: &'a str,
    /// 1-based line.
    pub line: u32,
}

/// A record outside the protocol (`crawl-delay`, `host`, …), kept for crawlers that want it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    /// Which record.
    pub key: OtherKey,
    /// The value as written (lossily decoded as UTF-8).
    pub value: &'a str,
    /// 1-based line.
    pub line: u32,
    /// Index into [`Robots::groups`] of the group it appeared in, if any.
    pub group: Option<usize>,
}

slot_iterator!(
    /// The `sitemap` records of a file, in order: see [`Robots::sitemaps`].
    Sitemaps,
    SitemapSlot,
    Sitemap<'a>,
    sitemap_at
);

slot_iterator!(
    /// The records outside the protocol of a file, in order: see [`Robots::records`].
    Records,
    RecordSlot,
    Record<'a>,
    record_at
);

/// Run `i` of runs laid end to end, whose starts `start` reads from `starts`: a run ends where
/// the next one starts, the last at `end` (the groups' agents and rules, the matcher's tokens
/// and group lists). `None` past the last run.
fn run_at<T>(
    starts: &[T],
    i: usize,
    end: usize,
    start: impl Fn(&T) -> usize,
) -> Option<Range<usize>> {
    let first = start(starts.get(i)?);
    Some(first..starts.get(i + 1).map_or(end, &start))
}

/// A [`Sitemap`] as the compiled file keeps it: its URL in the text arena.
#[derive(Debug, Clone)]
pub(crate) struct SitemapSlot {
    pub url: Range<u32>,
    pub line: u32,
}

/// A [`Record`] as the compiled file keeps it: its value in the text arena.
#[derive(Debug, Clone)]
pub(crate) struct RecordSlot {
    pub value: Range<u32>,
    pub line: u32,
    /// [`RecordSlot::NO_GROUP`] before the first group.
    pub group: u32,
    pub key: OtherKey,
}

impl RecordSlot {
    pub const NO_GROUP: u32 = u32::MAX;
}

/// A parsed, compiled robots.txt: cheap to share (`Send + Sync`), answers in nanoseconds.
///
/// ```
/// use crawlgate::{ProductToken, Robots};
/// let parsed = Robots::parse(b"User-agent: *\nDisallow: /private\nAllow: /private/ok\n");
/// assert!(parsed.diagnostics.is_empty());
/// let bot = ProductToken::new("ExampleBot")?;
/// let d = parsed.robots.check(&bot, "https://example.com/private/x?y=1");
/// assert!(!d.allowed);
/// assert_eq!(d.rule().map(|r| r.line), Some(2));
/// assert!(parsed.robots.is_allowed(&bot, "/private/ok"));
/// # Ok::<(), crawlgate::TokenError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Robots {
    mode: Mode,
    /// The one arena of text: rule values as written, the rule keys' spellings, usage records'
    /// texts, and the canonical patterns that differ from the value they come from (a pattern
    /// that is canonical as written points at its value's bytes).
    texts: String,
    /// The distinct spellings of rule keys with their separator (`Disallow: `, `allow:`), in
    /// `texts`: usually one to four per file, instead of a copy per line.
    spellings: Vec<Range<u32>>,
    /// The texts a rule's slot does not give, keyed by `line << 2 | tag` (see `TAG_KEY`),
    /// sorted: values that are not their canonical text, `index_html` rules' source values,
    /// key spellings past `spellings`' limit. Few.
    written: Vec<(u64, Range<u32>)>,
    groups: group::GroupTable,
    index: matcher::Index,
    sitemaps: Vec<SitemapSlot>,
    records: Vec<RecordSlot>,
    /// `content-usage`, `content-signal`, `license`, `llm-policy`: boxed, and only when the
    /// file has any (few do), so that every other compiled file is 88 bytes smaller (see
    /// [`Robots::usage_records`]).
    usage: Option<Box<usage::Records>>,
    bytes_used: usize,
}

impl Robots {
    /// Parses with default [`Options`] ([`Mode::Rfc`], 512,000 bytes).
    pub fn parse(input: &[u8]) -> Parsed {
        parse::parse(input, &Options::default())
    }

    /// Parses with `options`.
    pub fn parse_with(input: &[u8], options: &Options) -> Parsed {
        parse::parse(input, options)
    }

    /// An empty rule set: everything allowed.
    pub fn allow_all(mode: Mode) -> Robots {
        parse::parse(b"", &Options::mode(mode)).robots
    }

    /// The mode the file was parsed in.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The groups, in file order.
    ///
    /// ```
    /// use crawlgate::{Agent, Robots};
    /// let robots = Robots::parse(b"User-agent: Googlebot\nUser-agent: *\nDisallow: /x\n").robots;
    /// let group = robots.groups().next().expect("one group");
    /// let agents: Vec<_> = group.agents().collect();
    /// assert_eq!(agents, [(Agent::Token("googlebot"), 1), (Agent::Star, 2)]);
    /// assert_eq!(group.line(), 1);
    /// let rules: Vec<_> = group.rules().filter_map(|i| robots.rule(i as usize)).collect();
    /// assert_eq!(rules[0].pattern, "/x");
    /// ```
    pub fn groups(&self) -> Groups<'_> {
        Groups::new(self)
    }

    /// The group at `index` (see [`Group::index`]).
    pub fn group(&self, index: usize) -> Option<Group<'_>> {
        (index < self.groups.len()).then(|| Group::new(self, index))
    }

    /// The agent an [`group::AgentSlot`] names, and its line.
    fn agent_at(&self, a: &group::AgentSlot) -> (Agent<'_>, u32) {
        let agent = match a.who {
            group::AgentSlot::STAR => Agent::Star,
            group::AgentSlot::NOBODY => Agent::Nobody,
            entry => Agent::Token(self.index.entry_token(entry)),
        };
        (agent, a.line)
    }

    /// Number of rules (allow and disallow lines that are used).
    pub fn rule_count(&self) -> usize {
        self.groups.rule_count() as usize
    }

    /// The rule at `index` (see [`Group::rules`]).
    pub fn rule(&self, index: usize) -> Option<RuleRef<'_>> {
        self.index.slot(index).map(|s| self.slot_ref(s))
    }

    /// The `sitemap` records, in file order.
    pub fn sitemaps(&self) -> Sitemaps<'_> {
        Sitemaps {
            robots: self,
            slots: self.sitemaps.iter(),
        }
    }

    /// The records outside the protocol, in file order.
    pub fn records(&self) -> Records<'_> {
        Records {
            robots: self,
            slots: self.records.iter(),
        }
    }

    fn sitemap_at(&self, s: &SitemapSlot) -> Sitemap<'_> {
        Sitemap {
            url: self.text_at(&s.url),
            line: s.line,
        }
    }

    fn record_at(&self, r: &RecordSlot) -> Record<'_> {
        Record {
            key: r.key,
            value: self.text_at(&r.value),
            line: r.line,
            group: (r.group != RecordSlot::NO_GROUP).then_some(r.group as usize),
        }
    }

    /// How many input bytes were read (at most the size limit).
    pub fn bytes_used(&self) -> usize {
        self.bytes_used
    }

    /// The first usable `crawl-delay` of the groups that apply to `token`, in seconds: a
    /// finite number, 0 or more. Unusable values (`NaN`, `inf`, `-5`, `10 seconds`; lint code
    /// `unusable-crawl-delay`) are skipped. Never affects [`Robots::check`].
    pub fn crawl_delay(&self, token: &ProductToken) -> Option<f64> {
        self.group_records(token, OtherKey::CrawlDelay)
            .find_map(|r| parse::crawl_delay_secs(r.value))
    }

    /// The first well-formed `request-rate` of the groups that apply to `token`
    /// ([`RequestRate::parse`]). Never affects [`Robots::check`].
    pub fn request_rate(&self, token: &ProductToken) -> Option<RequestRate> {
        self.group_records(token, OtherKey::RequestRate)
            .find_map(|r| RequestRate::parse(r.value))
    }

    /// The first well-formed `visit-time` of the groups that apply to `token`
    /// ([`VisitTime::parse`]). Never affects [`Robots::check`].
    pub fn visit_time(&self, token: &ProductToken) -> Option<VisitTime> {
        self.group_records(token, OtherKey::VisitTime)
            .find_map(|r| VisitTime::parse(r.value))
    }

    /// The `key` records of the groups that apply to `token`, in file order.
    fn group_records<'a>(
        &'a self,
        token: &ProductToken,
        key: OtherKey,
    ) -> impl Iterator<Item = Record<'a>> + 'a {
        let groups = self.index.groups_for(token);
        self.records()
            .filter(move |r| r.key == key)
            .filter(move |r| r.group.is_some_and(|g| groups.contains(&(g as u32))))
    }

    /// The rules written back as a clean robots.txt: the global records (those before the first
    /// group, then `License` and `LLM-Policy`), then each group's `user-agent` lines (as product
    /// tokens) and its rules as written (`Disallow:` when it has none, so that the next group's
    /// agents do not join it), then the records of the group (its `Content-Usage` and
    /// `Content-Signal` lines last), then the sitemaps. Parsing the result gives the same groups, rules
    /// and records; comments, unusable lines and line numbers are not kept.
    pub fn to_robots_txt(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        // Printed after a group, a global record would belong to that group.
        let globals: Vec<_> = self.records().filter(|r| r.group.is_none()).collect();
        for rec in &globals {
            let _ = writeln!(out, "{}: {}", rec.key.as_str(), rec.value);
        }
        for l in &self.usage_records().licenses {
            let _ = writeln!(out, "License: {}", l.url);
        }
        for l in &self.usage_records().llm_policies {
            let _ = writeln!(out, "LLM-Policy: {}", l.url);
        }
        let globals = !globals.is_empty()
            || !self.usage_records().licenses.is_empty()
            || !self.usage_records().llm_policies.is_empty();
        for g in self.groups() {
            let gi = g.index();
            if gi > 0 || globals {
                out.push('\n');
            }
            for (agent, _) in g.agents() {
                let _ = match agent {
                    Agent::Star => writeln!(out, "User-agent: *"),
                    Agent::Token(t) => writeln!(out, "User-agent: {t}"),
                    Agent::Nobody => writeln!(out, "User-agent:"),
                };
            }
            let mut written = 0;
            for rule in g.rules().filter_map(|i| self.rule(i as usize)) {
                if rule.index_html {
                    continue;
                }
                let key = match rule.kind {
                    RuleKind::Allow => "Allow",
                    RuleKind::Disallow => "Disallow",
                };
                let _ = writeln!(out, "{key}: {}", rule.pattern);
                written += 1;
            }
            if written == 0 {
                out.push_str("Disallow:\n");
            }
            for rec in self.records().filter(|r| r.group == Some(gi)) {
                let _ = writeln!(out, "{}: {}", rec.key.as_str(), rec.value);
            }
            for r in self
                .usage_records()
                .usage
                .iter()
                .filter(|r| r.group as usize == gi)
            {
                let r = self.usage_ref(r);
                match r.path {
                    Some(path) => writeln!(out, "Content-Usage: {path} {}", r.statement),
                    None => writeln!(out, "Content-Usage: {}", r.statement),
                }
                .unwrap_or_default();
            }
            for s in self
                .usage_records()
                .signals
                .iter()
                .filter(|s| s.group as usize == gi)
            {
                let _ = writeln!(out, "Content-Signal: {}", self.text_at(&s.value));
            }
        }
        if !self.sitemaps.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            for s in self.sitemaps() {
                let _ = writeln!(out, "Sitemap: {}", s.url);
            }
        }
        out
    }

    /// The rule of a slot.
    fn slot_ref(&self, s: &matcher::Slot) -> RuleRef<'_> {
        use matcher::Slot;
        let index_html = s.flags & Slot::INDEX_HTML != 0;
        let pattern = if s.flags & Slot::SHARED != 0 {
            let end = s.start + s.len(self.texts.as_bytes()) + u32::from(s.anchored());
            self.text_at(&(s.start..end))
        } else {
            self.written(s.line, if index_html { TAG_DERIVED } else { TAG_VALUE })
        };
        let key = match self.spellings.get(usize::from(s.spelling())) {
            Some(r) => self.text_at(r),
            None => self.written(s.line, TAG_KEY),
        };
        RuleRef {
            kind: if s.flags & Slot::ALLOW != 0 {
                RuleKind::Allow
            } else {
                RuleKind::Disallow
            },
            line: s.line,
            text: RuleText {
                key,
                value: if index_html {
                    self.written(s.line, TAG_SOURCE)
                } else {
                    pattern
                },
            },
            pattern,
            index_html,
        }
    }

    /// The text `Robots::written` holds for `line` and `tag`.
    fn written(&self, line: u32, tag: u64) -> &str {
        let key = u64::from(line) << 2 | tag;
        match self.written.binary_search_by_key(&key, |e| e.0) {
            Ok(i) => self.text_at(&self.written[i].1),
            Err(_) => "",
        }
    }

    /// [`Robots::heap_size`] by part, for the memory survey (`benches/tools/memory_survey.rs`):
    /// where a compiled file's bytes go. The parts add up to `heap_size`.
    #[doc(hidden)]
    pub fn heap_parts(&self) -> Vec<(&'static str, usize)> {
        let mut parts = vec![
            ("text arena", self.texts.capacity()),
            // Key spellings and texts kept out of line.
            ("rule side tables", self.rules_heap_size()),
            ("groups and agents", self.groups.heap_size()),
            ("sitemaps and records", self.records_heap_size()),
            ("usage records", self.usage_heap_size()),
        ];
        parts.extend(self.index.heap_parts());
        parts
    }

    /// The heap bytes this `Robots` holds, for sizing caches and for bounding what a hostile
    /// file can cost: the capacities of its vectors, strings and boxed strings (text arena,
    /// rules, groups and their agents, sitemaps, records, usage records) and of the matcher's
    /// per-agent index, including each agent's lazily built parts (its precedence-ordered
    /// list, and the buckets or prefix index of an agent with more than a few rules, built on
    /// a check after the file's first) once they are built.
    /// Allocator overhead and the `Robots` value itself are not counted. `tests/memory.rs`
    /// holds it to a counting allocator.
    pub fn heap_size(&self) -> usize {
        self.texts.capacity()
            + self.rules_heap_size()
            + self.groups.heap_size()
            + self.records_heap_size()
            + self.usage_heap_size()
            + self.index.heap_size()
    }
}

impl Robots {
    /// The usage records (`content-usage`, `content-signal`, `license`, `llm-policy`), empty
    /// when the file has none.
    pub(crate) fn usage_records(&self) -> &usage::Records {
        static EMPTY: usage::Records = usage::Records::EMPTY;
        self.usage.as_deref().unwrap_or(&EMPTY)
    }

    /// Heap bytes of the usage records, their box included.
    fn usage_heap_size(&self) -> usize {
        self.usage
            .as_deref()
            .map_or(0, |u| std::mem::size_of::<usage::Records>() + u.heap_size())
    }

    /// Heap bytes of the sitemaps and records (their texts are in the arena).
    fn records_heap_size(&self) -> usize {
        use std::mem::size_of;
        self.sitemaps.capacity() * size_of::<SitemapSlot>()
            + self.records.capacity() * size_of::<RecordSlot>()
    }

    /// Heap bytes of what rules keep outside the index's slots.
    fn rules_heap_size(&self) -> usize {
        use std::mem::size_of;
        self.spellings.capacity() * size_of::<Range<u32>>()
            + self.written.capacity() * size_of::<(u64, Range<u32>)>()
    }
}
