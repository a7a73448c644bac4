//! The command line, as clap reads it: every command's arguments, their help and the
//! argument groups several commands share (HTTP, crawl state, agents, concurrency).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use crawlgate::Mode;

pub const AFTER_HELP: &str = "\
Exit status:
  0  success: no lint errors, every URL allowed
  1  findings: lint errors (or warnings with --deny-warnings), or a URL the site's robots.txt
     disallows
  2  usage, input or I/O error
  3  check, explain: a URL disallowed only because its robots.txt could not be read (the
     site is unreachable): not an answer about the site's rules";

pub const LINT_AFTER_HELP: &str = "\
Output: `PATH:LINE:COL: error[CODE]: message` (or `warning[CODE]`) per problem, then a summary.

An http(s) URL (or an origin) is not a file: its origin's robots.txt is fetched now (nothing
is recorded in the crawl state) and linted, named by its robots.txt URL. A 404 (any 4xx but
429) says `URL: no robots.txt (HTTP 404): nothing to lint`. Files and URLs can be mixed.

Exit status:
  0  no errors (warnings allowed unless --deny-warnings); a URL with no robots.txt
  1  errors, or warnings with --deny-warnings
  2  a file could not be read or a robots.txt could not be fetched (429, 5xx, network
     failure; the others are still linted), or a usage error";

pub const EXPLAIN_AFTER_HELP: &str = "\
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
  1  at least one URL disallowed by the robots.txt
  2  usage, input or I/O error (a URL of another origin, or that is not a URL, included)
  3  no 2, but a URL disallowed because the robots.txt could not be read (`unreachable`)";

pub const CHECK_AFTER_HELP: &str = "\
Output: `allowed<TAB>URL<TAB>line N: RULE` or `disallowed<TAB>URL<TAB>line N: RULE` per URL, in
the order given (nothing after the URL when no rule decided). Without --robots, each origin's
robots.txt comes from the crawl state (--state), fetched only when the state has none or it is
due (up to --concurrency origins at once), and a URL disallowed by the failure rules
(robots.txt unreachable, no good version) reads `unreachable<TAB>URL<TAB>REASON`. Control characters from files
and URLs are printed escaped (`\\t`, `\\u{1b}`), so a TAB in a URL cannot forge a column.

--urls is read a line at a time and each URL answered as it comes (`tail -f urls | crawlgate
check --urls - …` works). On a terminal, a summary line (`3 URLs: 2 allowed, 1 disallowed;
exit 1: a URL is disallowed`) goes to standard error at the end, so that it never mixes with
the lines a script reads.

With --robots, a URL is an absolute http(s) URL or a path starting with `/` or `*`; in
--mode google, any string, as google/robotstxt's API takes it. Anything else is an input error,
reported while the other URLs are answered. A --robots file cut at the 512,000-byte limit, not
text, an HTML page (`html-body`: nearly everything allowed) or empty gets a `crawlgate:
warning: …` line on standard error (--json: a warning record).

Several --agent: one answer per agent per URL, each line starting with the agent's token
(`googlebot<TAB>allowed<TAB>URL…`); the first --agent, as given, is the User-Agent header sent.
--agents A,B is one crawler that obeys several tokens, most specific first: one answer per URL,
from the group of the first token that has one of its own, else `*` (no token column).

When usage preferences (`Content-Usage`) apply to an allowed URL, a last column follows:
`usage: train-ai=n, search=y (line 5)` (after an empty rule column when no rule decided).
--json: `usage` in the check record. They are a signal about use, never a crawl permission.

Exit status:
  0  every URL allowed
  1  at least one URL disallowed by a rule of the site's robots.txt
  2  usage, input or I/O error (a URL that is neither a URL nor a path included)
  3  no 2, but a URL disallowed because its robots.txt could not be read (`unreachable`:
     the site is down or failing, its rules unknown); 3 wins over 1, so a job asserting
     that a URL is blocked (`[ $? -eq 1 ]`) fails while the site is down";

pub const FETCH_AFTER_HELP: &str = "\
Output: per origin, the robots.txt URL, then status, outcome, final URL, size, problems,
version (new, or the same as the fetch before) and the verdict now in force from the crawl
state. Every fetch is recorded in the state (--state); see `crawlgate history`. Up to
--concurrency origins are fetched at once; they are printed in the order given. On a terminal,
standard error shows progress, then a summary line (`2 origins: 1 fetched, 1 unreachable`).

Exit status:
  0  every robots.txt fetched, or absent (4xx: everything allowed)
  1  at least one robots.txt unreachable (429, 5xx, network failure)
  2  a URL is not an absolute http or https URL, the state cannot be opened, or a usage error";

pub const HISTORY_AFTER_HELP: &str = "\
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

pub const RECRAWL_AFTER_HELP: &str = "\
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

pub const REPORT_AFTER_HELP: &str = "\
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

pub const PAGE_AFTER_HELP: &str = "\
Output: per page, its URL (or file) and status, the merged answer for --agent (index, follow,
archive, snippet, previews, unavailable_after, translate, AI uses, TDMRep, Content-Usage), then
each directive that applies with its source (`header NAME #N @OFFSET` or `meta NAME line N`),
unknown directives and problems. The most restrictive directive wins. Each URL is fetched once
(GET, redirects followed, the first 512 KiB read). --json: one {\"type\":\"page\",…} record per
page, then a summary.

Exit status:
  0  every page read
  2  a page could not be fetched or read, or a usage error";

#[cfg(feature = "fetch")]
pub const POLICY_AFTER_HELP: &str = "\
Output: per URL, the whole crawl policy for --agent, each part with its source: robots.txt
(allowed or not, the deciding line, the verdict's reason), a refusal at the edge (a challenge,
402 with its price, unreachable), TDMRep (the page's `tdm-reservation` header or <meta> over the
origin's /.well-known/tdmrep.json), and the page's directives (fetched once, GET, as the page
command, even when robots.txt disallows it, so that what the site says is seen). A URL
robots.txt disallows whose page says noindex is flagged (noindex-unseen): crawlers never see
that noindex. --no-page skips the page. --json: one {\"type\":\"policy\",…} record per URL,
then a summary.

Exit status:
  0  every URL answered, no warning
  1  a warning (noindex-unseen)
  2  a URL could not be answered, or a usage error";

pub const URL_AFTER_HELP: &str = "\
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
pub struct Cli {
    /// Print nothing on standard output: only the exit status (and errors on standard
    /// error) say what happened, as `grep -q`.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Report problems in robots.txt files (or a site's live one, given its URL), one line per
    /// problem.
    #[command(after_help = LINT_AFTER_HELP)]
    Lint(LintArgs),
    /// Which AI crawlers robots.txt files let read what: each crawler of a catalogue
    /// (ai.robots.txt's, built in) by purpose, blocked, partly or allowed, with the line that
    /// decides; or the groups to add to block a purpose.
    #[command(after_help = AUDIT_AFTER_HELP)]
    Audit(AuditArgs),
    /// Test a robots.txt (a file, or a site's live one) against an expectations file: which
    /// agents (or catalogued crawlers of a purpose) must be allowed or disallowed where. For CI:
    /// exit 1 when an expectation fails, naming the deciding line; JUnit XML with --junit.
    #[command(after_help = TEST_AFTER_HELP)]
    Test(TestArgs),
    /// What a new robots.txt would change: the verdicts that differ from the one in force (a
    /// file, or a site's live one) for the URLs given and for every catalogued crawler at `/`,
    /// with the deciding line before and after.
    #[command(after_help = DIFF_AFTER_HELP)]
    Diff(DiffArgs),
    /// Decide whether crawlers may fetch URLs: under a robots.txt file, or under each site's
    /// own (fetched once and kept in the crawl state, with the failure rules).
    #[command(after_help = CHECK_AFTER_HELP, mut_args(agent_user_agent_help))]
    Check(CheckArgs),
    /// Show which group of a robots.txt applies to an agent and why, its rules in precedence
    /// order, its crawl-delay and sitemaps, and the line that decides each URL.
    #[command(
        after_help = EXPLAIN_AFTER_HELP,
        mut_args(explain_agent_help)
    )]
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
    /// as JSON Lines or as an HTML page. Fetches every robots.txt now (recorded in the state)
    /// unless --offline; the report's first line says which.
    #[command(after_help = REPORT_AFTER_HELP, mut_args(agent_user_agent_help))]
    Report(ReportArgs),
    /// Serve the engine over HTTP: JSON routes under /v1 (check, acquire, record, robots,
    /// recrawl) for crawlers in any language, on the crawl state (replicas share a Redis).
    #[command(after_help = SERVE_AFTER_HELP)]
    Serve(ServeArgs),
    /// Read, validate and list sitemaps.
    #[command(subcommand)]
    Sitemap(SitemapCommand),
    /// Show what a page says crawlers may do with it: `Robots-Tag`/`X-Robots-Tag` headers,
    /// robots `<meta>`, `noai`, TDMRep and `Content-Usage`, for an agent, with their sources.
    #[command(after_help = PAGE_AFTER_HELP, mut_args(agent_user_agent_help))]
    Page(PageArgs),
    /// Judge robots.txt captures at research scale: WARC and WARC.gz files, JSON Lines,
    /// Parquet or Arrow IPC rows, or plain files, on every core, into the `captures`, `agents`
    /// and `rules` tables (Parquet, JSON Lines or CSV).
    #[cfg(feature = "batch")]
    #[command(after_help = BATCH_AFTER_HELP)]
    Batch(BatchArgs),
    /// Show the whole crawl policy of URLs for an agent: robots.txt, the edge, TDMRep and the
    /// page's directives, each with its source; flags a disallowed page that says noindex.
    #[cfg(feature = "fetch")]
    #[command(after_help = POLICY_AFTER_HELP, mut_args(agent_user_agent_help))]
    Policy(PolicyArgs),
    /// Serve `check_url`, `explain_robots` and `robots_report` to AI agents: a Model Context
    /// Protocol server on standard input and output, on the crawl state.
    #[cfg(feature = "mcp")]
    #[command(after_help = MCP_AFTER_HELP, mut_args(agent_user_agent_help))]
    Mcp(McpArgs),
    /// Print a shell completion script (`crawlgate completions bash > /etc/bash_completion.d/crawlgate`).
    Completions(CompletionsArgs),
    /// Print the manual page, in roff (`crawlgate man | man -l -`).
    Man,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

pub const SITEMAP_LINT_AFTER_HELP: &str = "\
Output: `NAME:LINE:COL: error[CODE]: message` (or `warning[CODE]`) per problem, then a summary.
Entries are cross-checked against --robots FILE for --agent; a URL input without --robots is
cross-checked against its own origin's robots.txt (its URLs on that origin only).

Exit status:
  0  no errors (warnings allowed unless --deny-warnings)
  1  errors, or warnings with --deny-warnings
  2  a sitemap could not be read or fetched (the others are still linted), or a usage error";

pub const SITEMAP_URLS_AFTER_HELP: &str = "\
Output: `URL<TAB>LASTMOD` per entry (LASTMOD empty when absent); with --json one record per entry
with everything read (images, videos, news, alternates), then a summary. Problems are counted on
standard error.

Exit status:
  0  no errors
  1  the sitemap has errors (the valid entries are still printed)
  2  a sitemap could not be read or fetched, or a usage error";

pub const SITEMAP_DISCOVER_AFTER_HELP: &str = "\
Output: per origin (each once, in the order given; up to --concurrency at once), the robots.txt
URL and status, then one line per sitemap (indexes' children indented):
`URL<TAB>FORMAT<TAB>N entries<TAB>N errors<TAB>N warnings`, each followed by its problems. On a
terminal, standard error shows progress, then a summary line.

Exit status:
  0  no errors in any sitemap
  1  errors in a sitemap (including one that could not be fetched)
  2  a robots.txt unreachable, a bad URL (the other origins are still walked), or a usage error";

#[derive(Debug, Subcommand)]
pub enum SitemapCommand {
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
pub struct SitemapLintArgs {
    /// Sitemap files (gzip or not), `-` for standard input, or http(s) URLs.
    #[arg(value_name = "FILE|URL", required = true)]
    pub inputs: Vec<String>,
    /// The robots.txt file to cross-check entries against.
    #[arg(long, value_name = "FILE")]
    pub robots: Option<PathBuf>,
    /// The crawler whose robots.txt rules apply.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "CRAWLGATE_AGENT",
        default_value = "Googlebot"
    )]
    pub agent: String,
    /// Print JSON Lines: one record per problem, then a summary record.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Show at most N problems of one code per sitemap (the others are counted, in a `… more`
    /// line and the summary); 0 shows all.
    #[arg(long, value_name = "N")]
    pub max_problems: Option<usize>,
    #[command(flatten)]
    pub http: HttpArgs,
}

#[derive(Debug, Args)]
pub struct SitemapUrlsArgs {
    /// Sitemap files (gzip or not), `-` for standard input, or http(s) URLs.
    #[arg(value_name = "FILE|URL", required = true)]
    pub inputs: Vec<String>,
    /// Print JSON Lines: one record per entry, with everything read, then a summary record.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub http: HttpArgs,
}

#[derive(Debug, Args)]
pub struct SitemapDiscoverArgs {
    /// Any URL of each origin (its robots.txt is fetched; each origin once).
    #[arg(value_name = "URL", required_unless_present = "urls_file")]
    pub urls: Vec<String>,
    /// Read URLs from FILE, one per line (blank lines and `#` lines skipped); `-` reads
    /// standard input.
    #[arg(long = "urls", value_name = "FILE")]
    pub urls_file: Option<PathBuf>,
    #[command(flatten)]
    pub concurrency: ConcurrencyArg,
    /// The crawler whose robots.txt rules the entries are checked against.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "CRAWLGATE_AGENT",
        default_value = "Googlebot"
    )]
    pub agent: String,
    /// The most sitemaps fetched.
    #[arg(long, value_name = "N", default_value_t = 1_000)]
    pub max_sitemaps: usize,
    /// Print JSON Lines: the robots.txt, one record per sitemap, then a summary record.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub http: HttpArgs,
}

/// How to read robots.txt and match URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
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

pub const AUDIT_AFTER_HELP: &str = "\
Output: per file, its problems (as `lint` prints them, with the catalogue's own checks), then a
table per purpose (training, search, agent, other): each crawler's access to `/` and to each
--path (blocked, partly, allowed), the group it follows, the line that decides and whether its
operator says it obeys robots.txt; then the catalogue names that are not product tokens. With
--json an `audit` record per crawler, then a summary. With --suggest, only the groups to add.

Exit status:
  0  no errors (warnings allowed unless --deny-warnings)
  1  errors, or warnings with --deny-warnings
  2  a file could not be read or fetched (the others are still audited), or a usage error";

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// robots.txt files to audit; `-` reads standard input; an http(s) URL or origin: its
    /// robots.txt, fetched now.
    #[arg(value_name = "FILE|URL", required = true)]
    pub files: Vec<PathBuf>,
    /// Only crawlers of these purposes (repeatable): training, search, agent, other.
    #[arg(long, value_name = "PURPOSE", value_parser = parse_purpose)]
    pub purpose: Vec<crawlgate::audit::Purpose>,
    /// Only these crawlers of the catalogue (comma-separated or repeated; its names or their
    /// product tokens, in any case): `--crawler GPTBot,ClaudeBot`.
    #[arg(long, value_name = "NAME,…", value_delimiter = ',')]
    pub crawler: Vec<String>,
    /// A path (or URL) to audit besides `/` (repeatable).
    #[arg(long, value_name = "PATH")]
    pub path: Vec<String>,
    /// Paths to audit besides `/`, one per line (blank lines and `#` lines skipped).
    #[arg(long, value_name = "FILE")]
    pub paths: Option<PathBuf>,
    /// A crawler catalogue of the shape of ai.robots.txt's `robots.json`, instead of the
    /// built-in copy.
    #[arg(long, value_name = "FILE")]
    pub catalogue: Option<PathBuf>,
    /// Print the groups to add to block crawlers of a purpose (`block=training`), merged with
    /// the file's groups, instead of the table.
    #[arg(long, value_name = "block=PURPOSE", value_parser = parse_suggest, conflicts_with = "json")]
    pub suggest: Option<crawlgate::audit::Purpose>,
    /// Print JSON Lines: the problems, an `audit` record per crawler, then a summary record.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Parsing mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    pub mode: ModeArg,
    #[command(flatten)]
    pub http: HttpArgs,
}

fn parse_purpose(s: &str) -> Result<crawlgate::audit::Purpose, String> {
    crawlgate::audit::Purpose::from_name(s)
        .ok_or_else(|| format!("`{s}` is not a purpose: training, search, agent or other"))
}

fn parse_suggest(s: &str) -> Result<crawlgate::audit::Purpose, String> {
    match s.split_once('=') {
        Some(("block", p)) => parse_purpose(p),
        _ => Err(format!("`{s}`: expected block=PURPOSE (block=training)")),
    }
}

pub const TEST_AFTER_HELP: &str = "\
The expectations file, one expectation a line (blank lines and `#` lines skipped):

  Googlebot: allowed /
  Googlebot: disallowed /admin/ /cart?step=2
  training crawlers: disallowed /
  mode: google
  Googlebot: allowed /index.html

`WHO: VERDICT TARGET…`: WHO a product token, or `PURPOSE crawlers` (training, search, agent or
other: every crawler of that purpose in the catalogue, ai.robots.txt's built in or
--catalogue FILE); VERDICT `allowed` or `disallowed`; each TARGET a path or a URL, as `check
--robots` takes them. `mode: rfc` or `mode: google` sets the mode of the lines below it
(--mode: of those above the first). A site's URL tests its live robots.txt, fetched now (a 4xx:
no robots.txt, everything allowed); a URL target must then be on that site.

Output: per expectation `ok<TAB>FILE:LINE<TAB>EXPECTATION<TAB>WHY` or `FAIL<TAB>…`, WHY the
deciding line (`disallowed by line 4: Disallow: /admin/`; a purpose line that holds for every
crawler is one `ok` line), then a summary. --json: an {\"type\":\"expectation\",…} record
each, then a summary. --junit FILE: JUnit XML, a testcase per expectation (per crawler of a
purpose line), as GitHub, GitLab and Jenkins read it.

Exit status:
  0  every expectation holds
  1  at least one does not
  2  a bad expectations line (each reported as FILE:LINE), the robots.txt could not be read or
     fetched, or a usage error";

#[derive(Debug, Args)]
pub struct TestArgs {
    /// The expectations file (see below); `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    pub expect: PathBuf,
    /// The robots.txt to test; `-` reads standard input; an http(s) URL or origin: its
    /// robots.txt, fetched now.
    #[arg(value_name = "FILE|URL")]
    pub robots: PathBuf,
    /// Write the results as JUnit XML to FILE as well.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Print JSON Lines: an expectation record each, then a summary record.
    #[arg(long)]
    pub json: bool,
    /// The mode of the lines before the file's first `mode:` line.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    pub mode: ModeArg,
    /// A crawler catalogue of the shape of ai.robots.txt's `robots.json`, for the purpose lines,
    /// instead of the built-in copy.
    #[arg(long, value_name = "FILE")]
    pub catalogue: Option<PathBuf>,
    #[command(flatten)]
    pub http: HttpArgs,
}

pub const DIFF_AFTER_HELP: &str = "\
Compares two robots.txt files as crawlers read them, not as text: for each URL (arguments and
--urls FILE) and each --agent, and for every crawler of the catalogue at `/`, the verdict under
DEPLOYED and under CANDIDATE. DEPLOYED may be a site's URL: its live robots.txt, fetched now (a
4xx: no robots.txt, everything allowed).

Output: per verdict that changes, `AGENT<TAB>URL<TAB>BEFORE -> AFTER<TAB>WAS<TAB>NOW`, WAS and NOW
the deciding lines (`line 4: Disallow: /admin/`, or `no rule matched`); catalogued crawlers as
`NAME (PURPOSE)`. Then a summary. --json: a {\"type\":\"flip\",…} record per change, then a
summary.

Exit status:
  0  no verdict changes
  1  at least one verdict changes
  2  a file could not be read or fetched, a URL that is neither a URL nor a path, or a usage
     error";

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The robots.txt in force: a file, or an http(s) URL or origin (its robots.txt, fetched
    /// now).
    #[arg(value_name = "DEPLOYED")]
    pub deployed: PathBuf,
    /// The new robots.txt: a file; `-` reads standard input.
    #[arg(value_name = "CANDIDATE")]
    pub candidate: PathBuf,
    /// URLs (or paths starting with `/`) to compare for each --agent.
    #[arg(value_name = "URL")]
    pub url: Vec<String>,
    /// Read URLs from FILE, one per line (blank lines and `#` lines skipped).
    #[arg(long = "urls", value_name = "FILE")]
    pub urls: Option<PathBuf>,
    /// The crawlers the URLs are compared for (comma-separated or repeated).
    #[arg(long, value_name = "TOKEN,…", value_delimiter = ',')]
    pub agent: Vec<String>,
    /// Print JSON Lines: a flip record per verdict that changes, then a summary record.
    #[arg(long)]
    pub json: bool,
    /// Parsing mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    pub mode: ModeArg,
    /// A crawler catalogue of the shape of ai.robots.txt's `robots.json`, instead of the
    /// built-in copy.
    #[arg(long, value_name = "FILE")]
    pub catalogue: Option<PathBuf>,
    #[command(flatten)]
    pub http: HttpArgs,
}

#[cfg(feature = "batch")]
const BATCH_AFTER_HELP: &str = "\
Inputs, told apart by name, else by their first bytes (or say which with --input-format):
  .warc, .warc.gz    response records (request, metadata and other records skipped)
  .jsonl, .ndjson    one object a line: url, status, body (base64) or body_text, and
                     optionally fetch_time, content_type, location
  .parquet, .arrow   the same columns (body binary or text)
  a directory        its files, each a robots.txt fetched with status 200 (--url-template)
  any other file     a robots.txt fetched with status 200

Writes DIR/captures.*, DIR/agents.* and, with --rules, DIR/rules.* (docs/batch.md: every column);
with --part-rows, directories of parts: DIR/captures/part-00000.*, DIR/agents/part-00000.*, …

Exit status:
  0  every input read (whatever the files' lint problems)
  1  some input could not be read: each stretch is a `captures` row of class `unreadable`
  2  a usage error, or the output could not be written";

#[cfg(feature = "batch")]
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// Inputs: WARC or WARC.gz files, JSON Lines, Parquet or Arrow IPC rows, plain robots.txt
    /// files, or directories of them.
    #[arg(value_name = "INPUT", required_unless_present = "files_from")]
    pub inputs: Vec<PathBuf>,
    /// Also the inputs named in FILE, one per line (`-`: standard input).
    #[arg(long, value_name = "FILE")]
    pub files_from: Option<PathBuf>,
    /// How to read every input (by default: by its name, else its first bytes).
    #[arg(long, value_enum, default_value_t = BatchInput::Auto)]
    pub input_format: BatchInput,
    /// The URL of a plain file: `{name}` stands for its file name.
    #[arg(
        long,
        value_name = "TEMPLATE",
        default_value = "https://{name}/robots.txt"
    )]
    pub url_template: String,
    /// The directory to write the tables into (made if missing).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: PathBuf,
    /// The tables' format.
    #[arg(long, value_enum, default_value_t = BatchFormat::Parquet)]
    pub format: BatchFormat,
    /// Only these crawlers of the catalogue (comma-separated or repeated; its names or their
    /// product tokens, in any case), as for `audit`: `--crawler GPTBot,ClaudeBot`.
    #[arg(long, value_name = "NAME,…", value_delimiter = ',')]
    pub crawler: Vec<String>,
    /// Only crawlers of these purposes (repeatable): training, search, agent, other.
    #[arg(long, value_name = "PURPOSE", value_parser = parse_purpose)]
    pub purpose: Vec<crawlgate::audit::Purpose>,
    /// A path to audit besides `/` (repeatable): one more `agents` row per crawler each.
    #[arg(long, value_name = "PATH")]
    pub path: Vec<String>,
    /// A crawler catalogue of the shape of ai.robots.txt's `robots.json`, instead of the
    /// built-in copy.
    #[arg(long, value_name = "FILE")]
    pub catalogue: Option<PathBuf>,
    /// Also write the `rules` table: one row per rule.
    #[arg(long)]
    pub rules: bool,
    /// Parsing mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    pub mode: ModeArg,
    /// Threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Rows buffered per thread before they are written (memory stays bounded by it).
    #[arg(long, default_value_t = 16_384, value_parser = clap::value_parser!(u32).range(1..))]
    pub chunk_rows: u32,
    /// Write each table as a directory of parts, a part closed once it holds N captures rows
    /// (part K of `agents` and `rules` holds the rows of part K's captures): memory then stays
    /// flat however many captures go through. Earlier parts in those directories are removed.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub part_rows: Option<u32>,
}

/// How `crawlgate batch` reads an input.
#[cfg(feature = "batch")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BatchInput {
    /// By the name, else the first bytes.
    Auto,
    /// WARC or WARC.gz.
    Warc,
    /// JSON Lines rows.
    Jsonl,
    /// Parquet rows.
    Parquet,
    /// Arrow IPC file rows.
    Arrow,
    /// A plain robots.txt file (status 200).
    File,
}

/// The format of `crawlgate batch`'s tables.
#[cfg(feature = "batch")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BatchFormat {
    /// Apache Parquet (snappy).
    Parquet,
    /// JSON Lines, a `type` in each record.
    Jsonl,
    /// CSV with a header row; lists as JSON arrays.
    Csv,
}

#[derive(Debug, Args)]
pub struct LintArgs {
    /// robots.txt files to lint; `-` reads standard input; an http(s) URL or origin: its
    /// robots.txt, fetched now.
    #[arg(value_name = "FILE|URL", required = true)]
    pub files: Vec<PathBuf>,
    /// Print JSON Lines: one record per problem, then a summary record.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Parsing mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    pub mode: ModeArg,
    /// Show at most N problems of one code per file (the others are counted, in a `… more`
    /// line and the summary); 0 shows all.
    #[arg(long, value_name = "N")]
    pub max_problems: Option<usize>,
    #[command(flatten)]
    pub http: HttpArgs,
}

#[derive(Debug, Args)]
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
pub struct ExplainArgs {
    #[command(flatten)]
    pub crawlers: AgentArgs,
    /// The robots.txt file to explain; `-` reads standard input. Without it, the robots.txt of
    /// the first URL's origin, from the crawl state (fetched when due).
    #[arg(long, value_name = "FILE")]
    pub robots: Option<PathBuf>,
    /// Matching mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    pub mode: ModeArg,
    /// Print JSON Lines: an explain record per agent, each followed by a check record per
    /// URL, then a summary record.
    #[arg(long)]
    pub json: bool,
    /// With --robots, URLs (or paths such as `/a?b`) to check. Without it, the origin (or a
    /// URL of it) first, then URLs of that origin or paths.
    #[arg(value_name = "URL", required_unless_present = "robots")]
    pub urls: Vec<String>,
    /// Fetch the page of each URL robots.txt disallows for the agent and flag the noindex
    /// no crawler sees (`noindex-unseen`: the URL can still be indexed from links to it).
    #[arg(long, conflicts_with = "robots")]
    pub pages: bool,
    #[command(flatten)]
    pub http: HttpArgs,
    #[command(flatten)]
    pub state: StateArgs,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub crawlers: AgentArgs,
    /// The robots.txt file to check against; `-` reads standard input. Without it, each URL's
    /// robots.txt is fetched (once per origin).
    #[arg(long, value_name = "FILE")]
    pub robots: Option<PathBuf>,
    #[command(flatten)]
    pub http: HttpArgs,
    /// Matching mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    pub mode: ModeArg,
    /// Read URLs from FILE, one per line (blank lines and `#` lines skipped); `-` reads
    /// standard input.
    #[arg(long, value_name = "FILE")]
    pub urls: Option<PathBuf>,
    /// Print JSON Lines: one record per URL, then a summary record.
    #[arg(long)]
    pub json: bool,
    /// URLs (or paths such as `/a?b`) to check.
    #[arg(value_name = "URL")]
    pub url: Vec<String>,
    /// Also say what TDMRep's `/.well-known/tdmrep.json` reserves for each URL (text and data
    /// mining rights: reserved, not-reserved, unset or unknown, with the TDM policy).
    #[arg(long, conflicts_with = "robots")]
    pub tdm: bool,
    /// The most origins fetched at once (without --robots); answers stay in the order given.
    #[arg(
        long,
        value_name = "N",
        default_value_t = DEFAULT_CONCURRENCY,
        value_parser = concurrency_value(),
        conflicts_with = "robots"
    )]
    pub concurrency: usize,
    #[command(flatten)]
    pub state: StateArgs,
}

/// `--agent` and `--agents` of `check` and `explain`: declared once, so that both commands read
/// the crawlers alike. The help is `check`'s; `explain` words it for sections (see
/// [`explain_agent_help`]). They exclude each other: `main` enforces that, so that a
/// `CRAWLGATE_AGENT` in the environment gives way to `--agents` instead of clashing with it.
#[derive(Debug, Args)]
pub struct AgentArgs {
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
    pub agent: Vec<String>,
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
    pub agents: Vec<String>,
}

/// `explain`'s help for `--agent` (its answers are sections, not lines).
const EXPLAIN_AGENT_HELP: &str = "The crawler's product token or its own User-Agent header, \
read as by `check`; with --mode google, any string. Repeat it for several crawlers: one section \
per agent";

/// `explain`'s help for `--agents`.
const EXPLAIN_AGENTS_HELP: &str = "One crawler that obeys several product tokens, most specific \
first (`googlebot-image,googlebot`): one section, for the group of the first token that has one \
of its own (else `*`). Instead of --agent";

/// `explain`'s words for the flattened [`AgentArgs`], changed in place (`mut_arg` would move
/// the arguments to the end, and the completion scripts list arguments in that order).
fn explain_agent_help(arg: clap::Arg) -> clap::Arg {
    match arg.get_id().as_str() {
        "agent" => arg.help(EXPLAIN_AGENT_HELP),
        "agents" => arg.help(EXPLAIN_AGENTS_HELP),
        _ => agent_user_agent_help(arg),
    }
}

/// The words for the flattened [`HttpArgs`]' `--user-agent` of the commands that send the
/// crawler's own name (`check`, `explain`, `page`, `policy`, `report`, `mcp`): each `--help`
/// says what its own command sends.
fn agent_user_agent_help(arg: clap::Arg) -> clap::Arg {
    match arg.get_id().as_str() {
        "user_agent" => {
            arg.help("The User-Agent header to send (default: the first --agent value, as given)")
        }
        _ => arg,
    }
}

/// Origins fetched at once unless `--concurrency` says otherwise: enough that a few dead hosts
/// (each waiting out `--timeout`) do not hold the others up, few enough to be polite.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// `--concurrency`: at least 1 (1 fetches one origin after another); 0 is a usage error.
pub fn concurrency_value() -> impl clap::builder::TypedValueParser<Value = usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024)
}

/// `--concurrency N` of the commands that fetch origin after origin.
#[derive(Debug, Args)]
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
pub struct ConcurrencyArg {
    /// The most origins fetched at once; output stays in the order given (1: one after
    /// another).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CONCURRENCY, value_parser = concurrency_value())]
    pub concurrency: usize,
}

/// Where the commands that fetch robots.txt through the engine keep the crawl state.
#[derive(Debug, Args)]
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
pub struct StateArgs {
    /// The crawl state: a state file (created if missing), a Redis server
    /// (`redis://HOST[:PORT][/DB]`) or a Redis Cluster (`redis+cluster://HOST:PORT[,HOST:PORT…]`);
    /// also from CRAWLGATE_STATE. Default:
    /// $XDG_STATE_HOME/crawlgate/state.redb, else ~/.local/state/crawlgate/state.redb.
    // CRAWLGATE_STATE is read by `state::open`, not by clap, so that --no-state overrides it
    // while still conflicting with an explicit --state.
    #[arg(long, value_name = "PATH|URL")]
    pub state: Option<PathBuf>,
    /// Keep no state: nothing is read or recorded, robots.txt is fetched as if for the first
    /// time.
    #[arg(long, conflicts_with = "state")]
    pub no_state: bool,
}

/// How robots.txt is fetched over HTTP.
#[derive(Debug, Args)]
pub struct HttpArgs {
    /// Seconds a fetch may take, redirects and body included.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,
    /// The User-Agent header to send (default: `crawlgate/VERSION`).
    #[arg(long, value_name = "HEADER")]
    pub user_agent: Option<String>,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// URLs whose origins' robots.txt to fetch (each origin once).
    #[arg(value_name = "URL", required_unless_present = "urls_file")]
    pub urls: Vec<String>,
    /// Read URLs from FILE, one per line (blank lines and `#` lines skipped); `-` reads
    /// standard input.
    #[arg(long = "urls", value_name = "FILE")]
    pub urls_file: Option<PathBuf>,
    #[command(flatten)]
    pub concurrency: ConcurrencyArg,
    /// Print JSON Lines: one record per origin, then a summary record.
    #[arg(long)]
    pub json: bool,
    /// Parsing mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    pub mode: ModeArg,
    #[command(flatten)]
    pub http: HttpArgs,
    #[command(flatten)]
    pub state: StateArgs,
}

#[derive(Debug, Args)]
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
pub struct HistoryArgs {
    /// URLs whose origins' history to show (each origin once).
    #[arg(value_name = "URL", required = true)]
    pub urls: Vec<String>,
    /// Print JSON Lines: one record per version and one per origin, then a summary record.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub state: StateArgs,
}

#[derive(Debug, Args)]
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
pub struct ReportArgs {
    /// Hosts (`example.com`: its http:// and https:// robots.txt, as Search Console checks a
    /// domain), origins or URLs. None: every origin recorded in the state.
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,
    /// A crawler whose verdicts the report shows (product token or its User-Agent header);
    /// repeat it for several. The first is the User-Agent header sent unless --user-agent.
    #[arg(long, value_name = "TOKEN", allow_hyphen_values = true)]
    pub agent: Vec<String>,
    /// URLs (one per line; `/paths` apply to every origin) whose verdicts the report follows
    /// across versions, compares between RFC 9309 and Google and shows per agent.
    #[arg(long, value_name = "FILE")]
    pub urls: Option<PathBuf>,
    /// Also follow up to N URLs of each site's own sitemaps (those its robots.txt in force
    /// announces, and one index level down; fetched now, not with --offline).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub sitemap_urls: usize,
    /// Fetch the pages of up to N of the URLs followed that robots.txt disallows for an agent
    /// (a few at a time) and flag those whose page says noindex, which no crawler that obeys
    /// robots.txt sees (`noindex-unseen`). Not with --offline.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub pages: usize,
    /// Render from the state without fetching (by default every robots.txt is fetched now,
    /// and the fetch recorded in the state).
    #[arg(long)]
    pub offline: bool,
    /// Also write the report as one self-contained HTML page to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Print JSON Lines: one record per robots.txt, then a summary record.
    #[arg(long)]
    pub json: bool,
    /// Mode the verdicts and problems are worked out in (the other one is compared with it).
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    pub mode: ModeArg,
    #[command(flatten)]
    pub concurrency: ConcurrencyArg,
    #[command(flatten)]
    pub http: HttpArgs,
    #[command(flatten)]
    pub state: StateArgs,
}

#[derive(Debug, Args)]
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
pub struct RecrawlArgs {
    /// URLs whose origins' robots.txt to fetch again (each origin once).
    #[arg(value_name = "URL", required = true)]
    pub urls: Vec<String>,
    #[command(flatten)]
    pub concurrency: ConcurrencyArg,
    /// Print JSON Lines: one record per origin, then a summary record.
    #[arg(long)]
    pub json: bool,
    /// Parsing mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    pub mode: ModeArg,
    #[command(flatten)]
    pub http: HttpArgs,
    #[command(flatten)]
    pub state: StateArgs,
}

#[cfg_attr(not(feature = "mcp"), allow(dead_code))]
pub const MCP_AFTER_HELP: &str = "\
Register it in an MCP client as the command `crawlgate mcp --agent TOKEN` (see docs/mcp.md).
Tools: check_url {url, agent?, mode?} (allowed, disallowed or unreachable, with the deciding
rule, the reason and the crawl-delay), explain_robots {url, agent?, mode?} (the group that
applies, its rules, the sitemaps and the file's problems) and robots_report {url} (the report
record of `report --json`). Each answers with a JSON object (the `--json` records' fields) and
a short text. A bad URL, a refused address or an unreachable robots.txt is a tool error.

Standard output carries the protocol only; warnings go to standard error. The tools fetch
robots.txt only, through the crawl state, and never from loopback, private or link-local
addresses unless --allow-private.

Exit status:
  0  the client closed the connection
  2  the state cannot be opened, the protocol failed, or a usage error";

/// `crawlgate mcp`.
#[derive(Debug, Args)]
#[cfg_attr(not(feature = "mcp"), allow(dead_code))]
pub struct McpArgs {
    /// The agent whose answers a call that names none gets: the product token the AI agent
    /// declares (`ExampleAgent`) or its User-Agent header. Without it, every `check_url` and
    /// `explain_robots` call must give `agent`. Also the User-Agent header sent, unless
    /// --user-agent.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "CRAWLGATE_AGENT",
        allow_hyphen_values = true
    )]
    pub agent: Option<String>,
    /// The matching mode of a call that names none.
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    pub mode: ModeArg,
    /// Also fetch robots.txt from loopback, private, link-local and other non-public addresses
    /// (refused by default: the URLs come from a model).
    #[arg(long)]
    pub allow_private: bool,
    #[command(flatten)]
    pub http: HttpArgs,
    #[command(flatten)]
    pub state: StateArgs,
}

pub const SERVE_AFTER_HELP: &str = "\
Routes: POST /v1/check, /v1/acquire, /v1/record, /v1/recrawl; GET /v1/robots?url=URL,
/healthz, /readyz, /metrics (Prometheus text), /openapi.json. Errors are JSON:
{\"error\":{\"code\":…,\"message\":…,\"field\":…}}. See docs/serve.md.

Only the robots.txt of http(s) origins is fetched; loopback, private and link-local targets are
refused unless --allow-private. With --token-file, every route but /healthz and /readyz needs
`Authorization: Bearer TOKEN`. SIGTERM or Ctrl-C: stop accepting, finish the requests in
flight, flush the state, exit 0.";

/// `crawlgate serve`.
#[derive(Debug, Args)]
#[cfg_attr(not(feature = "serve"), allow(dead_code))]
pub struct ServeArgs {
    /// The address to listen on (never all interfaces unless given).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8477")]
    pub listen: std::net::SocketAddr,
    /// Bearer tokens, one per line (blank lines and `#` lines skipped): without one, requests
    /// get a 401. Without --token-file, no token is asked for.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Fetch robots.txt from loopback, private and link-local addresses too (a service on a
    /// trusted network; tests).
    #[arg(long)]
    pub allow_private: bool,
    /// The most URLs in one /v1/check request.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_urls: usize,
    /// The largest request body, in bytes (larger: 413).
    #[arg(long, value_name = "BYTES", default_value_t = 2 * 1024 * 1024)]
    pub max_body: usize,
    /// Requests handled at once (more wait for a place).
    #[arg(long, value_name = "N", default_value_t = 512)]
    pub max_in_flight: usize,
    /// Seconds a request may take, robots.txt fetches and long-polls included (longer: 503).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub request_timeout: f64,
    /// Seconds to read a request body (longer: 408); read before the request takes a place
    /// among --max-in-flight.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub body_timeout: f64,
    /// Seconds to read an HTTP/1 request's headers once its first byte came (longer: the
    /// connection is closed).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub header_timeout: f64,
    /// Seconds a connection may stay open with no request in flight (longer: closed).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub idle_timeout: f64,
    /// Connections open at once (more wait to be accepted); lowered to what the open-file
    /// limit leaves.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub max_connections: usize,
    /// A host name the service answers to besides loopback ones (a proxy in front; may be
    /// repeated). On a loopback listen address, or with this option, a request whose `Host`
    /// is not loopback nor one of these gets a 403.
    #[arg(long, value_name = "HOST")]
    pub allow_host: Vec<String>,
    /// The longest /v1/acquire long-poll (`"wait": true`), in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub max_wait: f64,
    /// Long-polls (`/v1/acquire` with `"wait": true`) that wait at once: a waiting one gives
    /// its --max-in-flight place back and holds one of these; past the bound, an acquire is
    /// answered at once (`permit: false` and when to come back).
    #[arg(long, value_name = "N", default_value_t = 4096)]
    pub max_waiting: usize,
    /// How far ahead /v1/acquire books a slot, in seconds, behind the earliest the politeness
    /// key allows (now, the end of a backoff, the opening of a `Visit-time` window): past it
    /// nothing is booked and the answer says when to come back (`later: "ahead"`).
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    pub book_ahead: f64,
    /// Slots one agent may hold pending on one politeness key (/v1/acquire): past it nothing
    /// is booked for the agent there until one is used or expires (`later: "agent-full"`).
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub max_pending_per_agent: u32,
    /// At shutdown, how long to keep retrying the changes the state store has not taken
    /// (a store that is down or full), in seconds; what is still not written then is reported
    /// lost.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub shutdown_grace: f64,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Matching mode of the service (a request may name it, and must name this one).
    #[arg(long, value_enum, default_value_t = ModeArg::Rfc)]
    pub mode: ModeArg,
    /// How many origins' compiled rules are kept in memory (the least recently used go
    /// first; their states stay in the store).
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_origins: u64,
    /// Which requests /v1/acquire spaces and backs off as one: `origin` (scheme, host and
    /// port, as robots.txt), `host`, `domain` (the registrable domain) or `ip` (the server's
    /// address: several host names on one server share one schedule).
    #[arg(long, value_enum, value_name = "KEY", default_value_t = PolitenessKeyArg::Origin)]
    pub politeness_key: PolitenessKeyArg,
    #[command(flatten)]
    pub http: HttpArgs,
    #[command(flatten)]
    pub state: StateArgs,
}

/// What one politeness schedule is kept under (the engine's `KeyKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PolitenessKeyArg {
    /// Scheme, host and port.
    Origin,
    /// The host name, whatever the scheme and port.
    Host,
    /// The registrable domain (by the Public Suffix List).
    Domain,
    /// The server's IP address (IPv6: its /64).
    Ip,
}

#[derive(Debug, Args)]
pub struct UrlArgs {
    /// Absolute http or https URLs.
    #[arg(value_name = "URL", required = true)]
    pub urls: Vec<String>,
    /// Print JSON Lines: one record per URL, then a summary record.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// URLs to answer.
    #[arg(value_name = "URL", required = true)]
    pub urls: Vec<String>,
    /// The crawler whose policy it is (its product token).
    #[arg(
        long,
        value_name = "TOKEN",
        env = "CRAWLGATE_AGENT",
        default_value = "Googlebot"
    )]
    pub agent: String,
    /// Do not fetch the pages: robots.txt, the edge and TDMRep's file only.
    #[arg(long)]
    pub no_page: bool,
    /// Print JSON Lines: one record per URL, then a summary record.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub http: HttpArgs,
}

#[derive(Debug, Args)]
pub struct PageArgs {
    /// Pages to fetch (each once).
    #[arg(
        value_name = "URL",
        required_unless_present = "html",
        conflicts_with = "html"
    )]
    pub urls: Vec<String>,
    /// Read a local HTML file instead of fetching (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// A response header to read with --html, as `Name: value` (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "html")]
    pub headers: Vec<String>,
    /// The crawler whose directives apply (its product token).
    #[arg(
        long,
        value_name = "TOKEN",
        env = "CRAWLGATE_AGENT",
        default_value = "Googlebot"
    )]
    pub agent: String,
    /// Print JSON Lines: one record per page, then a summary record.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub http: HttpArgs,
}
