//! `crawlgate check`: may this agent fetch these URLs?
//!
//! URLs are answered as they are read: a `--urls` input is read a line at a time (memory: one
//! line), so `tail -f urls | crawlgate check --urls -` answers each line as it comes.

#[cfg(feature = "fetch")]
mod remote;

use anyhow::bail;
use crawlgate::{Mode, Options, Robots};

use crate::args::CheckArgs;
use crate::crawler::{chosen, Crawlers};
use crate::input::Source;
use crate::output::{escape, Out};
use crate::records::{agent_column, record, url_column, usage_column, Rules, Target};
use crate::schema::{Check, InputError, Record};
use crate::status::Status;
use crate::tally::Tally;
use crate::urls::{local_target, url_of, UrlLines};

/// The `reason` of a `check --robots` record: the rules are the file given, not a fetch.
const GIVEN: &str = "given";

/// `crawlgate check`: with `--robots`, every URL against that file; without, against each
/// origin's own robots.txt from the crawl state. A summary ends the output.
pub fn run(args: &CheckArgs, out: &mut Out) -> anyhow::Result<Status> {
    let crawlers = Crawlers::new(
        &args.crawlers.agent,
        &args.crawlers.agents,
        args.mode.into(),
    )?;
    let robots_src = args.robots.as_deref().map(Source::new);
    let urls_src = args.urls.as_deref().map(Source::new);
    if robots_src.as_ref().is_some_and(Source::is_stdin)
        && urls_src.as_ref().is_some_and(Source::is_stdin)
    {
        bail!("--robots and --urls cannot both read standard input (`-`)");
    }
    if args.url.is_empty() && urls_src.is_none() {
        bail!("no URLs to check: give them as arguments or with --urls FILE");
    }
    let lines = urls_src.as_ref().map(UrlLines::open).transpose()?;
    let name = lines.as_ref().map(|l| l.name().to_owned());
    let mut tally = Tally {
        agents: crawlers.count(),
        ..Tally::default()
    };
    match robots_src {
        Some(src) => check_local(
            args,
            &crawlers,
            &src,
            &src.read_robots()?,
            lines,
            out,
            &mut tally,
        )?,
        None => remote::check(args, &crawlers, lines, out, &mut tally)?,
    }
    let status = tally.status();
    if tally.allowed + tally.disallowed + tally.failed == 0 {
        bail!(
            "no URLs to check: {} has no URL lines",
            name.as_deref().unwrap_or("--urls")
        );
    }
    if args.json {
        out.json(&Record::Summary(tally.record("check", status)))?;
    } else {
        crate::progress::summary(out, tally.summary(), status, "a URL is disallowed");
    }
    Ok(status)
}

/// Every URL against one robots.txt file, each answered as soon as it is read.
fn check_local(
    args: &CheckArgs,
    crawlers: &Crawlers,
    src: &Source,
    body: &[u8],
    mut lines: Option<UrlLines>,
    out: &mut Out,
    tally: &mut Tally,
) -> anyhow::Result<()> {
    let mode: Mode = args.mode.into();
    let parsed = Robots::parse_with(body, &Options::mode(mode));
    let name = src.name();
    // Before the answers: a cut, binary or empty file answers, but maybe not as meant.
    let warnings = crate::input::read_warnings(body, src.size(), &parsed.diagnostics);
    out.read_warnings(args.json, &name, &warnings)?;
    let robots = &parsed.robots;
    // Per crawler: its tokens, the one whose groups apply, and those groups' rules.
    let rules: Vec<_> = crawlers
        .each()
        .filter_map(|c| Some((c, chosen(robots, c)?, robots.rules_for_any(c))))
        .collect();
    let several = rules.len() > 1;
    let mut given = args.url.iter().cloned();
    loop {
        let url = match given.next() {
            Some(url) => url,
            None => {
                let Some(input) = lines.as_mut() else { break };
                // The answers so far are out before a read that may wait on a pipe.
                if !input.line_ready() {
                    out.flush()?;
                }
                let Some(item) = input.next() else { break };
                match url_of(item) {
                    Ok(url) => url,
                    Err(stop) => {
                        out.error(stop.message());
                        if args.json {
                            out.json(&Record::Error(InputError {
                                url: None,
                                message: stop.message(),
                            }))?;
                        }
                        tally.failed += 1;
                        continue;
                    }
                }
            }
        };
        let url = url.as_str();
        if let Err(why) = local_target(url, mode) {
            out.error(format_args!("{why}"));
            if args.json {
                out.json(&Record::Error(InputError {
                    url: Some(url),
                    message: &why,
                }))?;
            }
            tally.failed += 1;
            continue;
        }
        let target = Target::of(url);
        for (crawler, token, rules) in &rules {
            let usage = target.usage(rules);
            let r = record(
                url,
                target.judged_url.clone(),
                robots,
                token,
                crawler,
                &usage,
                &name,
                Rules {
                    reason: GIVEN,
                    reason_text: "the robots.txt given with --robots".to_owned(),
                },
            );
            tally.add(&r);
            if args.json {
                out.json(&Record::Check(r))?;
            } else {
                report(out, several.then(|| token.as_str()), url, &r)?;
            }
        }
    }
    Ok(())
}

/// One answer as a line: `[AGENT<TAB>]allowed|disallowed|unreachable<TAB>URL[<TAB>line N: RULE][<TAB>usage: …]`.
fn report(out: &mut Out, agent: Option<&str>, url: &str, c: &Check<'_>) -> std::io::Result<()> {
    // Escaped: a TAB or newline in a URL must not forge columns or lines, and nothing from a
    // file may drive the terminal.
    let url = url_column(url, c.judged_url.as_deref());
    let agent = agent_column(agent);
    let word = c.word();
    // The deciding rule for an allowed URL too: an `Allow:` that overrides a `Disallow:` is
    // what a reader wants to see. Nothing after the URL when no rule decided (and no usage
    // preferences are in force).
    let usage = usage_column(c.usage.as_ref(), c.rule.is_some());
    match (&c.rule, c.line) {
        (Some(rule), Some(line)) => out.line(format_args!(
            "{agent}{word}\t{url}\tline {line}: {}{usage}",
            escape(rule)
        )),
        _ => out.line(format_args!("{agent}{word}\t{url}{usage}")),
    }
}

/// Without the engine, `check` answers only against `--robots FILE`.
#[cfg(not(feature = "fetch"))]
mod remote {
    use super::*;

    /// Refuses: there is no engine to fetch robots.txt with.
    pub fn check(
        _: &CheckArgs,
        _: &Crawlers,
        _: Option<UrlLines>,
        _: &mut Out,
        _: &mut Tally,
    ) -> anyhow::Result<()> {
        bail!("--robots FILE is required: this build cannot fetch robots.txt (feature `fetch`)")
    }
}
