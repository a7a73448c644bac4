//! `crawlgate check`: may this agent fetch these URLs?

use anyhow::bail;
use crawlgate::{Decision, Mode, Options, Origin, ProductToken, Robots, RuleRef};
use serde_json::json;

use crate::input::Source;
use crate::output::{escape, Out};
use crate::{CheckArgs, Status};

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
    match robots_src {
        Some(src) => check_local(args, &token, &src.read()?, &urls, out),
        None => crate::remote::check(args, &token, &urls, out),
    }
}

/// Every URL against one robots.txt file.
fn check_local(
    args: &CheckArgs,
    token: &ProductToken,
    body: &[u8],
    urls: &[String],
    out: &mut Out,
) -> anyhow::Result<Status> {
    let mode: Mode = args.mode.into();
    let parsed = Robots::parse_with(body, &Options::mode(mode));
    let rules = parsed.robots.rules_for(token);
    let mut status = Status::Clean;
    let mut bad = 0;
    for url in urls {
        if let Err(why) = local_target(url, mode) {
            out.error(format_args!("{why}"));
            bad += 1;
            continue;
        }
        let decision = rules.check(url);
        if !decision.allowed {
            status = Status::Findings;
        }
        report(out, args.json, url, &decision)?;
    }
    Ok(if bad > 0 { Status::Failed } else { status })
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

fn report(out: &mut Out, json: bool, url: &str, d: &Decision<'_>) -> std::io::Result<()> {
    if json {
        let rule = d.rule();
        return out.json(&[
            ("url", json!(url)),
            ("allowed", json!(d.allowed)),
            ("reason", json!(d.reason.as_str())),
            ("line", json!(rule.map(|r| r.line))),
            ("rule", json!(rule.map(|r| rule_text(&r)))),
            ("group", json!(d.group.as_str())),
        ]);
    }
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
