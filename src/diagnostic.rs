//! Problems found while parsing: a stable [`Code`], a [`Severity`], a line and a byte span.
//!
//! The split between errors and warnings is Search Console's: an **error** means the line (or the
//! part named) is not used; a **warning** means it is still used, perhaps adjusted. Codes are
//! stable kebab-case identifiers that scripts may match on; messages are for people and may change.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

/// How bad a [`Diagnostic`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The line is used, perhaps adjusted (a typo accepted, a value cut to its product token…).
    Warning,
    /// The line is not used.
    Error,
}

impl Severity {
    /// `"error"` or `"warning"`, as printed by the linter.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Defines a catalogue of diagnostic codes: the enum, `ALL`, `as_str`, `default_severity`,
/// `from_name` and `Display`. Shared by the robots.txt and the sitemap catalogues so that both
/// behave alike.
macro_rules! codes {
    ($(#[$enum_doc:meta])* $Code:ident { $( $(#[$doc:meta])* $variant:ident = $name:literal, $sev:ident; )* }) => {
        $(#[$enum_doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum $Code {
            $( $(#[$doc])* $variant, )*
        }

        impl $Code {
            /// Every code, in catalogue order.
            pub const ALL: &'static [$Code] = &[ $( $Code::$variant, )* ];

            /// The stable kebab-case name, e.g. `"unknown-directive"`.
            pub fn as_str(self) -> &'static str {
                match self { $( $Code::$variant => $name, )* }
            }

            /// The severity this code has unless the parsing mode says otherwise
            /// (see [`Diagnostic::severity`]).
            pub fn default_severity(self) -> $crate::diagnostic::Severity {
                match self { $( $Code::$variant => $crate::diagnostic::Severity::$sev, )* }
            }

            /// Looks a code up by its kebab-case name.
            pub fn from_name(name: &str) -> Option<$Code> {
                match name { $( $name => Some($Code::$variant), )* _ => None }
            }
        }

        impl std::fmt::Display for $Code {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
// Used by the sitemap catalogue; without that feature only by this file's own expansion.
#[cfg_attr(not(feature = "sitemap"), allow(unused_imports))]
pub(crate) use codes;

codes! {
    /// The stable identifier of a kind of robots.txt problem.
    ///
    /// [`Code::as_str`] gives the kebab-case name used by the linter's output and JSON.
    Code {
    /// A line that is neither a `key: value` record nor a comment.
    InvalidLine = "invalid-line", Error;
    /// A `key: value` line whose key crawlgate does not know.
    UnknownDirective = "unknown-directive", Error;
    /// An `allow`, `disallow`, `content-usage` or `content-signal` line before the first
    /// `user-agent` line.
    RuleOutsideGroup = "rule-outside-group", Error;
    /// An `allow`/`disallow` path that starts with neither `/` nor `*`: it can never match.
    InvalidPath = "invalid-path", Error;
    /// A `user-agent` line with no value: its group applies to no crawler.
    EmptyUserAgent = "empty-user-agent", Error;
    /// A `user-agent` value with no product token in front (`*bot`, `/1.0`): it matches no
    /// crawler's product token (in `Mode::Rfc`, only a crawler given that name verbatim).
    InvalidUserAgent = "invalid-user-agent", Error;
    /// A `sitemap` value that is not an absolute `http`/`https` URL.
    InvalidSitemapUrl = "invalid-sitemap-url", Error;
    /// Content after the parsing size limit: ignored, including a line the limit cuts.
    ContentAfterLimit = "content-after-limit", Error;
    /// Bytes that are not UTF-8 inside a rule's value.
    InvalidUtf8 = "invalid-utf8", Error;
    /// A `content-usage` or `content-signal` preference that is not understood: a statement
    /// that is not a structured-field dictionary (draft-ietf-aipref-vocab §6.5: every
    /// preference of the rule is then unknown), a label whose value is not `y`/`n`
    /// (`yes`/`no` for `content-signal`), a `content-usage` path with nothing after it.
    MalformedPreference = "malformed-preference", Error;
    /// A `content-usage` value whose first part looks like a path but does not start with `/`:
    /// it is read as part of the preference (draft-ietf-aipref-attach §3.2), which then does not
    /// parse, so the rule states nothing.
    InvalidUsagePath = "invalid-usage-path", Error;
    /// A `license` value that is not an absolute `http`/`https` URL, or an `llm-policy` value
    /// that is neither such a URL nor a path starting with `/`.
    InvalidPolicyUrl = "invalid-policy-url", Error;
    /// An `allow` and a `disallow` with the same pattern for the same agents: the `disallow`
    /// is never used, because `allow` wins the tie.
    ConflictingRules = "conflicting-rules", Error;
    /// A rule that can never decide: for every agent it applies to, a rule of the other kind
    /// with precedence over it (longer, or as long and an `allow`) matches every path it
    /// matches (`Allow: /*` makes `Disallow: /a` dead).
    ShadowedRule = "shadowed-rule", Error;
    /// A misspelled key that is accepted (`dissallow`, `useragent`, `site-map`…).
    MisspelledKey = "misspelled-key", Warning;
    /// A line without a colon read as `key value` because it has exactly two tokens.
    MissingColon = "missing-colon", Warning;
    /// A `user-agent` value read as its leading product token (`Googlebot/2.1` → `googlebot`).
    AgentNotToken = "agent-not-token", Warning;
    /// A record outside the protocol (`crawl-delay`, `host`, …): kept, but Google ignores it.
    IgnoredDirective = "ignored-directive", Warning;
    /// A `crawl-delay` whose value is not a number of seconds a crawler can use (`NaN`, `inf`,
    /// `-5`, `1e400`, `10 seconds`): crawlgate's gate skips it, as it skips the value of any
    /// unusable `crawl-delay`, and spaces requests by the agent's other values or its default.
    UnusableCrawlDelay = "unusable-crawl-delay", Warning;
    /// A `request-rate` whose value is not `n/m[s|m|h]` with an optional `HHMM-HHMM` window
    /// (`1/0`, `0/5`, `one per second`): crawlgate's gate skips it.
    UnusableRequestRate = "unusable-request-rate", Warning;
    /// A `*` at the end of a path pattern, which changes nothing.
    RedundantWildcard = "redundant-wildcard", Warning;
    /// A `$` that is not at the end of a pattern: it is an ordinary character there.
    LiteralDollar = "literal-dollar", Warning;
    /// A control character in a rule's path (`ESC`, `TAB`…): matched as written, but a URL
    /// carries it percent-encoded, and a terminal showing the rule would obey it.
    ControlInPath = "control-in-path", Warning;
    /// A line longer than Google's 16,663-byte line limit; Google cuts it.
    LineTooLong = "line-too-long", Warning;
    /// A byte order mark that is not at the very start of the file.
    MisplacedBom = "misplaced-bom", Warning;
    /// A NUL byte: the rest of its line is ignored.
    NulByte = "nul-byte", Warning;
    /// A `user-agent` line that joined an earlier group across a non-group line
    /// (`crawl-delay`, `sitemap`, …), so that group's rules apply to both.
    AgentsJoined = "agents-joined", Warning;
    /// The body looks like HTML, not robots.txt; only its valid lines are used.
    HtmlBody = "html-body", Warning;
    /// A label in a `content-usage` or `content-signal` statement that its vocabulary does not
    /// define: ignored, as the vocabulary requires. Labels of earlier drafts (`train-genai`,
    /// `ai-use`, `bots`) and of the other record get a hint.
    UnknownUsageLabel = "unknown-usage-label", Warning;
    /// A second group for an agent that already has one: RFC 9309 §2.2.1 merges them, which
    /// may not be what the author meant.
    DuplicateGroup = "duplicate-group", Warning;
    /// A rule repeated with the same kind and pattern for the same agents: it changes nothing.
    DuplicateRule = "duplicate-rule", Warning;
    /// A group with `user-agent` lines and no `allow`/`disallow` line at the end of the file:
    /// its agents may crawl everything, instead of following the `*` group's rules.
    EmptyGroup = "empty-group", Warning;
    /// A `user-agent` value that is a whole User-Agent header or holds spaces (`Brightbot 1.0`,
    /// `Mozilla/5.0 (compatible; GPTBot/1.2; …)`): read as its leading product token, which for
    /// a browser-style header is `mozilla`; a reader that takes the value whole matches nothing.
    UserAgentHeader = "user-agent-header", Warning;
    /// A `content-signal` line: Search Console's robots.txt report shows it as "Syntax not
    /// understood", because Google does not know the record; it is still read (by crawlers that
    /// read it) and changes nothing else in the file.
    SignalNotUnderstood = "signal-not-understood", Warning;
    /// A group whose rules block the whole site (`Disallow: /`) while its `content-signal` or
    /// `content-usage` lines allow a use: preferences apply only to what may be crawled, so the
    /// `yes` says nothing, and the file says two things.
    BlockedButSignalled = "blocked-but-signalled", Warning;
    /// A `crawl-delay` in a `bingbot` group that differs from the `*` group's: Bing takes
    /// `crawl-delay` from the `*` group even when a `bingbot` group exists.
    BingCrawlDelay = "bing-crawl-delay", Warning;
    /// With a crawler catalogue: a group's product token that no catalogued crawler sends but
    /// that is a near miss of one (`GPT-Bot` for `GPTBot`): the crawler follows `*` instead.
    NearMissAgent = "near-miss-agent", Warning;
    /// With a crawler catalogue: a crawler allowed everywhere by a group of its own while the
    /// file's `content-signal` or `content-usage` for it refuses the use it crawls for
    /// (`ai-train=no` for a training crawler); one that reads only the rules crawls and uses.
    AllowedButRefused = "allowed-but-refused", Warning;
}}

/// One problem in a parsed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What kind of problem.
    pub code: Code,
    /// Error (not used) or warning (used).
    pub severity: Severity,
    /// 1-based line number.
    pub line: u32,
    /// Byte range in the input that the problem is about; always inside the input.
    pub span: Range<usize>,
    /// A sentence for people (static where it can be, so clean-but-noisy files stay cheap).
    pub message: Cow<'static, str>,
}

impl Diagnostic {
    /// The 1-based column of the span's start, counted in characters of `source` (invalid UTF-8
    /// sequences count as one character each), as editors and the linter show it.
    pub fn column(&self, source: &[u8]) -> usize {
        let start = self.span.start.min(source.len());
        let line_start = source[..start]
            .iter()
            .rposition(|&b| b == b'\n' || b == b'\r')
            .map_or(0, |i| i + 1);
        String::from_utf8_lossy(&source[line_start..start])
            .chars()
            .count()
            + 1
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: {}[{}]: {}",
            self.line, self.severity, self.code, self.message
        )
    }
}
