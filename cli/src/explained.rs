//! What applies to one agent under a robots.txt, as `explain` shows it (its `explain`
//! record): the group that applies and the `user-agent` lines that chose it, its merged rules
//! in the order the matcher tries them, its crawl-delay, the file's sitemaps, the group's usage
//! records (`Content-Usage`, `Content-Signal`) and the file's `License` and `LLM-Policy`.
//! Shared by the commands that explain a robots.txt (`explain`, `mcp`).

use crawlgate::policy::Verdict;
use crawlgate::{Agent, AgentRules, GroupMatch, Mode, OtherKey, Parsed, ProductToken, Robots};

use crate::records;
use crate::schema;

/// The most characters of a `user-agent` line shown as written.
const MAX_LINE_CHARS: usize = 200;

/// Where the rules come from, and the verdict they are under.
pub struct View<'a> {
    /// A robots.txt URL, or the `--robots` input as named.
    pub robots_txt: &'a str,
    pub verdict: Verdict,
    pub reason: &'static str,
    pub reason_text: String,
    /// The rules, when the verdict is `rules`.
    pub parsed: Option<&'a Parsed>,
    /// The file as read: the `user-agent` lines are shown as written. Without it (a stored
    /// body that could not be read back), as the product token read from them.
    pub body: Option<&'a [u8]>,
}

/// Whether a group's `user-agent` value chose the group for `token`, given how the agent's
/// groups were chosen: as the matcher chooses them (exact token; in Google mode the empty
/// agent also gets the groups whose value has no token; else `*`).
fn chose(agent: Agent<'_>, how: GroupMatch, token: &ProductToken, mode: Mode) -> bool {
    match (how, agent) {
        (GroupMatch::Token, Agent::Token(t)) => t == token.as_str(),
        (GroupMatch::Token, Agent::Nobody) => mode == Mode::Google && token.as_str().is_empty(),
        (GroupMatch::Star, Agent::Star) => true,
        _ => false,
    }
}

/// What applies to `token` under the view's rules: the token of `crawler` whose groups apply
/// ([`crate::crawler::chosen`]; the first when there are no rules).
pub fn explain_agent<'a>(
    view: &View<'a>,
    token: &'a ProductToken,
    crawler: &'a [ProductToken],
) -> schema::Explain<'a> {
    let mut e = schema::Explain {
        agent: token.as_str(),
        robots_txt: view.robots_txt,
        verdict: view.verdict.as_str(),
        reason: view.reason,
        reason_text: view.reason_text.clone(),
        group: None,
        user_agents: Vec::new(),
        rules: Vec::new(),
        crawl_delay: None,
        #[cfg(feature = "fetch")]
        politeness: None,
        sitemaps: Vec::new(),
        agents: crawler.iter().map(ProductToken::as_str).collect(),
        matched_token: None,
        content_usage: Vec::new(),
        content_signals: None,
        licenses: Vec::new(),
        llm_policies: Vec::new(),
    };
    let Some(parsed) = view.parsed.filter(|_| view.verdict == Verdict::Rules) else {
        return e;
    };
    let robots = &parsed.robots;
    let rules = robots.rules_for(token);
    e.group = Some(rules.group().as_str());
    e.matched_token = rules.matched_token();
    let (user_agents, groups) = user_agent_lines(view, robots, rules.group(), token);
    e.user_agents = user_agents;
    e.rules = rules
        .rules()
        .map(|r| schema::ExplainRule {
            line: r.line,
            kind: r.kind.as_str(),
            pattern: r.pattern.to_owned(),
            rule: records::rule_text(&r),
        })
        .collect();
    e.crawl_delay = crawl_delay(robots, token, &groups);
    e.sitemaps = robots
        .sitemaps()
        .map(|s| schema::SitemapLine {
            line: s.line,
            url: s.url,
        })
        .collect();
    usage_signals(robots, &rules, &mut e);
    e
}

/// The `user-agent` lines that chose `group` for `token`, as written when the file is at hand,
/// and the indexes of the groups they head, in file order.
fn user_agent_lines(
    view: &View<'_>,
    robots: &Robots,
    group: GroupMatch,
    token: &ProductToken,
) -> (Vec<schema::UserAgentLine>, Vec<usize>) {
    let mut user_agents = Vec::new();
    let lines = view.body.map(line_ranges);
    let mut groups = Vec::new();
    for g in robots.groups() {
        let gi = g.index();
        for (agent, line) in g.agents() {
            if !chose(agent, group, token, robots.mode()) {
                continue;
            }
            if groups.last() != Some(&gi) {
                groups.push(gi);
            }
            let text = match (view.body, &lines) {
                (Some(body), Some(lines)) => line_text(body, lines, line),
                _ => None,
            };
            user_agents.push(schema::UserAgentLine {
                group_line: g.line(),
                line,
                text: text.unwrap_or_else(|| match agent {
                    Agent::Star => "User-agent: *".to_owned(),
                    Agent::Token(t) => format!("User-agent: {t}"),
                    Agent::Nobody => "User-agent:".to_owned(),
                }),
            });
        }
    }
    (user_agents, groups)
}

/// The crawl-delay that applies to `token`, whose `groups` are given.
fn crawl_delay(
    robots: &Robots,
    token: &ProductToken,
    groups: &[usize],
) -> Option<schema::CrawlDelay> {
    // The value is the library's; its line is that of the record it comes from: the first
    // `crawl-delay` of the agent's groups that reads as a number.
    robots.crawl_delay(token).map(|seconds| schema::CrawlDelay {
        seconds,
        line: robots
            .records()
            .filter(|r| r.key == OtherKey::CrawlDelay)
            .filter(|r| r.group.is_some_and(|g| groups.contains(&g)))
            .find(|r| r.value.trim().parse::<f64>().is_ok())
            .map(|r| r.line),
    })
}

/// The group's `Content-Usage` and `Content-Signal` lines and the file's `License` and
/// `LLM-Policy` lines, into `e`.
fn usage_signals<'a>(robots: &'a Robots, rules: &AgentRules<'a>, e: &mut schema::Explain<'a>) {
    // Signals about the use of what is crawled, never crawl permissions.
    let own: Vec<usize> = rules.group_indexes().collect();
    e.content_usage = robots
        .content_usage_rules()
        .filter(|r| own.contains(&r.group))
        .map(|r| records::usage_rule(&r))
        .collect();
    let signals = rules.content_signals();
    if !signals.lines.is_empty() {
        e.content_signals = Some(schema::ContentSignals {
            signals: signals.signals.into(),
            lines: signals
                .lines
                .iter()
                .map(|l| schema::SignalLine {
                    line: l.line,
                    rule: l.text.to_owned(),
                    signals: l.signals.into(),
                })
                .collect(),
        });
    }
    let links = |links: &[crawlgate::PolicyLink]| {
        links
            .iter()
            .map(|l| schema::PolicyLine {
                line: l.line,
                url: l.url.clone(),
            })
            .collect()
    };
    e.licenses = links(robots.licenses());
    e.llm_policies = links(robots.llm_policies());
}

/// Where each line of `body` is, split as the parser splits it (`\n`, `\r\n` or `\r`; a byte
/// order mark, or the start of one, skipped at the very start).
fn line_ranges(body: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut pos = body
        .iter()
        .zip(b"\xEF\xBB\xBF")
        .take_while(|(a, b)| a == b)
        .count();
    let mut lines = Vec::new();
    while pos < body.len() {
        let Some(eol) = body[pos..]
            .iter()
            .position(|&c| c == b'\n' || c == b'\r')
            .map(|i| pos + i)
        else {
            lines.push(pos..body.len());
            break;
        };
        lines.push(pos..eol);
        pos = if body[eol] == b'\r' && body.get(eol + 1) == Some(&b'\n') {
            eol + 2
        } else {
            eol + 1
        };
    }
    lines
}

/// Line `n` (from 1) as written: up to a NUL or a comment, trimmed, at most
/// [`MAX_LINE_CHARS`] characters.
fn line_text(body: &[u8], lines: &[std::ops::Range<usize>], n: u32) -> Option<String> {
    let range = lines.get((n as usize).checked_sub(1)?)?;
    let mut line = &body[range.clone()];
    if let Some(nul) = line.iter().position(|&c| c == 0) {
        line = &line[..nul];
    }
    if let Some(hash) = line.iter().position(|&c| c == b'#') {
        line = &line[..hash];
    }
    let text = String::from_utf8_lossy(line);
    let text = text.trim();
    Some(match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    })
}
