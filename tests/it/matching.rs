//! Matching (RFC 9309 §2.2.2, §5; Google's robots.txt spec): group choice, longest match, `*` and `$`,
//! percent-encoding; RFC 9309 §5 examples;
//! and a property test of the compiled matcher against a naive reference matcher.

use crate::support::naive::naive_allowed;
use crawlgate::{GroupMatch, Mode, Options, ProductToken, Reason, Robots, RuleKind};
use proptest::prelude::*;

fn tok(s: &str) -> ProductToken {
    ProductToken::new(s).expect("valid token")
}

const RFC_EXAMPLE: &str = "User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot
";

#[test]
fn rfc9309_section5_simple_example() {
    let parsed = Robots::parse(RFC_EXAMPLE.as_bytes());
    // The one finding is the point of quxbot's group: named with no rules at the end of the
    // file, it may crawl everything rather than follow `*` (the `empty-group` warning).
    let found: Vec<_> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.code, d.line))
        .collect();
    assert_eq!(found, [(crawlgate::Code::EmptyGroup, 15)]);
    let r = parsed.robots;
    let cases = [
        ("foobot", "/example/page.html", true),
        ("foobot", "/example/allowed.gif", true),
        ("foobot", "/example/other.html", false),
        ("foobot", "/publications/", false),
        ("barbot", "/example/page.html", false),
        ("bazbot", "/example/page.html", false),
        ("barbot", "/example/other.html", true),
        ("barbot", "/image.gif", true),
        ("quxbot", "/example/page.html", true),
        ("quxbot", "/image.gif", true),
        ("otherbot", "/image.gif", false),
        ("otherbot", "/image.gif?size=2", true),
        ("otherbot", "/example/", false),
        ("otherbot", "/publications/", true),
        ("otherbot", "/publications/cover.gif", true),
        ("otherbot", "/", true),
    ];
    for (agent, path, want) in cases {
        assert_eq!(r.is_allowed(&tok(agent), path), want, "{agent} {path}");
    }
    assert_eq!(r.check(&tok("quxbot"), "/x").group, GroupMatch::Token);
    assert_eq!(r.check(&tok("otherbot"), "/x").group, GroupMatch::Star);
}

#[test]
fn rfc9309_section5_longest_match() {
    let r = Robots::parse(
        b"User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n",
    )
    .robots;
    assert!(r.is_allowed(&tok("foobot"), "/example/page/"));
    assert!(!r.is_allowed(&tok("foobot"), "/example/page/disallowed.gif"));
}

#[test]
fn rfc9309_encoding_table() {
    // (pattern in the file, URL path that must match it)
    let table = [
        ("/foo/bar?baz=quz", "/foo/bar?baz=quz"),
        (
            "/foo/bar?baz=https://foo.bar",
            "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
        ),
        ("/foo/bar/ツ", "/foo/bar/%E3%83%84"),
        ("/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84"),
        ("/foo/bar/%E3%83%84", "/foo/bar/ツ"),
        ("/foo/bar/%62%61%7A", "/foo/bar/baz"),
        ("/foo/bar/baz", "/foo/bar/%62%61%7a"),
        ("/foo/bar/%e3%83%84", "/foo/bar/%E3%83%84"),
        ("/path/file-with-a-%2A.html", "/path/file-with-a-*.html"),
        ("/path/file-with-a-%2A.html", "/path/file-with-a-%2a.html"),
        ("/path/foo-%24", "/path/foo-$"),
    ];
    for (pattern, path) in table {
        let body = format!("User-agent: *\nDisallow: /\nAllow: {pattern}$\n");
        let r = Robots::parse(body.as_bytes()).robots;
        let d = r.check(&tok("x"), path);
        assert!(d.allowed, "{pattern} should match {path}: {d:?}");
    }
    // A literal `*` in the pattern (%2A) is not a wildcard.
    let r = Robots::parse(b"User-agent: *\nDisallow: /a%2Ab\n").robots;
    assert!(r.is_allowed(&tok("x"), "/axb"));
    assert!(!r.is_allowed(&tok("x"), "/a*b"));
    // An escaped reserved character is not a path separator... but RFC 9309 says it is equal.
    let r = Robots::parse(b"User-agent: *\nDisallow: /a/b\n").robots;
    assert!(!r.is_allowed(&tok("x"), "/a%2Fb"));
}

#[test]
fn longest_match_allow_wins_ties_and_explains() {
    let body =
        b"User-agent: *\nDisallow: /page\nAllow: /page\nDisallow: /page/deep\nAllow: /*.html\n";
    let r = Robots::parse(body).robots;
    let t = tok("x");
    assert!(r.is_allowed(&t, "/page"));
    let d = r.check(&t, "/page/deep/x");
    assert!(!d.allowed);
    let rule = d.rule().expect("a rule decided");
    assert_eq!(
        (
            rule.line,
            rule.kind,
            rule.text.to_string().as_str(),
            rule.pattern
        ),
        (4, RuleKind::Disallow, "Disallow: /page/deep", "/page/deep")
    );
    // `/*.html` (7 octets) loses to `/page/deep` (10 octets).
    assert!(!r.is_allowed(&t, "/page/deep/a.html"));
    assert!(r.is_allowed(&t, "/a.html"));
    assert_eq!(r.check(&t, "/other").reason, Reason::NoMatchingRule);
}

#[test]
fn no_group_no_rules_and_empty_disallow_allow_everything() {
    let t = tok("x");
    assert_eq!(
        Robots::parse(b"").robots.check(&t, "/a").reason,
        Reason::NoGroup
    );
    let r = Robots::parse(b"User-agent: other\nDisallow: /\n").robots;
    assert_eq!(r.check(&t, "/a").reason, Reason::NoGroup);
    assert!(r.is_allowed(&t, "/a"));
    assert!(Robots::parse(b"User-agent: *\nDisallow:\n")
        .robots
        .is_allowed(&t, "/a"));
    // A named group never combines with `*`.
    let r = Robots::parse(b"User-agent: *\nDisallow: /a\nUser-agent: x\nDisallow: /b\n").robots;
    assert!(r.is_allowed(&t, "/a"));
    assert!(!r.is_allowed(&t, "/b"));
    // Groups naming the same agent merge.
    let r = Robots::parse(
        b"User-agent: x\nDisallow: /a\nUser-agent: y\nDisallow: /c\nUser-agent: X\nDisallow: /b\n",
    )
    .robots;
    assert!(!r.is_allowed(&t, "/a") && !r.is_allowed(&t, "/b") && r.is_allowed(&t, "/c"));
}

#[test]
fn robots_txt_is_always_allowed_in_rfc_mode() {
    let body = b"User-agent: *\nDisallow: /\n";
    let t = tok("x");
    let rfc = Robots::parse(body).robots;
    assert_eq!(
        rfc.check(&t, "https://e.com/robots.txt").reason,
        Reason::RobotsTxt
    );
    assert!(!rfc.is_allowed(&t, "/robots.txt.bak"));
    let google = Robots::parse_with(body, &Options::mode(Mode::Google)).robots;
    assert!(!google.is_allowed(&t, "/robots.txt"));
}

/// An agent with no rules: the check skips the canonical form, and must still tell
/// `/robots.txt` (fragment cut) from other paths, and no group from an empty one.
#[test]
fn an_agent_without_rules_still_gets_the_right_reason() {
    let t = tok("x");
    let no_group = Robots::parse(b"User-agent: y\nDisallow: /\n").robots;
    let empty_group = Robots::parse(b"User-agent: x\nCrawl-delay: 1\n").robots;
    for (robots, other) in [
        (&no_group, Reason::NoGroup),
        (&empty_group, Reason::NoMatchingRule),
    ] {
        assert_eq!(
            robots.check(&t, "https://e.com/robots.txt#x").reason,
            Reason::RobotsTxt
        );
        assert_eq!(
            robots.check_path(&t, "/robots.txt").reason,
            Reason::RobotsTxt
        );
        assert_eq!(
            robots.check(&t, "https://e.com/robots.txt.bak").reason,
            other
        );
        assert_eq!(robots.check(&t, "https://e.com").reason, other);
        assert!(robots.is_allowed(&t, "https://e.com/a"));
    }
    let google = Robots::parse_with(
        b"User-agent: y\nDisallow: /\n",
        &Options::mode(Mode::Google),
    );
    assert_eq!(
        google.robots.check(&t, "/robots.txt").reason,
        Reason::NoGroup
    );
}

#[test]
fn urls_and_paths_fragments_and_queries() {
    let r = Robots::parse(b"User-agent: *\nDisallow: /*?session=\nDisallow: /x$\n").robots;
    let t = tok("x");
    assert!(!r.is_allowed(&t, "https://e.com/a?session=1"));
    assert!(r.is_allowed(&t, "https://e.com/a#?session=1"));
    assert!(!r.is_allowed(&t, "https://e.com/x#frag"));
    assert!(r.is_allowed(&t, "https://e.com/x?y"));
    assert!(!r.is_allowed(&t, "/x"));
}

#[test]
fn index_html_is_its_directory_in_google_mode_only() {
    let body = b"User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n";
    let t = tok("foobot");
    let google = Robots::parse_with(body, &Options::mode(Mode::Google)).robots;
    let d = google.check(&t, "http://foo.com/allowed-slash/");
    assert!(d.allowed);
    let rule = d.rule().expect("rule");
    assert!(rule.index_html);
    assert_eq!(
        (rule.text.to_string().as_str(), rule.pattern),
        ("Allow: /allowed-slash/index.html", "/allowed-slash/$")
    );
    assert!(!google.is_allowed(&t, "http://foo.com/allowed-slash/x"));
    let rfc = Robots::parse(body).robots;
    assert!(!rfc.is_allowed(&t, "http://foo.com/allowed-slash/"));
}

fn pattern_strategy() -> impl Strategy<Value = String> {
    ("[/*]", "[/ab*$]{0,10}").prop_map(|(a, b)| format!("{a}{b}"))
}

fn path_strategy() -> impl Strategy<Value = String> {
    "[/ab$*]{0,12}".prop_map(|p| format!("/{p}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn compiled_matcher_agrees_with_naive_reference(
        rules in prop::collection::vec((any::<bool>(), pattern_strategy()), 1..5),
        paths in prop::collection::vec(path_strategy(), 1..6),
    ) {
        agree(&rules, &paths)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// Enough rules that checks try only the candidates of the path's second byte (5 to 64).
    #[test]
    fn bucketed_matcher_agrees_with_naive_reference(
        rules in prop::collection::vec((any::<bool>(), pattern_strategy()), 5..=64),
        paths in prop::collection::vec(path_strategy(), 1..20),
    ) {
        agree(&rules, &paths)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    /// Enough rules that checks go through the prefix index (more than 64).
    #[test]
    fn indexed_matcher_agrees_with_naive_reference(
        rules in prop::collection::vec((any::<bool>(), pattern_strategy()), 65..130),
        paths in prop::collection::vec(path_strategy(), 1..20),
    ) {
        agree(&rules, &paths)?;
    }
}

/// `user-agent` values and crawler names: tokens, names beyond the token alphabet in several
/// cases, `*`, and values with no token in front.
const AGENT_NAMES: &[&str] = &[
    "*",
    "foo",
    "FOO",
    "foo bar",
    "Foo Bar",
    "FOO BAR",
    "UnicödeBöt",
    "UNICÖDEBÖT",
    "unic",
    "Übot",
    "übot",
    "*bot",
    "Foo/1.0",
    "foo/1.0",
    "ÖÄÜ",
];

/// The groups a crawler given verbatim gets, the naive way: a name with a character outside
/// the token alphabet gets (in RFC mode) the groups with a line of that whole value, ignoring
/// case; a token gets the groups whose value starts with it as a token (as the mode reads
/// tokens); else the `*` groups.
fn naive_groups(groups: &[Vec<&str>], agent: &str, mode: Mode) -> Vec<usize> {
    let fold = |s: &str| s.chars().flat_map(char::to_lowercase).collect::<String>();
    let is_token_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let token_of = |v: &str| -> String {
        let end = v
            .find(|c: char| match mode {
                Mode::Rfc => !is_token_char(c),
                _ => !(c.is_ascii_alphabetic() || c == '_' || c == '-'),
            })
            .unwrap_or(v.len());
        v[..end].to_ascii_lowercase()
    };
    let names = |v: &str| {
        // `*` (and `* anything`) is the `*` group; `*bot` is a name.
        let star = v == "*" || v.starts_with("* ");
        let whole = mode == Mode::Rfc && !v.chars().all(is_token_char) && !star;
        let token = token_of(v);
        (!token.is_empty() && token == fold(agent)) || (whole && fold(v) == fold(agent))
    };
    let pick = |p: &dyn Fn(&str) -> bool| -> Vec<usize> {
        (0..groups.len())
            .filter(|&g| groups[g].iter().any(|v| p(v)))
            .collect()
    };
    let named = pick(&|v| v != "*" && names(v));
    if named.is_empty() {
        pick(&|v| v == "*")
    } else {
        named
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Group choice for a crawler given verbatim, in both modes, against [`naive_groups`].
    #[test]
    fn verbatim_names_choose_groups_as_the_naive_reference(
        groups in prop::collection::vec(
            prop::collection::vec(prop::sample::select(AGENT_NAMES), 1..3), 1..6),
        agent in prop::sample::select(AGENT_NAMES),
    ) {
        let mut body = String::new();
        for (g, agents) in groups.iter().enumerate() {
            for a in agents {
                body.push_str(&format!("User-agent: {a}\n"));
            }
            body.push_str(&format!("Disallow: /g{g}\n\n"));
        }
        for mode in [Mode::Rfc, Mode::Google] {
            let robots = Robots::parse_with(body.as_bytes(), &Options::mode(mode)).robots;
            let got: Vec<usize> = robots
                .rules_for(&ProductToken::verbatim(agent))
                .group_indexes()
                .collect();
            let want = naive_groups(&groups, agent, mode);
            prop_assert_eq!(got, want, "{:?} {}\n{}", mode, agent, body);
        }
    }
}

fn agree(rules: &[(bool, String)], paths: &[String]) -> Result<(), TestCaseError> {
    {
        let mut body = String::from("User-agent: *\n");
        for (allow, p) in rules {
            body.push_str(if *allow { "Allow: " } else { "Disallow: " });
            body.push_str(p);
            body.push('\n');
        }
        for mode in [Mode::Rfc, Mode::Google] {
            let r = Robots::parse_with(body.as_bytes(), &Options::mode(mode)).robots;
            for path in paths {
                let decision = r.check_path(&tok("x"), path);
                prop_assert_eq!(
                    decision.allowed,
                    naive_allowed(rules, path),
                    "mode {:?}, file {:?}, path {:?}",
                    mode,
                    body,
                    path
                );
                // The same path in a URL, with a fragment that would decide otherwise: `check`
                // finds the path and cuts the fragment in its own scan.
                let url = format!("https://example.com{path}#{path}*$");
                prop_assert_eq!(r.check(&tok("x"), &url), decision, "url {:?}", url);
            }
        }
    }
    Ok(())
}

/// What the compact rule format keeps out of line: a canonical text of 65,535 bytes or more
/// (its length is not in the slot), values that differ from their canonical text, and key
/// spellings past the seven a file keeps in a table.
#[test]
fn rules_kept_out_of_line_read_back_as_written() {
    let long = format!("/{}", "a".repeat(70_000));
    let mut body = format!("User-agent: *\nDisallow: {long}$\nAllow: /%7euser\n");
    let keys = [
        "Disallow:",
        "disallow:",
        "DISALLOW:",
        "Disallow :",
        "disallow :",
        "Disallow:\t",
        "DisAllow:",
        "disALLOW:",
        "Disallow  :",
        "disallow  :",
    ];
    for (i, key) in keys.iter().enumerate() {
        body.push_str(&format!("{key} /k{i}\n"));
    }
    for mode in [Mode::Rfc, Mode::Google] {
        let mut options = Options::mode(mode);
        options.max_bytes = body.len();
        let robots = Robots::parse_with(body.as_bytes(), &options).robots;
        let t = tok("x");
        let d = robots.check(&t, &long);
        assert!(!d.allowed, "{mode:?}");
        // `Mode::Google` cuts the line at 16,663 bytes, as google/robotstxt does.
        if mode == Mode::Rfc {
            let rule = d.rule().expect("the long rule decides");
            assert_eq!(rule.pattern.len(), long.len() + 1);
            assert_eq!(rule.text, format!("Disallow: {long}$"));
            assert!(robots.is_allowed(&t, &format!("{long}b")));
        }
        let d = robots.check(&t, "/~user");
        assert_eq!(
            d.rule().map(|r| (r.line, r.text.to_string(), r.pattern)),
            (mode == Mode::Rfc).then(|| (3, "Allow: /%7euser".to_owned(), "/%7euser"))
        );
        for (i, key) in keys.iter().enumerate() {
            let d = robots.check(&t, &format!("/k{i}"));
            let rule = d.rule().expect("a rule decides");
            assert_eq!(rule.line, 4 + i as u32);
            assert_eq!(rule.text, format!("{key} /k{i}"));
            assert_eq!(rule.text.to_string(), format!("{key} /k{i}"));
            let by_index = robots.rule(2 + i).expect("rule");
            assert_eq!(by_index, rule);
        }
        assert_eq!(robots.rule_count(), 2 + keys.len());
    }
}

/// The file's first check of an agent with many rules scans them and builds nothing; the
/// second builds the lookup (seen in `heap_size`) and answers the same. A first check that
/// meets more wildcard rules than an indexed check tries one by one builds the lookup at once.
#[test]
fn the_first_check_scans_and_the_second_builds_the_lookup() {
    for (rules, lookup) in [(10, "buckets"), (200, "prefix index")] {
        let mut body = String::from("User-agent: *\n");
        for i in 0..rules {
            body.push_str(&format!("Disallow: /dir{i}/\nAllow: /dir{i}/open*.html$\n"));
        }
        for mode in [Mode::Rfc, Mode::Google] {
            let robots = Robots::parse_with(body.as_bytes(), &Options::mode(mode)).robots;
            let parsed = robots.heap_size();
            for (path, allowed) in [
                ("/dir7/x", false),
                ("/dir7/open/a.html", true),
                ("/other", true),
            ] {
                let first = robots.check(&tok("x"), path);
                assert_eq!(first.allowed, allowed, "{lookup} {mode:?} {path}");
                let scanned = robots.heap_size();
                let second = robots.check(&tok("x"), path);
                assert_eq!(second, first, "{lookup} {mode:?} {path}");
                // Only the file's first check scans.
                if path == "/dir7/x" {
                    assert_eq!(scanned, parsed, "{lookup} {mode:?}: the first check built");
                    assert!(
                        robots.heap_size() > scanned,
                        "{lookup} {mode:?}: the second check did not build"
                    );
                }
            }
        }
    }
    let mut body = String::from("User-agent: *\n");
    for i in 0..100 {
        body.push_str(&format!("Disallow: *a{i}b\n"));
    }
    let robots = Robots::parse(body.as_bytes()).robots;
    let parsed = robots.heap_size();
    assert!(robots.is_allowed(&tok("x"), "/a0123456789ba0123456789b"));
    assert!(robots.heap_size() > parsed, "the scan did not give up");
    assert!(!robots.is_allowed(&tok("x"), "/xa42b"));
}
