//! The lint over the compiled file that is about what crawlers are told, with no crawler
//! catalogue needed (the catalogue's checks are in `audit`):
//!
//! - `blocked-but-signalled`: a group whose rules block the whole site while its
//!   `Content-Signal` or `Content-Usage` lines allow a use. Preferences apply only to what may
//!   be crawled (draft-ietf-aipref-attach §3.1), so the `yes` says nothing.
//! - `bing-crawl-delay`: a `bingbot` group and the `*` group with different `crawl-delay`s.
//!   Bing takes `crawl-delay` from the `*` group even when a `bingbot` group exists: "If you
//!   create a section for Bingbot specifically, all the default directives will be ignored
//!   (except Crawl-Delay)" (Frédéric Dubut, Bing, February 2019, reported by Search Engine
//!   Land, <https://searchengineland.com/bing-robots-txt-tip-include-all-relevant-directives-if-you-have-a-bingbot-section-312276>).
//!   Which of the two Bing then uses is not documented, so the lint says they differ.
//!
//! Both read the compiled file through its public views, after the parse.

use std::collections::BTreeSet;
use std::ops::Range;

use super::{Agent, AgentRules, OtherKey, Preference, ProductToken, Reason, Robots, RuleKind};
use crate::diagnostic::{Code, Diagnostic};

/// Appends the findings to `out`.
pub(crate) fn run(robots: &Robots, input: &[u8], out: &mut Vec<Diagnostic>) {
    let mut lines = Lines::new(input);
    blocked_but_signalled(robots, &mut lines, out);
    bing_crawl_delay(robots, &mut lines, out);
}

/// Byte spans of lines, worked out on first use (LF, lone CR and CRLF end a line).
pub(crate) struct Lines<'a> {
    input: &'a [u8],
    starts: Option<Vec<usize>>,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(input: &'a [u8]) -> Self {
        Lines {
            input,
            starts: None,
        }
    }

    /// The span of 1-based line `n`, without its line end; empty at the end if there is none.
    pub(crate) fn span(&mut self, n: u32) -> Range<usize> {
        let input = self.input;
        let starts = self.starts.get_or_insert_with(|| {
            let mut starts = vec![0];
            starts.extend(
                memchr::memchr2_iter(b'\n', b'\r', input)
                    .filter(|&i| input[i] == b'\n' || input.get(i + 1) != Some(&b'\n'))
                    .map(|i| i + 1),
            );
            starts
        });
        let Some(&start) = (n as usize).checked_sub(1).and_then(|i| starts.get(i)) else {
            return input.len()..input.len();
        };
        let end = input[start..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .map_or(input.len(), |e| start + e);
        start..end
    }
}

fn push(out: &mut Vec<Diagnostic>, code: Code, line: u32, span: Range<usize>, message: String) {
    out.push(Diagnostic {
        code,
        severity: code.default_severity(),
        line,
        span,
        message: message.into(),
    });
}

/// The rules of the agents a group names: one `AgentRules` per distinct list.
fn lists(robots: &Robots) -> Vec<AgentRules<'_>> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for group in robots.groups() {
        for (agent, _) in group.agents() {
            let rules = match agent {
                Agent::Star => robots.rules_for_any(&[]),
                Agent::Token(t) => robots.rules_for(&ProductToken::verbatim(t)),
                Agent::Nobody => continue,
            };
            // Agents of the same groups have the same list.
            if seen.insert(rules.group_indexes().collect::<Vec<_>>()) {
                out.push(rules);
            }
        }
    }
    out
}

/// Does this rule list block every path: a `disallow` of `/` (or `/*`, `*`) and no `allow`?
pub(crate) fn blocks_everything(rules: &AgentRules<'_>) -> bool {
    if rules.check_path("/").allowed {
        return false;
    }
    let mut full = false;
    for r in rules.rules() {
        match r.kind {
            RuleKind::Allow => return false,
            RuleKind::Disallow => full |= matches!(r.pattern, "/" | "/*" | "*"),
        }
    }
    full && matches!(rules.check_path("/").reason, Reason::Rule(_))
}

fn blocked_but_signalled(robots: &Robots, lines: &mut Lines<'_>, out: &mut Vec<Diagnostic>) {
    // Nearly every file has neither record: nothing to look at.
    if robots.content_signal_lines().next().is_none()
        && robots.content_usage_rules().next().is_none()
    {
        return;
    }
    let mut reported = BTreeSet::new();
    for rules in lists(robots) {
        if !blocks_everything(&rules) {
            continue;
        }
        let who = match rules.matched_token() {
            Some("*") | None => "`*`".to_owned(),
            Some(t) => format!("`{t}`"),
        };
        for s in rules.content_signals().lines {
            let yes: Vec<&str> = [
                ("search", s.signals.search),
                ("ai-input", s.signals.ai_input),
                ("ai-train", s.signals.ai_train),
            ]
            .into_iter()
            .filter(|(_, p)| *p == Preference::Allowed)
            .map(|(n, _)| n)
            .collect();
            if !yes.is_empty() && reported.insert(s.line) {
                push(
                    out,
                    Code::BlockedButSignalled,
                    s.line,
                    lines.span(s.line),
                    format!(
                        "{who} may crawl nothing (`Disallow: /`), yet this line allows {}: \
                         signals apply only to what may be crawled, so the file says two things",
                        yes.join(", ")
                    ),
                );
            }
        }
        let groups: Vec<usize> = rules.group_indexes().collect();
        for u in robots.content_usage_rules() {
            if !groups.contains(&u.group) {
                continue;
            }
            let yes: Vec<&str> = [
                ("train-ai", u.preferences.train_ai),
                ("search", u.preferences.search),
            ]
            .into_iter()
            .filter(|(_, p)| *p == Preference::Allowed)
            .map(|(n, _)| n)
            .collect();
            if !yes.is_empty() && reported.insert(u.line) {
                push(
                    out,
                    Code::BlockedButSignalled,
                    u.line,
                    lines.span(u.line),
                    format!(
                        "{who} may crawl nothing (`Disallow: /`), yet this line allows {}: \
                         usage preferences apply only to what may be crawled, so the file says \
                         two things",
                        yes.join(", ")
                    ),
                );
            }
        }
    }
}

fn bing_crawl_delay(robots: &Robots, lines: &mut Lines<'_>, out: &mut Vec<Diagnostic>) {
    if !robots.records().any(|r| r.key == OtherKey::CrawlDelay) {
        return;
    }
    // The groups that name `bingbot` and `*`, read off the groups table: asking for an
    // agent's rules here would build the agent index a crawler pays for only when it checks.
    let naming = |wanted: &dyn Fn(&Agent<'_>) -> bool| -> Vec<usize> {
        robots
            .groups()
            .filter(|g| g.agents().any(|(a, _)| wanted(&a)))
            .map(|g| g.index())
            .collect()
    };
    let bing_groups =
        naming(&|a| matches!(a, Agent::Token(t) if t.eq_ignore_ascii_case("bingbot")));
    if bing_groups.is_empty() {
        return;
    }
    let star_groups = naming(&|a| matches!(a, Agent::Star));
    if star_groups.is_empty() {
        return;
    }
    let delay = |groups: &[usize]| {
        robots
            .records()
            .filter(|r| r.key == OtherKey::CrawlDelay)
            .find(|r| r.group.is_some_and(|g| groups.contains(&g)))
    };
    let (b, s) = (delay(&bing_groups), delay(&star_groups));
    let value = |v: &str| v.trim().parse::<f64>().ok();
    let (line, message) = match (b, s) {
        (Some(b), Some(s)) if value(b.value) != value(s.value) || value(b.value).is_none() => {
            if value(b.value) == value(s.value) && b.value.trim() == s.value.trim() {
                return;
            }
            (
                b.line,
                format!(
                    "`crawl-delay: {}` for bingbot, but `*` says `crawl-delay: {}` (line {}): \
                     Bing takes crawl-delay from the `*` group even when a bingbot group exists",
                    b.value.trim(),
                    s.value.trim(),
                    s.line
                ),
            )
        }
        (None, Some(s)) => {
            let Some(first) = robots
                .groups()
                .filter(|g| bing_groups.contains(&g.index()))
                .flat_map(|g| g.agents())
                .find(|(a, _)| *a == Agent::Token("bingbot"))
            else {
                return;
            };
            (
                first.1,
                format!(
                    "the bingbot group sets no crawl-delay, but `*` says `crawl-delay: {}` \
                     (line {}): Bing takes crawl-delay from the `*` group even when a bingbot \
                     group exists",
                    s.value.trim(),
                    s.line
                ),
            )
        }
        _ => return,
    };
    push(out, Code::BingCrawlDelay, line, lines.span(line), message);
}
