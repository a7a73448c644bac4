//! `crawlgate check`: may this agent fetch these URLs?

use anyhow::bail;
use crawlgate::{Decision, Mode, Options, Origin, ProductToken, Robots, RuleRef};

use crate::input::Source;
use crate::output::{escape, Out};
use crate::schema::{Check, Record, Summary};
use crate::{CheckArgs, Status};

/// The `reason` of a `check --robots` record: the rules are the file given, not a fetch.
const GIVEN: &str = "given";

/// What `check` answered, for the JSON summary.
#[derive(Debug, Default)]
pub struct Tally {
    pub allowed: usize,
    pub disallowed: usize,
    /// URLs reported on standard error: not answered, or answered without a fetch.
    pub failed: usize,
}

impl Tally {
    pub fn add(&mut self, allowed: bool) {
        if allowed {
            self.allowed += 1;
        } else {
            self.disallowed += 1;
        }
    }
}

pub fn run(args: &CheckArgs, out: &mut Out) -> anyhow::Result<Status> {
    // Google mode takes the agent exactly as google/robotstxt's API does (any string, compared
    // whole); RFC mode wants a product token or a crawler's own User-Agent header.
    let token = match Mode::from(args.mode) {
        Mode::Google => ProductToken::verbatim(&args.agent),
        Mode::Rfc => ProductToken::from_user_agent(&args.agent)?,
    };
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
    let mut urls: Vec<String> = args.url.clone();
    if let Some(src) = &urls_src {
        urls.extend(url_lines(&src.read_text()?));
    }
    if urls.is_empty() {
        let name = urls_src.as_ref().map(|s| s.name().into_owned());
        bail!(
            "no URLs to check: {} has no URL lines",
            name.as_deref().unwrap_or("--urls")
        );
    }
    let mut tally = Tally::default();
    let status = match robots_src {
        Some(src) => check_local(args, &token, &src, &src.read()?, &urls, out, &mut tally)?,
        None => crate::remote::check(args, &token, &urls, out, &mut tally)?,
    };
    if args.json {
        out.json(&Record::Summary(Summary {
            command: "check",
            urls: Some(tally.allowed + tally.disallowed),
            allowed: Some(tally.allowed),
            disallowed: Some(tally.disallowed),
            failed: tally.failed,
            exit: status.code(),
            ..Summary::default()
        }))?;
    }
    Ok(status)
}

/// Every URL against one robots.txt file.
fn check_local(
    args: &CheckArgs,
    token: &ProductToken,
    src: &Source,
    body: &[u8],
    urls: &[String],
    out: &mut Out,
    tally: &mut Tally,
) -> anyhow::Result<Status> {
    let mode: Mode = args.mode.into();
    let parsed = Robots::parse_with(body, &Options::mode(mode));
    let rules = parsed.robots.rules_for(token);
    let name = src.name();
    let mut status = Status::Clean;
    for url in urls {
        if let Err(why) = local_target(url, mode) {
            out.error(format_args!("{why}"));
            tally.failed += 1;
            continue;
        }
        let decision = rules.check(url);
        tally.add(decision.allowed);
        if !decision.allowed {
            status = Status::Findings;
        }
        if args.json {
            out.json(&Record::Check(record(
                url,
                token,
                &decision,
                &name,
                Rules {
                    reason: GIVEN,
                    reason_text: "the robots.txt given with --robots".to_owned(),
                },
            )))?;
        } else {
            report(out, url, &decision)?;
        }
    }
    Ok(if tally.failed > 0 {
        Status::Failed
    } else {
        status
    })
}

/// Why the verdict is `rules`, for [`record`].
pub struct Rules {
    pub reason: &'static str,
    pub reason_text: String,
}

/// The `check` record of a URL matched against rules (the verdict is `rules`), with or without
/// `--robots`: one shape for both.
pub fn record<'a>(
    url: &'a str,
    token: &'a ProductToken,
    d: &Decision<'_>,
    robots_txt: &'a str,
    why: Rules,
) -> Check<'a> {
    let rule = d.rule();
    Check {
        url,
        agent: token.as_str(),
        allowed: d.allowed,
        decided_by: d.reason.as_str(),
        line: rule.map(|r| r.line),
        rule: rule.map(|r| rule_text(&r)),
        group: Some(d.group.as_str()),
        robots_txt,
        verdict: crawlgate::policy::Verdict::Rules.as_str(),
        reason: why.reason,
        reason_text: why.reason_text,
    }
}

/// What `check --robots` takes in RFC mode: an absolute http(s) URL with a host, or a path
/// starting with `/` (or `*`, a pattern-like path). Anything else would get a verdict that
/// means nothing (`private/x` is not under `/private`), so it is an input error. Google mode
/// takes every string as google/robotstxt's API does.
fn local_target(url: &str, mode: Mode) -> Result<(), String> {
    if mode == Mode::Google || url.starts_with('/') || url.starts_with('*') {
        return Ok(());
    }
    match Origin::from_url(url) {
        Ok(_) => Ok(()),
        Err(e) if url.contains("://") => Err(format!("{:?}: {e}", escape(url))),
        Err(_) => Err(format!(
            "{:?} is neither an http(s) URL nor a path starting with `/` or `*`{}",
            escape(url),
            if url.contains('.') && !url.contains(' ') {
                format!(" (did you mean `https://{}`?)", escape(url))
            } else {
                String::new()
            }
        )),
    }
}

/// The URLs of a `--urls` file: one per line, trimmed; blank lines and `#` lines skipped.
pub fn url_lines(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
}

fn report(out: &mut Out, url: &str, d: &Decision<'_>) -> std::io::Result<()> {
    // Escaped: a TAB or newline in a URL must not forge columns or lines, and nothing from a
    // file may drive the terminal.
    let url = escape(url);
    match (d.allowed, d.rule()) {
        (true, _) => out.line(format_args!("allowed\t{url}")),
        (false, Some(r)) => out.line(format_args!(
            "disallowed\t{url}\tline {}: {}",
            r.line,
            escape(&rule_text(&r))
        )),
        // Only a rule can disallow; kept total rather than panicking.
        (false, None) => out.line(format_args!("disallowed\t{url}")),
    }
}

/// The rule as written; for the `/dir/$` rule Google mode derives from
/// `Allow: /dir/index.html`, says so: `Allow: /dir/index.html (read as /dir/$)`.
pub fn rule_text(r: &RuleRef<'_>) -> String {
    if r.index_html {
        format!("{} (read as {})", r.text, r.pattern)
    } else {
        r.text.to_owned()
    }
}
