//! Google's reference cases (robots_test.cc) run against both modes.
//!
//! `Mode::Google` must pass all 145. `Mode::Rfc` must pass every case not marked `beyond_rfc`;
//! each `beyond_rfc` case it answers differently must be listed in `RFC_DIVERGENCES` with the
//! reason, and an entry that no longer diverges fails the test (so the list cannot go stale).

use crawlgate::{Mode, Options, ProductToken, Robots};
use serde_json::Value;

/// `beyond_rfc` cases where `Mode::Rfc` legitimately answers differently, and why.
const RFC_DIVERGENCES: &[(&str, &str)] = &[
    (
        "ID_Encoding/03",
        "RFC 9309 §2.2.2: the URL's non-ASCII path is percent-encoded before comparison, so it matches `Allow: /foo/bar/ツ`",
    ),
    (
        "ID_Encoding/05",
        "RFC 9309 §2.2.2: raw `ツ` in the URL equals `%E3%83%84` in the pattern",
    ),
    (
        "ID_Encoding/06",
        "RFC 9309 §2.2.2 example table: `%62%61%7A` is `baz`",
    ),
    (
        "GoogleOnly_IndexHTMLisDirectory/01",
        "Google-only rewrite of `Allow: /dir/index.html` to also allow `/dir/$`",
    ),
    (
        "GoogleOnly_LineTooLong/02",
        "Mode::Rfc does not cut long lines: the whole pattern is longer than the URL, so it does not match",
    ),
    (
        "GoogleOnly_LineTooLong/05",
        "Mode::Rfc does not cut long lines: the whole allow pattern does not match the other tail",
    ),
    (
        "GoogleOnly_AcceptUserAgentUpToFirstSpace/02",
        "Mode::Rfc: the crawler given verbatim as `Foo Bar` gets the group that names it exactly (`User-Agent: Foo Bar`)",
    ),
];

fn cases() -> Vec<Value> {
    let text = include_str!("../../testdata/conformance/google-robotstxt-unit.json");
    let doc: Value = serde_json::from_str(text).expect("conformance JSON parses");
    let cases = doc["cases"].as_array().expect("cases array").clone();
    assert_eq!(cases.len(), 145, "the data set has 145 cases");
    cases
}

/// The caller's agent as Google's `OneAgentAllowedByRobots` takes it: a product token if it is
/// one, otherwise the string verbatim (it then matches no named group in `Mode::Google`, and
/// in `Mode::Rfc` only a group whose whole `user-agent` value it is).
fn agent(s: &str) -> ProductToken {
    ProductToken::new(s).unwrap_or_else(|_| ProductToken::verbatim(s))
}

fn answer(case: &Value, mode: Mode) -> bool {
    let robots = case["robots"].as_str().expect("robots");
    let parsed = Robots::parse_with(robots.as_bytes(), &Options::mode(mode));
    parsed.robots.is_allowed(
        &agent(case["agent"].as_str().expect("agent")),
        case["url"].as_str().expect("url"),
    )
}

#[test]
fn google_mode_passes_every_case() {
    let failures: Vec<String> = cases()
        .iter()
        .filter(|c| answer(c, Mode::Google) != c["allowed"].as_bool().expect("allowed"))
        .map(|c| c["name"].as_str().unwrap_or("?").to_owned())
        .collect();
    assert!(failures.is_empty(), "Mode::Google fails: {failures:?}");
}

#[test]
fn rfc_mode_passes_rfc_cases_and_lists_each_divergence() {
    let mut unexpected = Vec::new();
    let mut diverged = Vec::new();
    for c in cases() {
        let name = c["name"].as_str().expect("name");
        let beyond = c["beyond_rfc"].as_bool().unwrap_or(false);
        let listed = RFC_DIVERGENCES.iter().any(|(n, _)| *n == name);
        let ok = answer(&c, Mode::Rfc) == c["allowed"].as_bool().expect("allowed");
        if !ok {
            diverged.push(name.to_owned());
        }
        if !(ok || beyond && listed) {
            unexpected.push(format!("{name} (beyond_rfc: {beyond}, listed: {listed})"));
        }
    }
    assert!(unexpected.is_empty(), "Mode::Rfc fails: {unexpected:?}");
    let stale: Vec<_> = RFC_DIVERGENCES
        .iter()
        .filter(|(n, _)| !diverged.iter().any(|d| d == n))
        .map(|(n, _)| *n)
        .collect();
    assert!(stale.is_empty(), "stale RFC_DIVERGENCES entries: {stale:?}");
}
