//! Any bytes parse without a panic, every diagnostic span lies inside the input and names the
//! line it starts on, a parse without diagnostics compiles the same file, and any string can
//! be checked.

use crate::invariants;
use crawlgate::{Mode, Options, ProductToken, Robots};
use proptest::prelude::*;

/// Bytes that look like robots.txt often enough to reach deep into the parser.
fn robots_like() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"User-agent:".to_vec()),
        Just(b"Disallow:".to_vec()),
        Just(b"Allow:".to_vec()),
        Just(b"Sitemap:".to_vec()),
        Just(b"Crawl-delay:".to_vec()),
        Just(b"useragent ".to_vec()),
        Just(b" * ".to_vec()),
        Just(b"/a*b$".to_vec()),
        Just(b"%E3%8".to_vec()),
        Just(b"#".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just(vec![0u8]),
        Just(b"<html>".to_vec()),
        prop::collection::vec(any::<u8>(), 0..8),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn parse_and_check_never_panic(body in robots_like(), url in any::<String>(), agent in any::<String>()) {
        for mode in [Mode::Rfc, Mode::Google] {
            let parsed = Robots::parse_with(&body, &Options::mode(mode));
            invariants::assert_diagnostics(&body, &invariants::line_starts(&body), mode, &parsed.diagnostics);
            invariants::assert_quiet_same(&body, mode, &parsed);
            for d in &parsed.diagnostics {
                prop_assert!(d.column(&body) >= 1);
            }
            let token = ProductToken::new(&agent).unwrap_or_else(|_| ProductToken::verbatim(&agent));
            let d = parsed.robots.check(&token, &url);
            if let Some(rule) = d.rule() {
                prop_assert!(rule.line >= 1);
            }
            let _ = parsed.robots.check_path(&token, &url);
            let _ = parsed.robots.crawl_delay(&token);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(body in prop::collection::vec(any::<u8>(), 0..400)) {
        let parsed = Robots::parse(&body);
        invariants::assert_diagnostics(&body, &invariants::line_starts(&body), Mode::Rfc, &parsed.diagnostics);
    }
}

#[test]
fn giant_single_line_and_many_rules_parse() {
    let mut body = b"User-agent: *\nDisallow: /".to_vec();
    body.extend(std::iter::repeat_n(b'a', 600_000));
    let parsed = Robots::parse(&body);
    // The single line is cut by the 512,000-byte limit, so it is dropped.
    assert_eq!(parsed.robots.rule_count(), 0);
    let mut body = b"User-agent: *\n".to_vec();
    for i in 0..40_000 {
        body.extend_from_slice(format!("Disallow: /p{i}$\n").as_bytes());
    }
    let mut options = Options::default();
    options.max_bytes = body.len();
    let parsed = Robots::parse_with(&body, &options);
    assert_eq!(parsed.robots.rule_count(), 40_000);
    let t = ProductToken::new("x").expect("token");
    assert!(!parsed.robots.is_allowed(&t, "/p39999"));
    assert!(parsed.robots.is_allowed(&t, "/p39999x"));
}
