//! The library's integration tests, in one binary: one link instead of thirty, and one `support`
//! module for what the tests share (ripgrep's and toml's layout). The command line's are in
//! `cli/tests/it/`, the package that builds the binary. Six tests are binaries of their own
//! because each is its own process (`harness = false`): `store_crash` (a writer killed
//! mid-write), `store_full` (a file-size limit as a full disk), `processes` and `gate_fleet` (fleets of crawler processes), `local_limits` (a
//! lowered open-file limit, which would starve every other test of this binary) and `memory`
//! (a counting global allocator, which every other test would disturb).
//!
//! Each module is built when the features it needs are on, gated here and only here; the
//! default features build them all, and CI also runs the core's alone
//! (`--no-default-features`). `cargo test --test it MODULE::` runs one module's tests.

#[path = "../support/mod.rs"]
mod support;
// The span and line invariants the fuzz targets assert, reused as test oracles (they cover
// the sitemap reader too).
#[cfg(feature = "sitemap")]
#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod invariants;

// The robots.txt parser and matcher.
#[cfg(feature = "audit")]
mod audit; // the AI-crawler catalogue and audit, on real files
#[cfg(feature = "batch")]
mod batch; // captures at research scale: WARC files the tests write, hostile records
mod bounds; // memory and time bounds on hostile input
mod conformance; // google/robotstxt's reference cases, with the divergences listed
#[cfg(all(feature = "sitemap", feature = "audit"))]
mod diagnostics; // a fixture per diagnostic code
mod differential; // Mode::Google against the robotstxt crate
#[cfg(feature = "sitemap")]
mod docs; // docs/diagnostics.md's code tables against the code
#[cfg(feature = "sitemap")]
mod fuzz_regressions; // inputs the fuzzers found, replayed
mod layout; // the library's floors: no import points up
mod matching; // the matcher against a naive oracle (proptest)
mod page; // page-level directives: headers and the HTML head
mod parser;
mod policy; // the failure ladder, pure
#[cfg(feature = "sitemap")]
mod robustness; // any input: no panic, diagnostics hold their invariants
#[cfg(feature = "tdmrep")]
mod tdmrep; // TDMRep's tdmrep.json: parser, evaluator, and the engine's fetch of it
mod url_spelling; // a URL is judged as a client requests it (dot segments, `\\`, TAB)
mod usage; // Content-Usage and friends never change a verdict
mod wildcard_index; // many wildcard rules through the segments index, against a naive reference

// The engine: fetching, the state stores.
#[cfg(feature = "fetch")]
mod crawl_policy; // the whole crawl policy of a URL: robots.txt, edge, TDMRep, the page
#[cfg(feature = "fetch")]
mod edge; // challenges, 402 and HTML pages served as robots.txt
#[cfg(feature = "fetch")]
mod engine;
#[cfg(feature = "fetch")]
mod fetch_client;
#[cfg(feature = "redb")]
mod store_embedded;
#[cfg(feature = "redis")]
mod store_ledger; // the slot ledger's rule on memory, redb and a real redis-server
#[cfg(feature = "fetch")]
mod store_loss;
#[cfg(feature = "redis")]
mod store_redis; // a store that loses data never takes a known good version away
#[cfg(feature = "redis")]
mod store_redis_cluster; // the Redis store on a real three-master Redis Cluster
#[cfg(feature = "fetch")]
mod store_tdm; // TDMRep records in the stores: kept apart, not listed, pruned

// The gate: when a crawler may fetch (virtual clock; the middleware against real servers).
#[cfg(feature = "fetch")]
mod gate;
#[cfg(feature = "fetch")]
mod gate_keys; // politeness keys at a real server: IP, origin, registrable domain
#[cfg(feature = "middleware")]
mod gate_middleware;
#[cfg(feature = "fetch")]
mod gate_server;
#[cfg(all(feature = "redb", feature = "redis"))]
mod politeness; // a key's pace read without reserving: the spacing's why, the backoff, the stores // the backoff curve at a real server; a cancelled lease request on Redis

// Sitemaps.
#[cfg(feature = "sitemap")]
mod sitemap_diagnostics;
#[cfg(all(feature = "fetch", feature = "sitemap"))]
mod sitemap_discover;
#[cfg(feature = "sitemap")]
mod sitemap_limits;
#[cfg(feature = "sitemap")]
mod sitemap_reader;
