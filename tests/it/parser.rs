//! Parsing (RFC 9309 §2.1–§2.5, google/robotstxt's robots.cc): line ends, BOMs, comments,
//! whitespace, groups, records, limits.

use crawlgate::{
    Agent, Code, Mode, Options, OtherKey, ProductToken, Robots, Severity, DEFAULT_MAX_BYTES,
    GOOGLE_MAX_LINE_BYTES,
};

fn tok(s: &str) -> ProductToken {
    ProductToken::new(s).expect("valid token")
}

fn allowed(body: &[u8], agent: &str, url: &str) -> bool {
    Robots::parse(body).robots.is_allowed(&tok(agent), url)
}

fn codes(body: &[u8]) -> Vec<(u32, Code)> {
    Robots::parse(body)
        .diagnostics
        .iter()
        .map(|d| (d.line, d.code))
        .collect()
}

/// The rule lines a parse kept, for checking line numbering.
fn rule_lines(body: &[u8]) -> Vec<u32> {
    let r = Robots::parse(body).robots;
    (0..r.rule_count())
        .filter_map(|i| r.rule(i))
        .map(|r| r.line)
        .collect()
}

#[test]
fn every_line_ending_gives_the_same_lines() {
    // google/robotstxt ID_LinesNumbersAreCountedCorrectly: 4 directives, the last on line 6.
    let variants: [&[u8]; 5] = [
        b"User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
        b"User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
        b"User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
        b"User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
        b"User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
    ];
    for body in variants {
        assert_eq!(
            rule_lines(body),
            [2, 6],
            "{:?}",
            String::from_utf8_lossy(body)
        );
        let parsed = Robots::parse(body);
        assert_eq!(parsed.robots.groups().len(), 2);
        assert!(parsed.diagnostics.is_empty());
        assert!(!parsed.robots.is_allowed(&tok("bar"), "/x"));
        assert!(parsed.robots.is_allowed(&tok("foo"), "/some/path"));
    }
    // LF then CR is two line ends, CR LF one.
    assert_eq!(rule_lines(b"User-agent: a\n\rDisallow: /x"), [3]);
    assert_eq!(rule_lines(b"User-agent: a\r\nDisallow: /x"), [2]);
}

#[test]
fn bom_full_and_partial_at_start_only() {
    for body in [
        &b"\xEF\xBB\xBFUser-Agent: foo\nAllow: /AnyValue\n"[..],
        b"\xEF\xBBUser-Agent: foo\nAllow: /AnyValue\n",
        b"\xEFUser-Agent: foo\nAllow: /AnyValue\n",
    ] {
        let parsed = Robots::parse(body);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(parsed.robots.rule_count(), 1);
    }
    // A broken BOM makes line 1 garbage; the rest is kept.
    let parsed = Robots::parse(b"\xEF\x11\xBFUser-Agent: foo\nAllow: /AnyValue\n");
    assert_eq!(parsed.diagnostics[0].line, 1);
    assert_eq!(parsed.diagnostics[0].severity, Severity::Error);
    // A BOM on a later line: skipped with a warning in Rfc mode, an error in Google mode.
    let body = b"User-Agent: foo\n\xEF\xBB\xBFAllow: /AnyValue\n";
    let rfc = Robots::parse(body);
    assert_eq!(rfc.robots.rule_count(), 1);
    assert_eq!(rfc.diagnostics[0].code, Code::MisplacedBom);
    let google = Robots::parse_with(body, &Options::mode(Mode::Google));
    assert_eq!(google.robots.rule_count(), 0);
    assert!(google
        .diagnostics
        .iter()
        .all(|d| d.severity == Severity::Error));
}

#[test]
fn comments_whitespace_and_case() {
    let body =
        b"  uSeR-aGeNt \t:  FooBot  # the bot\n\tDISALLOW:/x # no\n# Disallow: /\nallow :\t/x/y\n";
    let parsed = Robots::parse(body);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert!(!parsed.robots.is_allowed(&tok("foobot"), "/x/z"));
    assert!(parsed.robots.is_allowed(&tok("FOOBOT"), "/x/y"));
    assert!(parsed.robots.is_allowed(&tok("foobot"), "/y"));
    // Values keep their case.
    assert!(allowed(b"User-agent: *\nDisallow: /X\n", "a", "/x"));
    assert!(!allowed(b"User-agent: *\nDisallow: /X\n", "a", "/X"));
}

#[test]
fn consecutive_user_agents_share_a_group_and_a_rule_ends_it() {
    let body = b"User-agent: a\nUser-agent: b\nDisallow: /x\nUser-agent: c\nDisallow: /y\n";
    let r = Robots::parse(body).robots;
    assert_eq!(r.groups().len(), 2);
    assert!(!r.is_allowed(&tok("a"), "/x"));
    assert!(!r.is_allowed(&tok("b"), "/x"));
    assert!(r.is_allowed(&tok("a"), "/y"));
    assert!(!r.is_allowed(&tok("c"), "/y"));
    assert!(r.is_allowed(&tok("c"), "/x"));
}

#[test]
fn blank_lines_sitemaps_and_unknown_lines_do_not_end_groups() {
    let body = b"User-agent: a\n\nSitemap: https://e.com/s.xml\nFoo: bar\nCrawl-delay: 5\n\nUser-agent: b\nDisallow: /x\n";
    let parsed = Robots::parse(body);
    assert_eq!(parsed.robots.groups().len(), 1);
    assert!(!parsed.robots.is_allowed(&tok("a"), "/x"));
    assert!(!parsed.robots.is_allowed(&tok("b"), "/x"));
    assert!(parsed
        .diagnostics
        .iter()
        .any(|d| d.code == Code::AgentsJoined && d.line == 7));
    // And a sitemap between rules does not split the group either.
    let r =
        Robots::parse(b"User-agent: a\nDisallow: /x\nSitemap: https://e.com/s.xml\nDisallow: /y\n")
            .robots;
    assert!(!r.is_allowed(&tok("a"), "/y"));
    assert_eq!(r.sitemaps().len(), 1);
}

#[test]
fn rules_before_any_user_agent_are_ignored() {
    let body = b"Disallow: /x\nUser-agent: a\nDisallow: /y\n";
    assert!(allowed(body, "a", "/x"));
    assert!(!allowed(body, "a", "/y"));
    assert_eq!(codes(body), [(1, Code::RuleOutsideGroup)]);
}

#[test]
fn a_rule_that_is_not_used_still_ends_the_agent_list() {
    // `Disallow: x` is invalid, but like google/robotstxt it still closes a's agent list.
    let body = b"User-agent: a\nDisallow: x\nUser-agent: b\nDisallow: /b\n";
    assert!(allowed(body, "a", "/b"));
    assert!(!allowed(body, "b", "/b"));
    // An empty user-agent starts a group that applies to nobody.
    let body = b"User-agent: a\nDisallow: /a\nUser-agent:\nDisallow: /b\n";
    assert!(allowed(body, "a", "/b"));
    assert_eq!(codes(body), [(3, Code::EmptyUserAgent)]);
}

#[test]
fn misspellings_and_missing_colon_are_used_with_warnings() {
    let body = b"useragent: a\ndissallow: /1\ndissalow: /2\ndisalow: /3\ndiasllow: /4\ndisallaw: /5\nuser agent: b\ndisallow /6\n";
    let r = Robots::parse(body);
    for p in ["/1", "/2", "/3", "/4", "/5"] {
        assert!(!r.robots.is_allowed(&tok("a"), p), "{p}");
    }
    assert!(!r.robots.is_allowed(&tok("b"), "/6"));
    let got: Vec<_> = r.diagnostics.iter().map(|d| (d.line, d.code)).collect();
    assert_eq!(
        got,
        [
            (1, Code::MisspelledKey),
            (2, Code::MisspelledKey),
            (3, Code::MisspelledKey),
            (4, Code::MisspelledKey),
            (5, Code::MisspelledKey),
            (6, Code::MisspelledKey),
            (7, Code::MisspelledKey),
            (8, Code::MissingColon),
        ]
    );
    // Three tokens without a colon is not a record.
    assert_eq!(
        codes(b"User-agent: a\ndisallow /x /y\n"),
        [(2, Code::InvalidLine)]
    );
}

#[test]
fn other_records_are_kept_and_never_affect_matching() {
    let body = b"Host: example.com\nUser-agent: a\nCrawl-delay: 2.5\nDisallow: /x\nUser-agent: *\nCrawl-delay: 9\nClean-param: ref /x\nSitemap: https://example.com/s.xml\n";
    let r = Robots::parse(body).robots;
    let keys: Vec<_> = r.records().map(|x| (x.key, x.group)).collect();
    assert_eq!(
        keys,
        [
            (OtherKey::Host, None),
            (OtherKey::CrawlDelay, Some(0)),
            (OtherKey::CrawlDelay, Some(1)),
            (OtherKey::CleanParam, Some(1)),
        ]
    );
    assert_eq!(r.crawl_delay(&tok("a")), Some(2.5));
    assert_eq!(r.crawl_delay(&tok("zzz")), Some(9.0));
    let urls: Vec<_> = r.sitemaps().map(|s| (s.url, s.line)).collect();
    assert_eq!(urls, [("https://example.com/s.xml", 8)]);
    assert!(!r.is_allowed(&tok("a"), "/x"));
    assert!(r.is_allowed(&tok("zzz"), "/x"));
}

#[test]
fn agent_values_are_read_as_their_product_token() {
    let body = b"User-agent: Googlebot/2.1 (+http://www.google.com/bot.html)\nDisallow: /x\n";
    assert!(!allowed(body, "googlebot", "/x"));
    let r = Robots::parse(
        b"User-agent: googlebot*\nUser-agent: * and more\nUser-agent: *bot\nDisallow: /\n",
    )
    .robots;
    assert_eq!(
        agents_of(&r, 0),
        [Agent::Token("googlebot"), Agent::Star, Agent::Nobody]
    );
    // Googlebot-News is a token of its own.
    assert!(allowed(
        b"User-agent: Googlebot-News\nDisallow: /\n",
        "googlebot",
        "/x"
    ));
}

#[test]
fn size_limit_drops_the_cut_line_and_everything_after() {
    let mut body = b"User-agent: *\nDisallow: /a\n".to_vec();
    while body.len() < DEFAULT_MAX_BYTES - 10 {
        body.extend_from_slice(b"# filler filler filler filler filler\n");
    }
    // This Allow straddles the limit: a cut `Allow: /` would open the whole site.
    body.extend_from_slice(b"Allow: /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n");
    body.extend_from_slice(b"Disallow: /\n");
    let parsed = Robots::parse(&body);
    assert_eq!(parsed.robots.rule_count(), 1);
    assert_eq!(parsed.robots.bytes_used(), DEFAULT_MAX_BYTES);
    assert!(!parsed.robots.is_allowed(&tok("x"), "/a"));
    assert!(parsed.robots.is_allowed(&tok("x"), "/b"));
    let last = parsed.diagnostics.last().expect("a diagnostic");
    assert_eq!(last.code, Code::ContentAfterLimit);
    assert_eq!(last.span.end, body.len());
    // The limit can be raised, never lowered.
    let raised = Robots::parse_with(&body, &{
        let mut options = Options::default();
        options.max_bytes = body.len();
        options
    });
    assert_eq!(raised.robots.rule_count(), 3);
    let lowered = Robots::parse_with(&body, &{
        let mut options = Options::default();
        options.max_bytes = 10;
        options
    });
    assert_eq!(lowered.robots.bytes_used(), DEFAULT_MAX_BYTES);
}

#[test]
fn long_lines_are_cut_in_google_mode_only() {
    let mut body = b"User-agent: *\nDisallow: /x/".to_vec();
    body.extend(std::iter::repeat_n(b'a', 20_000));
    let url = format!("/x/{}", "a".repeat(GOOGLE_MAX_LINE_BYTES));
    let google = Robots::parse_with(&body, &Options::mode(Mode::Google));
    assert!(!google.robots.is_allowed(&tok("x"), &url));
    let rfc = Robots::parse(&body);
    assert!(rfc.robots.is_allowed(&tok("x"), &url));
    assert_eq!(rfc.diagnostics[0].code, Code::LineTooLong);
}

#[test]
fn nul_bytes_non_utf8_and_html_never_lose_the_file() {
    let body = b"<html>\n<body>\nUser-agent: *\nDisallow: /a\x00junk\nDisallow: /b\xff\nDisallow: /c\n</body>\n";
    let rfc = Robots::parse(body);
    assert!(!rfc.robots.is_allowed(&tok("x"), "/a"));
    assert!(rfc.robots.is_allowed(&tok("x"), "/b%FF"));
    assert!(!rfc.robots.is_allowed(&tok("x"), "/c"));
    let got: Vec<_> = rfc.diagnostics.iter().map(|d| (d.line, d.code)).collect();
    assert!(got.contains(&(1, Code::HtmlBody)));
    assert!(got.contains(&(4, Code::NulByte)));
    assert!(got.contains(&(5, Code::InvalidUtf8)));
    // Google escapes the byte and uses the rule.
    let google = Robots::parse_with(body, &Options::mode(Mode::Google));
    assert!(!google.robots.is_allowed(&tok("x"), "/b%FF"));
}

#[test]
fn printed_back_and_parsed_again_gives_the_same_rules() {
    let body = b"# shop\nUser-agent: a\nuser-agent: B/2.0\nDisallow: /x # c\nallow: /x/y$\nCrawl-delay: 3\n\nUser-agent: *\nDisallow: /*.pdf$\nSitemap: https://e.com/s.xml\nHost: e.com\n";
    let first = Robots::parse(body).robots;
    let printed = first.to_robots_txt();
    let second = Robots::parse(printed.as_bytes());
    assert!(
        second
            .diagnostics
            .iter()
            .all(|d| d.code == Code::IgnoredDirective),
        "{:?}",
        second.diagnostics
    );
    let second = second.robots;
    type View<'a> = (
        Vec<Vec<Agent<'a>>>,
        Vec<(crawlgate::RuleKind, String)>,
        usize,
        usize,
    );
    fn view(r: &Robots) -> View<'_> {
        let groups = (0..r.groups().len()).map(|g| agents_of(r, g)).collect();
        let rules: Vec<(crawlgate::RuleKind, String)> = (0..r.rule_count())
            .filter_map(|i| r.rule(i))
            .map(|x| (x.kind, x.pattern.to_owned()))
            .collect();
        (groups, rules, r.sitemaps().len(), r.records().len())
    }
    assert_eq!(view(&first), view(&second));
    assert_eq!(printed, second.to_robots_txt(), "printing is stable");
}

#[test]
fn agent_values_with_digits_per_mode() {
    let body = b"User-agent: *\nDisallow: /\n\nUser-agent: MJ12bot\nUser-agent: 360Spider/1.0\nDisallow: /private\n";
    let rfc = Robots::parse_with(body, &Options::mode(Mode::Rfc)).robots;
    let google = Robots::parse_with(body, &Options::mode(Mode::Google)).robots;
    // RFC mode: a token is `[A-Za-z0-9_-]+`, so the crawlers named get their group.
    assert_eq!(
        agents_of(&rfc, 1),
        [Agent::Token("mj12bot"), Agent::Token("360spider")]
    );
    assert!(allowed(body, "MJ12bot", "/page"));
    assert!(!allowed(body, "MJ12bot", "/private/x"));
    assert!(allowed(body, "360spider", "/page"));
    // Not a prefix match: `MJ` is another crawler.
    assert!(!allowed(body, "MJ", "/page"));
    let rfc = Robots::parse(body);
    assert_eq!(
        rfc.diagnostics
            .iter()
            .map(|d| (d.line, d.code))
            .collect::<Vec<_>>(),
        [(5, Code::AgentNotToken)]
    );

    // Google mode reads them as google/robotstxt does: `MJ`, and no token at all.
    assert_eq!(agents_of(&google, 1), [Agent::Token("mj"), Agent::Nobody]);
    let google = Robots::parse_with(body, &Options::mode(Mode::Google));
    assert!(!google.robots.is_allowed(&tok("MJ12bot"), "/page"));
    assert!(google.robots.is_allowed(&tok("MJ"), "/page"));
    let got: Vec<_> = google
        .diagnostics
        .iter()
        .map(|d| (d.line, d.code, d.message.contains("first digit")))
        .collect();
    assert_eq!(
        got,
        [
            (4, Code::AgentNotToken, true),
            (5, Code::InvalidUserAgent, false)
        ]
    );
    // The empty agent (`ProductToken::verbatim("")`, Google's API takes it) gets the group
    // whose value has no token, in Google mode only.
    let empty = ProductToken::verbatim("");
    assert!(google.robots.is_allowed(&empty, "/page"));
    assert!(!google.robots.is_allowed(&empty, "/private"));
    assert!(!rfc.robots.is_allowed(&empty, "/page"));
}

/// Scrapy's own test of parser backends names a crawler outside the token alphabet: in RFC
/// mode a crawler given verbatim by that exact name gets the group (case-insensitively, also
/// beyond ASCII); the line keeps its warning, and Google mode answers as Google's library.
#[test]
fn a_crawler_named_verbatim_gets_the_group_that_names_it_in_rfc_mode() {
    let body =
        "User-Agent: *\nDisallow: /admin/\n\nUser-Agent: UnicödeBöt\nDisallow: /some/page.html\n";
    let rfc = Robots::parse(body.as_bytes());
    let google = Robots::parse_with(body.as_bytes(), &Options::mode(Mode::Google));
    for name in ["UnicödeBöt", "unicödeböt", "UNICÖDEBÖT"] {
        let bot = ProductToken::verbatim(name);
        assert!(rfc.robots.is_allowed(&bot, "/admin/"), "{name}");
        assert!(!rfc.robots.is_allowed(&bot, "/some/page.html"), "{name}");
        let rules = rfc.robots.rules_for(&bot);
        assert_eq!(rules.matched_token(), Some("unicödeböt"));
        assert_eq!(rules.group_indexes().collect::<Vec<_>>(), [1]);
        // Google compares its token (`Unic`) with the whole agent: the `*` group.
        assert!(!google.robots.is_allowed(&bot, "/admin/"), "{name}");
    }
    // Only the exact name: not a prefix of it, nor a longer one, nor one given as a token.
    for other in ["Unicöde", "UnicödeBöt2", "UnicödeBöt/1.0", "*"] {
        let t = ProductToken::verbatim(other);
        assert!(!rfc.robots.is_allowed(&t, "/admin/"), "{other}");
    }
    // The token in front is still the group's, as before, and the warning is kept.
    assert_eq!(agents_of(&rfc.robots, 1), [Agent::Token("unic")]);
    assert!(rfc.robots.is_allowed(&tok("Unic"), "/admin/"));
    let warned: Vec<_> = rfc.diagnostics.iter().map(|d| (d.line, d.code)).collect();
    assert_eq!(warned, [(4, Code::AgentNotToken)]);
    let warned: Vec<_> = google
        .diagnostics
        .iter()
        .map(|d| (d.line, d.code))
        .collect();
    assert_eq!(warned, [(4, Code::AgentNotToken)]);
}

#[test]
fn verbatim_names_cover_every_value_that_is_not_a_token() {
    let body = "User-agent: *\nDisallow: /\n\n\
        User-agent: Foo Bar\nAllow: /foo-bar\n\n\
        User-agent: Übot\nAllow: /ubot\n\n\
        User-agent: FOO BAR\nAllow: /again\n\n\
        User-agent: Googlebot/2.1\nAllow: /googlebot\n";
    let rfc = Robots::parse(body.as_bytes());
    let check = |agent: &ProductToken, path: &str| rfc.robots.is_allowed(agent, path);
    // Groups that name one crawler the same way, whatever the case, merge; `foo`, the token of
    // both, gets both too, and not another crawler's.
    let groups = |agent: &ProductToken| {
        rfc.robots
            .rules_for(agent)
            .group_indexes()
            .collect::<Vec<_>>()
    };
    let foo_bar = ProductToken::verbatim("foo bar");
    assert_eq!(groups(&foo_bar), [1, 3]);
    assert!(check(&foo_bar, "/foo-bar") && check(&foo_bar, "/again"));
    assert_eq!(groups(&tok("foo")), [1, 3]);
    // No token in front: in RFC mode only the crawler of that name gets the group; the line
    // still says it has no product token.
    assert!(check(&ProductToken::verbatim("ÜBOT"), "/ubot"));
    assert_eq!(groups(&ProductToken::verbatim("übot")), [2]);
    assert_eq!(agents_of(&rfc.robots, 2), [Agent::Nobody]);
    assert!(rfc
        .diagnostics
        .iter()
        .any(|d| d.line == 7 && d.code == Code::InvalidUserAgent));
    // A header-like value: the token in front (`googlebot`) and the value whole.
    assert!(check(&tok("Googlebot"), "/googlebot"));
    assert!(check(
        &ProductToken::verbatim("Googlebot/2.1"),
        "/googlebot"
    ));
    assert!(!check(
        &ProductToken::verbatim("Googlebot/2.2"),
        "/googlebot"
    ));

    // Google mode: none of these names gets a group.
    let google = Robots::parse_with(body.as_bytes(), &Options::mode(Mode::Google)).robots;
    for name in ["foo bar", "Übot", "Googlebot/2.1"] {
        let t = ProductToken::verbatim(name);
        for path in ["/foo-bar", "/ubot", "/googlebot"] {
            assert!(!google.is_allowed(&t, path), "{name} {path}");
        }
    }
}

#[test]
fn verbatim_names_need_utf8_and_fold_only_to_their_own_kind() {
    // A value that is not UTF-8 names no crawler (the token in front still does).
    let body = b"User-agent: *\nDisallow: /\n\nUser-agent: Unic\xf6deB\xf6t\nAllow: /\n";
    let rfc = Robots::parse(body).robots;
    assert!(!rfc.is_allowed(&ProductToken::verbatim("UnicödeBöt"), "/x"));
    assert!(!rfc.is_allowed(&ProductToken::verbatim("Unic\u{fffd}deB\u{fffd}t"), "/x"));
    assert!(rfc.is_allowed(&tok("unic"), "/x"));
    // KELVIN SIGN lowercases to an ASCII `k`: kept, so that it is not the crawler `kbot`.
    let kelvin = ProductToken::verbatim("\u{212a}bot");
    assert_eq!(kelvin.as_str(), "\u{212a}bot");
    for mode in [Mode::Rfc, Mode::Google] {
        let body = b"User-agent: *\nDisallow: /\n\nUser-agent: kbot\nAllow: /\n";
        let robots = Robots::parse_with(body, &Options::mode(mode)).robots;
        assert!(!robots.is_allowed(&kelvin, "/x"), "{mode:?}");
    }
    let body = "User-agent: *\nDisallow: /\n\nUser-agent: \u{212a}bot\nAllow: /\n";
    let rfc = Robots::parse(body.as_bytes()).robots;
    assert!(rfc.is_allowed(&kelvin, "/x"));
    assert!(!rfc.is_allowed(&tok("kbot"), "/x"));
}

#[test]
fn missing_colon_is_split_at_space_or_tab_only_in_both_modes() {
    for mode in [Mode::Rfc, Mode::Google] {
        let parse = |body: &[u8]| Robots::parse_with(body, &Options::mode(mode));
        for sep in [b'\x0b', b'\x0c'] {
            // `Disallow<VT>/x` is not a record: nothing is disallowed.
            let body = [b"User-agent: *\nDisallow".as_slice(), &[sep], b"/x\n"].concat();
            let p = parse(&body);
            assert_eq!(p.robots.rule_count(), 0, "{mode:?} {sep:#x}");
            assert!(p.robots.is_allowed(&tok("a"), "/x"));
            let got: Vec<_> = p.diagnostics.iter().map(|d| (d.line, d.code)).collect();
            assert_eq!(got, [(2, Code::InvalidLine)], "{mode:?} {sep:#x}");
            // Next to a space it is trimmed like any whitespace.
            let body = [b"User-agent: *\nDisallow ".as_slice(), &[sep], b"/x\n"].concat();
            let p = parse(&body);
            assert!(!p.robots.is_allowed(&tok("a"), "/x"), "{mode:?} {sep:#x}");
            let got: Vec<_> = p.diagnostics.iter().map(|d| (d.line, d.code)).collect();
            assert_eq!(got, [(2, Code::MissingColon)], "{mode:?} {sep:#x}");
        }
        // A tab separates, as a space does.
        assert!(!parse(b"User-agent: *\nDisallow\t/x\n")
            .robots
            .is_allowed(&tok("a"), "/x"));
    }
}

/// The 512,000-byte limit applies in `Mode::Google` too, deliberately: google/robotstxt's
/// library reads everything, but Googlebot reads only the first 500 KiB (the `Mode` table).
#[test]
fn size_limit_applies_in_both_modes() {
    let mut body = b"User-agent: *\nDisallow: /a\n".to_vec();
    while body.len() < DEFAULT_MAX_BYTES {
        body.extend_from_slice(b"# filler filler filler filler filler\n");
    }
    body.extend_from_slice(b"Disallow: /b\n");
    for mode in [Mode::Rfc, Mode::Google] {
        let parsed = Robots::parse_with(&body, &Options::mode(mode));
        assert_eq!(parsed.robots.rule_count(), 1, "{mode:?}");
        assert!(!parsed.robots.is_allowed(&tok("x"), "/a"));
        assert!(parsed.robots.is_allowed(&tok("x"), "/b"), "{mode:?}");
        let last = parsed.diagnostics.last().map(|d| d.code);
        assert_eq!(last, Some(Code::ContentAfterLimit), "{mode:?}");
    }
}

/// A rule's text is its key as spelled and its value: it prints, pads and compares as the one
/// line the file wrote, and a spelling shared by several lines stays each line's own.
#[test]
fn rule_text_is_the_line_as_written() {
    let body = b"User-agent: *\nDISALLOW :/x # why\ndisallow:/y\nDISALLOW :/yy\n";
    let robots = Robots::parse(body).robots;
    let texts: Vec<String> = (0..robots.rule_count())
        .filter_map(|i| robots.rule(i))
        .map(|r| r.text.to_string())
        .collect();
    assert_eq!(texts, ["DISALLOW :/x", "disallow:/y", "DISALLOW :/yy"]);
    let first = robots.rule(0).expect("rule 0").text;
    assert_eq!(
        (first.key(), first.value(), first.len()),
        ("DISALLOW :", "/x", 12)
    );
    assert_eq!(first, "DISALLOW :/x");
    assert_eq!(first, String::from("DISALLOW :/x"));
    assert!(first != "DISALLOW :/" && first != "DISALLOW : /x" && first != "DISALLOW :/xy");
    assert_eq!(format!("[{first:>14}]"), "[  DISALLOW :/x]");
    assert_eq!(format!("[{first:.4}]"), "[DISA]");
    // Equal lines are equal however they are split; different lines are not.
    let other = Robots::parse(b"User-agent: a\nDISALLOW :/x\n").robots;
    assert_eq!(other.rule(0).expect("rule").text, first);
    assert_ne!(robots.rule(2).expect("rule 2").text, first);
}

/// A group that repeats the previous group's rules (one group per agent, the same rules in
/// each) keeps one copy of their values; each line still reports its own problems, prints
/// as written and answers as it would alone.
#[test]
fn a_repeated_group_shares_its_values_and_keeps_its_own_lines() {
    // Plain values, then a literal `$`, a control byte and a value that is not its canonical
    // text (each reported or kept per line, so never shared), then a plain one again.
    let rules =
        "Disallow: /private/\nAllow: /private/ok$\nDisallow: /a$b\nDisallow: /x\x01y\nDisallow: /%7e\nDisallow: /*.pdf$\n";
    let same = format!("User-agent: a\n{rules}\nUser-agent: b\n{rules}");
    // The same lengths, other bytes: nothing to share.
    let other = format!(
        "User-agent: a\n{rules}\nUser-agent: b\n{}",
        rules.replace("private", "qrivate").replace("pdf", "pdg")
    );
    let urls = [
        "/private/",
        "/private/ok",
        "/private/ok2",
        "/a$b",
        "/x\x01y",
        "/x%01y",
        "/~",
        "/%7E",
        "/f.pdf",
        "/f.pdfx",
        "/qrivate/",
    ];
    for mode in [Mode::Rfc, Mode::Google] {
        let options = Options::mode(mode);
        let parsed = Robots::parse_with(same.as_bytes(), &options);
        let alone = Robots::parse_with(format!("User-agent: b\n{rules}").as_bytes(), &options);
        for url in urls {
            let want = alone.robots.is_allowed(&tok("b"), url);
            assert_eq!(
                parsed.robots.is_allowed(&tok("a"), url),
                want,
                "{mode:?} a {url}"
            );
            assert_eq!(
                parsed.robots.is_allowed(&tok("b"), url),
                want,
                "{mode:?} b {url}"
            );
        }
        // Every problem of the first group's lines again on the second's, 8 lines on.
        let first: Vec<(u32, Code)> = parsed
            .diagnostics
            .iter()
            .filter(|d| d.line <= 7)
            .map(|d| (d.line + 8, d.code))
            .collect();
        let second: Vec<(u32, Code)> = parsed
            .diagnostics
            .iter()
            .filter(|d| d.line > 8)
            .map(|d| (d.line, d.code))
            .collect();
        assert!(
            first.iter().any(|&(_, c)| c == Code::LiteralDollar),
            "{mode:?}"
        );
        assert!(
            first.iter().any(|&(_, c)| c == Code::ControlInPath),
            "{mode:?}"
        );
        assert_eq!(first, second, "{mode:?}");
        let lines = |r: &Robots| -> Vec<(u32, String)> {
            (0..r.rule_count())
                .filter_map(|i| r.rule(i))
                .map(|r| (r.line, r.text.to_string()))
                .collect()
        };
        let got = lines(&parsed.robots);
        let want: Vec<(u32, String)> = same
            .lines()
            .enumerate()
            .filter(|(_, l)| l.starts_with("Allow") || l.starts_with("Disallow"))
            .map(|(i, l)| (i as u32 + 1, l.to_owned()))
            .collect();
        // Google mode adds no rule here (no `index.htm`): one rule a line in both modes.
        assert_eq!(got, want, "{mode:?}");
        // The three plain values (`/private/`, `/private/ok$`, `/*.pdf$`: 28 bytes) are kept
        // once (both files measured before any check builds a lookup).
        let shared = Robots::parse_with(same.as_bytes(), &options).robots;
        let unshared = Robots::parse_with(other.as_bytes(), &options).robots;
        assert!(
            unshared.heap_size() >= shared.heap_size() + 28,
            "{mode:?}: {} vs {}",
            unshared.heap_size(),
            shared.heap_size()
        );
    }
}

/// The agents of group `g`, in order.
fn agents_of(r: &Robots, g: usize) -> Vec<Agent<'_>> {
    r.group(g)
        .map(|g| g.agents().map(|(a, _)| a).collect())
        .unwrap_or_default()
}

#[test]
fn groups_sitemaps_and_records_are_iterators_of_views() {
    let body = b"Sitemap: https://example.com/a.xml\nHost: example.com\n\
User-agent: A\nUser-agent: B\nCrawl-delay: 3\nDisallow: /x\n\n\
User-agent: *\nAllow: /\nSitemap: https://example.com/b.xml\n";
    let r = Robots::parse(body).robots;

    let mut groups = r.groups();
    assert_eq!(groups.len(), 2);
    let last = groups.next_back().expect("the * group");
    assert_eq!((last.index(), last.line(), last.rules()), (1, 8, 1..2));
    assert_eq!(groups.len(), 1);
    let first = groups.next().expect("the first group");
    assert_eq!((first.index(), first.line(), first.rules()), (0, 3, 0..1));
    assert_eq!((groups.len(), groups.next()), (0, None));
    assert!(r.group(2).is_none());
    assert_eq!(r.group(1).map(|g| g.line()), Some(8));

    let mut agents = first.agents();
    assert_eq!(agents.len(), 2);
    assert_eq!(agents.next_back(), Some((Agent::Token("b"), 4)));
    assert_eq!(agents.len(), 1);
    assert_eq!(agents.next(), Some((Agent::Token("a"), 3)));
    assert_eq!(agents.next(), None);
    assert_eq!(
        format!("{:?}", last.agents()),
        format!("{:?}", [(Agent::Star, 8)])
    );

    let sitemaps: Vec<_> = r.sitemaps().rev().map(|s| (s.url, s.line)).collect();
    assert_eq!(
        sitemaps,
        [
            ("https://example.com/b.xml", 10),
            ("https://example.com/a.xml", 1)
        ]
    );
    let mut records = r.records();
    assert_eq!(records.len(), 2);
    let host = records.next().expect("host");
    assert_eq!(
        (host.key, host.value, host.line, host.group),
        (OtherKey::Host, "example.com", 2, None)
    );
    assert_eq!(records.len(), 1);
    let delay = records.next().expect("crawl-delay");
    assert_eq!(
        (delay.key, delay.value, delay.group),
        (OtherKey::CrawlDelay, "3", Some(0))
    );
    assert!(format!("{:?}", r.sitemaps()).contains("https://example.com/a.xml"));
}
