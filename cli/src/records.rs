//! The `check` record of a URL (one shape with or without `--robots`) and the columns of its
//! human line, for every command that answers URLs (`check`, `explain`).

use std::borrow::Cow;

use crawlgate::{
    AgentRules, OtherKey, Preference, ProductToken, RequestRate, Robots, RuleRef, Usage,
    UsageRuleRef,
};

use crate::output::escape;
use crate::schema::{self, Check};

#[cfg(feature = "fetch")]
use {crawlgate::engine::Answer, crawlgate::policy::Verdict, crawlgate::Parsed, std::sync::Arc};

/// Why the verdict is `rules`, for [`record`].
pub struct Rules {
    pub reason: &'static str,
    pub reason_text: String,
}

/// The `check` record of a URL matched against rules (the verdict is `rules`), with or without
/// `--robots`: one shape for both. `token` is the one of `crawler` whose groups applied
/// ([`chosen`](crate::crawler::chosen)); `usage` the answer of its rules at the URL.
#[allow(clippy::too_many_arguments)]
pub fn record<'a>(
    url: &'a str,
    judged_url: Option<String>,
    robots: &Robots,
    token: &'a ProductToken,
    crawler: &'a [ProductToken],
    usage: &Usage<'_>,
    robots_txt: &'a str,
    why: Rules,
) -> Check<'a> {
    let d = &usage.decision;
    let rule = d.rule();
    let (crawl_delay, request_rate) = rates(robots, token);
    Check {
        url,
        judged_url,
        agent: token.as_str(),
        agents: crawler.iter().map(ProductToken::as_str).collect(),
        allowed: d.allowed,
        decided_by: d.reason.as_str(),
        line: rule.map(|r| r.line),
        rule: rule.map(|r| rule_text(&r)),
        group: Some(d.group.as_str()),
        robots_txt,
        verdict: crawlgate::policy::Verdict::Rules.as_str(),
        reason: why.reason,
        reason_text: why.reason_text,
        crawl_delay,
        request_rate,
        usage: usage_record(usage),
        tdm: None,
        warnings: Vec::new(),
    }
}

/// The `Crawl-delay` and `Request-rate` of the groups that apply to `token`, with the line of
/// the record each comes from (the first of those groups' that reads).
pub fn rates(
    robots: &Robots,
    token: &ProductToken,
) -> (Option<schema::CrawlDelay>, Option<schema::RequestRate>) {
    let groups: Vec<usize> = robots.rules_for(token).group_indexes().collect();
    let line_of = |key: OtherKey, reads: &dyn Fn(&str) -> bool| {
        robots
            .records()
            .filter(|r| r.key == key)
            .filter(|r| r.group.is_some_and(|g| groups.contains(&g)))
            .find(|r| reads(r.value))
            .map(|r| r.line)
    };
    let crawl_delay = robots.crawl_delay(token).map(|seconds| schema::CrawlDelay {
        seconds,
        line: line_of(OtherKey::CrawlDelay, &|v| v.trim().parse::<f64>().is_ok()),
    });
    let request_rate = robots.request_rate(token).map(|rate| schema::RequestRate {
        requests: rate.requests,
        seconds: rate.per.as_secs(),
        window: rate.window.map(|w| {
            format!(
                "{:02}{:02}-{:02}{:02}",
                w.start / 60,
                w.start % 60,
                w.end / 60,
                w.end % 60
            )
        }),
        line: line_of(OtherKey::RequestRate, &|v| RequestRate::parse(v).is_some()),
    });
    (crawl_delay, request_rate)
}

/// A URL as a client will request it, which is what is judged, in either mode, as the engine
/// judges it: the path + query, and the URL as the client spells it when that is not the URL
/// given (the record's `judged_url`).
pub struct Target<'u> {
    pub path: Cow<'u, str>,
    pub judged_url: Option<String>,
}

impl<'u> Target<'u> {
    /// `url`'s target: a URL parse only for the rare URL a client respells.
    pub fn of(url: &'u str) -> Target<'u> {
        match crawlgate::respelled(url) {
            Some(r) => Target {
                path: Cow::Owned(r.path),
                judged_url: Some(r.url),
            },
            None => Target {
                path: crawlgate::request_path(url),
                judged_url: None,
            },
        }
    }

    /// The target the engine judged, from its answer's `judged_url` (already spelled as a
    /// client spells it: read as written, no parse again).
    #[cfg(feature = "fetch")]
    pub fn judged(url: &'u str, judged_url: Option<String>) -> Target<'u> {
        let path = match &judged_url {
            Some(j) => Cow::Owned(crawlgate::request_path(j).into_owned()),
            None => crawlgate::request_path(url),
        };
        Target { path, judged_url }
    }

    /// What `rules` say of the target: the decision and the usage preferences there.
    pub fn usage<'a>(&self, rules: &AgentRules<'a>) -> Usage<'a> {
        rules.usage_path(&self.path)
    }
}

/// The usage preferences of an answer, as its record carries them: `None` for a URL that may
/// not be crawled (preferences apply only to crawlable paths) or that no `Content-Usage` rule
/// matches.
pub fn usage_record(u: &Usage<'_>) -> Option<schema::UsageRecord> {
    if !u.decision.allowed || u.rules.is_empty() {
        return None;
    }
    Some(schema::UsageRecord {
        preferences: schema::UsagePrefs::from(u.preferences),
        rules: u.rules.iter().map(usage_rule).collect(),
    })
}

/// A `Content-Usage` rule, as records carry it.
pub fn usage_rule(r: &UsageRuleRef<'_>) -> schema::UsageRule {
    schema::UsageRule {
        line: r.line,
        path: r.path.map(str::to_owned),
        statement: r.statement.to_owned(),
        rule: r.text.to_owned(),
        preferences: schema::UsagePrefs::from(r.preferences),
    }
}

/// `y`, `n` or `None` (unknown), as the vocabulary writes a preference (from its record word).
fn yn(p: &str) -> Option<&'static str> {
    if p == Preference::Allowed.as_str() {
        Some("y")
    } else if p == Preference::Disallowed.as_str() {
        Some("n")
    } else {
        None
    }
}

/// The human form of the usage in force: `usage: train-ai=n, search=y (line 5)`, the known
/// preferences in the vocabulary's syntax (`usage: unknown (line 5)` when the rules state
/// none), then the line(s) of the rules they come from. Nothing from the file but numbers.
pub fn usage_text(u: &schema::UsageRecord) -> String {
    let p = &u.preferences;
    let known: Vec<String> = [("train-ai", p.train_ai), ("search", p.search)]
        .into_iter()
        .filter_map(|(label, p)| yn(p).map(|v| format!("{label}={v}")))
        .collect();
    let prefs = if known.is_empty() {
        "unknown".to_owned()
    } else {
        known.join(", ")
    };
    let lines: Vec<String> = u.rules.iter().map(|r| r.line.to_string()).collect();
    let which = if lines.len() == 1 { "line" } else { "lines" };
    format!("usage: {prefs} ({which} {})", lines.join(", "))
}

/// The usage column of a human answer line: `<TAB>usage: …` when preferences are in force,
/// after an empty rule column when no rule decided, so that the columns before it keep their
/// places.
pub fn usage_column(usage: Option<&schema::UsageRecord>, rule_column: bool) -> String {
    match usage {
        Some(u) if rule_column => format!("\t{}", usage_text(u)),
        Some(u) => format!("\t\t{}", usage_text(u)),
        None => String::new(),
    }
}

/// With several `--agent`s, each line starts with the agent's token: `TOKEN<TAB>allowed<TAB>…`.
pub fn agent_column(agent: Option<&str>) -> String {
    agent.map_or_else(String::new, |a| format!("{}\t", escape(a)))
}

/// The URL as given and, when a client requests it otherwise, what was judged:
/// `https://h/x/../admin (as https://h/admin)`. Escaped, as everything from input is.
pub fn url_column(url: &str, judged: Option<&str>) -> String {
    match judged {
        Some(j) => format!("{} (as {})", escape(url), escape(j)),
        None => escape(url).to_string(),
    }
}

/// The rule as written; for the `/dir/$` rule Google mode derives from
/// `Allow: /dir/index.html`, says so: `Allow: /dir/index.html (read as /dir/$)`.
pub fn rule_text(r: &RuleRef<'_>) -> String {
    if r.index_html {
        format!("{} (read as {})", r.text, r.pattern)
    } else {
        r.text.to_string()
    }
}

/// The `check` record of an answer from the crawl state: the same shape as with
/// `--robots`. [`Answer`] carries neither the verdict nor the group, so they come from the
/// origin's judgement and rules, read once per origin; while the verdict is `rules`, the
/// URL is matched against those rules as `--robots` would match it (and so are its usage
/// preferences). `token` is the one of `crawler` the engine answered for.
#[cfg(feature = "fetch")]
pub fn state_record<'a>(
    url: &'a str,
    token: &'a ProductToken,
    crawler: &'a [ProductToken],
    a: &Answer,
    verdict: Option<Verdict>,
    rules: Option<&Arc<Parsed>>,
    robots_txt: &'a str,
) -> schema::Check<'a> {
    let why = Rules {
        reason: a.reason.as_str(),
        reason_text: a.reason.to_string(),
    };
    if let (Some(Verdict::Rules), Some(parsed)) = (verdict, rules) {
        let target = Target::judged(url, a.judged_url.clone());
        let usage = target.usage(&parsed.robots.rules_for(token));
        let mut r = record(
            url,
            target.judged_url,
            &parsed.robots,
            token,
            crawler,
            &usage,
            robots_txt,
            why,
        );
        // The engine's answer is the one the exit status follows (and preferences apply
        // only to what may be crawled).
        r.allowed = a.allowed;
        if !a.allowed {
            r.usage = None;
        }
        return r;
    }
    // The verdict decided (or the rules could not be read back: nothing but robots.txt
    // is allowed until they are).
    let verdict = verdict.unwrap_or(Verdict::DisallowAll);
    let decided_by = if a.allowed && verdict != Verdict::AllowAll {
        "robots-txt"
    } else {
        "policy"
    };
    schema::Check {
        url,
        judged_url: a.judged_url.clone(),
        agent: token.as_str(),
        allowed: a.allowed,
        decided_by,
        line: a.rule.as_ref().map(|r| r.line),
        rule: a.rule.as_ref().map(|r| r.text.clone()),
        group: None,
        robots_txt,
        verdict: verdict.as_str(),
        reason: why.reason,
        reason_text: why.reason_text,
        agents: crawler.iter().map(ProductToken::as_str).collect(),
        crawl_delay: None,
        request_rate: None,
        usage: None,
        tdm: None,
        warnings: Vec::new(),
    }
}
