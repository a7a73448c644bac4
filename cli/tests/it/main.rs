//! The command line's integration tests, in one binary: each runs the `crawlgate` binary as a
//! process (only this package's tests have its path, `CARGO_BIN_EXE_crawlgate`), from the
//! repository root so that `testdata/…` paths print as given. The library's tests are in
//! `tests/it/`; both share `tests/support/` (the scripted HTTP server, Redis, Chromium).
//!
//! Each module is built when the features it needs are on, gated here and only here.
//! `cargo test -p crawlgate-cli --test it MODULE::` runs one module's tests.

#[path = "../../../tests/support/mod.rs"]
mod support;

mod run; // running the binary: a private state home, reading what it printed

/// The repository root: where the tests run the binary, and where `testdata/` is.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

mod cli; // lint, check, url: exit codes, output, bad input
mod cli_agents; // agents and modes, and Google's reference cases through the binary
mod cli_audit; // the AI-crawler audit and its suggestions
#[cfg(feature = "batch")]
mod cli_batch; // robots.txt at research scale: WARC, rows and files into Parquet, JSON Lines, CSV
mod cli_ci; // robots.txt in a site's CI: test, diff, JUnit, the manual's snippets, pre-commit
#[cfg(feature = "fetch")]
mod cli_edge; // challenged, priced (402) and HTML robots.txt in fetch, report and lint
#[cfg(feature = "fetch")]
mod cli_explain;
#[cfg(feature = "fetch")]
mod cli_fetch;
#[cfg(feature = "fetch")]
mod cli_long; // long runs: progress, concurrency, interruption
#[cfg(feature = "fetch")]
mod cli_page; // page directives: a real server, a local file
#[cfg(feature = "redb")]
mod cli_politeness; // politeness and the noindex trap in report and explain, at real servers
#[cfg(feature = "fetch")]
mod cli_report;
#[cfg(feature = "fetch")]
mod cli_sitemap;
mod cli_snapshots; // every command's output pinned in snapshots/
#[cfg(feature = "redb")]
mod cli_state;
#[cfg(feature = "fetch")]
mod cli_status; // exit statuses as a CI job reads them
#[cfg(feature = "fetch")]
mod cli_usage;
#[cfg(feature = "mcp")]
mod mcp; // `crawlgate mcp` driven by the SDK's client over stdio
#[cfg(feature = "redb")]
mod report_html; // the HTML report in headless Chromium
#[cfg(feature = "redb")]
mod report_html_ai; // the report's AI crawlers section in headless Chromium
#[cfg(all(feature = "serve", feature = "redb", feature = "redis"))]
mod serve; // `crawlgate serve` as a process: routes, limits, SIGTERM, replicas on Redis
#[cfg(all(feature = "serve", feature = "redb", feature = "redis"))]
mod serve_answers; // what a check, record or report answers: per URL, never a false refusal
#[cfg(all(feature = "serve", feature = "redb", feature = "redis"))]
mod serve_hostile; // slow, idle, cross-site and oversized traffic, to loopback, bounded
#[cfg(all(feature = "serve", feature = "redb", feature = "redis"))]
mod serve_ledger; // one slot ledger for two replicas on one redis-server, arrivals at a site
#[cfg(all(feature = "serve", feature = "redb", feature = "redis"))]
mod serve_pace; // slots and backoffs at a test site: two workers, two replicas on Redis
