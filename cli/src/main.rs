//! `crawlgate`: lint robots.txt files, check URLs against them, find a URL's robots.txt, fetch
//! robots.txt into a lasting crawl state (and show its history), and read, validate and
//! discover sitemaps.
//!
//! This file holds the command line (clap derive), dispatch, exit codes and error printing;
//! each subcommand lives in its own module and uses only the library's public API.

mod check;
#[cfg(feature = "fetch")]
mod clock;
mod explain;
mod history;
mod input;
mod lint;
mod output;
mod progress;
mod remote;
mod report;
mod schema;
mod sitemap;
#[cfg(feature = "fetch")]
mod state;
mod url;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use crawlgate::Mode;

use crate::output::Out;

const AFTER_HELP: &str = "\
Exit status:
  0  success: no lint errors, every URL allowed
  1  findings: lint errors (or warnings with --deny-warnings), or a disallowed URL
  2  usage, input or I/O error";

const LINT_AFTER_HELP: &str = "\
Output: `PATH:LINE:COL: error[CODE]: message` (or `warning[CODE]`) per problem, then a summary.

An http(s) URL (or an origin) is not a file: its origin's robots.txt is fetched now (nothing
is recorded in the crawl state) and linted, named by its robots.txt URL. A 404 (any 4xx but
429) says `URL: no robots.txt (HTTP 404): nothing to lint`. Files and URLs can be mixed.

Exit status:
  0  no errors (warnings allowed unless --deny-warnings); a URL with no robots.txt
  1  errors, or warnings with --deny-warnings
  2  a file could not be read or a robots.txt could not be fetched (429, 5xx, network
     failure; the others are still linted), or a usage error";

const EXPLAIN_AFTER_HELP: &str = "\
Output: per --agent, a section: `agent TOKEN`, the group that applies and the `user-agent`
line(s) that chose it (or that the `*` group applies, or that no group does: everything
allowed), the group's rules (all its groups merged) in the order they are tried, each with its
line (longest pattern first; on equal length allow before disallow, then file order: the first
that matches decides), the crawl-delay, the sitemaps, then per URL
`allowed|disallowed<TAB>URL<TAB>line N: RULE` (or `no rule matched`), then
`<TAB>usage: …` when usage preferences apply. The group's `Content-Usage` and `Content-Signal`
lines and the file's `License` and `LLM-Policy` are listed when present. --agents A,B explains
one crawler that obeys several tokens (the first with a group of its own decides). --json: an
{\"type\":\"explain\",…} record per agent, each followed by a {\"type\":\"check\",…} record
per URL as `check` prints it; a summary last.

Without --robots, the first argument names the origin (an origin, or a URL of it: a URL with a
path is also checked), and its robots.txt comes from the crawl state (--state) as for `check`,
fetched only when the state has none or it is due; the other URLs must be of that origin, or
paths starting with `/`. Control characters from files and URLs are printed escaped.

Exit status:
  0  every URL allowed (or no URLs)
  1  at least one URL disallowed
  2  usage, input or I/O error (a URL of another origin, or that is not a URL, included)";

const CHECK_AFTER_HELP: &str = "\
Output: `allowed<TAB>URL<TAB>line N: RULE` or `disallowed<TAB>URL<TAB>line N: RULE` per URL, in
the order given (nothing after the URL when no rule decided). Without --robots, each origin's
robots.txt comes from the crawl state (--state), fetched only when the state has none or it is
due (up to --concurrency origins at once), and a URL disallowed by the failure rules
(robots.txt unreachable) reads `disallowed<TAB>URL<TAB>REASON`. Control characters from files
and URLs are printed escaped (`\\t`, `\\u{1b}`), so a TAB in a URL cannot forge a column.

--urls is read a line at a time and each URL answered as it comes (`tail -f urls | crawlgate
check --urls - …` works). On a terminal, a summary line (`3 URLs: 2 allowed, 1 disallowed`)
goes to standard error at the end, so that it never mixes with the lines a script reads.

With --robots, a URL is an absolute http(s) URL or a path starting with `/` or `*`; in
--mode google, any string, as google/robotstxt's API takes it. Anything else is an input error,
reported while the other URLs are answered.

Several --agent: one answer per agent per URL, each line starting with the agent's token
(`googlebot<TAB>allowed<TAB>URL…`); the first --agent, as given, is the User-Agent header sent.
--agents A,B is one crawler that obeys several tokens, most specific first: one answer per URL,
from the group of the first token that has one of its own, else `*` (no token column).

When usage preferences (`Content-Usage`) apply to an allowed URL, a last column follows:
`usage: train-ai=n, search=y (line 5)` (after an empty rule column when no rule decided).
--json: `usage` in the check record. They are a signal about use, never a crawl permission.

Exit status:
  0  every URL allowed
  1  at least one URL disallowed
  2  usage, input or I/O error (a URL that is neither a URL nor a path included)";

const FETCH_AFTER_HELP: &str = "\
Output: per origin, the robots.txt URL, then status, outcome, final URL, size, problems,
version (new, or the same as the fetch before) and the verdict now in force from the crawl
state. Every fetch is recorded in the state (--state); see `crawlgate history`. Up to
--concurrency origins are fetched at once; they are printed in the order given. On a terminal,
standard error shows progress, then a summary line (`2 origins: 1 fetched, 1 unreachable`).

Exit status:
  0  every robots.txt fetched, or absent (4xx: everything allowed)
  1  at least one robots.txt unreachable (429, 5xx, network failure)
  2  a URL is not an absolute http or https URL, the state cannot be opened, or a usage error";

const HISTORY_AFTER_HELP: &str = "\
Output: per origin, the robots.txt URL, then one line per version of the last 30 days, oldest
first: `TIME[–LAST ×COUNT]  STATUS  OUTCOME  SIZE bytes  PROBLEMS  DIGEST` (times in UTC; a
version is a run of fetches with the same result). The version the verdict comes from is
followed by `in force: REASON`; then the verdict, the start of a failure run and the next
fetch. With --json, JSON Lines: one {\"type\":\"version\",…} record per version, then one
{\"type\":\"origin\",…} record; a {\"type\":\"summary\",…} record last. Nothing is fetched.

Exit status:
  0  every origin has a recorded history
  2  an origin has nothing recorded, a URL is not an absolute http or https URL (the others are
     still printed), the state cannot be opened, or a usage error";

const RECRAWL_AFTER_HELP: &str = "\
For an emergency (the rules were fixed): fetches each origin's robots.txt now, whatever the
state says, and records it; a fetch that was running and started before is discarded.

Output: per origin, the origin, then `result: STATUS OUTCOME`, `version: new (DIGEST)` or
`same as before (N fetches since TIME)`, and the verdict now in force. --json: as `fetch`, one
{\"type\":\"fetch\",…} record per origin, then a summary. Up to --concurrency origins are
fetched at once, printed in the order given.

Exit status:
  0  every robots.txt fetched, or absent (4xx: everything allowed)
  1  at least one robots.txt unreachable (429, 5xx, network failure)
  2  a URL is not an absolute http or https URL, the state cannot be opened, or a usage error";

const REPORT_AFTER_HELP: &str = "\
Fetches each target's robots.txt now (up to --concurrency at once; --offline: none), records it
in the crawl state (--state) and renders the report from the state, so that running it daily
builds the 30-day history. Per robots.txt: the status as Search Console shows it (Fetched; Not
fetched – Not found (404); Not fetched – the reason), the last fetch (local time), the size, the
problems by line, the rules in force (the failure rules' ladder), the next fetch and redirects;
the versions of the last 30 days, each with a line diff to the file before it; and, for the URLs
of --urls and each --agent, the verdicts that change between versions, the URLs on which RFC
9309 and Google disagree and each agent's verdict now. A robots.txt not found for over 30 days is
left out (and still checked). --json: one {\"type\":\"report\",…} record per robots.txt, then a
summary. --html FILE: one self-contained page (no network), site text escaped.

Exit status:
  0  every robots.txt fetched (or absent) with no errors
  1  a robots.txt is unreachable or has errors
  2  a target is neither a host nor an http(s) URL, nothing is recorded for it (--offline), the
     state cannot be opened, or a usage error";

const URL_AFTER_HELP: &str = "\
Exit status:
  0  every URL has a robots.txt URL
  2  a URL is not an absolute http or https URL (the others are still printed), or a usage error";

/// robots.txt as crawlers and site owners need it: RFC 9309, or exactly as Google reads it.
///
/// Lint robots.txt files; check URLs against one, or against each site's own robots.txt kept
/// in a lasting crawl state (fetched once, with the failure rules: 404 allows all, 5xx and
/// network errors stop crawling 12 hours, then the last good version for 30 days); fetch,
/// show the history of and recrawl robots.txt files; find a URL's robots.txt; read, validate
/// and discover sitemaps, cross-checked against robots.txt. Every command prints JSON Lines
/// with --json.
#[derive(Debug, Parser)]
#[command(name = "crawlgate", version, after_help = AFTER_HELP)]
struct Cli {
    /// Print nothing on standard output: only the exit status (and errors on standard
    /// error) say what happened, as `grep -q`.
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Report problems in robots.txt files (or a site's live one, given its URL), one line per
    /// problem.
    #[command(after_help = LINT_AFTER_HELP)]
    Lint(LintArgs),
    /// Decide whether crawlers may fetch URLs: under a robots.txt file, or under each site's
    /// own (fetched once and kept in the crawl state, with the failure rules).
    #[command(after_help = CHECK_AFTER_HELP)]
    Check(CheckArgs),
    /// Show which group of a robots.txt applies to an agent and why, its rules in precedence
    /// order, its crawl-delay and sitemaps, and the line that decides each URL.
    #[command(after_help = EXPLAIN_AFTER_HELP)]
    Explain(ExplainArgs),
    /// Print the robots.txt URL for each URL's origin.
    #[command(after_help = URL_AFTER_HELP)]
    Url(UrlArgs),
    /// Fetch each origin's robots.txt and show what it leads to.
    #[command(after_help = FETCH_AFTER_HELP)]
    Fetch(FetchArgs),
    /// Show the recorded robots.txt versions of each origin and the one in force.
    #[command(after_help = HISTORY_AFTER_HELP)]
    History(HistoryArgs),
    /// Fetch each origin's robots.txt now, whatever the state says (after a fix).
    #[command(after_help = RECRAWL_AFTER_HELP)]
    Recrawl(RecrawlArgs),
    /// The robots.txt report: each robots.txt's status, problems by line, versions of the
    /// last 30 days with their diffs, and the URLs whose verdict they change; on the terminal,
    /// as JSON Lines or as an HTML page.
    #[command(after_help = REPORT_AFTER_HELP)]
    Report(ReportArgs),
    /// Read, validate and list sitemaps.
    #[command(subcommand)]
    Sitemap(SitemapCommand),
    /// Print a shell completion script (`crawlgate completions bash > /etc/bash_completion.d/crawlgate`).
    Completions(CompletionsArgs),
    /// Print the manual page, in roff (`crawlgate man | man -l -`).
    Man,
}

#[derive(Debug, Args)]
struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// `crawlgate completions SHELL`, `crawlgate man`: generated from the definitions above, so
/// that they always match the commands.
fn generated(command: &Command, out: &mut Out) -> anyhow::Result<Status> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut bytes = Vec::new();
    match command {
        Command::Completions(args) => {
            clap_complete::generate(args.shell, &mut cmd, "crawlgate", &mut bytes)
        }
        _ => clap_mangen::Man::new(cmd).render(&mut bytes)?,
    }
    out.raw(&bytes)?;
    Ok(Status::Clean)
}

const SITEMAP_LINT_AFTER_HELP: &str = "\
Output: `NAME:LINE:COL: error[CODE]: message` (or `warning[CODE]`) per problem, then a summary.
Entries are cross-checked against --robots FILE for --agent; a URL input without --robots is
cross-checked against its own origin's robots.txt (its URLs on that origin only).

Exit status:
  0  no errors (warnings allowed unless --deny-warnings)
  1  errors, or warnings with --deny-warnings
  2  a sitemap could not be read or fetched (the others are still linted), or a usage error";

const SITEMAP_URLS_AFTER_HELP: &str = "\
Output: `URL<TAB>LASTMOD` per entry (LASTMOD empty when absent); with --json one record per entry
with everything read (images, videos, news, alternates), then a summary. Problems are counted on
standard error.

Exit status:
  0  no errors
  1  the sitemap has errors (the valid entries are still printed)
  2  a sitemap could not be read or fetched, or a usage error";

const SITEMAP_DISCOVER_AFTER_HELP: &str = "\
Output: per origin (each once, in the order given; up to --concurrency at once), the robots.txt
URL and status, then one line per sitemap (indexes' children indented):
`URL<TAB>FORMAT<TAB>N entries<TAB>N errors<TAB>N warnings`, each followed by its problems. On a
terminal, standard error shows progress, then a summary line.

Exit status:
  0  no errors in any sitemap
  1  errors in a sitemap (including one that could not be fetched)
  2  a robots.txt unreachable, a bad URL (the other origins are still walked), or a usage error";

#[derive(Debug, Subcommand)]
enum SitemapCommand {
    /// Report problems in sitemaps, one line per problem.
    #[command(after_help = SITEMAP_LINT_AFTER_HELP)]
    Lint(SitemapLintArgs),
    /// Print the entries of sitemaps.
    #[command(after_help = SITEMAP_URLS_AFTER_HELP)]
    Urls(SitemapUrlsArgs),
    /// List origins' sitemaps (robots.txt `Sitemap:` lines, indexes followed one level) with
    /// their entry counts and problems.
    #[command(after_help = SITEMAP_DISCOVER_AFTER_HELP)]
    Discover(SitemapDiscoverArgs),
}

#[derive(Debug, Args)]
struct SitemapLintArgs {
    /// Sitemap files (gzip or not), `-` for standard input, or http(s) URLs.
    #[arg(value_name = "FILE|URL", required = true)]
    inputs: Vec<String>,
    /// The robots.txt file to cross-check entries against.
    #[arg(long, value_name = "FILE")]
    robots: Option<PathBuf>,
    /// The crawler whose robots.txt rules apply.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "CRAWLGATE_AGENT",
        default_value = "Googlebot"
    )]
    agent: String,
    /// Print JSON Lines: one record per problem, then a summary record.
    #[arg(long)]
    json: bool,
    /// Exit 1 on warnings too.
    #[arg(long)]
    deny_warnings: bool,
    /// Show at most N problems of one code per sitemap (the others are counted, in a `… more`
    /// line and the summary); 0 shows all.
    #[arg(long, value_name = "N")]
    max_problems: Option<usize>,
    #[command(flatten)]
    http: HttpArgs,
}

#[derive(Debug, Args)]
struct SitemapUrlsArgs {
    /// Sitemap files (gzip or not), `-` for standard input, or http(s) URLs.
    #[arg(value_name = "FILE|URL", required = true)]
    inputs: Vec<String>,
    /// Print JSON Lines: one record per entry, with everything read, then a summary record.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    http: HttpArgs,
}

#[derive(Debug, Args)]
struct SitemapDiscoverArgs {
    /// Any URL of each origin (its robots.txt is fetched; each origin once).
    #[arg(value_name = "URL", required_unless_present = "urls_file")]
    urls: Vec<String>,
    /// Read URLs from FILE, one per line (blank lines and `#` lines skipped); `-` reads
    /// standard input.
    #[arg(long = "urls", value_name = "FILE")]
    urls_file: Option<PathBuf>,
    #[command(flatten)]
    concurrency: ConcurrencyArg,
    /// The crawler whose robots.txt rules the entries are checked against.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "CRAWLGATE_AGENT",
        default_value = "Googlebot"
    )]
    agent: String,
    /// The most sitemaps fetched.
    #[arg(long, value_name = "N", default_value_t = 1_000)]
    max_sitemaps: usize,
    /// Print JSON Lines: the robots.txt, one record per sitemap, then a summary record.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    http: HttpArgs,
}

/// How to read robots.txt and match URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ModeArg {
    /// RFC 9309.
    Rfc,
    /// google/robotstxt's behaviour, exactly.
    Google,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Rfc => Mode::Rfc,
            ModeArg::Google => Mode::Google,
        }
    }
}

#[derive(Debug, Args)]
struct LintArgs {
    /// robots.txt files to lint; `-` reads standard input; an http(s) URL or origin: its
    /// robots.txt, fetched now.
    #[arg(value_name = "FILE|URL", required = true)]
    files: Vec<PathBuf>,
    /// Print JSON Lines: one record per problem, then a summary record.
    #[arg(long)]
    json: bool,
    /// Exit 1 on warnings too.
    #[arg(long)]
    deny_warnings: bool,
    /// Parsing mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    mode: ModeArg,
    /// Show at most N problems of one code per file (the others are counted, in a `… more`
    /// line and the summary); 0 shows all.
    #[arg(long, value_name = "N")]
    max_problems: Option<usize>,
    #[command(flatten)]
    http: HttpArgs,
}

#[derive(Debug, Args)]
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
struct ExplainArgs {
    /// The crawler's product token or its own User-Agent header, read as by `check`; with
    /// --mode google, any string. Repeat it for several crawlers: one section per agent.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "CRAWLGATE_AGENT",
        required_unless_present = "agents",
        allow_hyphen_values = true
    )]
    agent: Vec<String>,
    /// One crawler that obeys several product tokens, most specific first
    /// (`googlebot-image,googlebot`): one section, for the group of the first token that has
    /// one of its own (else `*`). Instead of --agent.
    #[arg(
        long,
        value_name = "TOKEN,…",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    agents: Vec<String>,
    /// The robots.txt file to explain; `-` reads standard input. Without it, the robots.txt of
    /// the first URL's origin, from the crawl state (fetched when due).
    #[arg(long, value_name = "FILE")]
    robots: Option<PathBuf>,
    /// Matching mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    mode: ModeArg,
    /// Print JSON Lines: an explain record per agent, each followed by a check record per
    /// URL, then a summary record.
    #[arg(long)]
    json: bool,
    /// With --robots, URLs (or paths such as `/a?b`) to check. Without it, the origin (or a
    /// URL of it) first, then URLs of that origin or paths.
    #[arg(value_name = "URL", required_unless_present = "robots")]
    urls: Vec<String>,
    #[command(flatten)]
    http: HttpArgs,
    #[command(flatten)]
    state: StateArgs,
}

#[derive(Debug, Args)]
struct CheckArgs {
    /// The crawler's product token (`MyBot`, `MJ12bot`) or its own User-Agent header
    /// (`MyBot/1.0 (+https://…)`, `Mozilla/5.0 (compatible; Googlebot/2.1; …)`); a browser's
    /// header is refused. With --mode google, any string, as google/robotstxt takes it. Repeat
    /// it for several crawlers: one answer per agent per URL.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "CRAWLGATE_AGENT",
        required_unless_present = "agents",
        allow_hyphen_values = true
    )]
    agent: Vec<String>,
    /// One crawler that obeys several product tokens, most specific first
    /// (`googlebot-image,googlebot`), each read as --agent: one answer per URL, from the group
    /// of the first token that has one of its own, else the `*` group (Google's rule for its
    /// crawlers). Instead of --agent; the first token, as given, is the User-Agent header sent.
    #[arg(
        long,
        value_name = "TOKEN,…",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    agents: Vec<String>,
    /// The robots.txt file to check against; `-` reads standard input. Without it, each URL's
    /// robots.txt is fetched (once per origin).
    #[arg(long, value_name = "FILE")]
    robots: Option<PathBuf>,
    #[command(flatten)]
    http: HttpArgs,
    /// Matching mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    mode: ModeArg,
    /// Read URLs from FILE, one per line (blank lines and `#` lines skipped); `-` reads
    /// standard input.
    #[arg(long, value_name = "FILE")]
    urls: Option<PathBuf>,
    /// Print JSON Lines: one record per URL, then a summary record.
    #[arg(long)]
    json: bool,
    /// URLs (or paths such as `/a?b`) to check.
    #[arg(value_name = "URL")]
    url: Vec<String>,
    /// The most origins fetched at once (without --robots); answers stay in the order given.
    #[arg(
        long,
        value_name = "N",
        default_value_t = DEFAULT_CONCURRENCY,
        value_parser = concurrency_value(),
        conflicts_with = "robots"
    )]
    concurrency: usize,
    #[command(flatten)]
    state: StateArgs,
}

/// Origins fetched at once unless `--concurrency` says otherwise: enough that a few dead hosts
/// (each waiting out `--timeout`) do not hold the others up, few enough to be polite.
const DEFAULT_CONCURRENCY: usize = 8;

/// `--concurrency`: at least 1 (1 fetches one origin after another); 0 is a usage error.
fn concurrency_value() -> impl clap::builder::TypedValueParser<Value = usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024)
}

/// `--concurrency N` of the commands that fetch origin after origin.
#[derive(Debug, Args)]
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
struct ConcurrencyArg {
    /// The most origins fetched at once; output stays in the order given (1: one after
    /// another).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CONCURRENCY, value_parser = concurrency_value())]
    concurrency: usize,
}

/// Where the commands that fetch robots.txt through the engine keep the crawl state.
#[derive(Debug, Args)]
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
struct StateArgs {
    /// The crawl state: a state file (created if missing) or a Redis server
    /// (`redis://HOST[:PORT][/DB]`); also from CRAWLGATE_STATE. Default:
    /// $XDG_STATE_HOME/crawlgate/state.redb, else ~/.local/state/crawlgate/state.redb.
    // CRAWLGATE_STATE is read by `state::open`, not by clap, so that --no-state overrides it
    // while still conflicting with an explicit --state.
    #[arg(long, value_name = "PATH|URL")]
    state: Option<PathBuf>,
    /// Keep no state: nothing is read or recorded, robots.txt is fetched as if for the first
    /// time.
    #[arg(long, conflicts_with = "state")]
    no_state: bool,
}

/// How robots.txt is fetched over HTTP.
#[derive(Debug, Args)]
struct HttpArgs {
    /// Seconds a fetch may take, redirects and body included.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    timeout: f64,
    /// The User-Agent header to send (default: for `check` and `explain`, the first --agent
    /// value as given; for the other commands, `crawlgate/VERSION`).
    #[arg(long, value_name = "HEADER")]
    user_agent: Option<String>,
}

#[derive(Debug, Args)]
struct FetchArgs {
    /// URLs whose origins' robots.txt to fetch (each origin once).
    #[arg(value_name = "URL", required_unless_present = "urls_file")]
    urls: Vec<String>,
    /// Read URLs from FILE, one per line (blank lines and `#` lines skipped); `-` reads
    /// standard input.
    #[arg(long = "urls", value_name = "FILE")]
    urls_file: Option<PathBuf>,
    #[command(flatten)]
    concurrency: ConcurrencyArg,
    /// Print JSON Lines: one record per origin, then a summary record.
    #[arg(long)]
    json: bool,
    /// Parsing mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    mode: ModeArg,
    #[command(flatten)]
    http: HttpArgs,
    #[command(flatten)]
    state: StateArgs,
}

#[derive(Debug, Args)]
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
struct HistoryArgs {
    /// URLs whose origins' history to show (each origin once).
    #[arg(value_name = "URL", required = true)]
    urls: Vec<String>,
    /// Print JSON Lines: one record per version and one per origin, then a summary record.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    state: StateArgs,
}

#[derive(Debug, Args)]
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
struct ReportArgs {
    /// Hosts (`example.com`: its http:// and https:// robots.txt, as Search Console checks a
    /// domain), origins or URLs. None: every origin recorded in the state.
    #[arg(value_name = "TARGET")]
    targets: Vec<String>,
    /// A crawler whose verdicts the report shows (product token or its User-Agent header);
    /// repeat it for several. The first is the User-Agent header sent unless --user-agent.
    #[arg(long, value_name = "TOKEN", allow_hyphen_values = true)]
    agent: Vec<String>,
    /// URLs (one per line; `/paths` apply to every origin) whose verdicts the report follows
    /// across versions, compares between RFC 9309 and Google and shows per agent.
    #[arg(long, value_name = "FILE")]
    urls: Option<PathBuf>,
    /// Also follow up to N URLs of each site's own sitemaps (those its robots.txt in force
    /// announces, and one index level down; fetched now, not with --offline).
    #[arg(long, value_name = "N", default_value_t = 0)]
    sitemap_urls: usize,
    /// Render from the state without fetching.
    #[arg(long)]
    offline: bool,
    /// Also write the report as one self-contained HTML page to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Print JSON Lines: one record per robots.txt, then a summary record.
    #[arg(long)]
    json: bool,
    /// Mode the verdicts and problems are worked out in (the other one is compared with it).
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    mode: ModeArg,
    #[command(flatten)]
    concurrency: ConcurrencyArg,
    #[command(flatten)]
    http: HttpArgs,
    #[command(flatten)]
    state: StateArgs,
}

#[derive(Debug, Args)]
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
struct RecrawlArgs {
    /// URLs whose origins' robots.txt to fetch again (each origin once).
    #[arg(value_name = "URL", required = true)]
    urls: Vec<String>,
    #[command(flatten)]
    concurrency: ConcurrencyArg,
    /// Print JSON Lines: one record per origin, then a summary record.
    #[arg(long)]
    json: bool,
    /// Parsing mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    mode: ModeArg,
    #[command(flatten)]
    http: HttpArgs,
    #[command(flatten)]
    state: StateArgs,
}

#[derive(Debug, Args)]
struct UrlArgs {
    /// Absolute http or https URLs.
    #[arg(value_name = "URL", required = true)]
    urls: Vec<String>,
    /// Print JSON Lines: one record per URL, then a summary record.
    #[arg(long)]
    json: bool,
}

/// How a command ended, when it did not fail outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Exit 0.
    Clean,
    /// Exit 1: lint problems or a disallowed URL.
    Findings,
    /// Exit 2: an input could not be used; already reported on standard error.
    Failed,
}

impl Status {
    /// The process's exit status, also printed in the JSON summary record.
    fn code(self) -> u8 {
        match self {
            Status::Clean => 0,
            Status::Findings => 1,
            Status::Failed => 2,
        }
    }
}

impl From<Status> for ExitCode {
    fn from(s: Status) -> ExitCode {
        ExitCode::from(s.code())
    }
}

/// `--agent` and `--agents` of `check` and `explain` exclude each other, but a
/// `CRAWLGATE_AGENT` in the environment gives way to `--agents` rather than clash with it
/// (clap's `conflicts_with` would count the variable as a `--agent`).
fn agents_apart(cli: &mut Cli, matches: &clap::ArgMatches) {
    use clap::parser::ValueSource;
    let (agent, agents, name, sub) = match (&mut cli.command, matches.subcommand()) {
        (Command::Check(a), Some((name, sub))) => (&mut a.agent, &a.agents, name, sub),
        (Command::Explain(a), Some((name, sub))) => (&mut a.agent, &a.agents, name, sub),
        _ => return,
    };
    if agents.is_empty() || agent.is_empty() {
        return;
    }
    if sub.value_source("agent") == Some(ValueSource::EnvVariable) {
        agent.clear();
        return;
    }
    use clap::CommandFactory;
    let mut cli = Cli::command();
    // The subcommand's usage line in the message, as clap's own errors have.
    let mut cmd = match cli.find_subcommand_mut(name) {
        Some(sub) => sub.clone().bin_name(format!("crawlgate {name}")),
        None => cli,
    };
    cmd.error(
        clap::error::ErrorKind::ArgumentConflict,
        "--agent and --agents cannot be used together: repeat --agent for several \
             crawlers (one answer each), or give one crawler's tokens to --agents",
    )
    .exit()
}

fn main() -> ExitCode {
    // Usage errors exit 2, --help and --version 0 (clap's own codes).
    let matches = {
        use clap::CommandFactory;
        Cli::command().get_matches()
    };
    let mut cli = {
        use clap::FromArgMatches;
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    };
    agents_apart(&mut cli, &matches);
    let mut out = Out::stdout(cli.quiet);
    let result = match &cli.command {
        Command::Lint(args) => lint::run(args, &mut out),
        Command::Check(args) => check::run(args, &mut out),
        Command::Explain(args) => explain::run(args, &mut out),
        Command::Url(args) => url::run(args, &mut out),
        Command::Fetch(args) => remote::fetch(args, &mut out),
        Command::History(args) => history::history(args, &mut out),
        Command::Recrawl(args) => history::recrawl(args, &mut out),
        Command::Report(args) => report::report(args, &mut out),
        Command::Sitemap(SitemapCommand::Lint(args)) => sitemap::lint(args, &mut out),
        Command::Sitemap(SitemapCommand::Urls(args)) => sitemap::urls(args, &mut out),
        Command::Sitemap(SitemapCommand::Discover(args)) => sitemap::discover(args, &mut out),
        command @ (Command::Completions(_) | Command::Man) => generated(command, &mut out),
    }
    .and_then(|status| {
        out.flush()?;
        Ok(status)
    });
    match result {
        Ok(status) => status.into(),
        // The reader went away (`crawlgate … | head -1`): nothing more to say to anyone.
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            out.error(format_args!("{e:#}"));
            Status::Failed.into()
        }
    }
}
