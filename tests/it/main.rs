//! The integration tests, in one binary: one link instead of thirty, and one `support` module
//! for what the tests share (ripgrep's and toml's layout). Three tests are binaries of their
//! own because they are their own processes (`harness = false`): `store_crash` (a writer killed
//! mid-write), `processes` (a fleet of crawler processes) and `local_limits` (a lowered
//! open-file limit, which would starve every other test of this binary).
//!
//! `cargo test --test it MODULE::` runs one module's tests.

#[path = "../support/mod.rs"]
mod support;
// The span and line invariants the fuzz targets assert, reused as test oracles.
#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod invariants;

// The robots.txt parser and matcher.
mod bounds; // memory and time bounds on hostile input
mod conformance; // google/robotstxt's reference cases, with the divergences listed
mod diagnostics; // a fixture per diagnostic code
mod differential; // Mode::Google against the robotstxt crate
mod fuzz_regressions; // inputs the fuzzers found, replayed
mod matching; // the matcher against a naive oracle (proptest)
mod parser;
mod robustness; // every corpus-like input: no panic, diagnostics hold their invariants
mod usage; // Content-Usage and friends never change a verdict

// The engine: fetching, the failure ladder, the stores.
mod engine;
mod fetch_client;
mod policy;
mod store_embedded;
mod store_redis;

// Sitemaps.
mod sitemap_diagnostics;
mod sitemap_discover;
mod sitemap_limits;
mod sitemap_reader;

// The command line, run as a process.
mod cli;
mod cli_agents;
mod cli_explain;
mod cli_fetch;
mod cli_long;
mod cli_report;
mod cli_sitemap;
mod cli_snapshots; // every command's output pinned in tests/snapshots/
mod cli_state;
mod cli_usage;
mod report_html; // the HTML report in headless Chromium
