//! robots.txt as written for AI crawlers: `Content-Usage` (draft-ietf-aipref-attach and
//! draft-ietf-aipref-vocab, working copies in the team's `shared/specs/`, cited by section),
//! `Content-Signal`, `License`, `LLM-Policy`; several agents at once; and properties: the new
//! records never change an allow/disallow verdict, and a rule the semantic lint calls dead
//! never decides.

use crawlgate::{
    Code, ContentSignals, GroupMatch, Mode, Options, Preference, ProductToken, Robots, Severity,
    UsagePreferences,
};
use proptest::prelude::*;

use Preference::{Allowed as Y, Disallowed as N, Unknown as U};

fn tok(s: &str) -> ProductToken {
    ProductToken::new(s).expect("valid token")
}

fn prefs(train_ai: Preference, search: Preference) -> UsagePreferences {
    UsagePreferences { train_ai, search }
}

/// draft-ietf-aipref-attach §1.2 (Examples): the same preference as the header, in robots.txt.
#[test]
fn attach_section_1_2_example() {
    let parsed = Robots::parse(b"User-Agent: *\nAllow: /\nContent-Usage: train-ai=n\n");
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let u = parsed
        .robots
        .usage(&tok("anybot"), "https://example.com/any/thing");
    assert!(u.decision.allowed);
    assert_eq!(u.preferences, prefs(N, U));
    assert_eq!(u.rules.len(), 1);
    assert_eq!(u.rules[0].line, 3);
    assert_eq!(u.rules[0].path, None);
    assert_eq!(u.rules[0].statement, "train-ai=n");
}

/// draft-ietf-aipref-attach §3.4: the example file ("Example robots.txt file") and its table
/// ("Sample of usage preferences for different paths"). The prose says ExampleBot gets "ai=y";
/// the file says `train-ai=y`, which is what counts.
#[test]
fn attach_section_3_4_example() {
    let body = b"User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: train-ai=y
";
    for mode in [Mode::Rfc, Mode::Google] {
        let parsed = Robots::parse_with(body, &Options::mode(mode));
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let r = &parsed.robots;
        let other = tok("OtherBot");
        // The table.
        let u = r.usage(&other, "/test");
        assert!(u.decision.allowed);
        assert_eq!(u.preferences, prefs(N, U));
        assert_eq!(u.rules.iter().map(|x| x.line).collect::<Vec<_>>(), [4]);
        let u = r.usage(&other, "/never/test");
        assert!(!u.decision.allowed);
        assert!(u.preferences.is_unknown() && u.rules.is_empty(), "N/A");
        let u = r.usage(&other, "/ai-ok/test");
        assert!(u.decision.allowed);
        assert_eq!(u.preferences, prefs(Y, U));
        assert_eq!(u.rules.iter().map(|x| x.line).collect::<Vec<_>>(), [5]);
        assert_eq!(u.rules[0].path, Some("/ai-ok/"));
        // ExampleBot uses its own group: everything crawlable, train-ai=y.
        let example = tok("ExampleBot");
        for path in ["/test", "/never/test", "/ai-ok/test"] {
            let u = r.usage(&example, path);
            assert!(u.decision.allowed, "{path}");
            assert_eq!(u.preferences, prefs(Y, U), "{path}");
            assert_eq!(u.rules[0].line, 9);
        }
    }
}

/// draft-ietf-aipref-attach §3.1: rules with identical paths and conflicting preferences apply
/// as draft-ietf-aipref-vocab §5.1 combines them (disallow wins), unlike Allow/Disallow; and
/// the order of rules in a group carries no meaning.
#[test]
fn attach_section_3_1_identical_paths_combine() {
    let body = b"User-agent: *
Content-Usage: /a/ train-ai=y, search=y
Disallow: /private/
Content-Usage: /a/ train-ai=n
Content-Usage: /a/b/ search=n
Content-Usage: /a/ search=y
";
    let r = Robots::parse(body).robots;
    let u = r.usage(&tok("bot"), "/a/x");
    assert_eq!(u.preferences, prefs(N, Y));
    assert_eq!(
        u.rules.iter().map(|x| x.line).collect::<Vec<_>>(),
        [2, 4, 6]
    );
    // The longer path wins outright; only its categories are stated.
    let u = r.usage(&tok("bot"), "/a/b/c");
    assert_eq!(u.preferences, prefs(U, N));
    // No rule matches: unknown.
    assert!(r.usage(&tok("bot"), "/z").preferences.is_unknown());
}

/// draft-ietf-aipref-attach §3.1: paths are matched as Allow/Disallow paths are, with their
/// percent-encoding rules and `*`/`$`.
#[test]
fn attach_section_3_1_paths_match_like_allow_and_disallow() {
    let body = b"User-agent: *
Content-Usage: /%7Euser/ train-ai=n
Content-Usage: /*.pdf$ search=n
";
    let r = Robots::parse(body).robots;
    assert_eq!(r.usage(&tok("bot"), "/~user/x").preferences, prefs(N, U));
    assert_eq!(r.usage(&tok("bot"), "/doc/a.pdf").preferences, prefs(U, N));
    assert!(r
        .usage(&tok("bot"), "/doc/a.pdf?x")
        .preferences
        .is_unknown());
}

/// draft-ietf-aipref-vocab §6.5.1 and §6.5.2, written as robots.txt rules.
#[test]
fn vocab_section_6_5_examples_in_robots_txt() {
    let body = b"User-agent: *
Content-Usage: /dup/ train-ai=y, train-ai, search=n, search=\"n\"
Content-Usage: /params/ train-ai;allow=n, train-ai=y
Content-Usage: /upper/ Train-AI=n
";
    let parsed = Robots::parse(body);
    let r = &parsed.robots;
    let bot = tok("bot");
    assert_eq!(r.usage(&bot, "/dup/x").preferences, prefs(U, U));
    assert_eq!(r.usage(&bot, "/params/x").preferences, prefs(Y, U));
    assert_eq!(r.usage(&bot, "/upper/x").preferences, prefs(U, U));
    let found: Vec<_> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.code, d.line))
        .collect();
    assert_eq!(
        found,
        [
            (Code::MalformedPreference, 2),
            (Code::MalformedPreference, 2),
            (Code::MalformedPreference, 4)
        ]
    );
}

/// SPEC §1: the new records are not group boundaries. Between two `user-agent` lines they
/// leave both agents in one group (with the `agents-joined` warning), in both modes.
#[test]
fn new_records_are_not_group_boundaries() {
    let body = b"User-agent: a
Content-Usage: train-ai=n
Content-Signal: ai-train=no
License: https://example.com/license.xml
LLM-Policy: /llms.txt
User-agent: b
Disallow: /x
";
    for mode in [Mode::Rfc, Mode::Google] {
        let parsed = Robots::parse_with(body, &Options::mode(mode));
        let r = &parsed.robots;
        assert_eq!(r.groups().len(), 1);
        assert!(!r.is_allowed(&tok("a"), "/x"));
        assert!(!r.is_allowed(&tok("b"), "/x"));
        assert_eq!(r.usage(&tok("b"), "/y").preferences, prefs(N, U));
        assert_eq!(r.content_signals(&tok("b")).signals.ai_train, N);
        assert!(parsed
            .diagnostics
            .iter()
            .any(|d| d.code == Code::AgentsJoined && d.line == 6));
    }
}

#[test]
fn group_records_before_any_group_are_ignored() {
    let parsed = Robots::parse(b"Content-Usage: train-ai=n\nContent-Signal: search=yes\n");
    assert_eq!(parsed.robots.content_usage_rules().count(), 0);
    assert_eq!(parsed.robots.content_signal_lines().count(), 0);
    let found: Vec<_> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.code, d.line))
        .collect();
    assert_eq!(
        found,
        [(Code::RuleOutsideGroup, 1), (Code::RuleOutsideGroup, 2)]
    );
}

/// Cloudflare's managed robots.txt: signals per group, combined per agent; never a crawl
/// permission.
#[test]
fn content_signal_per_group() {
    let body = b"User-Agent: *
Content-Signal: search=yes, ai-input=yes, ai-train=no
Allow: /

User-agent: GPTBot
Content-Signal: search=yes
Content-Signal: ai-train=no, ai-input=no
Disallow: /
";
    let parsed = Robots::parse(body);
    // Search Console's view of the record (once), and GPTBot's `search=yes` under its full block.
    let found: Vec<_> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.code, d.line))
        .collect();
    assert_eq!(
        found,
        [
            (Code::SignalNotUnderstood, 2),
            (Code::BlockedButSignalled, 6)
        ]
    );
    let r = &parsed.robots;
    let s = r.content_signals(&tok("anybot"));
    assert_eq!(
        s.signals,
        ContentSignals {
            search: Y,
            ai_input: Y,
            ai_train: N
        }
    );
    assert_eq!(s.lines.len(), 1);
    assert_eq!(
        s.lines[0].text,
        "Content-Signal: search=yes, ai-input=yes, ai-train=no"
    );
    let s = r.content_signals(&tok("gptbot"));
    assert_eq!(
        s.signals,
        ContentSignals {
            search: Y,
            ai_input: N,
            ai_train: N
        }
    );
    assert_eq!(s.lines.iter().map(|l| l.line).collect::<Vec<_>>(), [6, 7]);
    assert!(!r.is_allowed(&tok("gptbot"), "/"));
}

#[test]
fn license_and_llm_policy_are_global() {
    let body = b"License: https://example.com/license.xml
User-agent: *
Disallow: /tmp/
LLM-Policy: /llms.txt
License: ftp://example.com/l.xml
";
    let parsed = Robots::parse(body);
    let r = &parsed.robots;
    assert_eq!(r.licenses().len(), 1);
    assert_eq!(r.licenses()[0].url, "https://example.com/license.xml");
    assert_eq!(r.llm_policies()[0].url, "/llms.txt");
    assert_eq!(r.llm_policies()[0].line, 4);
    let found: Vec<_> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.code, d.severity, d.line))
        .collect();
    assert_eq!(found, [(Code::InvalidPolicyUrl, Severity::Error, 5)]);
}

/// `to_robots_txt` keeps the new records, and parsing its output gives the same answers.
#[test]
fn printing_keeps_the_new_records() {
    let body = b"LLM-Policy: https://example.com/llm.txt
User-agent: *
Content-Usage: /a/ train-ai=n
Content-Signal: search=yes, ai-train=no
Disallow: /x
License: https://example.com/license.xml
";
    let first = Robots::parse(body).robots;
    let printed = first.to_robots_txt();
    let second = Robots::parse(printed.as_bytes());
    assert!(
        second
            .diagnostics
            .iter()
            .all(|d| d.code == Code::SignalNotUnderstood),
        "{printed}"
    );
    let second = second.robots;
    let urls = |r: &Robots| -> Vec<String> {
        r.licenses()
            .iter()
            .chain(r.llm_policies())
            .map(|l| l.url.clone())
            .collect()
    };
    assert_eq!(urls(&second), urls(&first));
    let bot = tok("bot");
    assert_eq!(
        second.usage(&bot, "/a/b").preferences,
        first.usage(&bot, "/a/b").preferences
    );
    assert_eq!(
        second.content_signals(&bot).signals,
        first.content_signals(&bot).signals
    );
    assert_eq!(printed, second.to_robots_txt());
}

/// Google's "Order of precedence for user agents" example
/// (developers.google.com/search/docs/crawling-indexing/robots/robots_txt): groups for
/// googlebot-news, `*` and googlebot.
#[test]
fn several_agents_follow_the_most_specific_group() {
    let body = b"user-agent: googlebot-news
disallow: /1

user-agent: *
disallow: /2

user-agent: googlebot
disallow: /3
";
    for mode in [Mode::Rfc, Mode::Google] {
        let r = Robots::parse_with(body, &Options::mode(mode)).robots;
        let tokens = |names: &[&str]| names.iter().map(|n| tok(n)).collect::<Vec<_>>();
        let only = |names: &[&str]| -> Vec<&str> {
            let rules = r.rules_for_any(&tokens(names));
            ["/1", "/2", "/3"]
                .into_iter()
                .filter(|p| !rules.check(p).allowed)
                .collect()
        };
        // Googlebot News: its own group.
        assert_eq!(only(&["googlebot-news", "googlebot"]), ["/1"]);
        // Googlebot (web).
        assert_eq!(only(&["googlebot"]), ["/3"]);
        // Googlebot-Image (tokens Googlebot-Image, Googlebot): no group of its own, so
        // googlebot's, not `*`.
        let image = r.rules_for_any(&tokens(&["googlebot-image", "googlebot"]));
        assert_eq!(image.matched_token(), Some("googlebot"));
        assert_eq!(only(&["googlebot-image", "googlebot"]), ["/3"]);
        // Storebot-Google: `*`.
        let store = r.rules_for_any(&tokens(&["storebot-google"]));
        assert_eq!(store.group(), GroupMatch::Star);
        assert_eq!(store.matched_token(), Some("*"));
        assert_eq!(only(&["storebot-google"]), ["/2"]);
        // No tokens at all: `*`.
        assert_eq!(only(&[]), ["/2"]);
        // The order is the caller's: most specific first.
        assert_eq!(only(&["googlebot", "googlebot-news"]), ["/3"]);
    }
    let none = Robots::parse(b"User-agent: a\nDisallow: /\n").robots;
    let rules = none.rules_for_any(&[tok("b")]);
    assert_eq!(rules.group(), GroupMatch::None);
    assert_eq!(rules.matched_token(), None);
}

/// The usage preferences of several agents come from the group chosen for the set. (Without
/// the `Disallow:` line, `*` and googlebot would be one group: `content-usage` does not end a
/// run of `user-agent` lines.)
#[test]
fn several_agents_usage() {
    let body = b"User-agent: *
Content-Usage: train-ai=n
Disallow:

User-agent: googlebot
Content-Usage: train-ai=y
Allow: /
";
    let r = Robots::parse(body).robots;
    let rules = r.rules_for_any(&[tok("googlebot-image"), tok("googlebot")]);
    assert_eq!(rules.usage("/x").preferences, prefs(Y, U));
    assert_eq!(rules.group_indexes().collect::<Vec<_>>(), [1]);
}

// ---------------------------------------------------------------------------------------------
// Properties.

fn base_line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec!["a", "b", "*", "googlebot", "a/1.0"])
            .prop_map(|a| format!("User-agent: {a}")),
        5 => (
            prop::sample::select(vec!["Allow", "Disallow"]),
            "[/*][/ab*$]{0,6}"
        )
            .prop_map(|(k, p)| format!("{k}: {p}")),
        1 => Just("Disallow:".to_owned()),
        1 => Just("Sitemap: https://example.com/s.xml".to_owned()),
        1 => Just("Crawl-delay: 3".to_owned()),
        1 => Just(String::new()),
        1 => Just("# comment".to_owned()),
    ]
}

fn usage_line() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "Content-Usage: train-ai=n",
        "Content-Usage: /a train-ai=y, search=n",
        "Content-Usage: /*b$ search=y",
        "content-usage:/ab\ttrain-ai=n",
        "Content-Usage: Train-AI=n",
        "Content-Usage: images/ train-ai=n",
        "Content-Usage:",
        "Content-Usage /a train-ai=n",
        "content-usage train-ai=n",
        "Content-Usage: /a",
        "Content-Usage: train-genai=n, bots=y # old labels",
        "Content-Signal: search=yes, ai-input=yes, ai-train=no",
        "Content-Signal: ai-train=n, foo",
        "Content-Signal:",
        "License: https://example.com/license.xml",
        "License: license.xml",
        "LLM-Policy: /llms.txt",
        "LLM-Policy: https://example.com/llm-policy",
        "llm-policy: not a url",
    ])
    .prop_map(str::to_owned)
}

/// What a verdict is, independent of line numbers: allowed, and the deciding rule as written.
fn verdicts(body: &str, mode: Mode) -> Vec<(bool, Option<String>)> {
    let r = Robots::parse_with(body.as_bytes(), &Options::mode(mode)).robots;
    let mut out = Vec::new();
    for agent in ["a", "b", "googlebot", "other"] {
        for path in [
            "/",
            "/a",
            "/ab",
            "/b",
            "/ba$",
            "/a*b",
            "/robots.txt",
            "/x/ab",
        ] {
            let d = r.check(&tok(agent), path);
            out.push((d.allowed, d.rule().map(|x| x.text.to_string())));
        }
        let any = r.rules_for_any(&[tok(agent), tok("b")]);
        let d = any.check("/ab");
        out.push((d.allowed, d.rule().map(|x| x.text.to_string())));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// Adding `Content-Usage`, `Content-Signal`, `License` and `LLM-Policy` lines anywhere
    /// (well-formed or not) never changes an allow/disallow verdict, in either mode.
    #[test]
    fn new_records_never_change_a_verdict(
        base in prop::collection::vec(base_line(), 0..14),
        extra in prop::collection::vec((any::<prop::sample::Index>(), usage_line()), 1..6),
    ) {
        let mut lines = base.clone();
        for (at, line) in &extra {
            let i = at.index(lines.len() + 1);
            lines.insert(i, line.clone());
        }
        let before = base.join("\n");
        let after = lines.join("\n");
        for mode in [Mode::Rfc, Mode::Google] {
            prop_assert_eq!(
                verdicts(&before, mode),
                verdicts(&after, mode),
                "mode {:?}\n--- before\n{}\n--- after\n{}",
                mode,
                before,
                after
            );
            let a = Robots::parse_with(before.as_bytes(), &Options::mode(mode)).robots;
            let b = Robots::parse_with(after.as_bytes(), &Options::mode(mode)).robots;
            fn agents(r: &Robots) -> Vec<Vec<crawlgate::Agent<'_>>> {
                r.groups().map(|g| g.agents().map(|x| x.0).collect()).collect()
            }
            prop_assert_eq!(agents(&a), agents(&b));
            prop_assert_eq!(a.rule_count(), b.rule_count());
        }
    }
}

fn rule_line() -> impl Strategy<Value = String> {
    (any::<bool>(), "[/*][/ab*$]{0,6}")
        .prop_map(|(allow, p)| format!("{}: {p}", if allow { "Allow" } else { "Disallow" }))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// A rule reported as `duplicate-rule`, `conflicting-rules` or `shadowed-rule` never
    /// decides a check, for any agent, in either mode. Two groups share agent `a`, so a rule
    /// can be dead in one agent's list and live in another's. Enough rules are generated
    /// sometimes for the lint's prefix-index path.
    #[test]
    fn dead_rules_never_decide(
        first in prop::collection::vec(rule_line(), 0..40),
        second in prop::collection::vec(rule_line(), 0..8),
        paths in prop::collection::vec("[/ab$*]{0,8}", 1..12),
    ) {
        let body = format!(
            "User-agent: a\n{}\nUser-agent: a\nUser-agent: b\n{}\n",
            first.join("\n"),
            second.join("\n")
        );
        for mode in [Mode::Rfc, Mode::Google] {
            let parsed = Robots::parse_with(body.as_bytes(), &Options::mode(mode));
            let dead: Vec<u32> = parsed
                .diagnostics
                .iter()
                .filter(|d| matches!(d.code, Code::DuplicateRule | Code::ConflictingRules | Code::ShadowedRule))
                .map(|d| d.line)
                .collect();
            for agent in ["a", "b"] {
                let rules = parsed.robots.rules_for(&tok(agent));
                for p in &paths {
                    let path = format!("/{p}");
                    if let Some(rule) = rules.check_path(&path).rule() {
                        prop_assert!(
                            !dead.contains(&rule.line),
                            "mode {:?}: line {} decided {} for {} but is reported dead\n{}",
                            mode, rule.line, path, agent, body
                        );
                    }
                }
            }
        }
    }
}

/// The lint finds the classic cases (and only them) on a small file, in both modes.
#[test]
fn dead_rules_examples() {
    let body = b"User-agent: *
Allow: /*
Disallow: /a
Disallow: /ab
Allow: /q
Disallow: /q
Disallow: /q
";
    for mode in [Mode::Rfc, Mode::Google] {
        let parsed = Robots::parse_with(body, &Options::mode(mode));
        let found: Vec<_> = parsed
            .diagnostics
            .iter()
            .filter(|d| d.code != Code::RedundantWildcard)
            .map(|d| (d.code, d.line))
            .collect();
        assert_eq!(
            found,
            [
                (Code::ShadowedRule, 3),
                (Code::ConflictingRules, 6),
                (Code::DuplicateRule, 7)
            ],
            "{mode:?}"
        );
    }
}
