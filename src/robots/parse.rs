//! Lines → groups, rules and records, with diagnostics ([RFC 9309 §2.1–2.2], [§2.5]).
//!
//! One pass over the bytes: split lines (LF, CR, CRLF), skip a leading (partial) BOM, apply the
//! size and line limits, lex each line, and build groups exactly as google/robotstxt does: a
//! `user-agent` line after a rule starts a new group; `sitemap`, unknown and other records
//! neither start nor end one. Work is linear in the input; a clean line allocates nothing.
//!
//! [RFC 9309 §2.1–2.2]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.1
//! [§2.5]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.5

use std::borrow::Cow;

use nom::Offset;

use super::agent::{fold_name, leading_token, ProductToken};
use super::crawler_lint;
use super::directive::{directive_of, Directive, OtherKey, Spelling};
use super::lexer::{is_ws, lex_common, lex_content, Lexed, Separator};
use super::rate::RequestRate;
use super::usage::{self, PolicyLink, SignalLine, UsageRule};
use super::{
    group, lint, matcher, pattern, Mode, Options, Parsed, RecordSlot, Robots, Rule, RuleKind,
    SitemapSlot, DEFAULT_MAX_BYTES, GOOGLE_MAX_LINE_BYTES, TAG_DERIVED, TAG_KEY, TAG_SOURCE,
    TAG_VALUE,
};
use matcher::Slot;

/// Distinct key spellings a file keeps in `Robots::spellings` (each rule looks them up; a
/// slot has three bits for one).
const MAX_SPELLINGS: usize = Slot::NO_SPELLING as usize;
use crate::diagnostic::{Code, Diagnostic, Severity};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where we are in the group structure.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// No `user-agent` line yet.
    Start,
    /// In a run of `user-agent` lines; `stray` is the line of a non-group record seen since
    /// the last one (the "agents joined" trap).
    Agents { stray: Option<u32> },
    /// After a rule: the next `user-agent` line starts a new group.
    Rules,
}

struct Builder<'a> {
    input: &'a [u8],
    mode: Mode,
    /// `Options::diagnostics`: when `false`, nothing is pushed to `diagnostics`, the spans
    /// are not kept and the lint does not run.
    diagnose: bool,
    diagnostics: Vec<Diagnostic>,
    /// Rule values as written, key spellings, and canonical patterns that differ from their
    /// value.
    texts: String,
    /// See `Robots::spellings`, `Robots::written`.
    spellings: Vec<std::ops::Range<u32>>,
    written: Vec<(u64, std::ops::Range<u32>)>,
    /// The spelling the last `disallow` and the last `allow` rule used: the next one most
    /// likely uses it too.
    last_spelling: [LastSpelling; 2],
    /// Without `diagnose`: every rule's matcher slot, in file order, made in the rule step
    /// (the compiled file's only record of a rule; making them from `rules` and `compiled`
    /// in `finish` cost about 44 instructions a rule).
    slots: Vec<Slot>,
    /// With `diagnose`: the rules and their compiled patterns, which the lint reads; `finish`
    /// makes the slots from them (making both in the rule step cost more).
    rules: Vec<Rule>,
    compiled: Vec<pattern::Compiled>,
    /// Working space for canonical patterns.
    scratch: Vec<u8>,
    groups: group::GroupTable,
    /// The agents' tokens, lowercased, end to end; an agent's `who` is an index into
    /// `agent_tokens` until the matcher gives each distinct token its entry.
    agent_text: String,
    agent_tokens: Vec<std::ops::Range<u32>>,
    /// `Mode::Rfc`: each `user-agent` value that is not a product token (`UnicödeBöt`,
    /// `Foo Bar`), folded into `agent_text`, with its group: the name a crawler given
    /// verbatim matches ([`ProductToken::verbatim`]).
    agent_names: Vec<(u32, std::ops::Range<u32>)>,
    sitemaps: Vec<SitemapSlot>,
    records: Vec<RecordSlot>,
    state: State,
    /// Whether the input holds a NUL at all: most files do not, so lines skip the search.
    has_nul: bool,
    /// The input read as text when it is all UTF-8 (most files), validated once.
    text: Option<&'a str>,
    /// `content-usage`, `content-signal`, `license`, `llm-policy`.
    usage: usage::Records,
    /// Input span of each rule (parallel to `rules`) and of each agent (groups' agents in
    /// order), for the semantic lint; dropped after parsing.
    rule_spans: Vec<std::ops::Range<usize>>,
    agent_spans: Vec<std::ops::Range<usize>>,
    /// Scratch for the problems of one usage value.
    problems: Vec<usage::Problem>,
    /// A derived `/dir/$` rule was added (Google mode), for the lint.
    derived: bool,
    /// Where the previous group's rules are, for `repeated`: how many rules before the
    /// current group's the previous group's start, and where they end.
    echo: (u32, u32),
    /// Without `diagnose`: the rules (indices, ascending) whose compile reported a literal `$`
    /// or a control byte, which `repeated` never shares (the parse with diagnostics reports
    /// them on every line). Rare: most files have none.
    unclean: Vec<u32>,
    /// A `content-signal` line got its `signal-not-understood` (one per file).
    signal_noted: bool,
}

pub(crate) fn parse(input: &[u8], options: &Options) -> Parsed {
    let limit = options.max_bytes.max(DEFAULT_MAX_BYTES);
    let body_end = input.len().min(limit);
    // Room for a rule in 16 bytes, in the vectors this parse fills (the others stay empty).
    let (quiet_rules, loud_rules) = match options.diagnostics {
        true => (0, body_end / 16),
        false => (body_end / 16, 0),
    };
    let mut b = Builder {
        input,
        mode: options.mode,
        diagnose: options.diagnostics,
        diagnostics: Vec::new(),
        // Rough sizes, to avoid most regrowth (a file of rules holds one in 30 bytes or so, and
        // one in 16 at most in the bench corpus; its values and their canonical texts up to
        // three quarters of its bytes); `finish` gives back the rest.
        texts: String::with_capacity(body_end / 4 * 3),
        spellings: Vec::new(),
        written: Vec::new(),
        last_spelling: [LastSpelling::NONE; 2],
        slots: Vec::with_capacity(quiet_rules),
        rules: Vec::with_capacity(loud_rules),
        compiled: Vec::with_capacity(loud_rules),
        scratch: Vec::new(),
        // The agents' tokens, dropped after parsing: one `user-agent` line in about 500 bytes
        // of the bench corpus, its token about 8 bytes; room for four times that spares their
        // regrowth (0.5 M instructions of the corpus parse; less room, or a floor for small
        // files, saved less). Not the group table, which is kept: reserved, then shrunk, it
        // cost more than its regrowth.
        groups: group::GroupTable::default(),
        agent_text: String::with_capacity(body_end / 16),
        agent_tokens: Vec::with_capacity(body_end / 128),
        agent_names: Vec::new(),
        sitemaps: Vec::new(),
        records: Vec::new(),
        state: State::Start,
        has_nul: memchr::memchr(0, input).is_some(),
        // SIMD validation: 1.5 M instructions of the corpus parse with `std::str::from_utf8`.
        text: simdutf8::basic::from_utf8(&input[..body_end]).ok(),
        usage: usage::Records::default(),
        rule_spans: Vec::with_capacity(loud_rules),
        agent_spans: Vec::with_capacity(if options.diagnostics {
            body_end / 256 + 4
        } else {
            0
        }),
        problems: Vec::new(),
        derived: false,
        echo: (0, 0),
        unclean: Vec::new(),
        signal_noted: false,
    };

    // google/robotstxt skips any prefix of the BOM (EF, EF BB, EF BB BF) at the very start.
    let mut pos = input.iter().zip(BOM).take_while(|(a, b)| a == b).count();

    let truncated = input.len() > limit;
    b.check_html(pos, body_end);

    let mut line_no: u32 = 0;
    let mut cut_at = None;
    let line_ends = LineEnds::new();
    while pos < body_end {
        let rest = &input[pos..body_end];
        // One search finds the line end, or the comment's `#` first and then the line end:
        // most lines have no comment, and pay one search instead of two.
        let (hash, eol) = match line_ends.find(rest).map(|i| (i, rest.get(i))) {
            Some((i, Some(b'#'))) => (
                Some(pos + i),
                memchr::memchr2(b'\n', b'\r', &rest[i + 1..]).map(|j| pos + i + 1 + j),
            ),
            other => (None, other.map(|(i, _)| pos + i)),
        };
        line_no = line_no.saturating_add(1);
        // One call site: `line` is inlined.
        let end = match eol {
            Some(eol) => eol,
            None if truncated => {
                // The limit cuts this line: drop it (a cut `Allow:` would widen access).
                cut_at = Some((pos, line_no));
                pos = body_end;
                break;
            }
            None => body_end,
        };
        b.line(pos, end, hash, line_no);
        pos = match input.get(end..end.saturating_add(2)) {
            Some(b"\r\n") => end + 2,
            _ => end + 1,
        };
    }
    if truncated {
        let (start, line) = cut_at.unwrap_or((pos.min(input.len()), line_no.saturating_add(1)));
        b.push(
            Code::ContentAfterLimit,
            line,
            start..input.len(),
            format!(
                "the file is {} bytes; everything after byte {limit} is ignored{}",
                input.len(),
                if cut_at.is_some() {
                    ", including this line, which the limit cuts"
                } else {
                    ""
                }
            ),
        );
    }
    // The last group's end, set once here rather than by every rule (nothing reads it while
    // parsing: a group's start is all `user-agent` needs).
    b.groups.set_rule_count(b.rule_count());
    b.finish(body_end)
}

impl<'a> Builder<'a> {
    fn push(
        &mut self,
        code: Code,
        line: u32,
        span: std::ops::Range<usize>,
        message: impl Into<Cow<'static, str>>,
    ) {
        self.push_sev(code, code.default_severity(), line, span, message);
    }

    fn push_sev(
        &mut self,
        code: Code,
        severity: Severity,
        line: u32,
        span: std::ops::Range<usize>,
        message: impl Into<Cow<'static, str>>,
    ) {
        if !self.diagnose {
            return;
        }
        self.diagnostics.push(Diagnostic {
            code,
            severity,
            line,
            span,
            message: message.into(),
        });
    }

    /// `part`, a sub-slice of the input, as [`String::from_utf8_lossy`] reads it: taken from
    /// the input validated once when it is all UTF-8, rather than validated again (messages
    /// quote keys and values, thousands of times in a large corpus).
    fn lossy<'p>(&self, part: &'p [u8]) -> Cow<'p, str>
    where
        'a: 'p,
    {
        match self.text.and_then(|t| t.get(self.span(part))) {
            Some(text) => Cow::Borrowed(text),
            None => String::from_utf8_lossy(part),
        }
    }

    /// Byte range of `part`, a sub-slice of the input.
    fn span(&self, part: &[u8]) -> std::ops::Range<usize> {
        let start = self.input.offset(part);
        start..start + part.len()
    }

    fn check_html(&mut self, start: usize, end: usize) {
        let head = &self.input[start..end];
        let Some(first) = head.iter().position(|&b| !b.is_ascii_whitespace()) else {
            return;
        };
        let html = looks_like_html(&head[first..]);
        if html {
            let at = start + first;
            let line = 1 + self.input[..at]
                .iter()
                .enumerate()
                .filter(|&(i, &c)| {
                    c == b'\n' || (c == b'\r' && self.input.get(i + 1) != Some(&b'\n'))
                })
                .count() as u32;
            self.push(
                Code::HtmlBody,
                line,
                at..at + 1,
                "the body looks like HTML, not robots.txt; only its valid lines are used",
            );
        }
    }

    /// One line, `input[start..end]`, without its line end; its comment starts at `hash`.
    /// Inlined into the parser's loop with only the common case's code (a rule or an agent);
    /// the call and the frame of a larger function cost 17 instructions a line.
    #[inline(always)]
    fn line(&mut self, start: usize, end: usize, hash: Option<usize>, n: u32) {
        let input = self.input;
        let line = &input[start..end];
        // A long line, a NUL or a BOM is rare: a plain line is cut at its comment only.
        let line = if line.len() > GOOGLE_MAX_LINE_BYTES
            || self.has_nul
            || line.first() == Some(&BOM[0])
        {
            self.cut(start, end, hash, n)
        } else {
            match hash {
                Some(h) => &input[start..h],
                None => line,
            }
        };
        // Nine lines in ten: a rule or an agent, its key spelled right and its colon next.
        if let Some((directive, key, value)) = lex_common(line) {
            match directive {
                Directive::Disallow => self.rule(n, key, RuleKind::Disallow, value),
                Directive::Allow => self.rule(n, key, RuleKind::Allow, value),
                _ => self.user_agent(n, value),
            }
            return;
        }
        // Empty lines and whole-line comments (one line in nine of the bench corpus): what
        // `other_line` would lex as `Lexed::Empty` and drop, without the call.
        if line.is_empty() {
            return;
        }
        self.other_line(n, line);
    }

    /// A line, `input[start..end]`, cut as Google cuts it (the line limit, a NUL), its BOM
    /// skipped, and then cut at its comment (from `hash`).
    #[cold]
    #[inline(never)]
    fn cut(&mut self, start: usize, end: usize, hash: Option<usize>, n: u32) -> &'a [u8] {
        let input = self.input;
        let mut line = &input[start..end];
        if line.len() > GOOGLE_MAX_LINE_BYTES {
            let (msg, cut) = match self.mode {
                Mode::Google => ("Google reads only the first", true),
                Mode::Rfc => ("Google would cut it after", false),
            };
            self.push(
                Code::LineTooLong,
                n,
                start + GOOGLE_MAX_LINE_BYTES..end,
                format!(
                    "line is {} bytes; {msg} {GOOGLE_MAX_LINE_BYTES}",
                    line.len()
                ),
            );
            if cut {
                line = &line[..GOOGLE_MAX_LINE_BYTES];
            }
        }
        if let Some(nul) = self.has_nul.then(|| memchr::memchr(0, line)).flatten() {
            self.push(
                Code::NulByte,
                n,
                start + nul..end,
                "NUL byte: the rest of the line is ignored",
            );
            line = &line[..nul];
        }
        // The first byte alone rules out almost every line.
        if line.first() == Some(&BOM[0]) && line.starts_with(BOM) {
            match self.mode {
                Mode::Rfc => {
                    self.push(
                        Code::MisplacedBom,
                        n,
                        start..start + 3,
                        "byte order mark inside the file; skipped",
                    );
                    line = &line[3..];
                }
                Mode::Google => self.push_sev(
                    Code::MisplacedBom,
                    Severity::Error,
                    n,
                    start..start + 3,
                    "byte order mark inside the file: Google does not skip it, so the line is not understood",
                ),
            }
        }
        // The comment starts at the first '#', wherever it is (if the cuts above left it).
        if let Some(h) = hash {
            let content_end = h.saturating_sub(self.input.offset(line));
            if content_end < line.len() {
                line = &line[..content_end];
            }
        }
        line
    }

    /// A line's content (its comment cut off) that is not a common record: blank, invalid,
    /// or any record through the general lexer.
    #[inline(never)]
    fn other_line(&mut self, n: u32, line: &'a [u8]) {
        match lex_content(line) {
            Lexed::Empty => {}
            Lexed::Invalid(text) => {
                self.stray(n);
                let span = self.span(text);
                self.push(
                    Code::InvalidLine,
                    n,
                    span,
                    "not a `key: value` record or a comment; ignored",
                );
            }
            Lexed::Record { key, sep, value } => self.record(n, key, sep, value),
        }
    }

    /// A non-group line inside a run of `user-agent` lines.
    fn stray(&mut self, n: u32) {
        if let State::Agents { stray: None } = self.state {
            self.state = State::Agents { stray: Some(n) };
        }
    }

    fn record(&mut self, n: u32, key: &'a [u8], sep: Separator, value: &'a [u8]) {
        let Some((directive, spelling)) = directive_of(key, self.mode) else {
            self.stray(n);
            // The message is built only to be kept (unknown keys are common).
            if !self.diagnose {
                return;
            }
            let span = self.span(key);
            // Common (thousands in a large corpus): joined without `format!`.
            self.push(
                Code::UnknownDirective,
                n,
                span,
                lint::message(&["unknown directive `", &self.lossy(key), "`; ignored"]),
            );
            return;
        };
        if spelling != Spelling::Exact {
            let span = self.span(key);
            self.push(
                Code::MisspelledKey,
                n,
                span,
                format!("`{}` read as `{}`", self.lossy(key), directive.as_str()),
            );
        }
        if sep == Separator::Whitespace {
            let span = self.span(key);
            self.push(
                Code::MissingColon,
                n,
                span.end..span.end,
                "missing `:` after the key; accepted because the line has exactly two parts",
            );
        }
        match directive {
            Directive::UserAgent => self.user_agent(n, value),
            Directive::Allow => self.rule(n, key, RuleKind::Allow, value),
            Directive::Disallow => self.rule(n, key, RuleKind::Disallow, value),
            Directive::Sitemap => {
                self.stray(n);
                self.sitemap(n, value);
            }
            Directive::Other(other) => {
                self.stray(n);
                self.other(n, other, value);
            }
            // Not group boundaries (SPEC §1): like any record outside RFC 9309.
            Directive::ContentUsage => {
                self.stray(n);
                self.content_usage(n, key, value);
            }
            Directive::ContentSignal => {
                self.stray(n);
                self.content_signal(n, key, value);
            }
            Directive::License | Directive::LlmPolicy => {
                self.stray(n);
                self.policy_link(n, directive, value);
            }
        }
    }

    fn user_agent(&mut self, n: u32, value: &'a [u8]) {
        // Where the rules of the group this line starts will start, if it starts one.
        let starts = match self.state {
            State::Start | State::Rules => {
                let at = self.rule_count();
                self.echo = match self.groups.len().checked_sub(1) {
                    Some(last) => (at - self.groups.rules(last).start, at),
                    None => (0, 0),
                };
                Some(at)
            }
            // The message is built only to be kept (a `format!` a line cost the corpus parse
            // 0.25 M instructions: hundreds of files join groups so).
            State::Agents { stray: Some(stray) } if self.diagnose => {
                let first = match self.groups.len().checked_sub(1) {
                    Some(last) => self.groups.line(last),
                    None => n,
                };
                let span = self.span(value);
                self.push(
                    Code::AgentsJoined,
                    n,
                    span,
                    format!(
                        "this user-agent joins the group of line {first}: line {stray} does not end a group, so the rules that follow apply to both"
                    ),
                );
                None
            }
            State::Agents { .. } => None,
        };
        self.state = State::Agents { stray: None };

        let who = if value.is_empty() {
            let span = self.span(value);
            self.push(
                Code::EmptyUserAgent,
                n,
                span,
                "empty user-agent: the rules of this group apply to no crawler",
            );
            group::AgentSlot::NOBODY
        } else if value[0] == b'*' && (value.len() == 1 || is_ws(value[1])) {
            // google/robotstxt: '*' followed by whitespace and anything is still the global agent.
            if value.len() > 1 && self.diagnose {
                let span = self.span(value);
                self.push(
                    Code::AgentNotToken,
                    n,
                    span,
                    format!("`{}` read as `*`", self.lossy(value)),
                );
            }
            group::AgentSlot::STAR
        } else {
            let token = leading_token(value, self.mode);
            // What the mode reads as a token, for the messages.
            let (chars, cut_by_digit) = match self.mode {
                Mode::Rfc => ("letters, digits, `_`, `-`", false),
                Mode::Google => (
                    "letters, `_`, `-`",
                    value.get(token.len()).is_some_and(u8::is_ascii_digit),
                ),
            };
            if token.is_empty() {
                if self.diagnose {
                    let span = self.span(value);
                    let matches = match self.mode {
                        Mode::Rfc => "only a crawler given this name verbatim",
                        Mode::Google => "no crawler",
                    };
                    self.push(
                        Code::InvalidUserAgent,
                        n,
                        span,
                        format!(
                            "`{}` has no product token ({chars}) in front; it matches {matches}",
                            self.lossy(value)
                        ),
                    );
                }
                group::AgentSlot::NOBODY
            } else {
                if !self.diagnose || token.len() == value.len() {
                    // Nothing to report, or nobody to report it to: no message is built.
                } else if is_header_like(value) {
                    let span = self.span(value);
                    let message = header_message(&self.lossy(value), &self.lossy(token));
                    self.push(Code::UserAgentHeader, n, span, message);
                } else {
                    let span = self.span(value);
                    // Common (thousands in a large corpus): joined without `format!`.
                    self.push(
                        Code::AgentNotToken,
                        n,
                        span,
                        lint::message(&[
                            "`",
                            &self.lossy(value),
                            "` read as the product token `",
                            &self.lossy(token),
                            "`",
                            if cut_by_digit {
                                " (google/robotstxt stops at the first digit)"
                            } else {
                                ""
                            },
                        ]),
                    );
                }
                // Token bytes are ASCII letters, digits (`Mode::Rfc`), '_' and '-': copied,
                // then lowercased in place (a character at a time cost 0.3 M instructions more
                // of the corpus parse).
                let start = self.agent_text.len();
                // The token as text: a slice of the body validated once (most files), not a
                // second validation (0.5 M instructions of the corpus parse).
                let text = match self.text.and_then(|t| t.get(self.span(token))) {
                    Some(text) => Ok(text),
                    None => std::str::from_utf8(token),
                };
                match text {
                    Ok(text) => self.agent_text.push_str(text),
                    Err(_) => self
                        .agent_text
                        .extend(token.iter().map(|&b| char::from(b.to_ascii_lowercase()))),
                }
                if let Some(pushed) = self.agent_text.get_mut(start..) {
                    pushed.make_ascii_lowercase();
                }
                self.agent_tokens
                    .push(start as u32..self.agent_text.len() as u32);
                self.agent_tokens.len() as u32 - 1
            }
        };
        let agent = group::AgentSlot { who, line: n };
        match starts {
            Some(at) => self.groups.push(agent, at),
            None => self.groups.push_agent(agent),
        }
        if self.mode == Mode::Rfc && who != group::AgentSlot::STAR && !value.is_empty() {
            // Not a whole product token: also the name of a crawler given verbatim.
            let cut = who == group::AgentSlot::NOBODY
                || self
                    .agent_tokens
                    .get(who as usize)
                    .is_some_and(|r| (r.end - r.start) as usize != value.len());
            if cut {
                self.agent_name(value);
            }
        }
        if self.diagnose {
            let span = self.span(value);
            self.agent_spans.push(span);
        }
    }

    /// Keeps `value`, a `user-agent` value that is not a product token, folded, as the name
    /// of the last group for a crawler given verbatim (a value that is not UTF-8 names no
    /// crawler: a name is a string). Rare: out of line.
    #[cold]
    #[inline(never)]
    fn agent_name(&mut self, value: &[u8]) {
        let text = match self.text.and_then(|t| t.get(self.span(value))) {
            Some(text) => text,
            None => match std::str::from_utf8(value) {
                Ok(text) => text,
                Err(_) => return,
            },
        };
        let start = self.agent_text.len();
        fold_name(text, &mut self.agent_text);
        let group = self.groups.len().saturating_sub(1) as u32;
        self.agent_names
            .push((group, start as u32..self.agent_text.len() as u32));
    }

    fn rule(&mut self, n: u32, key: &'a [u8], kind: RuleKind, value: &'a [u8]) {
        if self.state == State::Start {
            self.outside_group(n, key, kind, value);
            return;
        }
        // Any allow/disallow line ends the run of user-agent lines, even one not used.
        self.state = State::Rules;
        let Some(&first) = value.first() else {
            // `Disallow:` with no value matches nothing: it is how a file allows everything.
            return;
        };
        if first != b'/' && first != b'*' {
            self.invalid_path(n, value);
            return;
        }
        let spelling = self.spelling(n, key, kind, value);
        let value_range = match self.repeated(value) {
            Some((range, at)) => {
                if self.diagnose {
                    let rule = Rule {
                        kind,
                        index_html: false,
                        line: n,
                        spelling,
                        shared: true,
                        clean: true,
                    };
                    self.rules.push(rule);
                    self.compiled.push(self.compiled[at]);
                } else {
                    let slot = self.slots[at].repeat(n, kind, spelling);
                    self.slots.push(slot);
                }
                range
            }
            None => {
                let (range, compiled, clean, shared) = match self.plain(value) {
                    // Canonical as written: shared, and nothing to report.
                    Some((range, compiled)) => (range, compiled, true, true),
                    None => match self.compile_value(n, value) {
                        Some((range, compiled, clean)) => {
                            let shared = self.shares(&compiled, &range, n, TAG_VALUE);
                            if !clean && !self.diagnose {
                                self.unclean.push(self.rule_count());
                            }
                            (range, compiled, clean, shared)
                        }
                        None => return,
                    },
                };
                let rule = Rule {
                    kind,
                    index_html: false,
                    line: n,
                    spelling,
                    shared,
                    clean,
                };
                self.push_rule(rule, compiled);
                range
            }
        };
        // One test of `diagnose` for both (two cost the corpus parse 0.44 M instructions).
        if self.diagnose {
            if value.len() > 1 && value.ends_with(b"*") {
                self.redundant_wildcard(n, value);
            }
            self.rule_spans
                .push(self.span(key).start..self.span(value).end);
        }
        if self.mode == Mode::Google && kind == RuleKind::Allow {
            self.google_index_html(n, value, spelling, value_range);
        }
    }

    /// How many rules the file has so far (`rules` or `slots` is empty: a sum, not a branch).
    #[inline(always)]
    fn rule_count(&self) -> u32 {
        (self.rules.len() + self.slots.len()) as u32
    }

    /// Keeps a rule: its slot, or with `diagnose` the rule and its compiled pattern.
    #[inline(always)]
    fn push_rule(&mut self, rule: Rule, compiled: pattern::Compiled) {
        if self.diagnose {
            self.rules.push(rule);
            self.compiled.push(compiled);
        } else {
            self.slots.push(Slot::new(&rule, &compiled));
        }
    }

    /// `rule-outside-group` for a rule before any `user-agent` line. The rule step's rare
    /// paths are out of line: inlined, their registers were saved and restored by every rule.
    #[cold]
    #[inline(never)]
    fn outside_group(&mut self, n: u32, key: &[u8], kind: RuleKind, value: &[u8]) {
        let span = self.span(key).start..self.span(value).end;
        self.push(
            Code::RuleOutsideGroup,
            n,
            span,
            format!(
                "`{}` before any user-agent line belongs to no group; ignored",
                kind.as_str()
            ),
        );
    }

    /// `invalid-path` for a value that starts with neither `/` nor `*`.
    #[cold]
    #[inline(never)]
    fn invalid_path(&mut self, n: u32, value: &[u8]) {
        // The message is built only to be kept (a thousand such lines in the corpus).
        if !self.diagnose {
            return;
        }
        let span = self.span(value);
        self.push(
            Code::InvalidPath,
            n,
            span,
            format!(
                "`{}` starts with neither `/` nor `*`, so it can never match; ignored",
                self.lossy(value)
            ),
        );
    }

    /// `redundant-wildcard` for a value that ends in `*`.
    #[cold]
    #[inline(never)]
    fn redundant_wildcard(&mut self, n: u32, value: &[u8]) {
        let end = self.span(value).end;
        self.push(
            Code::RedundantWildcard,
            n,
            end - 1..end,
            "a `*` at the end of a pattern changes nothing",
        );
    }

    /// A value canonical as written ([`pattern::compile_plain`]) copied into the arena, where
    /// its canonical text is the value itself: its range and compiled form. Kept apart from
    /// [`Builder::compile_value`], whose rarer work made every rule pay for saved registers.
    #[inline(always)]
    fn plain(&mut self, value: &[u8]) -> Option<(std::ops::Range<u32>, pattern::Compiled)> {
        if value.len() >= Slot::LONG as usize {
            return None;
        }
        let start = self.texts.len() as u32;
        let compiled = pattern::compile_plain(value, self.mode, start)?;
        // ASCII: the input's text (validated once) has it on character boundaries, and a
        // file that is not all UTF-8 still has it valid.
        let text = match self.text.and_then(|t| t.get(self.span(value))) {
            Some(text) => text,
            None => std::str::from_utf8(value).ok()?,
        };
        self.texts.push_str(text);
        Some((start..self.texts.len() as u32, compiled))
    }

    /// The value's range as written in the arena, its compiled form, and whether compiling it
    /// found nothing to report; `None` when the rule is dropped (bytes that are not UTF-8 in
    /// `Mode::Rfc`).
    #[inline(never)]
    fn compile_value(
        &mut self,
        n: u32,
        value: &[u8],
    ) -> Option<(std::ops::Range<u32>, pattern::Compiled, bool)> {
        // The value as written, validated once (the whole input usually was).
        let span = self.span(value);
        // `get` also refuses a range that is not on character boundaries (a Google
        // line cut).
        let valid = match self.text.and_then(|t| t.get(span.clone())) {
            Some(text) => Ok(text),
            None => std::str::from_utf8(value),
        };
        let value_start = self.texts.len() as u32;
        match valid {
            Ok(text) => self.texts.push_str(text),
            Err(e) => {
                let bad = span.start + e.valid_up_to();
                let span = bad..bad + e.error_len().unwrap_or(1);
                if self.mode == Mode::Rfc {
                    // Not compiled: its control bytes are looked for here.
                    self.control_in_path(n, value);
                    self.push(
                        Code::InvalidUtf8,
                        n,
                        span,
                        "bytes that are not UTF-8 in the path; the rule is ignored",
                    );
                    return None;
                }
                self.push_sev(
                    Code::InvalidUtf8,
                    Severity::Warning,
                    n,
                    span,
                    "bytes that are not UTF-8 in the path; Google percent-encodes them and uses the rule",
                );
                self.texts.push_str(&String::from_utf8_lossy(value));
            }
        }
        let value_range = value_start..self.texts.len() as u32;
        let (mut compiled, dollar, control) = pattern::compile(
            value,
            self.mode,
            &mut self.texts,
            Some(value_range.start),
            &mut self.scratch,
        );
        // Found by the compiler's pass over the bytes (a search of its own cost 5 M
        // instructions of the corpus parse); the diagnostics are sorted by position
        // later.
        if control {
            self.control_in_path(n, value);
        }
        self.long_header(&mut compiled);
        if let Some(i) = dollar {
            let at = self.span(value).start + i;
            self.push(
                Code::LiteralDollar,
                n,
                at..at + 1,
                "`$` is special only at the end of a pattern; here it is an ordinary character",
            );
        }
        Some((value_range, compiled, dollar.is_none() && !control))
    }

    /// The written range and index of the rule at the same place in the previous group, when
    /// its value was written as `value` is and its compile reported nothing (a repeat reports
    /// nothing, with or without diagnostics). Files that give several agents the same rules, a
    /// group each, repeat about a sixth of the corpus's rules this way; a repeat then costs
    /// neither a compile nor arena bytes.
    #[inline]
    fn repeated(&self, value: &[u8]) -> Option<(std::ops::Range<u32>, usize)> {
        let (back, end) = self.echo;
        let at = self.rule_count().checked_sub(back)?;
        if at >= end {
            return None;
        }
        let arena = self.texts.as_bytes();
        // Shared: the value as written is the canonical text (and `$`), in the arena.
        let written = if self.diagnose {
            let (rule, compiled) = (
                self.rules.get(at as usize)?,
                self.compiled.get(at as usize)?,
            );
            if !(rule.clean && rule.shared) {
                return None;
            }
            let start = compiled.start as usize;
            start..start + compiled.len as usize + usize::from(compiled.anchored)
        } else {
            let slot = self.slots.get(at as usize)?;
            if slot.flags & (Slot::SHARED | Slot::INDEX_HTML) != Slot::SHARED {
                return None;
            }
            let start = slot.start as usize;
            let anchored = slot.flags & Slot::ANCHORED != 0;
            start..start + slot.len(arena) as usize + usize::from(anchored)
        };
        if written.len() != value.len() {
            return None;
        }
        let text = arena.get(written.clone())?;
        if !eq_short(text, value) {
            return None;
        }
        // A slot does not say whether its compile reported a literal `$` or a control byte,
        // which the parse with diagnostics never repeats (it reports them on every line): the
        // compile's own report, kept in `unclean`, so that both parses keep the same compiled
        // file (scanning the value again cost 1.5 M instructions of the corpus parse).
        if !self.unclean.is_empty() && self.unclean.binary_search(&at).is_ok() {
            return None;
        }
        Some((written.start as u32..written.end as u32, at as usize))
    }

    /// `control-in-path` for the first control byte of `value`, if any (paths almost never
    /// hold one).
    #[cold]
    fn control_in_path(&mut self, n: u32, value: &[u8]) {
        if let Some(i) = value.iter().position(|&b| b < 0x20 || b == 0x7f) {
            let at = self.span(value).start + i;
            self.push(
                Code::ControlInPath,
                n,
                at..at + 1,
                format!(
                    "the path has a control character (U+{:04X}): it is matched as written, but \
                     URLs carry it percent-encoded (%{:02X})",
                    value[i], value[i]
                ),
            );
        }
    }

    /// The index into `spellings` of the key and separator as written before `value`
    /// (`Disallow: `), added if new; past [`MAX_SPELLINGS`] (a file that spells its keys in
    /// many ways), kept in `written` for line `n` instead.
    #[inline(always)]
    fn spelling(&mut self, n: u32, key: &[u8], kind: RuleKind, value: &[u8]) -> u8 {
        let k = usize::from(kind == RuleKind::Allow);
        // Most files spell each key one way: compared in one or two words of the input with
        // the last spelling of the same key (`allow` and `disallow` lines alternate in some
        // files), where a look-up in the arena cost about 50 instructions a rule.
        let input = self.input;
        let raw = input.get(input.offset(key)..input.offset(value));
        match raw.and_then(|raw| self.last_spelling[k].index_of(raw)) {
            Some(i) => i,
            None => self.new_spelling(n, key, k, value),
        }
    }

    /// [`Builder::spelling`] of a spelling other than the key's last one.
    #[inline(never)]
    fn new_spelling(&mut self, n: u32, key: &[u8], k: usize, value: &[u8]) -> u8 {
        // The key and separator end where the value starts.
        let input = self.input;
        let at = input.offset(key)..input.offset(value);
        let exact = input.get(at);
        let raw = exact.unwrap_or(key);
        let arena = self.texts.as_bytes();
        let is = |r: &std::ops::Range<u32>, t: &[u8]| {
            arena
                .get(r.start as usize..r.end as usize)
                .is_some_and(|s| eq_short(s, t))
        };
        // Compared as written first: a spelling is almost always ASCII.
        let found = match self.spellings.iter().position(|r| is(r, raw)) {
            Some(i) => Some(i),
            // Not UTF-8 (a Google-mode key's tail), or new.
            None => {
                let text = self.lossy(raw);
                let lossy = match &text {
                    // As written: compared already.
                    Cow::Borrowed(_) => None,
                    Cow::Owned(text) => self.spellings.iter().position(|r| is(r, text.as_bytes())),
                };
                match lossy {
                    Some(i) => Some(i),
                    None => {
                        let start = self.texts.len() as u32;
                        self.texts.push_str(&text);
                        let range = start..self.texts.len() as u32;
                        if self.spellings.len() < MAX_SPELLINGS {
                            self.spellings.push(range);
                            Some(self.spellings.len() - 1)
                        } else {
                            self.written.push((u64::from(n) << 2 | TAG_KEY, range));
                            None
                        }
                    }
                }
            }
        };
        match found {
            Some(i) => {
                // The same bytes always find the same spelling (the spellings' texts are
                // distinct), so the next rule may take it from them.
                if exact.is_some() {
                    self.last_spelling[k] = LastSpelling::new(i as u8, raw);
                }
                i as u8
            }
            None => Slot::NO_SPELLING,
        }
    }

    /// A canonical text of `Slot::LONG` bytes or more is copied after its length in hex, which
    /// the slot reads instead of a length of its own (see `Slot::len`). Only such a text,
    /// hundreds of times longer than a real rule, pays for it.
    #[inline]
    fn long_header(&mut self, compiled: &mut pattern::Compiled) {
        if compiled.len >= Slot::LONG {
            self.copy_long(compiled);
        }
    }

    #[cold]
    fn copy_long(&mut self, compiled: &mut pattern::Compiled) {
        let text = compiled.start as usize..(compiled.start + compiled.len) as usize;
        let text = self.texts.get(text).unwrap_or_default().to_owned();
        self.texts.push_str(&Slot::header(compiled.len));
        compiled.start = self.texts.len() as u32;
        self.texts.push_str(&text);
    }

    /// Whether the value as written (`value`, in the arena) is `compiled`'s canonical text
    /// followed by `$` when anchored, as it usually is; if not, the value is kept in `written`
    /// under `line` and `tag`.
    fn shares(
        &mut self,
        compiled: &pattern::Compiled,
        value: &std::ops::Range<u32>,
        line: u32,
        tag: u64,
    ) -> bool {
        let shared = compiled.start == value.start
            && compiled.len + u32::from(compiled.anchored) == value.end - value.start;
        if !shared {
            self.written
                .push((u64::from(line) << 2 | tag, value.clone()));
        }
        shared
    }

    /// google/robotstxt: `Allow: /dir/index.htm…` also allows `/dir/$`.
    /// The derived rule's text is its source rule's line: the same `spelling`, and the
    /// source's `source_value` (kept in `written`).
    #[inline(never)]
    fn google_index_html(
        &mut self,
        n: u32,
        value: &[u8],
        spelling: u8,
        source_value: std::ops::Range<u32>,
    ) {
        let Some(slash) = memchr::memrchr(b'/', value) else {
            return;
        };
        if !value[slash..].starts_with(b"/index.htm") {
            return;
        }
        let mut derived = value[..=slash].to_vec();
        derived.push(b'$');
        let start = self.texts.len() as u32;
        self.texts.push_str(&String::from_utf8_lossy(&derived));
        let end = self.texts.len() as u32;
        let (mut compiled, _, _) = pattern::compile(
            &derived,
            self.mode,
            &mut self.texts,
            Some(start),
            &mut self.scratch,
        );
        self.long_header(&mut compiled);
        self.written
            .push((u64::from(n) << 2 | TAG_SOURCE, source_value));
        let shared = self.shares(&compiled, &(start..end), n, TAG_DERIVED);
        self.derived = true;
        let rule = Rule {
            kind: RuleKind::Allow,
            index_html: true,
            line: n,
            spelling,
            shared,
            clean: false,
        };
        self.push_rule(rule, compiled);
        if self.diagnose {
            let last = self.rule_spans.last().cloned().unwrap_or_default();
            self.rule_spans.push(last);
        }
    }

    fn sitemap(&mut self, n: u32, value: &[u8]) {
        // Validated once (as part of the whole input, as a rule's value is); the lossy
        // decoding is only for the message.
        let text = match self.text.and_then(|t| t.get(self.span(value))) {
            Some(text) => Some(text),
            None => std::str::from_utf8(value).ok(),
        };
        let url = text.filter(|t| is_http_url(t));
        if let Some(url) = url {
            let start = self.texts.len() as u32;
            self.texts.push_str(url);
            self.sitemaps.push(SitemapSlot {
                url: start..self.texts.len() as u32,
                line: n,
            });
        } else {
            let text = self.lossy(value);
            let span = self.span(value);
            self.push(
                Code::InvalidSitemapUrl,
                n,
                span,
                format!("`{text}` is not an absolute http(s) URL; ignored"),
            );
        }
    }

    fn other(&mut self, n: u32, key: OtherKey, value: &[u8]) {
        let group = match (self.state, self.groups.len().checked_sub(1)) {
            (State::Start, _) | (_, None) => RecordSlot::NO_GROUP,
            (_, Some(g)) => g as u32,
        };
        let span = self.span(value);
        let text = self.lossy(value);
        if self.diagnose {
            match unusable_message(key, &text) {
                Some((code, message)) => self.push(code, n, span, message),
                None => self.push(Code::IgnoredDirective, n, span, ignored_message(key)),
            }
        }
        let start = self.texts.len() as u32;
        self.texts.push_str(&text);
        self.records.push(RecordSlot {
            value: start..self.texts.len() as u32,
            line: n,
            group,
            key,
        });
    }

    /// The group a group record on this line belongs to, or a `rule-outside-group` error.
    fn record_group(&mut self, n: u32, key: &[u8], value: &[u8]) -> Option<u32> {
        if self.state == State::Start {
            let span = self.span(key).start..self.span(value).end;
            self.push(
                Code::RuleOutsideGroup,
                n,
                span,
                format!(
                    "`{}` before any user-agent line belongs to no group; ignored",
                    String::from_utf8_lossy(key).to_ascii_lowercase()
                ),
            );
            return None;
        }
        self.groups.len().checked_sub(1).map(|g| g as u32)
    }

    /// Reports the problems a usage value produced (spans relative to `value`).
    fn flush_problems(&mut self, n: u32, value: &[u8], problems: &mut Vec<usage::Problem>) {
        let base = self.span(value).start;
        for (code, range, message) in problems.drain(..) {
            self.push(code, n, base + range.start..base + range.end, message);
        }
    }

    /// Appends `bytes` (lossily) to the text arena.
    fn keep_text(&mut self, bytes: &[u8]) -> std::ops::Range<u32> {
        let start = self.texts.len() as u32;
        self.texts.push_str(&String::from_utf8_lossy(bytes));
        start..self.texts.len() as u32
    }

    /// `content-usage: [path] statement` (draft-ietf-aipref-attach §3).
    fn content_usage(&mut self, n: u32, key: &'a [u8], value: &'a [u8]) {
        let Some(group) = self.record_group(n, key, value) else {
            return;
        };
        let mut problems = std::mem::take(&mut self.problems);
        let parsed = usage::parse_content_usage(value, &mut problems);
        self.flush_problems(n, value, &mut problems);
        self.problems = problems;
        let Some(parsed) = parsed else {
            return;
        };
        let line = self.span(key).start..self.span(value).end;
        let input = self.input;
        let text = self.keep_text(&input[line]);
        let path = parsed.path.map(|p| self.keep_text(p));
        let pattern = parsed.path.map(|p| {
            let at = path.as_ref().map(|r| r.start);
            pattern::compile(p, self.mode, &mut self.texts, at, &mut self.scratch).0
        });
        let statement = self.keep_text(parsed.statement);
        self.usage.usage.push(UsageRule {
            line: n,
            group,
            pattern,
            text,
            path,
            statement,
            preferences: parsed.preferences,
        });
    }

    /// `content-signal: search=yes, ai-input=yes, ai-train=no` (Cloudflare).
    fn content_signal(&mut self, n: u32, key: &'a [u8], value: &'a [u8]) {
        let Some(group) = self.record_group(n, key, value) else {
            return;
        };
        let mut problems = std::mem::take(&mut self.problems);
        if !self.signal_noted {
            // Once per file: every such line gets the same answer.
            self.signal_noted = true;
            let line = self.span(key).start..self.span(value).end;
            self.push(
                Code::SignalNotUnderstood,
                n,
                line,
                "Search Console's robots.txt report shows `content-signal` lines as \"Syntax \
                 not understood\": Google does not know the record; they are still read by \
                 crawlers that do, and nothing else in the file changes",
            );
        }
        let signals = usage::parse_content_signal(value, &mut problems);
        self.flush_problems(n, value, &mut problems);
        self.problems = problems;
        let line = self.span(key).start..self.span(value).end;
        let input = self.input;
        let text = self.keep_text(&input[line]);
        let value = self.keep_text(value);
        self.usage.signals.push(SignalLine {
            line: n,
            group,
            text,
            value,
            signals,
        });
    }

    /// `license: <absolute URL>` (RSL 1.0) and `llm-policy: <URL or /path>`; global.
    fn policy_link(&mut self, n: u32, directive: Directive, value: &[u8]) {
        let text = String::from_utf8_lossy(value);
        let utf8 = std::str::from_utf8(value).is_ok();
        let (ok, wants) = match directive {
            Directive::License => (
                utf8 && is_http_url(&text),
                "an absolute http(s) URL (RSL 1.0: the license document)",
            ),
            _ => (
                utf8 && (is_http_url(&text) || usage::is_policy_path(value)),
                "an absolute http(s) URL or a path starting with `/`",
            ),
        };
        if !ok {
            let span = self.span(value);
            self.push(
                Code::InvalidPolicyUrl,
                n,
                span,
                format!(
                    "`{}: {text}`: the value must be {wants}; ignored",
                    directive.as_str()
                ),
            );
            return;
        }
        let link = PolicyLink {
            url: text.into_owned(),
            line: n,
        };
        match directive {
            Directive::License => self.usage.licenses.push(link),
            _ => self.usage.llm_policies.push(link),
        }
    }

    fn finish(mut self, bytes_used: usize) -> Parsed {
        let names = matcher::AgentNames {
            text: &self.agent_text,
            tokens: &self.agent_tokens,
            verbatim: &self.agent_names,
        };
        let index = matcher::Index::build(
            &mut self.groups,
            names,
            if self.diagnose {
                (self.rules.iter().zip(&self.compiled))
                    .map(|(r, c)| Slot::new(r, c))
                    .collect()
            } else {
                std::mem::take(&mut self.slots)
            },
            self.mode,
        );
        let mut diagnostics = self.diagnostics;
        if self.diagnose {
            // The lint reads every agent's sorted list: sorted here, for it alone.
            let lists = index.lint_lists(&self.groups, &self.rules, &self.compiled);
            lint::semantic(
                &lint::Input {
                    groups: &self.groups,
                    rules: &self.rules,
                    index: &matcher::LintIndex {
                        index: &index,
                        lists: &lists.lists,
                        slot_rules: &lists.slot_rules,
                        slot_compiled: &lists.slot_compiled,
                    },
                    arena: self.texts.as_bytes(),
                    rule_spans: &self.rule_spans,
                    agent_spans: &self.agent_spans,
                    ends_in_agents: matches!(self.state, State::Agents { .. }),
                    derived: self.derived,
                },
                &mut diagnostics,
            );
        }

        // A cache keeps the compiled file for as long as the origin: the reservations made
        // from the input's size, and vectors' doubling slack, are given back.
        self.texts.shrink_to_fit();
        self.spellings.shrink_to_fit();
        // In line order, and by tag within a line, as pushed: sorted already.
        self.written.sort_unstable_by_key(|e| e.0);
        self.written.shrink_to_fit();
        self.groups.shrink_to_fit();
        self.sitemaps.shrink_to_fit();
        self.records.shrink_to_fit();
        self.usage.shrink_to_fit();
        let diagnose = self.diagnose;
        let input = self.input;
        let mut parsed = Parsed {
            robots: Robots {
                mode: self.mode,
                texts: self.texts,
                spellings: self.spellings,
                written: self.written,
                groups: self.groups,
                index,
                sitemaps: self.sitemaps,
                records: self.records,
                usage: (!self.usage.is_empty()).then(|| Box::new(self.usage)),
                bytes_used,
            },
            diagnostics,
        };
        if diagnose {
            crawler_lint::run(&parsed.robots, input, &mut parsed.diagnostics);
            // What the lint's checks built (sorted lists, lookups) is not kept: a crawler
            // builds them on its own checks, if it needs them.
            parsed.robots.index.forget_lookups();
        }
        // Lines are visited in order; the only out-of-order entries are file-level ones and
        // the semantic lints'.
        parsed.diagnostics.sort_by_key(|d| (d.line, d.span.start));
        parsed
    }
}

/// A `user-agent` value with more than a product token and a version: whitespace inside it,
/// or a parenthesised comment (a whole User-Agent header).
fn is_header_like(value: &[u8]) -> bool {
    let value = super::lexer::trim_end(value);
    value.iter().any(|&b| b == b' ' || b == b'\t' || b == b'(')
}

/// The `user-agent-header` message: what the value is read as, and the crawler a browser-style
/// header names (`Mozilla/5.0 (compatible; GPTBot/1.2; …)` → `gptbot`).
fn header_message(value: &str, token: &str) -> String {
    let named = ProductToken::from_user_agent(value)
        .ok()
        .filter(|t| !t.as_str().eq_ignore_ascii_case(token));
    let mut m = format!(
        "`{value}` is a User-Agent header, not a product token: read as `{}`",
        token.to_ascii_lowercase()
    );
    match named {
        Some(t) => m.push_str(&format!(
            ", which does not name the crawler it holds; write `User-agent: {t}`"
        )),
        None => m.push_str("; a reader that takes the value whole matches no crawler"),
    }
    m
}

/// The `ignored-directive` message for `key`: a constant, as such records are common (one
/// `crawl-delay` per group in many files).
fn ignored_message(key: OtherKey) -> &'static str {
    macro_rules! message {
        ($key:literal) => {
            concat!(
                "`",
                $key,
                "` is not part of RFC 9309; Google ignores it (kept for crawlers that read it)"
            )
        };
    }
    match key {
        OtherKey::CrawlDelay => message!("crawl-delay"),
        OtherKey::Host => message!("host"),
        OtherKey::CleanParam => message!("clean-param"),
        OtherKey::RequestRate => message!("request-rate"),
        OtherKey::VisitTime => message!("visit-time"),
        OtherKey::Noindex => message!("noindex"),
        OtherKey::Nofollow => message!("nofollow"),
        OtherKey::Noarchive => message!("noarchive"),
    }
}

/// For a `crawl-delay` or `request-rate` whose value the engine cannot use (it reads them with
/// [`crawl_delay_secs`] and [`RequestRate::parse`]), its own code and a message that says
/// what is done instead.
fn unusable_message(key: OtherKey, value: &str) -> Option<(Code, Cow<'static, str>)> {
    const INSTEAD: &str = "crawlgate ignores the line and spaces requests by the agent's other \
                           crawl-delay or request-rate, else by its default delay";
    let shown = || {
        let mut v: String = value.trim().chars().take(40).collect();
        if value.trim().chars().nth(40).is_some() {
            v.push('…');
        }
        v
    };
    match key {
        OtherKey::CrawlDelay if crawl_delay_secs(value).is_none() => Some((
            Code::UnusableCrawlDelay,
            format!(
                "`{}` is not a usable crawl-delay (seconds, 0 or more: `10`, `0.5`): {INSTEAD}",
                shown()
            )
            .into(),
        )),
        OtherKey::RequestRate if RequestRate::parse(value).is_none() => Some((
            Code::UnusableRequestRate,
            format!(
                "`{}` is not a usable request-rate (`n/m` with `s`, `m` or `h`, and an optional \
                 UTC window `HHMM-HHMM`: `1/5s`): {INSTEAD}",
                shown()
            )
            .into(),
        )),
        _ => None,
    }
}

/// A `crawl-delay` value in seconds, as the engine reads it: a finite number, 0 or more.
pub(crate) fn crawl_delay_secs(value: &str) -> Option<f64> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|d| d.is_finite() && *d >= 0.0)
}

/// Finds the first LF, CR or `#` (what `memchr::memchr3` finds) with a searcher made once per
/// parse: `memchr3` dispatches on the CPU and sets its vectors up on every call, which cost a
/// third of its 68 instructions a call (a call per line).
struct LineEnds {
    #[cfg(target_arch = "x86_64")]
    avx2: Option<memchr::arch::x86_64::avx2::memchr::Three>,
}

impl LineEnds {
    fn new() -> LineEnds {
        LineEnds {
            #[cfg(target_arch = "x86_64")]
            avx2: memchr::arch::x86_64::avx2::memchr::Three::new(b'\n', b'\r', b'#'),
        }
    }

    #[inline]
    fn find(&self, s: &[u8]) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(three) = &self.avx2 {
            return three.find(s);
        }
        memchr::memchr3(b'\n', b'\r', b'#', s)
    }
}

/// `a == b`, for short slices (key spellings: `Disallow: `) without a call to `memcmp`: two
/// overlapping words compare 4 to 16 bytes (1.5 M instructions of the corpus parse). Always
/// inlined: a call cost 24 instructions a repeated rule.
#[inline(always)]
fn eq_short(a: &[u8], b: &[u8]) -> bool {
    fn word<const N: usize>(s: &[u8], at: usize) -> [u8; N] {
        let mut w = [0u8; N];
        w.copy_from_slice(&s[at..at + N]);
        w
    }
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        4..8 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        _ => a == b,
    }
}

/// A key spelling (`Disallow: `) and its index in `Robots::spellings`, kept as two words to be
/// compared with a rule's key and separator as written.
#[derive(Clone, Copy)]
struct LastSpelling {
    index: u8,
    /// Its length in bytes; `usize::MAX` when there is none to compare with.
    len: usize,
    /// Its first and last eight bytes, or four when it is shorter than eight: two words that
    /// overlap (or not) to cover it.
    head: u64,
    tail: u64,
}

impl LastSpelling {
    const NONE: LastSpelling = LastSpelling {
        index: 0,
        len: usize::MAX,
        head: 0,
        tail: 0,
    };

    /// `raw`, spelling `index`, when it is 4 to 16 bytes long (two words of 4 or 8 bytes
    /// cover it: nearly every spelling is); else none.
    fn new(index: u8, raw: &[u8]) -> LastSpelling {
        let n = raw.len();
        let (head, tail) = match n {
            4..8 => (word::<4>(raw, 0), word::<4>(raw, n - 4)),
            8..=16 => (word::<8>(raw, 0), word::<8>(raw, n - 8)),
            _ => return LastSpelling::NONE,
        };
        LastSpelling {
            index,
            len: n,
            head,
            tail,
        }
    }

    /// The index, when `raw` is this spelling.
    #[inline(always)]
    fn index_of(&self, raw: &[u8]) -> Option<u8> {
        let n = raw.len();
        if n != self.len {
            return None;
        }
        let same = if n >= 8 {
            word::<8>(raw, 0) == self.head && word::<8>(raw, n - 8) == self.tail
        } else {
            word::<4>(raw, 0) == self.head && word::<4>(raw, n - 4) == self.tail
        };
        same.then_some(self.index)
    }
}

/// The `N` bytes of `s` at `at` as a little-endian word (`N` is 4 or 8).
#[inline(always)]
fn word<const N: usize>(s: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w[..N].copy_from_slice(&s[at..at + N]);
    u64::from_le_bytes(w)
}

/// Is `s` an absolute http(s) URL with a host? The common shape is answered without a full
/// parse ([`crate::plain_url`]); anything else goes through the URL parser.
fn is_http_url(s: &str) -> bool {
    crate::plain_url::plain_http(s.as_bytes()).is_some()
        || url::Url::parse(s)
            .map(|u| matches!(u.scheme(), "http" | "https") && u.has_host())
            .unwrap_or(false)
}

/// Whether `body` starts as an HTML document rather than a robots.txt: after a byte order
/// mark and white space, `<!doctype html`, `<html`, `<head`, `<body`, or a `<` with `<html`
/// in its first 256 bytes (compared without case). A robots.txt never starts with `<`, so a
/// file that does is a soft 404, a bot wall or a challenge page. The parser reports it as
/// `html-body`; the fetcher records it on the fetch.
pub fn looks_like_html(body: &[u8]) -> bool {
    let body = body.strip_prefix(BOM).unwrap_or(body);
    let Some(first) = body.iter().position(|&b| !b.is_ascii_whitespace()) else {
        return false;
    };
    // Every test below wants a `<` first: most files are spared the lowercased copy.
    if body[first] != b'<' {
        return false;
    }
    let peek: Vec<u8> = body[first..body.len().min(first + 256)]
        .iter()
        .map(u8::to_ascii_lowercase)
        .collect();
    peek.starts_with(b"<!doctype html")
        || peek.starts_with(b"<html")
        || peek.starts_with(b"<head")
        || peek.starts_with(b"<body")
        || memchr::memmem::find(&peek, b"<html").is_some()
}

#[cfg(test)]
mod tests {
    use super::{eq_short, ignored_message, LineEnds};
    use crate::diagnostic::Code;
    use crate::robots::{Mode, Options, OtherKey, Robots};

    #[test]
    fn ignored_messages_name_their_key() {
        for key in [
            OtherKey::CrawlDelay,
            OtherKey::Host,
            OtherKey::CleanParam,
            OtherKey::RequestRate,
            OtherKey::VisitTime,
            OtherKey::Noindex,
            OtherKey::Nofollow,
            OtherKey::Noarchive,
        ] {
            assert_eq!(
                ignored_message(key),
                format!(
                    "`{}` is not part of RFC 9309; Google ignores it (kept for crawlers that read it)",
                    key.as_str()
                )
            );
        }
    }

    #[test]
    fn line_ends_agree_with_memchr3() {
        let line_ends = LineEnds::new();
        let mut v =
            b"user-agent: *\tdisallow: /a/b/c?d=e&f=g/hijklmnopqrstuvwxyz/01234#6789".to_vec();
        for b in 0..=255u8 {
            for at in 0..v.len() {
                let old = v[at];
                v[at] = b;
                for start in [0, 1, 15, 16, 17, 40] {
                    for end in [at, at + 1, at + 2, v.len()] {
                        let s = &v[start.min(end).min(v.len())..end.min(v.len())];
                        assert_eq!(
                            line_ends.find(s),
                            memchr::memchr3(b'\n', b'\r', b'#', s),
                            "{b:#x} at {at}, {start}..{end}"
                        );
                    }
                }
                v[at] = old;
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1_000))]
        /// Every rule reads back its key as spelled and its value as written, however the
        /// lines mix their spellings: a spelling taken from the key's last one (compared in
        /// words), found among the file's, new, or past the seven a file keeps; short (4 to 7
        /// bytes), 8 to 16 bytes, or longer.
        #[test]
        fn rule_keys_and_values_read_back_as_written(
            lines in proptest::collection::vec(
                (0..6usize, 0..7usize, "[/a-z*$%]{0,6}"),
                1..40,
            ),
            google in proptest::prelude::any::<bool>(),
        ) {
            const KEYS: [&str; 6] = ["Disallow", "disallow", "DISALLOW", "Allow", "allow", "ALLOW"];
            const SEPS: [&str; 7] = [":", ": ", ":\t", " : ", ":          ", "  :  ", ":  "];
            let mut body = String::from("User-agent: *\n");
            let mut want = Vec::new();
            for (key, sep, value) in &lines {
                let (key, value) = (format!("{}{}", KEYS[*key], SEPS[*sep]), format!("/{value}"));
                body.push_str(&format!("{key}{value}\n"));
                want.push((key, value));
            }
            let mode = if google { Mode::Google } else { Mode::Rfc };
            let robots = Robots::parse_with(body.as_bytes(), &Options::mode(mode)).robots;
            let got: Vec<(String, String)> = (0..robots.rule_count())
                .filter_map(|i| robots.rule(i))
                .map(|r| (r.text.key().to_string(), r.text.value().to_string()))
                .collect();
            proptest::prop_assert_eq!(got, want);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
        /// Without diagnostics the rule step makes each slot itself (and a repeated value
        /// takes its slot from the previous group's, unless its compile reported something);
        /// with them, `finish` makes the slots from the rules and their compiled patterns.
        /// Both give every rule the same slot (its arena offset aside), text and verdicts, and
        /// the file the same arena: groups that repeat values, literal `$`, control bytes,
        /// `index.htm`.
        #[test]
        fn slots_made_in_the_rule_step_match_those_made_from_the_rules(
            groups in proptest::collection::vec(
                proptest::collection::vec(
                    (proptest::prelude::any::<bool>(), 0..8usize, "[/a-c*$]{0,5}"),
                    0..6,
                ),
                1..5,
            ),
            google in proptest::prelude::any::<bool>(),
        ) {
            const TAILS: [&str; 8] = ["", "$", "x$y", "\u{1}", "index.html", "a/index.htm", "*", "%41"];
            let mut body = String::new();
            let mut previous: Vec<String> = Vec::new();
            for (g, rules) in groups.iter().enumerate() {
                body.push_str(&format!("User-agent: bot{g}\n"));
                for (k, (allow, tail, value)) in rules.iter().enumerate() {
                    // Every other group repeats the previous one's values where it can.
                    let value = match previous.get(k) {
                        Some(v) if g % 2 == 1 => v.clone(),
                        _ => format!("/{value}{}", TAILS[*tail]),
                    };
                    let key = if *allow { "Allow" } else { "Disallow" };
                    body.push_str(&format!("{key}: {value}\n"));
                    if previous.len() <= k {
                        previous.push(value);
                    } else {
                        previous[k] = value;
                    }
                }
            }
            let mode = if google { Mode::Google } else { Mode::Rfc };
            let parse = |diagnostics| {
                Robots::parse_with(body.as_bytes(), &Options { diagnostics, ..Options::mode(mode) })
                    .robots
            };
            let (quiet, loud) = (parse(false), parse(true));
            let summary = |r: &Robots| {
                (0..r.rule_count())
                    .map(|i| {
                        let slot = r.index.slot(i).copied();
                        let text = slot.map(|s| s.text(r.texts.as_bytes()).to_vec());
                        let slot = slot.map(|mut s| {
                            s.start = 0;
                            s
                        });
                        let written = r.rule(i).map(|r| r.text.to_string());
                        (format!("{slot:?}"), text, written)
                    })
                    .collect::<Vec<_>>()
            };
            proptest::prop_assert_eq!(summary(&quiet), summary(&loud));
            // The same arena: a repeat is shared in both parses or in neither.
            proptest::prop_assert_eq!(&quiet.texts, &loud.texts);
            for g in 0..groups.len() {
                for path in ["/", "/a", "/a$b", "/b/", "/ab/c", "/x$y", "/%41", "/a/", "/c/index.html"] {
                    let agent = crate::robots::ProductToken::new(&format!("bot{g}")).unwrap();
                    proptest::prop_assert_eq!(
                        quiet.check_path(&agent, path).allowed,
                        loud.check_path(&agent, path).allowed
                    );
                }
            }
        }
    }

    #[test]
    fn eq_short_agrees_with_slice_equality() {
        let base = b"Disallow:\t Allow: x";
        for n in 0..base.len() {
            let a = &base[..n];
            assert!(eq_short(a, a));
            for at in 0..n {
                for b in [0u8, b'D', b'd', b' ', 0xff] {
                    let mut other = a.to_vec();
                    other[at] = b;
                    assert_eq!(eq_short(a, &other), a == &other[..], "{n} {at} {b}");
                }
            }
            assert!(!eq_short(a, &base[..n + 1]));
        }
    }

    #[test]
    fn messages_quote_keys_and_values_as_lossy_text() {
        // The same lines in a file that is all UTF-8 (quoted from the input validated once)
        // and in one that is not (each part decoded on its own).
        for tail in [&b""[..], b"# \xff\ndisallow: \xc3\xa9\xff\n"] {
            let mut robots =
                b"user-agent: *\ncl\xc3\xa9: x\nuser-agent: b\xc3\xa9t/1\ndisallow: \xc3\xa9\n"
                    .to_vec();
            robots.extend_from_slice(tail);
            let messages: Vec<String> = Robots::parse(&robots)
                .diagnostics
                .iter()
                .map(|d| d.message.to_string())
                .collect();
            let mut wants = vec![
                "unknown directive `cl\u{e9}`; ignored",
                "`b\u{e9}t/1` read as the product token `b`",
                "`\u{e9}` starts with neither `/` nor `*`, so it can never match; ignored",
            ];
            if !tail.is_empty() {
                wants.push("`\u{e9}\u{fffd}` starts with neither `/` nor `*`, so it can never match; ignored");
            }
            for want in wants {
                assert!(
                    messages.iter().any(|m| m == want),
                    "{want:?} in {messages:?}"
                );
            }
        }
    }

    #[test]
    fn control_bytes_in_paths_are_reported_once_where_they_are() {
        // The first control byte of the value (or none), in both modes, whether the value is
        // plain, needs a canonical form, ends in `$`, or is not UTF-8 (Google compiles it,
        // RFC 9309 mode drops it).
        let controls = |robots: &[u8], mode: Mode| -> Vec<std::ops::Range<usize>> {
            let options = Options {
                mode,
                ..Options::default()
            };
            Robots::parse_with(robots, &options)
                .diagnostics
                .iter()
                .filter(|d| d.code == Code::ControlInPath)
                .map(|d| d.span.clone())
                .collect()
        };
        let head = b"user-agent: *\ndisallow: ";
        for b in 0..=255u8 {
            for tail in [&b""[..], b"$", b"*x", b"%41\xff", b"\x01"] {
                for at in 0..3 {
                    let mut value = b"/ab".to_vec();
                    value.insert(at + 1, b);
                    value.extend_from_slice(tail);
                    let mut robots = head.to_vec();
                    robots.extend_from_slice(&value);
                    robots.extend_from_slice(b"\nallow: /x\n");
                    // What the parser leaves of the value: cut at a line end, `#` or NUL, and
                    // trimmed.
                    let kept: &[u8] = match robots[head.len()..]
                        .iter()
                        .position(|&c| matches!(c, b'\n' | b'\r' | b'#' | 0))
                    {
                        Some(end) => &robots[head.len()..head.len() + end],
                        None => &robots[head.len()..],
                    };
                    let kept = super::super::lexer::trim_end(kept);
                    let want: Vec<_> = kept
                        .iter()
                        .position(|&c| c < 0x20 || c == 0x7f)
                        .map(|i| head.len() + i..head.len() + i + 1)
                        .into_iter()
                        .collect();
                    for mode in [Mode::Rfc, Mode::Google] {
                        assert_eq!(
                            controls(&robots, mode),
                            want,
                            "{b:#x} {tail:?} {at} {mode:?}"
                        );
                    }
                }
            }
        }
    }
}
