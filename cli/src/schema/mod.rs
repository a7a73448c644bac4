//! The JSON every command prints with `--json`: JSON Lines, one [`Record`] per line, its
//! `"type"` first and then its fields in the order they are declared here (serde keeps a
//! struct's order, where `serde_json`'s maps would sort keys). The README's "JSON output"
//! section documents each record; `cli/tests/it/cli_snapshots.rs` pins them byte for byte.
//!
//! One vocabulary across commands, so that a reader written for one command reads the others:
//! `robots_txt` is always where the rules came from (a robots.txt URL, or the `--robots` input
//! as named), `verdict` always the origin's verdict word (`rules`, `allow-all`,
//! `disallow-all`), `reason` always the machine word for why and `reason_text` the sentence,
//! and a problem always has the [`Problem`] shape, on its own line or nested in a sitemap.
//! Every command ends with one [`Summary`], so a consumer can tell a clean run from a cut one.
// Without the `fetch` feature the records of the fetching commands are never built.
#![cfg_attr(not(feature = "fetch"), allow(dead_code))]

#[cfg(feature = "fetch")]
pub mod report;

use crawlgate::sitemap;
use serde::Serialize;

/// One line of `--json` output.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Record<'a> {
    /// A diagnostic of a robots.txt (`lint`) or a sitemap (`sitemap lint`).
    Problem(Problem<'a>),
    /// Why the answers from a `--robots` file may not mean what its author meant: cut, not
    /// text, or empty (`check`, `explain`), before the answers.
    Warning(Warning<'a>),
    /// One URL answered (`check`, `explain`).
    Check(Check<'a>),
    /// One input URL that could not be checked, in its place among the answers (`check`).
    Error(InputError<'a>),
    /// What applies to one agent under a robots.txt (`explain`).
    Explain(Explain<'a>),
    /// A robots.txt fetched to be linted (`lint URL`, `audit URL`).
    LintFetch(LintFetch<'a>),
    /// One crawler's standing in a robots.txt (`audit`).
    Audit(Audit<'a>),
    /// One expected verdict and whether it holds (`test`).
    Expectation(Expectation<'a>),
    /// One verdict that a new robots.txt changes (`diff`).
    Flip(Flip<'a>),
    /// One URL's robots.txt URL (`url`).
    RobotsTxtUrl(RobotsTxtUrl<'a>),
    /// One origin fetched now (`fetch`, `recrawl`).
    Fetch(Fetch),
    /// One recorded version of an origin's robots.txt (`history`).
    Version(Version),
    /// An origin's verdict from the state, after its versions (`history`).
    Origin(Origin),
    /// One sitemap entry with everything read (`sitemap urls`).
    Entry(Entry<'a>),
    /// The robots.txt a discovery started from (`sitemap discover`).
    RobotsTxt(RobotsTxt<'a>),
    /// One sitemap discovered, with its problems (`sitemap discover`).
    Sitemap(Sitemap<'a>),
    /// One page's directives for an agent (`page`).
    Page(Page<'a>),
    /// One URL's whole crawl policy for an agent (`policy`): the library's record.
    #[cfg(feature = "fetch")]
    Policy(&'a crawlgate::engine::CrawlPolicy),
    /// One robots.txt's report (`report`).
    #[cfg(feature = "fetch")]
    Report(&'a report::RobotsReport),
    /// The last line of every command.
    Summary(Summary),
}

/// A problem, with the same fields for robots.txt files and sitemaps.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Problem<'a> {
    /// The input as named: a path, a URL, or `<stdin>`.
    pub path: &'a str,
    pub line: u32,
    /// In characters, from 1.
    pub column: u64,
    /// `error` or `warning`.
    pub severity: &'static str,
    /// The stable kebab-case code.
    pub code: &'static str,
    pub message: &'a str,
}

/// `check`: the same shape with `--robots` and without.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Check<'a> {
    pub url: &'a str,
    /// The URL as an HTTP client spells and requests it, when that is not `url` (TAB, LF or CR
    /// removed, `\` read as `/`, dot segments resolved): its path is the one judged. `null`
    /// when they agree.
    pub judged_url: Option<String>,
    /// The product token matched against `user-agent` lines (`--agent` read as a token; with
    /// `--agents`, the token whose groups applied).
    pub agent: &'a str,
    pub allowed: bool,
    /// `rule`, `no-matching-rule`, `no-group`, `robots-txt` (the path is `/robots.txt`,
    /// always allowed) or `policy` (the verdict is not `rules`: the failure rules decided).
    pub decided_by: &'static str,
    /// The deciding rule's line and text, when a rule decided.
    pub line: Option<u32>,
    pub rule: Option<String>,
    /// `token`, `star` or `none` when rules were matched; `null` when the verdict decided.
    pub group: Option<&'static str>,
    pub robots_txt: &'a str,
    pub verdict: &'static str,
    pub reason: &'static str,
    pub reason_text: String,
    /// The tokens of the crawler asking, most specific first: `--agents`' tokens, or the one
    /// `--agent`. `agent` is the one whose groups applied (the first when none named did).
    pub agents: Vec<&'a str>,
    /// The `Crawl-delay` of the groups that applied (as `explain` gives it); `null` when they
    /// have none or the verdict is not `rules`.
    pub crawl_delay: Option<CrawlDelay>,
    /// Their `Request-rate`; `null` likewise.
    pub request_rate: Option<RequestRate>,
    /// The usage preferences in force (`Content-Usage`); `null` when the URL is disallowed
    /// (they apply only to crawlable URLs), the verdict is not `rules`, or no rule matches.
    pub usage: Option<UsageRecord>,
    /// With `--tdm`: what TDMRep's `tdmrep.json` says about the URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tdm: Option<Tdm>,
    /// With `explain --pages`: how the URL's policy parts combine badly (`noindex-unseen`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<UrlWarning>,
}

/// A warning about a URL for an agent, with the code `crawlgate policy` gives it:
/// `noindex-unseen` (robots.txt disallows the URL and its page says `noindex`, which no
/// crawler that obeys robots.txt ever sees).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct UrlWarning {
    /// The agent it is about, as given.
    pub agent: String,
    /// `noindex-unseen`.
    pub code: &'static str,
    /// What it means, in words.
    pub message: &'static str,
    /// The page's directives behind it, as written, with where each is
    /// (`noindex (header x-robots-tag #0 @0)`, `noindex (meta robots line 4)`): the site's
    /// words, to be escaped when shown.
    pub sources: Vec<String>,
}

/// `check --tdm`: the URL's TDMRep reservation from the origin's `/.well-known/tdmrep.json`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Tdm {
    /// `reserved`, `not-reserved`, `unset` (no file, or no rule matches) or `unknown` (the
    /// file could not be read: treat as reserved).
    pub reservation: &'static str,
    /// The TDM policy's URL, when reserved and given.
    pub policy: Option<String>,
    /// The deciding rule's number (1-based, in the file's array) and `location`.
    pub rule: Option<usize>,
    pub location: Option<String>,
    /// The file's URL.
    pub file: String,
    /// Where the answer comes from (the failure ladder's reason, as `reason`).
    pub reason: &'static str,
}

impl Check<'_> {
    /// Disallowed because the robots.txt could not be read: the failure rules decided (the
    /// verdict is `disallow-all`), not the site's rules or its 4xx.
    pub fn unreachable(&self) -> bool {
        !self.allowed && self.decided_by == "policy" && self.verdict == "disallow-all"
    }

    /// The answer's first word on a human line: `allowed`, `disallowed` (by the site's rules),
    /// or `unreachable` (disallowed because the robots.txt could not be read).
    pub fn word(&self) -> &'static str {
        if self.allowed {
            "allowed"
        } else if self.unreachable() {
            "unreachable"
        } else {
            "disallowed"
        }
    }
}

/// The usage preferences in force at a URL, and the `Content-Usage` rules they come from.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct UsageRecord {
    pub preferences: UsagePrefs,
    /// The matching rules of the longest path (several when they tie), in file order.
    pub rules: Vec<UsageRule>,
}

/// One preference per category of the AI-preferences vocabulary, keyed by its label:
/// `allowed`, `disallowed` or `unknown`.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct UsagePrefs {
    #[serde(rename = "train-ai")]
    pub train_ai: &'static str,
    pub search: &'static str,
}

impl From<crawlgate::UsagePreferences> for UsagePrefs {
    fn from(p: crawlgate::UsagePreferences) -> UsagePrefs {
        UsagePrefs {
            train_ai: p.train_ai.as_str(),
            search: p.search.as_str(),
        }
    }
}

/// A `Content-Usage` rule.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct UsageRule {
    pub line: u32,
    /// The path as written; `null` when the rule has none (it covers every path).
    pub path: Option<String>,
    /// The statement of preference as written.
    pub statement: String,
    /// The line as written (comment removed, trimmed).
    pub rule: String,
    /// What the statement says.
    pub preferences: UsagePrefs,
}

/// The `Content-Signal` lines of an agent's groups, and their signals combined.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct ContentSignals {
    /// `search`, `ai-input`, `ai-train`: `allowed`, `disallowed` or `unknown`.
    pub signals: SignalPrefs,
    pub lines: Vec<SignalLine>,
}

/// Cloudflare's three content signals.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct SignalPrefs {
    pub search: &'static str,
    #[serde(rename = "ai-input")]
    pub ai_input: &'static str,
    #[serde(rename = "ai-train")]
    pub ai_train: &'static str,
}

impl From<crawlgate::ContentSignals> for SignalPrefs {
    fn from(s: crawlgate::ContentSignals) -> SignalPrefs {
        SignalPrefs {
            search: s.search.as_str(),
            ai_input: s.ai_input.as_str(),
            ai_train: s.ai_train.as_str(),
        }
    }
}

/// A `Content-Signal` line.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct SignalLine {
    pub line: u32,
    /// The line as written (comment removed, trimmed).
    pub rule: String,
    pub signals: SignalPrefs,
}

/// A `License` or `LLM-Policy` line: where the document is.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct PolicyLine {
    pub line: u32,
    pub url: String,
}

/// `explain`: what applies to one agent, before the `check` records of its URLs.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Explain<'a> {
    /// The product token matched against `user-agent` lines.
    pub agent: &'a str,
    pub robots_txt: &'a str,
    pub verdict: &'static str,
    pub reason: &'static str,
    pub reason_text: String,
    /// `token`, `star` or `none`; `null` when the verdict is not `rules`.
    pub group: Option<&'static str>,
    /// The `user-agent` lines that chose the group(s), in file order.
    pub user_agents: Vec<UserAgentLine>,
    /// The merged rules in the order they are tried: the first that matches decides.
    pub rules: Vec<ExplainRule>,
    pub crawl_delay: Option<CrawlDelay>,
    /// How the gate paces the agent's requests to the origin now (the delay in force and
    /// why, a backoff): only for a robots.txt read from the crawl state, not `--robots FILE`.
    #[cfg(feature = "fetch")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub politeness: Option<report::Politeness>,
    /// Every `Sitemap:` line of the file (they belong to no group).
    pub sitemaps: Vec<SitemapLine<'a>>,
    /// The tokens of the crawler asking, most specific first (see [`Check::agents`]).
    pub agents: Vec<&'a str>,
    /// The token whose groups applied (lowercase), `*`, or `null` (no group, or the verdict
    /// is not `rules`).
    pub matched_token: Option<&'a str>,
    /// The `Content-Usage` rules of the groups that applied, in file order.
    pub content_usage: Vec<UsageRule>,
    /// Their `Content-Signal` lines; `null` when they have none.
    pub content_signals: Option<ContentSignals>,
    /// The file's `License` lines (RSL 1.0; global, a signal, not a crawl permission).
    pub licenses: Vec<PolicyLine>,
    /// The file's `LLM-Policy` lines (global).
    pub llm_policies: Vec<PolicyLine>,
}

/// A `user-agent` line that chose a group.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct UserAgentLine {
    /// The line of the group's first `user-agent` line.
    pub group_line: u32,
    pub line: u32,
    /// The line as written (comment removed, trimmed); the product token read from it when
    /// the file's text is not at hand.
    pub text: String,
}

/// One rule of an agent, in precedence order.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct ExplainRule {
    pub line: u32,
    /// `allow` or `disallow`.
    pub kind: &'static str,
    /// The pattern as written (for Google's `/dir/index.html` rule, the `/dir/$` it adds).
    pub pattern: String,
    /// The rule as written, as `check` prints it.
    pub rule: String,
}

/// The crawl-delay that applies, and its line.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct CrawlDelay {
    pub seconds: f64,
    pub line: Option<u32>,
}

/// The request rate that applies (`Request-rate: 1/5s 0600-0845`), and its line.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct RequestRate {
    /// Requests…
    pub requests: u32,
    /// …per this many seconds.
    pub seconds: u64,
    /// When the rate applies, UTC (`HHMM-HHMM`); `null`: always.
    pub window: Option<String>,
    pub line: Option<u32>,
}

/// A `Sitemap:` line.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct SitemapLine<'a> {
    pub line: u32,
    pub url: &'a str,
}

/// `check --robots`, `explain --robots`, `test`, `diff`: the file was cut at the parser's
/// limit, is not text, is an HTML page, or is empty. Also on standard error.
#[derive(Debug, Serialize)]
pub struct Warning<'a> {
    pub robots_txt: &'a str,
    /// The parser's diagnostic code (`content-after-limit`, `nul-byte`, `invalid-utf8`,
    /// `html-body`), or `empty`.
    pub code: &'static str,
    /// The diagnostic's line; `null` for an empty file.
    pub line: Option<u32>,
    pub message: &'a str,
}

/// `check`: an input that could not be checked (not a URL, no robots.txt origin, a `--urls`
/// line that is not UTF-8), in input order. Also on standard error.
#[derive(Debug, Serialize)]
pub struct InputError<'a> {
    /// The input as given; `null` when it could not be read (a line that is not UTF-8).
    pub url: Option<&'a str>,
    /// The sentence printed on standard error.
    pub message: &'a str,
}

/// `lint URL`: the robots.txt fetched, before its problems.
#[derive(Debug, Serialize)]
pub struct LintFetch<'a> {
    /// The argument as given.
    pub url: &'a str,
    /// The robots.txt URL: the `path` of the problems that follow.
    pub robots_txt: &'a str,
    pub status: Option<u16>,
    /// `fetched`, `unavailable` (nothing to lint) or `unreachable` (reported on stderr).
    pub outcome: &'static str,
    pub cause: Option<String>,
    pub final_url: &'a str,
    pub redirects: u8,
}

/// `page`: the merged answer, then every directive that applies with its source, the problems
/// and the bytes of HTML scanned: the library's view of the page's directives
/// ([`crawlgate::page::Json`], with its problems), after the page's own fields.
#[derive(Debug, Serialize)]
pub struct Page<'a> {
    /// The URL as given, or the `--html` file as named.
    pub url: &'a str,
    /// The final URL after redirects, when fetched.
    pub final_url: Option<&'a str>,
    /// The final status, when fetched.
    pub status: Option<u16>,
    /// The product token the directives are read for.
    pub agent: &'a str,
    #[serde(flatten)]
    pub directives: crawlgate::page::Json<'a>,
}

/// `url`.
#[derive(Debug, Serialize)]
pub struct RobotsTxtUrl<'a> {
    pub url: &'a str,
    pub robots_txt: &'a str,
}

/// What a robots.txt file is, as a fetch and a history version both show it. A result that
/// is not a file (404, unreachable) has size 0, no problems and no digest.
#[derive(Debug, Default, Serialize)]
pub struct FileFacts {
    /// The file's size: read, or for a file cut at the limit the size the server declared
    /// (`null` when it declared none).
    pub size: Option<u64>,
    /// The bytes actually read (one past the limit for a cut file).
    pub bytes_read: u64,
    pub cut: bool,
    pub errors: u32,
    pub warnings: u32,
    /// The SHA-256 of the body, in hex.
    pub digest: Option<String>,
    /// The body was an HTML page, not a robots.txt (its content type or how it starts).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub html: bool,
}

/// `fetch` and `recrawl`: one origin's robots.txt fetched now.
#[derive(Debug, Serialize)]
pub struct Fetch {
    pub origin: String,
    pub robots_txt: String,
    pub status: Option<u16>,
    /// `fetched`, `not-modified`, `unavailable`, `unreachable`, `payment-required`,
    /// `local-failure`, `not-recorded`.
    pub outcome: &'static str,
    pub cause: Option<String>,
    pub final_url: Option<String>,
    pub redirects: u8,
    #[serde(flatten)]
    pub file: FileFacts,
    /// The codes of the file's problems, each once, in the order first found.
    pub codes: Vec<&'static str>,
    pub verdict: &'static str,
    pub reason: &'static str,
    pub reason_text: String,
    pub new_version: bool,
    pub next_due: Option<String>,
}

/// `history`: one version (a run of fetches with the same result).
#[derive(Debug, Serialize)]
pub struct Version {
    pub origin: String,
    pub robots_txt: String,
    pub first_at: String,
    pub last_at: String,
    pub count: u32,
    pub status: Option<u16>,
    pub outcome: &'static str,
    pub cause: Option<String>,
    pub final_url: String,
    pub redirects: u8,
    #[serde(flatten)]
    pub file: FileFacts,
    /// The verdict comes from this version.
    pub in_force: bool,
}

/// `history`: the origin's verdict now, after its versions.
#[derive(Debug, Serialize)]
pub struct Origin {
    pub origin: String,
    pub robots_txt: String,
    pub verdict: &'static str,
    pub reason: &'static str,
    pub reason_text: String,
    /// The digest of the file whose rules are in force (`null` unless the verdict is `rules`).
    pub digest: Option<String>,
    pub failing_since: Option<String>,
    pub next_due: Option<String>,
    pub dormant: bool,
}

/// `sitemap urls`: an entry with everything read.
#[derive(Debug, Serialize)]
pub struct Entry<'a> {
    pub path: &'a str,
    pub line: u32,
    pub column: u32,
    pub loc: &'a str,
    pub lastmod: Option<&'a str>,
    pub changefreq: Option<&'a str>,
    pub priority: Option<&'a str>,
    // The extensions as the library writes them (its `serde` feature): a field added there
    // is in this record too.
    pub images: &'a [sitemap::Image],
    pub videos: &'a [sitemap::Video],
    pub news: Option<&'a sitemap::News>,
    pub alternates: &'a [sitemap::Alternate],
}

/// `sitemap discover`: the robots.txt the walk started from.
#[derive(Debug, Serialize)]
pub struct RobotsTxt<'a> {
    pub robots_txt: &'a str,
    /// Where it was served from after redirects (the same URL when none): its sitemaps may
    /// list URLs of that host too.
    pub final_url: &'a str,
    pub redirects: u8,
    pub status: Option<u16>,
    pub outcome: &'static str,
    /// `Sitemap:` lines in it.
    pub announced: usize,
    /// Sitemaps not fetched (`--max-sitemaps`).
    pub skipped: usize,
}

/// `sitemap discover`: one sitemap, in walk order.
#[derive(Debug, Serialize)]
pub struct Sitemap<'a> {
    pub url: &'a str,
    /// The index that lists it; `null` when robots.txt announces it.
    pub parent: Option<&'a str>,
    pub depth: u8,
    pub format: Option<&'static str>,
    pub size: usize,
    pub entries: usize,
    pub errors: usize,
    pub warnings: usize,
    pub fetch_error: Option<&'a str>,
    pub problems: Vec<Problem<'a>>,
    /// Problems counted but not listed.
    pub omitted: usize,
}

/// The last record of every command. Only the counts that mean something for the command are
/// present (see the README); `exit` is the status the process returns.
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    /// The command: `lint`, `check`, `explain`, `url`, `fetch`, `history`, `recrawl`, `page`, `sitemap lint`,
    /// `sitemap urls`, `sitemap discover`.
    pub command: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sitemaps: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub urls: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origins: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<usize>,
    /// `audit`: crawler audits printed (one per crawler and file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawlers: Option<usize>,
    /// `audit`: of those, blocked from `/`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocked: Option<usize>,
    /// `audit`: of those, blocked from part of the site.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partly: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disallowed: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warnings: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<usize>,
    /// robots.txt files left out of a report: not found for over 30 days.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dormant: Option<usize>,
    /// Problems counted but not printed (`--max-problems`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omitted: Option<usize>,
    /// `test`: the expectations checked (one per crawler of a purpose line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expectations: Option<usize>,
    /// `test`: of those, the ones that hold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passed: Option<usize>,
    /// `test`: of those, the ones that do not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<usize>,
    /// `diff`: the verdicts compared (URLs × agents, and catalogued crawlers at `/`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdicts: Option<usize>,
    /// `diff`: of those, the ones the new file changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<usize>,
    /// Inputs that could not be used, each reported on standard error: unreadable files, bad
    /// URLs, failed fetches.
    pub failed: usize,
    pub exit: u8,
}

/// `test`: one expected verdict, what the robots.txt says, and the line that decides.
#[derive(Debug, Serialize)]
pub struct Expectation<'a> {
    /// The expectations file as named, and the line the expectation is on.
    pub expectations: &'a str,
    pub expectation_line: u32,
    /// The robots.txt tested, as named: a path, a robots.txt URL, or `<stdin>`.
    pub robots_txt: &'a str,
    /// `rfc` or `google`.
    pub mode: &'static str,
    /// The product token asked about.
    pub agent: &'a str,
    /// For a purpose line (`training crawlers: …`): the purpose and the catalogue's name of
    /// the crawler; `null` otherwise.
    pub purpose: Option<&'static str>,
    pub crawler: Option<&'a str>,
    /// The URL or path as written.
    pub url: &'a str,
    /// `allowed` or `disallowed`: what the line expects, and what the robots.txt says.
    pub expected: &'static str,
    pub actual: &'static str,
    pub holds: bool,
    /// The deciding rule and its line; `null` when no rule matched (allowed).
    pub line: Option<u32>,
    pub rule: Option<String>,
}

/// One side of a [`Flip`]: a verdict and the line that decides it.
#[derive(Debug, Serialize)]
pub struct FlipSide {
    /// `allowed` or `disallowed`.
    pub verdict: &'static str,
    pub line: Option<u32>,
    pub rule: Option<String>,
}

/// `diff`: a verdict the new robots.txt changes, with the deciding line before and after.
#[derive(Debug, Serialize)]
pub struct Flip<'a> {
    /// The robots.txt in force and the candidate, as named.
    pub deployed: &'a str,
    pub candidate: &'a str,
    /// The product token.
    pub agent: &'a str,
    /// For a catalogued crawler (checked at `/`): its catalogue name and purpose; `null` for
    /// an `--agent`.
    pub crawler: Option<&'a str>,
    pub purpose: Option<&'static str>,
    /// The URL or path as given.
    pub url: &'a str,
    pub before: FlipSide,
    pub after: FlipSide,
}

/// `audit`: one catalogued crawler's standing in one robots.txt.
#[derive(Debug, Serialize)]
pub struct Audit<'a> {
    /// The robots.txt as named: a path, a URL, or `<stdin>`.
    pub path: &'a str,
    /// The catalogue's name (`GPTBot`, `Brightbot 1.0`).
    pub crawler: &'a str,
    /// The product token groups are matched on (lowercase); `null` when the name has none.
    pub token: Option<&'a str>,
    /// Is the catalogue's name itself a valid product token?
    pub valid_token: bool,
    /// `training`, `search`, `agent` or `other`.
    pub purpose: &'static str,
    /// Why: `null` when read from the catalogue's `function` text, else the hand review's
    /// reason.
    pub purpose_override: Option<&'static str>,
    pub operator: &'a str,
    /// `yes`, `no` or `unclear`: does its operator say it obeys robots.txt?
    pub respects_robots_txt: &'static str,
    /// `token` (its own groups), `star` or `none`.
    pub group: &'static str,
    /// The first line of each group that applies.
    pub group_lines: Vec<u32>,
    /// `/` and each path asked about.
    pub paths: Vec<AuditPath<'a>>,
    /// The `Content-Usage` preferences at `/`: `train_ai` and `search`, each `allowed`,
    /// `disallowed` or `unknown`.
    pub usage: std::collections::BTreeMap<&'static str, &'static str>,
    pub usage_lines: Vec<u32>,
    /// The `Content-Signal`s of its groups: `search`, `ai_input`, `ai_train`.
    pub signals: std::collections::BTreeMap<&'static str, &'static str>,
    pub signal_lines: Vec<u32>,
}

/// `audit`: one path for one crawler.
#[derive(Debug, Serialize)]
pub struct AuditPath<'a> {
    pub path: &'a str,
    /// `allowed`, `partly` or `blocked`: the path and what lies under it.
    pub access: &'static str,
    /// The path itself.
    pub allowed: bool,
    /// The line of the rule that decided for the path, and the rule as written.
    pub line: Option<u32>,
    pub rule: Option<String>,
    /// When `partly`: the line of a rule of the other kind that decides under the path.
    pub other_line: Option<u32>,
}
