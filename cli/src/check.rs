//! `crawlgate check`: may this agent fetch these URLs?
//!
//! URLs are answered as they are read: a `--urls` input is read a line at a time (memory: one
//! line), so `tail -f urls | crawlgate check --urls -` answers each line as it comes.

use std::io::{BufRead, BufReader, Read, Take};

use anyhow::{bail, Context};
use crawlgate::{
    AgentRules, GroupMatch, Mode, Options, Origin, Preference, ProductToken, Robots, RuleRef,
    Usage, UsageRuleRef,
};

use crate::args::CheckArgs;
use crate::input::{Source, MAX_INPUT};
use crate::output::{escape, plural, Out};
use crate::schema::{self, Check, Record, Summary};
use crate::status::Status;

/// The `reason` of a `check --robots` record: the rules are the file given, not a fetch.
const GIVEN: &str = "given";

/// What `check` answered, for the JSON summary.
#[derive(Debug, Default)]
pub struct Tally {
    /// Crawlers (`--agent`s, or the one of `--agents`): each URL answered gets one answer per
    /// crawler.
    pub agents: usize,
    /// Answers (a URL for one agent).
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

    /// URLs answered (for every agent).
    pub fn urls(&self) -> usize {
        (self.allowed + self.disallowed) / self.agents.max(1)
    }

    /// `3 URLs: 2 allowed, 1 disallowed`, `, 1 not answered` when some were not; with several
    /// agents, `3 URLs × 2 agents: …` (the counts are answers).
    pub fn summary(&self) -> String {
        let agents = if self.agents > 1 {
            format!(" × {} agents", self.agents)
        } else {
            String::new()
        };
        let mut line = format!(
            "{}{agents}: {} allowed, {} disallowed",
            plural(self.urls() + self.failed, "URL", "URLs"),
            self.allowed,
            self.disallowed
        );
        if self.failed > 0 {
            line.push_str(&format!(", {} not answered", self.failed));
        }
        line
    }
}

/// One line of a `--urls` input that is not blank or a comment.
#[derive(Debug)]
pub enum UrlLine {
    Url(String),
    /// A line that is not UTF-8: the sentence that says so. The lines after it are still read.
    Bad(String),
}

/// The URLs of a `--urls` input (a file, or `-` for standard input), read a line at a time:
/// one per line, trimmed; blank lines, `#` lines and a UTF-8 byte order mark at the start
/// skipped. The input as a whole is bounded by [`MAX_INPUT`], as every input is.
pub struct UrlLines {
    reader: BufReader<Take<Box<dyn Read + Send>>>,
    name: String,
    /// Lines read so far.
    line: usize,
    /// Bytes read so far.
    read: u64,
    buf: Vec<u8>,
    done: bool,
}

impl UrlLines {
    /// Opens the input. The error reads `cannot read NAME: <why>`.
    pub fn open(src: &Source) -> anyhow::Result<UrlLines> {
        let name = src.name().into_owned();
        let input: Box<dyn Read + Send> = match src {
            Source::Stdin => Box::new(std::io::stdin()),
            Source::File(p) => {
                Box::new(std::fs::File::open(p).with_context(|| format!("cannot read {name}"))?)
            }
        };
        Ok(UrlLines {
            reader: BufReader::new(input.take(MAX_INPUT + 1)),
            name,
            line: 0,
            read: 0,
            buf: Vec::new(),
            done: false,
        })
    }

    /// The input as named: the path, or `<stdin>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether a whole line is already buffered, so that reading it cannot wait on the input
    /// (a pipe that has nothing more yet). Before a read that may wait, the answers so far are
    /// written out.
    pub fn line_ready(&self) -> bool {
        self.reader.buffer().contains(&b'\n')
    }

    fn read_line(&mut self) -> anyhow::Result<Option<UrlLine>> {
        loop {
            self.buf.clear();
            let n = self
                .reader
                .read_until(b'\n', &mut self.buf)
                .with_context(|| format!("cannot read {}", self.name))?;
            self.read += n as u64;
            if self.read > MAX_INPUT {
                bail!(
                    "cannot read {}: it is larger than {} MiB",
                    self.name,
                    MAX_INPUT >> 20
                );
            }
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            let mut bytes = &self.buf[..];
            if self.line == 1 {
                bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            }
            let text = match std::str::from_utf8(bytes) {
                Ok(text) => text.trim(),
                Err(e) => {
                    return Ok(Some(UrlLine::Bad(format!(
                        "{} line {}: not UTF-8 (invalid byte at column {}); skipped",
                        self.name,
                        self.line,
                        e.valid_up_to() + 1
                    ))))
                }
            };
            if !text.is_empty() && !text.starts_with('#') {
                return Ok(Some(UrlLine::Url(text.to_owned())));
            }
        }
    }
}

impl Iterator for UrlLines {
    /// A line, or the error that ended the input (nothing follows it).
    type Item = anyhow::Result<UrlLine>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.read_line().transpose();
        self.done = !matches!(item, Some(Ok(_)));
        item
    }
}

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
    let status = match robots_src {
        Some(src) => check_local(
            args,
            &crawlers,
            &src,
            &src.read_robots()?,
            lines,
            out,
            &mut tally,
        )?,
        None => crate::remote::check(args, &crawlers, lines, out, &mut tally)?,
    };
    if tally.allowed + tally.disallowed + tally.failed == 0 {
        bail!(
            "no URLs to check: {} has no URL lines",
            name.as_deref().unwrap_or("--urls")
        );
    }
    if args.json {
        out.json(&Record::Summary(Summary {
            command: "check",
            urls: Some(tally.urls()),
            allowed: Some(tally.allowed),
            disallowed: Some(tally.disallowed),
            failed: tally.failed,
            exit: status.code(),
            ..Summary::default()
        }))?;
    } else {
        crate::progress::summary(out, tally.summary());
    }
    Ok(status)
}

/// Who asks: one crawler per `--agent` (each answered on its own), or the one crawler of
/// `--agents`, which obeys several tokens and is answered once, by the group
/// [`Robots::rules_for_any`] picks.
pub struct Crawlers {
    /// The tokens, each once, in the order given.
    pub tokens: Vec<ProductToken>,
    /// `--agents`: the tokens are one crawler's, most specific first.
    pub together: bool,
}

impl Crawlers {
    /// Reads `--agent` (or, when it is empty, `--agents`; clap keeps them apart) as [`tokens`]
    /// does.
    pub fn new(agent: &[String], agents: &[String], mode: Mode) -> anyhow::Result<Crawlers> {
        let together = agent.is_empty();
        let tokens = tokens(if together { agents } else { agent }, mode)?;
        if tokens.is_empty() {
            bail!("no agent: give --agent TOKEN or --agents TOKEN,TOKEN");
        }
        Ok(Crawlers { tokens, together })
    }

    /// Each crawler's tokens: one slice per `--agent`, or one with every `--agents` token.
    pub fn each(&self) -> std::slice::Chunks<'_, ProductToken> {
        let size = if self.together {
            self.tokens.len().max(1)
        } else {
            1
        };
        self.tokens.chunks(size)
    }

    /// How many crawlers answer each URL.
    pub fn count(&self) -> usize {
        self.each().len()
    }

    /// The default User-Agent header: the first `--agent` (or `--agents` token), as given.
    // Without the `fetch` feature nothing is fetched.
    #[cfg_attr(not(feature = "fetch"), allow(dead_code))]
    pub fn user_agent(agent: &[String], agents: &[String]) -> Option<String> {
        agent.first().or(agents.first()).cloned()
    }
}

/// The token of `crawler` whose groups [`Robots::rules_for_any`] picks in `robots`: the first
/// with a group of its own; else the first, which gets the `*` group (or none) as every one of
/// them would. `robots.rules_for(chosen)` is therefore `robots.rules_for_any(crawler)`, which
/// lets the single-token APIs (the engine's [`check`], `crawl_delay`) answer for the crawler.
/// `None` only for an empty crawler.
///
/// [`check`]: crawlgate::fetch::RobotsCache::check
pub fn chosen<'t>(robots: &Robots, crawler: &'t [ProductToken]) -> Option<&'t ProductToken> {
    let rules = robots.rules_for_any(crawler);
    crawler
        .iter()
        .find(|t| rules.group() == GroupMatch::Token && rules.matched_token() == Some(t.as_str()))
        .or(crawler.first())
}

/// The `--agent` values as product tokens, each once, in order. Google mode takes the agent
/// exactly as google/robotstxt's API does (any string, compared whole); RFC mode wants a
/// product token or a crawler's own User-Agent header.
pub fn tokens(agents: &[String], mode: Mode) -> anyhow::Result<Vec<ProductToken>> {
    let mut tokens = Vec::with_capacity(agents.len());
    for agent in agents {
        let token = match mode {
            Mode::Google => ProductToken::verbatim(agent),
            Mode::Rfc => ProductToken::from_user_agent(agent)?,
        };
        if !tokens.contains(&token) {
            tokens.push(token);
        }
    }
    Ok(tokens)
}

/// The URL of a `--urls` line, or why there is none (to be reported, and counted as failed).
pub fn url_of(item: anyhow::Result<UrlLine>) -> Result<String, Stop> {
    match item {
        Ok(UrlLine::Url(url)) => Ok(url),
        Ok(UrlLine::Bad(why)) => Err(Stop::Skip(why)),
        Err(e) => Err(Stop::End(format!("{e:#}"))),
    }
}

/// The URLs given as arguments, then those of a `--urls` input, all read (for the commands
/// that work per origin and show how many there are); a line that is not UTF-8 is reported and
/// counted in the second number. `what` names the command's work in the error for none at all.
// Without the `fetch` feature no command reads URLs for origins.
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
pub fn read_urls(
    given: &[String],
    file: Option<&std::path::Path>,
    what: &str,
    out: &mut Out,
) -> anyhow::Result<(Vec<String>, usize)> {
    let mut urls = given.to_vec();
    let mut bad = 0;
    let Some(file) = file else {
        return Ok((urls, bad));
    };
    let lines = UrlLines::open(&Source::new(file))?;
    let name = lines.name().to_owned();
    for item in lines {
        match item? {
            UrlLine::Url(url) => urls.push(url),
            UrlLine::Bad(why) => {
                out.error(why);
                bad += 1;
            }
        }
    }
    if urls.is_empty() && bad == 0 {
        bail!("no URLs to {what}: {name} has no URL lines");
    }
    Ok((urls, bad))
}

/// Why a `--urls` line gives no URL: the sentence to print, and whether the input goes on.
pub enum Stop {
    Skip(String),
    End(String),
}

impl Stop {
    pub fn message(&self) -> &str {
        match self {
            Stop::Skip(m) | Stop::End(m) => m,
        }
    }
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
) -> anyhow::Result<Status> {
    let mode: Mode = args.mode.into();
    let parsed = Robots::parse_with(body, &Options::mode(mode));
    let robots = &parsed.robots;
    // Per crawler: its tokens, the one whose groups apply, and those groups' rules.
    let rules: Vec<_> = crawlers
        .each()
        .filter_map(|c| Some((c, chosen(robots, c)?, robots.rules_for_any(c))))
        .collect();
    let several = rules.len() > 1;
    let name = src.name();
    let mut status = Status::Clean;
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
                        tally.failed += 1;
                        continue;
                    }
                }
            }
        };
        let url = url.as_str();
        if let Err(why) = local_target(url, mode) {
            out.error(format_args!("{why}"));
            tally.failed += 1;
            continue;
        }
        for (crawler, token, rules) in &rules {
            let usage = usage_at(rules, url);
            tally.add(usage.decision.allowed);
            if !usage.decision.allowed {
                status = Status::Findings;
            }
            let r = record(
                url,
                token,
                crawler,
                &usage,
                &name,
                Rules {
                    reason: GIVEN,
                    reason_text: "the robots.txt given with --robots".to_owned(),
                },
            );
            if args.json {
                out.json(&Record::Check(r))?;
            } else {
                report(out, several.then(|| token.as_str()), url, &r)?;
            }
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
/// `--robots`: one shape for both. `token` is the one of `crawler` whose groups applied
/// ([`chosen`]); `usage` the answer of its rules at the URL.
pub fn record<'a>(
    url: &'a str,
    token: &'a ProductToken,
    crawler: &'a [ProductToken],
    usage: &Usage<'_>,
    robots_txt: &'a str,
    why: Rules,
) -> Check<'a> {
    let d = &usage.decision;
    let rule = d.rule();
    Check {
        url,
        judged_url: crawlgate::respelled(url).map(|r| r.url),
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
        usage: usage_record(usage),
    }
}

/// What `rules` say of `url`: the decision and the usage preferences at the path a client
/// requests ([`crawlgate::request_target`]), in either mode, as the engine judges it; the
/// record's `judged_url` names that URL when it is not `url`.
pub fn usage_at<'a>(rules: &AgentRules<'a>, url: &str) -> Usage<'a> {
    rules.usage_path(&crawlgate::request_target(url))
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

/// What `check --robots` takes in RFC mode: an absolute http(s) URL with a host, or a path
/// starting with `/` (or `*`, a pattern-like path). Anything else would get a verdict that
/// means nothing (`private/x` is not under `/private`), so it is an input error. Google mode
/// takes every string as google/robotstxt's API does.
pub fn local_target(url: &str, mode: Mode) -> Result<(), String> {
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

/// With several `--agent`s, each line starts with the agent's token: `TOKEN<TAB>allowed<TAB>…`.
pub fn agent_column(agent: Option<&str>) -> String {
    agent.map_or_else(String::new, |a| format!("{}\t", escape(a)))
}

fn report(out: &mut Out, agent: Option<&str>, url: &str, c: &Check<'_>) -> std::io::Result<()> {
    // Escaped: a TAB or newline in a URL must not forge columns or lines, and nothing from a
    // file may drive the terminal.
    let url = url_column(url, c.judged_url.as_deref());
    let agent = agent_column(agent);
    let word = if c.allowed { "allowed" } else { "disallowed" };
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
