//! The `report` record of `--json`: one robots.txt's report, as `engine::report` works it out
//! and the terminal and HTML renderings read it (documented in the README).

use serde::Serialize;

/// The report of one robots.txt: the `report` record.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct RobotsReport {
    /// `https://example.com:8080`.
    pub origin: String,
    /// `https://example.com:8080/robots.txt`.
    pub robots_txt: String,
    /// `fetched`, `not-found` or `not-fetched`: Search Console's three kinds of status.
    pub status: &'static str,
    /// `Fetched`, `Not fetched – Not found (404)`, `Not fetched – Server error (503)`…
    pub status_text: String,
    /// The HTTP status of the last fetch, if a response arrived.
    pub http_status: Option<u16>,
    /// Why the last fetch gave no file (not found, unreachable), in words.
    pub cause: Option<String>,
    /// The last fetch attempt (RFC 3339, UTC).
    pub last_fetch: Option<String>,
    /// Bytes of the last fetched file; `None` when the last fetch gave none.
    pub size: Option<u64>,
    /// Where the last fetch was served from, when redirects were followed.
    pub final_url: Option<String>,
    /// Redirects the last fetch followed.
    pub redirects: u8,
    /// Problems of the last fetched file (`file`).
    pub errors: usize,
    pub warnings: usize,
    /// The rules in force now.
    pub in_force: InForce,
    /// The next fetch (RFC 3339, UTC).
    pub next_fetch: Option<String>,
    /// While the failure rules stop the whole site because its robots.txt could not be read
    /// (5xx, 429, a network failure, for less than 12 hours): no page of it before this
    /// (RFC 3339, UTC; the last good version applies from then if it is still unreadable).
    /// `null` otherwise.
    pub not_before: Option<String>,
    /// Then also: when the robots.txt is fetched again (RFC 3339, UTC); one that is read ends
    /// the stop. `null` otherwise.
    pub next_attempt: Option<String>,
    /// How the gate paces each agent's requests to the origin (the default agent's when none
    /// was given): `report` reads the stored schedule, `/v1/robots` and MCP's `robots_report`
    /// the running engine's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub politeness: Vec<Politeness>,
    /// The last fetched file (the newest version that is a file), with its problems.
    pub file: Option<FileView>,
    /// The versions of the last 30 days, oldest first; each differs from the one before.
    pub versions: Vec<VersionView>,
    /// For the URLs and agents given: the verdicts that change from one version to the next.
    pub verdict_changes: Vec<VerdictChange>,
    /// For the URLs and agents given: where RFC 9309 and Google's parser disagree on the file
    /// in force.
    pub mode_differences: Vec<ModeDifference>,
    /// For the URLs given: each agent's verdict under the rules in force.
    pub matrix: Vec<MatrixRow>,
}

/// The rules in force now, from the failure rules' ladder.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct InForce {
    /// `allow-all`, `disallow-all` or `rules`.
    pub verdict: &'static str,
    /// Why, as `check` says it (`fetched`, `unreachable`, `last-good-version`…).
    pub reason: &'static str,
    /// In words: `using the version of … until …`, `stopped until …`.
    pub text: String,
    /// Until when this holds, if the ladder moves on by itself (RFC 3339, UTC).
    pub until: Option<String>,
    /// The number of the version in force, when it is listed.
    pub version: Option<usize>,
    /// A failure run's start (RFC 3339, UTC).
    pub failing_since: Option<String>,
}

/// A file's text with its problems.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct FileView {
    /// The number of the version it is.
    pub version: usize,
    pub digest: String,
    /// The lines, numbered as the problems are (1-based; `\n`, `\r\n` and `\r` end a line),
    /// decoded as UTF-8 with invalid bytes replaced.
    pub lines: Vec<String>,
    /// Problems, in line order.
    pub problems: Vec<ProblemView>,
    /// Lines past the parsing limit were not read.
    pub cut: bool,
    /// The AI-crawler audit of the file, for the HTML page (not in `--json`: `crawlgate audit
    /// --json` gives it).
    #[serde(skip)]
    pub ai: AiView,
}

/// The AI crawlers of the built-in catalogue against one file (`report --html`).
#[derive(Debug, Default)]
pub struct AiView {
    /// `ai.robots.txt 738c80d (2026-08-22)`.
    pub catalogue: String,
    /// In catalogue order.
    pub crawlers: Vec<AiCrawlerView>,
}

/// One crawler's standing in the file, for `/`.
#[derive(Debug)]
pub struct AiCrawlerView {
    pub crawler: String,
    /// `training`, `search`, `agent`, `other`.
    pub purpose: &'static str,
    /// `blocked`, `partly`, `allowed`.
    pub access: &'static str,
    /// `token`, `star`, `none`, and the first lines of those groups.
    pub group: &'static str,
    pub group_lines: Vec<u32>,
    /// The rule that decided for `/` (line, as written), and for `partly` the line of a rule
    /// that decides under it.
    pub line: Option<u32>,
    pub rule: Option<String>,
    pub other_line: Option<u32>,
    /// `yes`, `no`, `unclear`.
    pub respects: &'static str,
    pub operator: String,
    pub valid_token: bool,
}

/// One problem of a file.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct ProblemView {
    pub line: u32,
    pub column: usize,
    /// `error` (the rule is not used) or `warning` (it is used).
    pub severity: &'static str,
    pub code: &'static str,
    pub message: String,
}

/// One version: a run of fetches with the same result.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct VersionView {
    /// 1 is the oldest listed.
    pub number: usize,
    pub first_fetch: String,
    pub last_fetch: String,
    /// Fetches in the run.
    pub fetches: u32,
    /// The HTTP status that produced the version (its first fetch's: the 200 that brought a
    /// file, not the 304s that re-confirmed it).
    pub http_status: Option<u16>,
    /// When a 304 last re-confirmed the file (RFC 3339, UTC), if the run's latest fetch was
    /// one.
    pub reconfirmed_at: Option<String>,
    /// `fetched`, `not-found` or `unreachable`.
    pub outcome: &'static str,
    /// Why it gave no file.
    pub cause: Option<String>,
    pub digest: Option<String>,
    pub size: Option<u64>,
    pub errors: Option<u32>,
    pub warnings: Option<u32>,
    /// The verdicts come from this version now.
    pub in_force: bool,
    /// The file (for a file whose body the store still has).
    pub lines: Option<Vec<String>>,
    /// The line diff from the file before it (the previous version that is a file), in hunks.
    pub diff: Option<Diff>,
}

/// A line diff between two files.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Diff {
    /// The number of the version it is a diff from.
    pub from: usize,
    pub added: usize,
    pub removed: usize,
    pub hunks: Vec<Vec<DiffLine>>,
}

/// One line of a diff hunk.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct DiffLine {
    /// `same`, `added` or `removed`.
    pub op: &'static str,
    /// Its line in the old file (not for an added line).
    pub old_line: Option<usize>,
    /// Its line in the new file (not for a removed line).
    pub new_line: Option<usize>,
    pub text: String,
}

/// A URL whose verdict for an agent changed from one version to the next.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct VerdictChange {
    /// The version before (its number).
    pub from: usize,
    /// The version after.
    pub to: usize,
    pub agent: String,
    pub url: String,
    pub before: Cell,
    pub after: Cell,
}

/// A verdict, and the line that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Cell {
    /// `allowed` or `disallowed`.
    pub verdict: &'static str,
    /// `line 3: Disallow: /a`; `None` when no rule decided.
    pub rule: Option<String>,
    /// The rule's line.
    pub line: Option<u32>,
    /// What decided, when no rule did (`no-matching-rule`, `no-group`, `no robots.txt`…).
    pub why: Option<String>,
    /// The same in words, for the terminal and the page (the JSON keeps the code).
    #[serde(skip)]
    pub why_text: Option<String>,
}

/// A URL on which the modes disagree for an agent.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct ModeDifference {
    pub agent: String,
    pub url: String,
    pub rfc: Cell,
    pub google: Cell,
}

/// One URL's verdict for each agent (in the order the agents were given).
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct MatrixRow {
    pub url: String,
    pub cells: Vec<Cell>,
    /// With `--pages`: how the URL's policy parts combine badly for an agent
    /// (`noindex-unseen`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<super::UrlWarning>,
}

/// How the gate paces one agent's requests to the origin (its politeness key) now: the delay
/// in force and why, a backoff and when it is forgiven, the next slot. The `politeness`
/// object of the `report` record (one per agent) and of `explain`'s.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Politeness {
    /// The agent, as given (the product token of the default User-Agent when none was).
    pub agent: String,
    /// The politeness key its requests are scheduled under (the origin).
    pub key: String,
    /// Seconds between two requests.
    pub delay: f64,
    /// Why: `crawl-delay`, `request-rate`, `default` (the site asks for none), `floor` (the
    /// site asks for less than the default delay) or `cap` (for more than the longest delay
    /// honoured).
    pub reason: &'static str,
    /// What the site asks for, in seconds (its `Crawl-delay` or `Request-rate` interval,
    /// whichever is longer), before the floor and the cap; `null` when it asks for neither.
    pub asked: Option<f64>,
    /// A run of 429/503 answers the schedule remembers; `null` when there is none (or it was
    /// forgiven).
    pub backoff: Option<BackoffView>,
    /// When the next request may go (RFC 3339, UTC); `null` when it may go now.
    pub next_slot: Option<String>,
    /// The whole of it in a sentence, for the terminal and the page.
    #[serde(skip)]
    pub text: String,
}

/// A backoff, as [`Politeness`] shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct BackoffView {
    /// 429/503 answers in a row: the next one without `Retry-After` waits twice as long.
    pub step: u32,
    /// No request before this (RFC 3339, UTC).
    pub until: String,
    /// Whether it still holds requests back.
    pub active: bool,
    /// The last 429/503 (RFC 3339, UTC).
    pub last_failure: String,
    /// The run is forgiven then if no 429/503 comes before (RFC 3339, UTC).
    pub forgiven_at: String,
}
