//! Usage preferences and the other records of robots.txt as it is written for AI crawlers:
//! `Content-Usage` (IETF AI Preferences), `Content-Signal` (Cloudflare), `License` (RSL 1.0)
//! and `LLM-Policy`.
//!
//! **None of these is a crawl permission.** They never change what [`Robots::check`] answers,
//! in either [`Mode`], and they are not group boundaries (a line of them between two
//! `user-agent` lines leaves both in one group, as for any record outside RFC 9309). They are
//! what a site says about the *use* of what is crawled, for crawlers that honour it.
//!
//! - `Content-Usage: [path] statement` (draft-ietf-aipref-attach §3, the working copy of
//!   2026-08-19) is a group rule. The statement is a structured-field dictionary read as
//!   draft-ietf-aipref-vocab §6.5 says: only the labels of the vocabulary (`train-ai`,
//!   `search`) count, with the Token `y` (allowed) or `n` (disallowed); any other value, an
//!   unknown label or parameters are ignored; a repeated label counts once, its last value;
//!   a statement that does not parse makes every preference of the rule unknown. For a URL, the
//!   rules of the agent's groups whose path matches, as Allow/Disallow patterns match, and is
//!   the longest (attach §3.1) give the preferences; a rule with no path matches every path with
//!   length 0. When several rules of that length match (attach §3.1 speaks of rules with
//!   identical paths), each category combines as vocab §5.1 says: disallowed if any says so,
//!   else allowed if any says so, else unknown. Preferences apply only to URLs the agent may
//!   crawl (attach §3.1): a disallowed URL has none ([`Usage::preferences`] is all unknown).
//! - `Content-Signal: search=yes, ai-input=yes, ai-train=no` (Cloudflare's Content Signals
//!   Policy, contentsignals.org) is a group record with three signals, `yes` or `no`, and no
//!   path. An agent's signals are those of its groups' lines, combined per signal as above.
//! - `License: <absolute URL>` (RSL 1.0: the address of the site's RSL license document) and
//!   `LLM-Policy: <URL>` (a pointer to a policy for language models, written as an absolute URL
//!   or as a path such as `/llms.txt`) are global, like `Sitemap`.
//!
//! Section numbers are those of the working copies in the project's reference specs (attach:
//! §3 "Robots Exclusion Protocol Content-Usage Rule", §3.1 semantics, §3.2 processing, §3.4
//! example; vocab: §5.1 "Combining Preferences", §6 serialization, §6.5 processing algorithm,
//! §6.5.1 multiple preferences, §6.5.2 parameters). Attach's own references into the vocabulary
//! ("Section 7.1 of VOCAB") use an older numbering.
//!
//! [`Robots::check`]: super::Robots::check
//! [`Mode`]: super::Mode

use std::borrow::Cow;
use std::ops::Range;

use super::canonical;
use super::pattern::Compiled;
use super::sfv;
use super::{Decision, Robots};
use crate::diagnostic::Code;

/// One category's preference (draft-ietf-aipref-vocab §3): allowed, disallowed or unknown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Preference {
    /// Nothing is stated (the default).
    #[default]
    Unknown,
    /// The use is allowed (`y`; `yes` in `Content-Signal`).
    Allowed,
    /// The use is disallowed (`n`; `no` in `Content-Signal`).
    Disallowed,
}

impl Preference {
    /// `"unknown"`, `"allowed"` or `"disallowed"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Preference::Unknown => "unknown",
            Preference::Allowed => "allowed",
            Preference::Disallowed => "disallowed",
        }
    }

    /// Two statements about one category combined (draft-ietf-aipref-vocab §5.1): disallowed
    /// if either disallows, else allowed if either allows, else unknown.
    pub fn combine(self, other: Preference) -> Preference {
        use Preference::*;
        match (self, other) {
            (Disallowed, _) | (_, Disallowed) => Disallowed,
            (Allowed, _) | (_, Allowed) => Allowed,
            _ => Unknown,
        }
    }
}

/// The preferences of the AI-preferences vocabulary (draft-ietf-aipref-vocab §4), one per
/// category.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct UsagePreferences {
    /// `train-ai`: AI model training (vocab §4.1).
    pub train_ai: Preference,
    /// `search`: use in a search application (vocab §4.2).
    pub search: Preference,
}

impl UsagePreferences {
    /// Each category combined (vocab §5.1).
    pub fn combine(self, other: UsagePreferences) -> UsagePreferences {
        UsagePreferences {
            train_ai: self.train_ai.combine(other.train_ai),
            search: self.search.combine(other.search),
        }
    }

    /// Every category unknown.
    pub fn is_unknown(&self) -> bool {
        *self == UsagePreferences::default()
    }
}

/// Cloudflare's content signals: one preference per signal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ContentSignals {
    /// `search`: building a search index and showing results (not AI summaries).
    pub search: Preference,
    /// `ai-input`: using content as input to AI models (retrieval, grounding).
    pub ai_input: Preference,
    /// `ai-train`: training or fine-tuning AI models.
    pub ai_train: Preference,
}

impl ContentSignals {
    /// Each signal combined as [`Preference::combine`] does.
    pub fn combine(self, other: ContentSignals) -> ContentSignals {
        ContentSignals {
            search: self.search.combine(other.search),
            ai_input: self.ai_input.combine(other.ai_input),
            ai_train: self.ai_train.combine(other.ai_train),
        }
    }
}

/// A `Content-Usage` rule, as the file wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UsageRuleRef<'a> {
    /// 1-based line.
    pub line: u32,
    /// Index into [`Robots::groups`] of its group.
    pub group: usize,
    /// The line as written, without comment and surrounding whitespace.
    pub text: &'a str,
    /// The path as written; `None` when absent (the rule covers every path).
    pub path: Option<&'a str>,
    /// The statement of preference as written.
    pub statement: &'a str,
    /// What the statement says.
    pub preferences: UsagePreferences,
}

/// A `Content-Signal` line, as the file wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignalRef<'a> {
    /// 1-based line.
    pub line: u32,
    /// Index into [`Robots::groups`] of its group.
    pub group: usize,
    /// The line as written, without comment and surrounding whitespace.
    pub text: &'a str,
    /// What it says.
    pub signals: ContentSignals,
}

/// A global `License` or `LLM-Policy` record: where the document is. A signal for crawlers
/// that read it, not a crawl permission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyLink {
    /// The URL as written: absolute for `License`; absolute or a path from the site's root
    /// (`/llms.txt`) for `LLM-Policy`.
    pub url: String,
    /// 1-based line.
    pub line: u32,
}

/// The usage preferences in force for one agent and one URL: [`AgentRules::usage`].
///
/// [`AgentRules::usage`]: super::AgentRules::usage
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage<'a> {
    /// May the agent crawl the URL at all, and why: preferences apply only if so.
    pub decision: Decision<'a>,
    /// The preferences: all unknown when the URL is disallowed or no rule matches.
    pub preferences: UsagePreferences,
    /// The rules they come from: the matching `Content-Usage` rules of the longest path (more
    /// than one when several have that length), in file order. Empty when disallowed.
    pub rules: Vec<UsageRuleRef<'a>>,
}

/// An agent's content signals: [`AgentRules::content_signals`].
///
/// [`AgentRules::content_signals`]: super::AgentRules::content_signals
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signals<'a> {
    /// The signals of the lines, combined.
    pub signals: ContentSignals,
    /// The `Content-Signal` lines of the agent's groups, in file order.
    pub lines: Vec<SignalRef<'a>>,
}

/// A `Content-Usage` rule as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UsageRule {
    pub line: u32,
    pub group: u32,
    /// `None`: no path (matches everything, length 0).
    pub pattern: Option<Compiled>,
    /// In `Robots::texts`: the line, the path, the statement.
    pub text: Range<u32>,
    pub path: Option<Range<u32>>,
    pub statement: Range<u32>,
    pub preferences: UsagePreferences,
}

/// A `Content-Signal` line as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SignalLine {
    pub line: u32,
    pub group: u32,
    pub text: Range<u32>,
    /// The value as written, in `Robots::texts`.
    pub value: Range<u32>,
    pub signals: ContentSignals,
}

/// Everything this module keeps for a [`Robots`]: empty (and allocation-free) for a file with
/// none of these records.
#[derive(Debug, Clone, Default)]
pub(crate) struct Records {
    pub usage: Vec<UsageRule>,
    pub signals: Vec<SignalLine>,
    pub licenses: Vec<PolicyLink>,
    pub llm_policies: Vec<PolicyLink>,
}

impl Records {
    /// No records: what a file without any reads as (a `Robots` keeps none then).
    pub(crate) const EMPTY: Records = Records {
        usage: Vec::new(),
        signals: Vec::new(),
        licenses: Vec::new(),
        llm_policies: Vec::new(),
    };

    pub(crate) fn is_empty(&self) -> bool {
        self.usage.is_empty()
            && self.signals.is_empty()
            && self.licenses.is_empty()
            && self.llm_policies.is_empty()
    }

    /// Gives back the vectors' spare capacity (the records are complete).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.usage.shrink_to_fit();
        self.signals.shrink_to_fit();
        self.licenses.shrink_to_fit();
        self.llm_policies.shrink_to_fit();
    }

    /// Heap bytes held: the vectors' capacities and the links' URLs.
    pub(crate) fn heap_size(&self) -> usize {
        use std::mem::size_of;
        self.usage.capacity() * size_of::<UsageRule>()
            + self.signals.capacity() * size_of::<SignalLine>()
            + (self.licenses.capacity() + self.llm_policies.capacity()) * size_of::<PolicyLink>()
            + self
                .licenses
                .iter()
                .chain(&self.llm_policies)
                .map(|l| l.url.capacity())
                .sum::<usize>()
    }
}

/// A problem found in a value: code, byte range relative to the value, message.
pub(crate) type Problem = (Code, Range<usize>, Cow<'static, str>);

/// A `Content-Usage` value split and read.
pub(crate) struct ParsedUsage<'a> {
    pub path: Option<&'a [u8]>,
    pub statement: &'a [u8],
    pub preferences: UsagePreferences,
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Reads a `Content-Usage` value (comment and surrounding whitespace already removed), as
/// draft-ietf-aipref-attach §3.2 says: a value starting with `/` starts with a path, which ends
/// at the first space or tab; otherwise the whole value is the statement. `None` when the value
/// is empty (nothing to keep).
pub(crate) fn parse_content_usage<'a>(
    value: &'a [u8],
    problems: &mut Vec<Problem>,
) -> Option<ParsedUsage<'a>> {
    if value.is_empty() {
        problems.push((
            Code::MalformedPreference,
            0..0,
            "empty `content-usage`: no preference is stated; ignored".into(),
        ));
        return None;
    }
    let (path, statement_at) = if value[0] == b'/' {
        let end = value
            .iter()
            .position(|&b| is_blank(b))
            .unwrap_or(value.len());
        let rest = value[end..]
            .iter()
            .position(|&b| !is_blank(b))
            .map_or(value.len(), |i| end + i);
        (Some(&value[..end]), rest)
    } else {
        (None, 0)
    };
    let statement = &value[statement_at..];
    let mut preferences = UsagePreferences::default();
    if statement.is_empty() {
        problems.push((
            Code::MalformedPreference,
            0..value.len(),
            "no statement of preference after the path: every preference for it is unknown".into(),
        ));
        return Some(ParsedUsage {
            path,
            statement,
            preferences,
        });
    }
    // The members that count: the last of each known label (vocab §6.5.1), and unknown labels.
    let mut train_ai = None;
    let mut search = None;
    let mut unknown: Vec<sfv::Member<'a>> = Vec::new();
    let parsed = sfv::dictionary(statement, |m| match m.key {
        b"train-ai" => train_ai = Some(m),
        b"search" => search = Some(m),
        _ => unknown.push(m),
    });
    if let Err(e) = parsed {
        problems.push(statement_error(value, path, statement_at, statement, e));
        return Some(ParsedUsage {
            path,
            statement,
            preferences,
        });
    }
    for (slot, member) in [
        (&mut preferences.train_ai, train_ai),
        (&mut preferences.search, search),
    ] {
        let Some(m) = member else { continue };
        *slot = match m.value {
            sfv::Value::Token(b"y") => Preference::Allowed,
            sfv::Value::Token(b"n") => Preference::Disallowed,
            other => {
                let key = String::from_utf8_lossy(m.key);
                let hint = match other {
                    sfv::Value::Token(b"yes" | b"no") => {
                        " (`yes`/`no` are Content-Signal's values; Content-Usage says `y`/`n`)"
                    }
                    sfv::Value::Boolean(true) => " (a label without `=y` or `=n`)",
                    _ => "",
                };
                problems.push((
                    Code::MalformedPreference,
                    statement_at + m.at..statement_at + m.end,
                    format!(
                        "`{key}` must be `{key}=y` or `{key}=n`{hint}; its preference is unknown"
                    )
                    .into(),
                ));
                Preference::Unknown
            }
        };
    }
    for m in unknown {
        let label = String::from_utf8_lossy(m.key);
        problems.push((
            Code::UnknownUsageLabel,
            statement_at + m.at..statement_at + m.at + m.key.len(),
            format!(
                "`{label}` is not a label of the AI-preferences vocabulary (`train-ai`, `search`); ignored{}",
                usage_label_hint(m.key)
            )
            .into(),
        ));
    }
    Some(ParsedUsage {
        path,
        statement,
        preferences,
    })
}

/// The diagnostic for a statement that is not a dictionary.
fn statement_error(
    value: &[u8],
    path: Option<&[u8]>,
    statement_at: usize,
    statement: &[u8],
    e: sfv::Error,
) -> Problem {
    // A first part that looks like a path but does not start with `/` (`*.pdf train-ai=n`,
    // `images/ train-ai=n`) made the whole value the statement.
    if path.is_none() {
        if let Some(blank) = value.iter().position(|&b| is_blank(b)) {
            let first = &value[..blank];
            let rest_at = value[blank..]
                .iter()
                .position(|&b| !is_blank(b))
                .map_or(value.len(), |i| blank + i);
            let looks_like_path = first.contains(&b'/') || first.starts_with(b"*");
            if looks_like_path && sfv::dictionary(&value[rest_at..], |_| {}).is_ok() {
                return (
                    Code::InvalidUsagePath,
                    0..blank,
                    format!(
                        "`{}` does not start with `/`, so it is not read as a path but as part of the preference, which then does not parse: this rule states nothing",
                        String::from_utf8_lossy(first)
                    )
                    .into(),
                );
            }
        }
    }
    let at = statement_at + e.at.min(statement.len());
    let mut hint = "";
    if statement.iter().any(u8::is_ascii_uppercase) && !e.what.contains("lowercase") {
        hint = " (labels and values are lowercase)";
    } else if memchr::memmem::find(statement, b"=yes").is_some()
        || memchr::memmem::find(statement, b"=no").is_some()
    {
        hint = " (`yes`/`no` are Content-Signal's values; Content-Usage says `y`/`n`)";
    }
    (
        Code::MalformedPreference,
        at..(at + 1).min(statement_at + statement.len()).max(at),
        format!(
            "the statement of preference is not a structured-field dictionary (expected {} at column {}){hint}: every preference of this rule is unknown",
            e.what,
            e.at + 1
        )
        .into(),
    )
}

/// Hints for labels that are not in the vocabulary but were in earlier drafts, or belong to
/// `Content-Signal`.
fn usage_label_hint(label: &[u8]) -> &'static str {
    match label {
        b"train-genai" | b"genai" => {
            " (a label of earlier drafts for generative-AI training; the vocabulary now has only `train-ai`)"
        }
        b"ai" => " (a label of earlier drafts; AI training is now `train-ai`)",
        b"ai-use" => {
            " (a label of earlier drafts for using content in AI outputs; it was removed and states nothing now)"
        }
        b"bots" | b"tdm" => {
            " (a label of earlier drafts for all automated processing; it was removed and states nothing now)"
        }
        b"ai-train" => " (a Content-Signal label; Content-Usage says `train-ai`)",
        b"ai-input" => " (a Content-Signal label; Content-Usage has no such category)",
        _ => "",
    }
}

/// Reads a `Content-Signal` value: comma-separated `name=yes|no` (names and values
/// ASCII-case-insensitive, spaces around them ignored, the last of a repeated name counts).
pub(crate) fn parse_content_signal(value: &[u8], problems: &mut Vec<Problem>) -> ContentSignals {
    let mut signals = ContentSignals::default();
    if value.is_empty() {
        problems.push((
            Code::MalformedPreference,
            0..0,
            "empty `content-signal`: no signal is given".into(),
        ));
        return signals;
    }
    let mut start = 0;
    for part in value.split(|&b| b == b',') {
        let at = start;
        start += part.len() + 1;
        let lead = part.iter().take_while(|&&b| is_blank(b)).count();
        let trimmed = super::lexer::trim_end(&part[lead..]);
        if trimmed.is_empty() {
            continue;
        }
        let span = at + lead..at + lead + trimmed.len();
        let Some(eq) = memchr::memchr(b'=', trimmed) else {
            problems.push((
                Code::MalformedPreference,
                span,
                format!(
                    "`{}` is not `name=yes` or `name=no`; ignored",
                    String::from_utf8_lossy(trimmed)
                )
                .into(),
            ));
            continue;
        };
        let name = super::lexer::trim_end(&trimmed[..eq]);
        let val = &trimmed[eq + 1..];
        let val = &val[val.iter().take_while(|&&b| is_blank(b)).count()..];
        let slot = if name.eq_ignore_ascii_case(b"search") {
            &mut signals.search
        } else if name.eq_ignore_ascii_case(b"ai-input") {
            &mut signals.ai_input
        } else if name.eq_ignore_ascii_case(b"ai-train") {
            &mut signals.ai_train
        } else {
            let hint = match name.to_ascii_lowercase().as_slice() {
                b"train-ai" => " (a Content-Usage label; Content-Signal says `ai-train`)",
                _ => "",
            };
            problems.push((
                Code::UnknownUsageLabel,
                at + lead..at + lead + name.len(),
                format!(
                    "`{}` is not a content signal (`search`, `ai-input`, `ai-train`); ignored{hint}",
                    String::from_utf8_lossy(name)
                )
                .into(),
            ));
            continue;
        };
        *slot = if val.eq_ignore_ascii_case(b"yes") {
            Preference::Allowed
        } else if val.eq_ignore_ascii_case(b"no") {
            Preference::Disallowed
        } else {
            let hint = match val {
                b"y" | b"n" => " (`y`/`n` are Content-Usage's values)",
                _ => "",
            };
            problems.push((
                Code::MalformedPreference,
                span,
                format!(
                    "`{}` must be `yes` or `no`{hint}; this signal is unknown",
                    String::from_utf8_lossy(trimmed)
                )
                .into(),
            ));
            Preference::Unknown
        };
    }
    signals
}

/// Is `value` a usable `LLM-Policy` value: an absolute http(s) URL or a path from the root?
pub(crate) fn is_policy_path(value: &[u8]) -> bool {
    value.first() == Some(&b'/')
        && value.get(1) != Some(&b'/')
        && value.iter().all(|&b| b.is_ascii_graphic())
}

impl Robots {
    pub(crate) fn text_at(&self, r: &Range<u32>) -> &str {
        self.texts
            .get(r.start as usize..r.end as usize)
            .unwrap_or_default()
    }

    pub(crate) fn usage_ref(&self, r: &UsageRule) -> UsageRuleRef<'_> {
        UsageRuleRef {
            line: r.line,
            group: r.group as usize,
            text: self.text_at(&r.text),
            path: r.path.as_ref().map(|p| self.text_at(p)),
            statement: self.text_at(&r.statement),
            preferences: r.preferences,
        }
    }

    pub(crate) fn signal_ref(&self, s: &SignalLine) -> SignalRef<'_> {
        SignalRef {
            line: s.line,
            group: s.group as usize,
            text: self.text_at(&s.text),
            signals: s.signals,
        }
    }

    /// Every `Content-Usage` rule, in file order (rules before the first group are not kept).
    pub fn content_usage_rules(&self) -> impl Iterator<Item = UsageRuleRef<'_>> + '_ {
        self.usage_records().usage.iter().map(|r| self.usage_ref(r))
    }

    /// Every `Content-Signal` line, in file order (lines before the first group are not kept).
    pub fn content_signal_lines(&self) -> impl Iterator<Item = SignalRef<'_>> + '_ {
        self.usage_records()
            .signals
            .iter()
            .map(|s| self.signal_ref(s))
    }

    /// The `License` records (RSL 1.0: where the site's license document is), in file order.
    /// Global wherever they are written. A signal, not a crawl permission.
    pub fn licenses(&self) -> &[PolicyLink] {
        &self.usage_records().licenses
    }

    /// The `LLM-Policy` records, in file order. Global wherever they are written. A signal,
    /// not a crawl permission.
    pub fn llm_policies(&self) -> &[PolicyLink] {
        &self.usage_records().llm_policies
    }

    /// The usage preferences in force for `token` at `url` ([`AgentRules::usage`]).
    ///
    /// ```
    /// use crawlgate::{Preference, ProductToken, Robots};
    /// let robots = Robots::parse(
    ///     b"User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n",
    /// ).robots;
    /// let bot = ProductToken::new("ExampleBot")?;
    /// let u = robots.usage(&bot, "https://example.com/ai-ok/test");
    /// assert_eq!(u.preferences.train_ai, Preference::Allowed);
    /// assert_eq!(u.rules[0].line, 5);
    /// assert_eq!(robots.usage(&bot, "/test").preferences.train_ai, Preference::Disallowed);
    /// // Not crawlable: no preferences.
    /// assert!(robots.usage(&bot, "/never/test").preferences.is_unknown());
    /// # Ok::<(), crawlgate::TokenError>(())
    /// ```
    ///
    /// [`AgentRules::usage`]: super::AgentRules::usage
    pub fn usage(&self, token: &super::ProductToken, url: &str) -> Usage<'_> {
        self.rules_for(token).usage(url)
    }

    /// The content signals of the groups that apply to `token`
    /// ([`AgentRules::content_signals`]).
    ///
    /// [`AgentRules::content_signals`]: super::AgentRules::content_signals
    pub fn content_signals(&self, token: &super::ProductToken) -> Signals<'_> {
        self.rules_for(token).content_signals()
    }
}

/// The `Content-Usage` rules among `rules` whose group is in `groups` and that match `path`
/// (canonical, with its byte mask), longest first: what [`Usage`] reports.
pub(crate) fn usage_at<'a>(
    robots: &'a Robots,
    groups: &[u32],
    path: &str,
) -> (UsagePreferences, Vec<UsageRuleRef<'a>>) {
    let rules = &robots.usage_records().usage;
    if rules.is_empty() || groups.is_empty() {
        return (UsagePreferences::default(), Vec::new());
    }
    let (canon, mask) = canonical::canonical_path(path, robots.mode);
    let arena = robots.texts.as_bytes();
    let mut best: Option<u32> = None;
    let mut hits: Vec<&UsageRule> = Vec::new();
    for r in rules.iter().filter(|r| groups.contains(&r.group)) {
        let length = match &r.pattern {
            None => 0,
            Some(p) => {
                let text = &arena[p.start as usize..(p.start + p.len) as usize];
                if !p.matches(text, &canon, mask) {
                    continue;
                }
                p.priority
            }
        };
        match best {
            Some(b) if length < b => continue,
            Some(b) if length == b => {}
            _ => {
                best = Some(length);
                hits.clear();
            }
        }
        hits.push(r);
    }
    let preferences = hits.iter().fold(UsagePreferences::default(), |acc, r| {
        acc.combine(r.preferences)
    });
    (
        preferences,
        hits.into_iter().map(|r| robots.usage_ref(r)).collect(),
    )
}

/// The `Content-Signal` lines of `groups`, combined.
pub(crate) fn signals_of<'a>(robots: &'a Robots, groups: &[u32]) -> Signals<'a> {
    let lines: Vec<SignalRef<'a>> = robots
        .usage_records()
        .signals
        .iter()
        .filter(|s| groups.contains(&s.group))
        .map(|s| robots.signal_ref(s))
        .collect();
    Signals {
        signals: lines
            .iter()
            .fold(ContentSignals::default(), |acc, s| acc.combine(s.signals)),
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(v: &str) -> (Option<UsagePreferences>, Vec<(Code, String)>) {
        let mut problems = Vec::new();
        let p = parse_content_usage(v.as_bytes(), &mut problems).map(|p| p.preferences);
        (
            p,
            problems
                .into_iter()
                .map(|(c, r, _)| (c, v[r].to_owned()))
                .collect(),
        )
    }

    use Preference::{Allowed as Y, Disallowed as N, Unknown as U};

    fn prefs(train_ai: Preference, search: Preference) -> Option<UsagePreferences> {
        Some(UsagePreferences { train_ai, search })
    }

    /// draft-ietf-aipref-vocab §6: `train-ai=y, search=n`.
    #[test]
    fn vocab_section_6_example() {
        assert_eq!(usage("train-ai=y, search=n"), (prefs(Y, N), vec![]));
    }

    /// draft-ietf-aipref-vocab §6.5.1: all four members count, the last of each key wins, and
    /// a Boolean or a String is not a Token: both preferences unknown, and no error.
    #[test]
    fn vocab_section_6_5_1_duplicates() {
        let (p, problems) = usage("train-ai=y, train-ai, search=n, search=\"n\"");
        assert_eq!(p, prefs(U, U));
        // The linter still says why each is unknown.
        assert!(problems
            .iter()
            .all(|(c, _)| *c == Code::MalformedPreference));
        assert_eq!(problems.len(), 2);
    }

    /// draft-ietf-aipref-vocab §6.5.1: uppercase makes the dictionary fail: all unknown.
    #[test]
    fn vocab_section_6_5_1_uppercase_fails() {
        let (p, problems) = usage("Train-AI=n");
        assert_eq!(p, prefs(U, U));
        assert_eq!(problems[0].0, Code::MalformedPreference);
    }

    /// draft-ietf-aipref-vocab §6.5.2: parameters are ignored, only the selected value's
    /// count; a preference with parameters can be unknown.
    #[test]
    fn vocab_section_6_5_2_parameters() {
        assert_eq!(usage("train-ai;allow=n, train-ai=y"), (prefs(Y, U), vec![]));
        let (p, problems) = usage("train-ai;has;parameters=\"?\";");
        // A trailing `;` is not a parameter: the dictionary does not parse.
        assert_eq!(p, prefs(U, U));
        assert_eq!(problems.len(), 1);
        let (p, _) = usage("train-ai;has;parameters=\"?\"");
        assert_eq!(p, prefs(U, U));
    }

    /// draft-ietf-aipref-vocab §6.4: unknown labels are ignored.
    #[test]
    fn unknown_labels_are_ignored_with_hints() {
        let (p, problems) = usage("train-genai=n, ai-use=n, bots=n, search=y");
        assert_eq!(p, prefs(U, Y));
        let codes: Vec<_> = problems.iter().map(|(c, s)| (*c, s.as_str())).collect();
        assert_eq!(
            codes,
            vec![
                (Code::UnknownUsageLabel, "train-genai"),
                (Code::UnknownUsageLabel, "ai-use"),
                (Code::UnknownUsageLabel, "bots")
            ]
        );
    }

    /// draft-ietf-aipref-attach §3.2: path up to the first space or tab; a value not starting
    /// with `/` has no path.
    #[test]
    fn attach_section_3_2_paths() {
        let mut problems = Vec::new();
        let p = parse_content_usage(b"/ai-ok/\t train-ai=y", &mut problems).unwrap();
        assert_eq!(p.path, Some(&b"/ai-ok/"[..]));
        assert_eq!(p.statement, b"train-ai=y");
        assert!(problems.is_empty());
        let (p, problems) = usage("images/ train-ai=n");
        assert_eq!(p, prefs(U, U));
        assert_eq!(
            problems,
            vec![(Code::InvalidUsagePath, "images/".to_owned())]
        );
        let (_, problems) = usage("*.pdf train-ai=n");
        assert_eq!(problems, vec![(Code::InvalidUsagePath, "*.pdf".to_owned())]);
        let (p, problems) = usage("/only-a-path");
        assert_eq!(p, prefs(U, U));
        assert_eq!(problems[0].0, Code::MalformedPreference);
    }

    #[test]
    fn content_signal_values() {
        let mut problems = Vec::new();
        let s = parse_content_signal(b"search=yes, ai-input=yes, ai-train=no", &mut problems);
        assert_eq!(
            s,
            ContentSignals {
                search: Y,
                ai_input: Y,
                ai_train: N
            }
        );
        assert!(problems.is_empty());
        let s = parse_content_signal(b"search=y,ai-train = NO, foo=yes, bare", &mut problems);
        assert_eq!(s.ai_train, N);
        assert_eq!(s.search, U);
        let codes: Vec<_> = problems.iter().map(|p| p.0).collect();
        assert_eq!(
            codes,
            vec![
                Code::MalformedPreference,
                Code::UnknownUsageLabel,
                Code::MalformedPreference
            ]
        );
    }

    #[test]
    fn combining() {
        assert_eq!(Y.combine(N), N);
        assert_eq!(U.combine(Y), Y);
        assert_eq!(U.combine(U), U);
    }
}
