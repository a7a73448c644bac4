//! Checks of agents with many wildcard rules, which go through the segments index
//! (`src/robots/segments.rs`: all wildcard segments found in one pass over the path), against
//! a naive reference; and that such a check does take that path.

use crate::support::naive::naive_allowed;
use crawlgate::{Mode, Options, ProductToken, Robots};
use proptest::prelude::*;

fn tok() -> ProductToken {
    ProductToken::new("x").expect("token")
}

fn file(rules: &[(bool, String)]) -> String {
    let mut body = String::from("User-agent: *\n");
    for (allow, p) in rules {
        body.push_str(if *allow { "Allow: " } else { "Disallow: " });
        body.push_str(p);
        body.push('\n');
    }
    body
}

/// A check that meets more than a few wildcard rules builds the segments index (seen in
/// `heap_size`), and answers as the naive reference does.
#[test]
fn many_leading_wildcards_take_the_segments_path() {
    let rules: Vec<(bool, String)> = (0..2_000)
        .map(|i| (i % 3 == 0, format!("*a{i}b")))
        .collect();
    let body = file(&rules);
    let mut url = String::from("/");
    while url.len() < 2_000 {
        url.push_str("a0123456789b");
    }
    for mode in [Mode::Rfc, Mode::Google] {
        let robots = Robots::parse_with(body.as_bytes(), &Options::mode(mode)).robots;
        assert!(robots.is_allowed(&tok(), "/x"));
        let before = robots.heap_size();
        for path in [url.as_str(), "/a17b", "/xa1999b", "/a0b", "/a1"] {
            assert_eq!(
                robots.check_path(&tok(), path).allowed,
                naive_allowed(&rules, path),
                "{mode:?} {path}"
            );
        }
        assert!(
            robots.heap_size() > before,
            "{mode:?}: the segments index was not built"
        );
    }
}

/// Segments that occur all over the path (`*a…a*x` against `/xaaa…`: more occurrences than the
/// index keeps per byte of the path): the check falls back to trying the rules one by one, and
/// still answers as the naive reference does.
#[test]
fn segments_that_occur_everywhere_fall_back_to_scans() {
    let mut rules: Vec<(bool, String)> = (1..300)
        .map(|n| (n % 2 == 0, format!("*{}*x", "a".repeat(n))))
        .collect();
    rules.push((false, "/x*a$".to_string()));
    let body = file(&rules);
    let long = format!("/x{}", "a".repeat(1_998));
    for mode in [Mode::Rfc, Mode::Google] {
        let robots = Robots::parse_with(body.as_bytes(), &Options::mode(mode)).robots;
        for path in [long.as_str(), "/xaaax", "/aaxa", "/x", "/aaaaaaaaax"] {
            assert_eq!(
                robots.check_path(&tok(), path).allowed,
                naive_allowed(&rules, path),
                "{mode:?} {path}"
            );
        }
    }
}

fn pattern_strategy() -> impl Strategy<Value = String> {
    ("[/*]", "[/ab*]{0,6}", "[$]?").prop_map(|(a, b, c)| format!("{a}{b}{c}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Enough wildcard rules, and paths long enough, that checks reach the segments index.
    #[test]
    fn segments_path_agrees_with_naive_reference(
        rules in prop::collection::vec((any::<bool>(), pattern_strategy()), 80..160),
        paths in prop::collection::vec("/[/ab$*]{0,30}", 1..12),
    ) {
        let body = file(&rules);
        for mode in [Mode::Rfc, Mode::Google] {
            let r = Robots::parse_with(body.as_bytes(), &Options::mode(mode)).robots;
            for path in &paths {
                prop_assert_eq!(
                    r.check_path(&tok(), path).allowed,
                    naive_allowed(&rules, path),
                    "mode {:?}, file {:?}, path {:?}",
                    mode,
                    body,
                    path
                );
            }
        }
    }
}
