//! `crawlgate explain`: for each agent, the group of a robots.txt that applies and why, its
//! merged rules in the order the matcher tries them, its crawl-delay, the file's sitemaps, the
//! group's usage records (`Content-Usage`, `Content-Signal`) and the file's `License` and
//! `LLM-Policy`, and for each URL the line that decides and the usage preferences in force.
//!
//! A crawler of `--agents` (several tokens) is explained as the token whose groups
//! [`Robots::rules_for_any`] picks ([`crawler::chosen`]): `rules_for` of that token is the same
//! set of groups.
//!
//! Everything shown comes from the library's public API: [`AgentRules::group`] and
//! [`AgentRules::rules`] (the precedence order `check` applies, in either mode), the parsed
//! groups for the `user-agent` lines that chose them, [`Robots::crawl_delay`] and
//! [`Robots::sitemaps`]. The URLs are answered exactly as `check` answers them, and their
//! `--json` records are `check`'s.
//!
//! [`AgentRules::group`]: crawlgate::AgentRules::group
//! [`AgentRules::rules`]: crawlgate::AgentRules::rules

use crawlgate::policy::Verdict;
use crawlgate::{Mode, Robots};

use crate::args::ExplainArgs;
use crate::crawler::{self, Crawlers};
use crate::explained::{explain_agent, View};
use crate::input::Source;
use crate::output::{escape, Out};
use crate::records;
use crate::schema::{self, Record};
use crate::status::Status;
use crate::tally::Tally;
use crate::urls;

/// One agent's section: its explanation and one answer per URL.
struct Section<'a> {
    explain: schema::Explain<'a>,
    checks: Vec<schema::Check<'a>>,
}

pub fn run(args: &ExplainArgs, out: &mut Out) -> anyhow::Result<Status> {
    let mode: Mode = args.mode.into();
    let crawlers = Crawlers::new(&args.crawlers.agent, &args.crawlers.agents, mode)?;
    let mut tally = Tally {
        agents: crawlers.count(),
        ..Tally::default()
    };
    match args.robots.as_deref() {
        Some(path) => {
            let src = Source::new(path);
            let body = src.read_robots()?;
            let name = src.name();
            let parsed = Robots::parse_with(&body, &crawlgate::Options::mode(mode));
            // Before the sections: a cut, binary or empty file answers, but maybe not as meant.
            let warnings = crate::input::read_warnings(&body, src.size(), &parsed.diagnostics);
            out.read_warnings(args.json, &name, &warnings)?;
            let view = View {
                robots_txt: &name,
                verdict: Verdict::Rules,
                reason: "given",
                reason_text: "the robots.txt given with --robots".to_owned(),
                parsed: Some(&parsed),
                body: Some(&body),
            };
            let mut urls = Vec::with_capacity(args.urls.len());
            for url in &args.urls {
                match urls::local_target(url, mode) {
                    Ok(()) => urls.push(url.as_str()),
                    Err(why) => {
                        out.error(why);
                        tally.failed += 1;
                    }
                }
            }
            // Each URL as a client will request it, once for every crawler.
            let targets: Vec<records::Target<'_>> =
                urls.iter().map(|url| records::Target::of(url)).collect();
            let sections = crawlers
                .each()
                .filter_map(|crawler| {
                    let token = crawler::chosen(&parsed.robots, crawler)?;
                    let explain = explain_agent(&view, token, crawler);
                    let rules = parsed.robots.rules_for_any(crawler);
                    let checks = urls
                        .iter()
                        .zip(&targets)
                        .map(|(url, target)| {
                            let why = records::Rules {
                                reason: view.reason,
                                reason_text: view.reason_text.clone(),
                            };
                            let usage = target.usage(&rules);
                            let judged = target.judged_url.clone();
                            records::record(
                                url,
                                judged,
                                &parsed.robots,
                                token,
                                crawler,
                                &usage,
                                &name,
                                why,
                            )
                        })
                        .collect();
                    Some(Section { explain, checks })
                })
                .collect::<Vec<_>>();
            print(args, out, &view, sections, &mut tally)?;
        }
        None => remote::explain(args, &crawlers, out, &mut tally)?,
    }
    let status = tally.status();
    if args.json {
        out.json(&Record::Summary(tally.record("explain", status)))?;
    } else if tally.allowed + tally.disallowed > 0 {
        crate::progress::summary(out, tally.summary(), status, "a URL is disallowed");
    }
    Ok(status)
}

/// (`none stated` when every one is unknown).
fn signals_text(s: &schema::SignalPrefs) -> String {
    let known: Vec<String> = [
        ("search", s.search),
        ("ai-input", s.ai_input),
        ("ai-train", s.ai_train),
    ]
    .into_iter()
    .filter_map(|(name, p)| match p {
        "allowed" => Some(format!("{name}=yes")),
        "disallowed" => Some(format!("{name}=no")),
        _ => None,
    })
    .collect();
    if known.is_empty() {
        "none stated".to_owned()
    } else {
        known.join(", ")
    }
}

/// The sections, in order: human text, or an `explain` record and its `check` records per
/// agent. Counts the answers.
fn print(
    args: &ExplainArgs,
    out: &mut Out,
    view: &View<'_>,
    sections: Vec<Section<'_>>,
    tally: &mut Tally,
) -> std::io::Result<()> {
    for s in &sections {
        for c in &s.checks {
            tally.add(c);
        }
    }
    if args.json {
        for s in sections {
            out.json(&Record::Explain(s.explain))?;
            for c in s.checks {
                out.json(&Record::Check(c))?;
            }
        }
        return Ok(());
    }
    out.line(format_args!("robots.txt: {}", escape(view.robots_txt)))?;
    if view.reason != "given" {
        out.line(format_args!(
            "verdict:    {} ({})",
            view.verdict.as_str(),
            escape(&view.reason_text)
        ))?;
    }
    for s in &sections {
        out.line(format_args!(""))?;
        section(out, view, s)?;
    }
    Ok(())
}

/// One agent's section, as text.
fn section(out: &mut Out, view: &View<'_>, s: &Section<'_>) -> std::io::Result<()> {
    let e = &s.explain;
    group_lines(out, view, e)?;
    rules_lines(out, e)?;
    #[cfg(feature = "fetch")]
    if let Some(p) = &e.politeness {
        out.line(format_args!("  politeness:  {}", escape(&p.text)))?;
    }
    for c in &s.checks {
        check_line(out, c)?;
        for w in &c.warnings {
            out.line(format_args!("    warning[{}]: {}", w.code, w.message))?;
            for source in &w.sources {
                out.line(format_args!("      page says {}", escape(source)))?;
            }
        }
    }
    Ok(())
}

/// The agent (or the crawler's tokens), the group that applies and the `user-agent` lines
/// that chose it.
fn group_lines(out: &mut Out, view: &View<'_>, e: &schema::Explain<'_>) -> std::io::Result<()> {
    let agent = if e.agent.is_empty() {
        "\"\"".to_owned()
    } else {
        escape(e.agent).into_owned()
    };
    let several = e.agents.len() > 1;
    let asked = e
        .agents
        .iter()
        .map(|a| escape(a).into_owned())
        .collect::<Vec<_>>();
    if several {
        out.line(format_args!(
            "agents {} (one crawler, most specific token first: the first with a group of its \
             own decides, else *)",
            asked.join(",")
        ))?;
    }
    // With several tokens, the groups are named by the token that won; "none of them" when
    // none did.
    let any = asked.join(" or ");
    let nobody = if several { &any } else { &agent };
    if !several {
        out.line(format_args!("agent {agent}"))?;
    }
    let groups = {
        let mut g: Vec<u32> = e.user_agents.iter().map(|u| u.group_line).collect();
        g.dedup();
        g.len()
    };
    let merged = if groups > 1 {
        format!(" ({groups} groups, merged)")
    } else {
        String::new()
    };
    match e.group {
        None => out.line(format_args!(
            "  group:       none: the verdict is {}, not a set of rules",
            view.verdict.as_str()
        ))?,
        Some("token") => out.line(format_args!(
            "  group:       the group naming {agent}{merged}, chosen by:"
        ))?,
        Some("star") => out.line(format_args!(
            "  group:       no group names {nobody}: the * group applies{merged}, chosen by:"
        ))?,
        Some(_) => out.line(format_args!(
            "  group:       none: no group names {nobody} and there is no * group: \
             everything allowed"
        ))?,
    }
    for u in &e.user_agents {
        let from = if u.line == u.group_line {
            String::new()
        } else {
            format!(" (group from line {})", u.group_line)
        };
        out.line(format_args!(
            "    line {}: {}{from}",
            u.line,
            escape(&u.text)
        ))?;
    }
    Ok(())
}

/// The group's rules in the order they are tried, its crawl-delay, the sitemaps and the usage
/// records (nothing when no group applies).
fn rules_lines(out: &mut Out, e: &schema::Explain<'_>) -> std::io::Result<()> {
    if e.group.is_some_and(|g| g != "none") {
        if e.rules.is_empty() {
            out.line(format_args!("  rules:       none: everything allowed"))?;
        } else {
            out.line(format_args!(
                "  rules, longest first (allow before disallow on equal length); the first that \
                 matches decides:"
            ))?;
            for r in &e.rules {
                out.line(format_args!("    line {}: {}", r.line, escape(&r.rule)))?;
            }
        }
    }
    if e.group.is_some() {
        match &e.crawl_delay {
            Some(d) => out.line(format_args!(
                "  crawl-delay: {} seconds{}",
                d.seconds,
                d.line.map_or_else(String::new, |l| format!(" (line {l})"))
            ))?,
            None => out.line(format_args!("  crawl-delay: none"))?,
        }
        if e.sitemaps.is_empty() {
            out.line(format_args!("  sitemaps:    none"))?;
        } else {
            out.line(format_args!("  sitemaps:"))?;
            for m in &e.sitemaps {
                out.line(format_args!("    line {}: {}", m.line, escape(m.url)))?;
            }
        }
        usage_records(out, e)?;
    }
    Ok(())
}

/// One URL's verdict: `allowed|disallowed|unreachable<TAB>URL<TAB>WHY[<TAB>usage: …]`.
fn check_line(out: &mut Out, c: &schema::Check<'_>) -> std::io::Result<()> {
    let word = c.word();
    let why = match (&c.rule, c.line) {
        (Some(rule), Some(line)) => format!("line {line}: {}", escape(rule)),
        _ => match c.decided_by {
            "no-matching-rule" => "no rule matched".to_owned(),
            "no-group" => "no group: everything allowed".to_owned(),
            "robots-txt" => "/robots.txt is always allowed".to_owned(),
            _ => escape(&c.reason_text).into_owned(),
        },
    };
    let usage = records::usage_column(c.usage.as_ref(), true);
    let url = records::url_column(c.url, c.judged_url.as_deref());
    out.line(format_args!("  {word}\t{url}\t{why}{usage}"))
}

/// The usage records of a section, each part only when the file has it (signals about the use
/// of what is crawled, never crawl permissions).
fn usage_records(out: &mut Out, e: &schema::Explain<'_>) -> std::io::Result<()> {
    if !e.content_usage.is_empty() {
        out.line(format_args!(
            "  content-usage (the longest matching path gives a URL's preferences, for URLs \
             that may be crawled):"
        ))?;
        for r in &e.content_usage {
            out.line(format_args!("    line {}: {}", r.line, escape(&r.rule)))?;
        }
    }
    if let Some(s) = &e.content_signals {
        out.line(format_args!(
            "  content-signal: {}",
            signals_text(&s.signals)
        ))?;
        for l in &s.lines {
            out.line(format_args!("    line {}: {}", l.line, escape(&l.rule)))?;
        }
    }
    for (name, links) in [("license:", &e.licenses), ("llm-policy:", &e.llm_policies)] {
        if links.is_empty() {
            continue;
        }
        out.line(format_args!("  {name}"))?;
        for l in links {
            out.line(format_args!("    line {}: {}", l.line, escape(&l.url)))?;
        }
    }
    Ok(())
}

#[cfg(not(feature = "fetch"))]
mod remote {
    use super::*;

    pub fn explain(
        _: &ExplainArgs,
        _: &Crawlers,
        _: &mut Out,
        _: &mut Tally,
    ) -> anyhow::Result<()> {
        anyhow::bail!(
            "--robots FILE is required: this build cannot fetch robots.txt (feature `fetch`)"
        )
    }
}

/// Without `--robots`: the origin's robots.txt from the crawl state, as `check` reads it.
#[cfg(feature = "fetch")]
mod remote {
    use anyhow::anyhow;

    use anyhow::Context;
    use crawlgate::engine::{Answer, RobotsCache};
    use crawlgate::http::Fetcher;

    use crawlgate::{request_path, Origin, ProductToken};

    use super::*;
    use crate::engine::pages::{trap_warnings, Disallowed};
    use crate::engine::{
        answer_crawlers, body_in_force, crawler_user_agent, engine, fetch_options, runtime,
    };
    use crate::records::state_record;
    use crate::state;

    /// `explain` of the origin the first URL names, its robots.txt from the crawl state.
    pub fn explain(
        args: &ExplainArgs,
        crawlers: &Crawlers,
        out: &mut Out,
        tally: &mut Tally,
    ) -> anyhow::Result<()> {
        let Some(first) = args.urls.first() else {
            anyhow::bail!(
                "nothing to explain: give --robots FILE, or an origin or URL whose robots.txt \
                 to explain"
            );
        };
        let origin = Origin::from_url(first).map_err(|e| anyhow!("{e}"))?;
        let urls = urls_on(&origin, first, &args.urls[1..], out, tally);
        let user_agent = crawler_user_agent(&args.http, &args.crawlers);
        let fetch = fetch_options(&args.http, user_agent, args.mode.into())?;
        let pages = if args.pages {
            Some(Fetcher::new(fetch.clone()).context("cannot set up the HTTP client")?)
        } else {
            None
        };
        runtime()?.block_on(async {
            let state = state::open(&args.state, true).await?;
            let cache = engine(fetch, &state)?;
            let result = async {
                let judgement = cache.current(&origin).await;
                let robots_txt = origin.robots_txt_url();
                if let Some(e) = cache.local_failure(&origin).await {
                    out.error(format_args!(
                        "{robots_txt}: not fetched: {e}; nothing was recorded"
                    ));
                    tally.failed += 1;
                }
                let rules = cache.rules(&origin).await;
                let body = body_in_force(&cache, &state, &origin, judgement.verdict).await;
                // Per crawler, the token its answers are for (the one whose groups apply, as the
                // engine's answers pick it) and its answers.
                let tokens: Vec<&ProductToken> = crawlers
                    .each()
                    .filter_map(|c| match rules.as_deref() {
                        Some(parsed) => crawler::chosen(&parsed.robots, c),
                        None => c.first(),
                    })
                    .collect();
                let answers =
                    answers(&cache, crawlers, &origin, &urls, tokens.len(), out, tally).await;
                let view = View {
                    robots_txt: &robots_txt,
                    verdict: judgement.verdict,
                    reason: judgement.reason.as_str(),
                    reason_text: judgement.reason.to_string(),
                    parsed: rules.as_deref(),
                    body: body.as_deref(),
                };
                let traps = match &pages {
                    Some(fetcher) => {
                        traps(
                            &cache,
                            fetcher,
                            &urls,
                            &tokens,
                            &answers,
                            judgement.verdict,
                            out,
                        )
                        .await
                    }
                    None => Vec::new(),
                };
                let mut paces = Vec::with_capacity(tokens.len());
                for token in &tokens {
                    paces.push(politeness(&cache, token, first, out, tally).await);
                }
                let sections: Vec<Section<'_>> = crawlers
                    .each()
                    .zip(&tokens)
                    .zip(&answers)
                    .zip(paces)
                    .map(|(((crawler, token), each), pace)| Section {
                        explain: schema::Explain {
                            politeness: pace,
                            ..explain_agent(&view, token, crawler)
                        },
                        checks: each
                            .iter()
                            .map(|(given, a)| {
                                let mut c = state_record(
                                    given,
                                    token,
                                    crawler,
                                    a,
                                    Some(judgement.verdict),
                                    rules.as_ref(),
                                    &robots_txt,
                                );
                                c.warnings = traps
                                    .iter()
                                    .filter(|(url, _)| url == given)
                                    .flat_map(|(_, w)| w)
                                    .filter(|w| w.agent == token.as_str())
                                    .cloned()
                                    .collect();
                                c
                            })
                            .collect(),
                    })
                    .collect();
                print(args, out, &view, sections, tally)?;
                anyhow::Ok(())
            }
            .await;
            let finished = state::finish(&cache, &state, out).await;
            result.and_then(|r| finished.map(|()| r))
        })
    }

    /// `--pages`: the page of each URL some crawler's token is disallowed, fetched once (a few
    /// at a time), and the noindex-unseen warnings it gives, per URL as given. A page that
    /// cannot be read is reported (a warning: the answers stand).
    async fn traps<'u>(
        cache: &RobotsCache,
        fetcher: &Fetcher,
        urls: &[(&'u str, String)],
        tokens: &[&ProductToken],
        answers: &[Vec<(&'u str, Answer)>],
        verdict: crawlgate::policy::Verdict,
        out: &mut Out,
    ) -> Vec<(&'u str, Vec<crate::schema::UrlWarning>)> {
        let mut disallowed = Vec::new();
        let mut given_of = Vec::new();
        for (given, url) in urls {
            let agents: Vec<_> = tokens
                .iter()
                .zip(answers)
                .filter_map(|(token, each)| {
                    let (_, a) = each.iter().find(|(g, _)| g == given)?;
                    (!a.allowed).then(|| {
                        (
                            token.as_str().to_owned(),
                            (*token).clone(),
                            a.clone(),
                            verdict,
                        )
                    })
                })
                .collect();
            if !agents.is_empty() {
                given_of.push(*given);
                disallowed.push(Disallowed {
                    url: url.clone(),
                    agents,
                });
            }
        }
        let mut traps = Vec::new();
        for (given, (url, result)) in given_of
            .into_iter()
            .zip(trap_warnings(cache, fetcher, disallowed).await)
        {
            match result {
                Ok(w) => traps.push((given, w)),
                Err(e) => out.error(format_args!(
                    "warning: the page {} was not read: {}",
                    escape(&url),
                    escape(&e)
                )),
            }
        }
        traps
    }

    /// How the gate paces `token` on the origin of `url` now (nothing reserved); `None`, with
    /// the error reported and counted, if the engine cannot answer.
    async fn politeness(
        cache: &RobotsCache,
        token: &ProductToken,
        url: &str,
        out: &mut Out,
        tally: &mut Tally,
    ) -> Option<crate::schema::report::Politeness> {
        match cache.politeness(token, url).await {
            Ok(p) => Some(crate::engine::politeness::view(
                token.as_str(),
                p.key.to_string(),
                &p.pacing,
                p.at,
            )),
            Err(e) => {
                out.error(e);
                tally.failed += 1;
                None
            }
        }
    }

    /// The URLs to check, each `(as given, as checked)`: `first` when it has a path, then
    /// `rest`, a path checked as a URL of `origin`. A URL of another origin, or that is not a
    /// URL, is reported and counted as failed.
    fn urls_on<'u>(
        origin: &Origin,
        first: &'u str,
        rest: &'u [String],
        out: &mut Out,
        tally: &mut Tally,
    ) -> Vec<(&'u str, String)> {
        let mut urls: Vec<(&str, String)> = Vec::new();
        if request_path(first) != "/" {
            urls.push((first, first.to_owned()));
        }
        for url in rest {
            if url.starts_with('/') {
                urls.push((url, format!("{origin}{url}")));
                continue;
            }
            match Origin::from_url(url) {
                Ok(o) if o == *origin => urls.push((url, url.clone())),
                Ok(_) => {
                    out.error(format_args!(
                        "{:?} is not on {origin}: the robots.txt explained is {} (explain the \
                         other origin on its own)",
                        escape(url),
                        origin.robots_txt_url()
                    ));
                    tally.failed += 1;
                }
                Err(e) => {
                    out.error(format_args!("{e}"));
                    tally.failed += 1;
                }
            }
        }
        urls
    }

    /// Per crawler (`slots` of them), its answer for each URL, `(as given, answer)`, in order.
    /// A URL the engine
    /// cannot answer is reported and counted as failed.
    async fn answers<'u>(
        cache: &RobotsCache,
        crawlers: &Crawlers,
        origin: &Origin,
        urls: &[(&'u str, String)],
        slots: usize,
        out: &mut Out,
        tally: &mut Tally,
    ) -> Vec<Vec<(&'u str, Answer)>> {
        let mut answers: Vec<Vec<_>> = vec![Vec::new(); slots];
        for (given, url) in urls {
            match answer_crawlers(cache, crawlers, origin, url).await {
                Ok(each) => {
                    for (slot, (_, a)) in answers.iter_mut().zip(each) {
                        slot.push((*given, a));
                    }
                }
                // Not expected: every URL here is of the origin just loaded.
                Err(e) => {
                    out.error(e);
                    tally.failed += 1;
                }
            }
        }
        answers
    }
}
