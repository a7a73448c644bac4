//! One fixture per diagnostic code (`testdata/diagnostics/<code>.txt`).
//!
//! Each fixture states what it must produce in `# expect: <code> <line>` comments (and
//! optionally `# mode: google`); the test requires exactly that set, so a fixture also proves
//! that nothing else fires. A code without a fixture fails the test.

use crate::invariants;
use std::collections::BTreeSet;
use std::path::PathBuf;

use crawlgate::{Code, Diagnostic, Mode, Options, Robots};

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/diagnostics")
}

fn expectations(bytes: &[u8]) -> (Mode, BTreeSet<(String, u32)>) {
    let mut mode = Mode::Rfc;
    let mut want = BTreeSet::new();
    for line in bytes.split(|&b| b == b'\n') {
        let line = String::from_utf8_lossy(line);
        if let Some(rest) = line.strip_prefix("# expect: ") {
            let (code, n) = rest.trim().split_once(' ').expect("`# expect: code line`");
            want.insert((code.to_owned(), n.parse().expect("line number")));
        } else if line.trim() == "# mode: google" {
            mode = Mode::Google;
        }
    }
    (mode, want)
}

fn run(name: &str) -> (Vec<Diagnostic>, BTreeSet<(String, u32)>) {
    let path = fixture_dir().join(format!("{name}.txt"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mode, want) = expectations(&bytes);
    let parsed = Robots::parse_with(&bytes, &Options::mode(mode));
    let starts = invariants::line_starts(&bytes);
    invariants::assert_diagnostics(&bytes, &starts, mode, &parsed.diagnostics);
    // Each problem's path, parsed without diagnostics, compiles to the same file.
    invariants::assert_quiet_same(&bytes, mode, &parsed);
    let mut diagnostics = parsed.diagnostics.clone();
    // The codes that need a crawler catalogue: the audit's lint, on fixtures that ask for it.
    if bytes.starts_with(b"# catalogue: builtin\n") {
        let catalogue = crawlgate::audit::Catalogue::builtin();
        let found = crawlgate::audit::lint(&parsed.robots, &bytes, &catalogue);
        invariants::assert_diagnostics(&bytes, &starts, mode, &found);
        diagnostics.extend(found);
    }
    (diagnostics, want)
}

#[test]
fn every_code_has_a_fixture_that_produces_exactly_what_it_expects() {
    let mut missing = Vec::new();
    for code in Code::ALL {
        let path = fixture_dir().join(format!("{}.txt", code.as_str()));
        if !path.exists() {
            missing.push(code.as_str());
            continue;
        }
        let (got, want) = run(code.as_str());
        assert!(
            want.iter().any(|(c, _)| c == code.as_str()),
            "{code}: the fixture does not expect its own code"
        );
        let got: BTreeSet<(String, u32)> = got
            .iter()
            .map(|d| (d.code.as_str().to_owned(), d.line))
            .collect();
        assert_eq!(got, want, "fixture {code}");
    }
    assert!(missing.is_empty(), "codes without a fixture: {missing:?}");
}

#[test]
fn clean_file_produces_nothing() {
    let (got, want) = run("clean");
    assert!(want.is_empty());
    assert!(got.is_empty(), "{got:#?}");
}

#[test]
fn every_fixture_names_a_known_code() {
    for entry in std::fs::read_dir(fixture_dir()).expect("fixture dir") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        let stem = name.strip_suffix(".txt").expect("fixtures are .txt");
        assert!(
            stem == "clean" || Code::from_name(stem).is_some(),
            "fixture {name} names no code"
        );
    }
}

#[test]
fn severities_follow_the_catalogue() {
    use crawlgate::Severity::{Error, Warning};
    let errors = [
        "invalid-line",
        "unknown-directive",
        "rule-outside-group",
        "invalid-path",
        "empty-user-agent",
        "invalid-user-agent",
        "invalid-sitemap-url",
        "content-after-limit",
        "invalid-utf8",
        "malformed-preference",
        "invalid-usage-path",
        "invalid-policy-url",
        "conflicting-rules",
        "shadowed-rule",
    ];
    for code in Code::ALL {
        let want = if errors.contains(&code.as_str()) {
            Error
        } else {
            Warning
        };
        assert_eq!(code.default_severity(), want, "{code}");
    }
}

/// What `unusable-crawl-delay` and `unusable-request-rate` say is what the engine reads: every
/// flagged value is skipped, and the agent's next usable one (here the last) is used.
#[test]
fn unusable_rate_values_are_skipped_as_the_lint_says() {
    use crawlgate::{ProductToken, Robots};
    let token = ProductToken::new("bot").expect("token");
    for (name, want_delay, want_rate) in [
        ("unusable-crawl-delay", Some(2.5), None),
        ("unusable-request-rate", None, Some(3)),
    ] {
        let (diagnostics, _) = run(name);
        let flagged = diagnostics
            .iter()
            .filter(|d| d.code.as_str() == name)
            .count();
        assert!(flagged >= 3, "{name}: {diagnostics:?}");
        for d in diagnostics.iter().filter(|d| d.code.as_str() == name) {
            assert!(
                d.message.contains("crawlgate ignores the line"),
                "{name}: {}",
                d.message
            );
        }
        let body = std::fs::read(fixture_dir().join(format!("{name}.txt"))).expect("fixture");
        let robots = Robots::parse(&body).robots;
        assert_eq!(robots.crawl_delay(&token), want_delay, "{name}");
        assert_eq!(
            robots.request_rate(&token).map(|r| r.requests),
            want_rate,
            "{name}"
        );
    }
}
