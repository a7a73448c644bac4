//! `Mode::Google` against the `robotstxt` crate (0.3, a port of google/robotstxt), on generated
//! robots.txt files, agents and URLs, outside robotstxt 0.3's known bugs.
//!
//! The generator never produces what trips those bugs (each has a switch in [`Knobs`], off in
//! the property test; `survey_disagreements` turns them on one at a time and counts):
//!
//! 1. `star_inside`: its wildcard matcher keeps only the leftmost candidate after a `*`
//!    (`pos.insert` where the C++ assigns `pos[i]`), so `/*ab` misses `/aab` and `/a*b$` misses
//!    `/abxb`. Generated patterns have `*` only at the end (`/a*`, `/a*$`) or alone.
//! 2. `bom`: it does not skip a leading byte order mark (it compares characters, not bytes, with
//!    `EF BB BF`), so the first line is not read. No BOM is generated.
//! 3. `stray_between_agents`: `sitemap` and unknown lines end a group (the old C++ behaviour;
//!    google/robotstxt and crawlgate let `user-agent` lines after them join the group). Such
//!    lines are generated only before the first group or after a group's first rule.
//! 4. `lone_percent`: when a pattern needs escaping (non-ASCII, or lower-case hex), a `%` not
//!    followed by two hex digits is dropped with the two characters after it (`/100%/é` loses
//!    `%/é`'s `%/`). Patterns write `%` only as `%XX`.
//! 5. `leading_ws_no_colon`: a line with leading whitespace and no colon (` disallow /x`) is
//!    ignored (its key is taken as empty). The missing-colon form is generated without leading
//!    whitespace.
//! 6. `nbsp`: it trims U+00A0 (and other Unicode whitespace) around keys and values, where
//!    Google trims ASCII whitespace only. Only spaces and tabs are generated.
//!
//! Besides: crawlgate reads the first 512,000 bytes and robotstxt everything, and robotstxt
//! counts line lengths in characters, so files stay small; robotstxt indexes URL paths by
//! character where the C++ uses bytes, so URLs are ASCII (patterns may hold `é`, which both
//! escape to `%C3%A9`).

use crawlgate::{Mode, Options, ProductToken, Robots};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

/// Which of robotstxt 0.3's known bugs the generator may trip (see the module docs).
#[derive(Debug, Clone, Copy, Default)]
struct Knobs {
    star_inside: bool,
    bom: bool,
    stray_between_agents: bool,
    lone_percent: bool,
    leading_ws_no_colon: bool,
    nbsp: bool,
}

/// One generated case: a robots.txt body and the (agent, URL) pairs to check.
type Case = (String, Vec<(String, String)>);

fn s(options: &[&'static str]) -> impl Strategy<Value = &'static str> + Clone {
    select(options.to_vec())
}

/// Characters that make rules match often, and the rest (escapes, `$`, non-ASCII, index.html).
const COMMON: &[&str] = &["a", "b", "/"];

fn pattern(k: Knobs) -> impl Strategy<Value = String> {
    let mut rare = vec![
        ".",
        "-",
        "?",
        "=",
        "&",
        "$",
        "%2A",
        "%2a",
        "%24",
        "%2F",
        "%61",
        "%e9",
        "%C3%A9",
        "é",
        "index.html",
        "index.htm",
    ];
    if k.star_inside {
        rare.extend(["*", "*", "*a"]);
    }
    if k.lone_percent {
        rare.extend(["%", "%/", "%z", "é%"]);
    }
    let atom = prop_oneof![4 => select(COMMON.to_vec()), 1 => select(rare)];
    (
        s(&["/", "/", "/", "*"]),
        prop::collection::vec(atom, 0..7),
        s(&["", "", "$", "*", "*$", "**"]),
        0..12u8,
    )
        .prop_map(move |(start, body, end, empty)| {
            if empty == 0 {
                return String::new();
            }
            let start = if start == "*" && !body.is_empty() && !k.star_inside {
                "/"
            } else {
                start
            };
            format!("{start}{}{end}", body.concat())
        })
}

fn url() -> impl Strategy<Value = String> {
    (
        s(&[
            "http://example.com",
            "https://example.com:8080",
            "//example.com",
            "",
        ]),
        prop::collection::vec(
            prop_oneof![
                4 => select(COMMON.to_vec()),
                1 => s(&[
                    ".", "-", "?", "=", "&", "$", "*", "%2A", "%24", "%2F", "%61", "%C3%A9",
                    "index.html", ";p",
                ]),
            ],
            0..8,
        ),
        s(&["", "", "", "#frag", "/"]),
    )
        .prop_map(|(origin, path, tail)| {
            let path = path.concat();
            if origin.is_empty() || !path.is_empty() {
                format!("{origin}/{path}{tail}")
            } else {
                format!("{origin}{tail}")
            }
        })
}

/// `key`, separator and `value`, with optional leading whitespace and trailing comment.
fn line(
    keys: &'static [&'static str],
    value: BoxedStrategy<String>,
    k: Knobs,
) -> impl Strategy<Value = String> {
    (
        s(&["", "", "", " ", "\t"]),
        select(keys.to_vec()),
        s(&[":", ": ", ": ", " : ", ":\t", " "]),
        value,
        s(&["", "", "", " # c", "#x", " "]),
        s(&["", "", "", "", "\u{a0}"]),
    )
        .prop_map(move |(lead, key, sep, value, comment, nbsp)| {
            // The missing-colon form: one value token, no leading whitespace (bug 5).
            let no_colon = sep == " ";
            let lead = if no_colon && !k.leading_ws_no_colon {
                ""
            } else {
                lead
            };
            let nbsp = if k.nbsp { nbsp } else { "" };
            format!("{lead}{key}{sep}{value}{nbsp}{comment}")
        })
}

fn agent_value() -> BoxedStrategy<String> {
    s(&[
        "foo",
        "FooBot",
        "foobot",
        "bar",
        "*",
        "*",
        "foo/1.0",
        "FooBot/2.1 (+http://x)",
        "* x",
        "*foo",
        "",
        "foo-bar_baz",
        "fo",
        "Foo Bar",
        "BAR",
    ])
    .prop_map(str::to_owned)
    .boxed()
}

const UA_KEYS: &[&str] = &[
    "User-agent",
    "user-agent",
    "USER-AGENT",
    "User-Agent",
    "useragent",
];
const RULE_KEYS: &[&str] = &[
    "Allow",
    "allow",
    "ALLOW",
    "Disallow",
    "disallow",
    "DISALLOW",
    "dissallow",
    "disalow",
    "Disallaw",
    "Disallowed",
];

/// Lines that neither start nor belong to a group: google/robotstxt ignores them for grouping,
/// robotstxt 0.3 ends the group on the first two kinds (bug 3). Comments and blank lines are
/// ignored by both.
fn stray() -> impl Strategy<Value = String> {
    s(&[
        "Sitemap: http://example.com/s.xml",
        "Crawl-delay: 5",
        "Host: example.com",
        "Unknown-key: v",
        "# comment",
        "",
    ])
    .prop_map(str::to_owned)
}

fn neutral() -> impl Strategy<Value = String> {
    s(&["# comment", "", "   ", "#"]).prop_map(str::to_owned)
}

fn group(k: Knobs) -> impl Strategy<Value = Vec<String>> {
    let ua = line(UA_KEYS, agent_value(), k);
    let rule = line(RULE_KEYS, pattern(k).boxed(), k);
    let first_rule = (s(&["Allow", "Disallow", "disallow"]), pattern(k))
        .prop_map(|(key, p)| format!("{key}: {p}"));
    let body_line = prop_oneof![4 => rule, 1 => neutral()];
    (
        prop::collection::vec(ua, 1..4),
        prop::collection::vec(
            if k.stray_between_agents {
                stray().boxed()
            } else {
                neutral().boxed()
            },
            0..2,
        ),
        any::<bool>(),
        first_rule,
        prop::collection::vec(body_line, 0..5),
        prop::collection::vec(stray(), 0..2),
    )
        .prop_map(|(mut agents, between, has_body, first, body, tail)| {
            // Lines between the user-agent lines (strays only with bug 3 on).
            for (i, l) in between.into_iter().enumerate() {
                let at = (i + 1).min(agents.len());
                agents.insert(at, l);
            }
            if has_body {
                agents.push(first);
                agents.extend(body);
                // After a rule, strays are safe for both.
                agents.extend(tail);
            }
            agents
        })
}

fn file(k: Knobs) -> impl Strategy<Value = String> {
    (
        prop::collection::vec(stray(), 0..2),
        prop::collection::vec(group(k), 1..5),
        prop::collection::vec(s(&["\n", "\n", "\r\n", "\r"]), 64),
        s(&["", "\n"]),
    )
        .prop_map(move |(prelude, groups, ends, last)| {
            let lines: Vec<String> = prelude
                .into_iter()
                .chain(groups.into_iter().flatten())
                .collect();
            let mut out = String::new();
            if k.bom {
                out.push('\u{feff}');
            }
            for (i, l) in lines.iter().enumerate() {
                out.push_str(l);
                if i + 1 < lines.len() {
                    out.push_str(ends[i % ends.len()]);
                }
            }
            out.push_str(last);
            out
        })
}

fn case(k: Knobs) -> impl Strategy<Value = Case> {
    (
        file(k),
        prop::collection::vec(
            (
                s(&["foo", "foobot", "bar", "baz", "foo-bar_baz", "FOO"]).prop_map(str::to_owned),
                url(),
            ),
            1..6,
        ),
    )
}

/// crawlgate in `Mode::Google`, and robotstxt 0.3.
fn answers(body: &str, agent: &str, url: &str) -> (bool, bool) {
    let robots = Robots::parse_with(body.as_bytes(), &Options::mode(Mode::Google)).robots;
    let token = ProductToken::new(agent).expect("generated agents are tokens");
    let ours = robots.check(&token, url).allowed;
    let theirs = robotstxt::DefaultMatcher::default().one_agent_allowed_by_robots(body, agent, url);
    (ours, theirs)
}

fn cases() -> u32 {
    std::env::var("DIFFERENTIAL_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// 3,000 generated files (`DIFFERENTIAL_CASES` to change), each checked for up to five
    /// (agent, URL) pairs.
    #[test]
    fn google_mode_agrees_with_robotstxt((body, checks) in case(Knobs::default())) {
        for (agent, url) in &checks {
            let (ours, theirs) = answers(&body, agent, url);
            prop_assert_eq!(
                ours, theirs,
                "agent {:?}, url {:?}: crawlgate {}, robotstxt {}\n{}",
                agent, url, ours, theirs, body
            );
        }
    }
}

/// Each documented robotstxt bug is real: with its generator switched on alone, the two
/// libraries disagree; with none, they agree. Prints the figures
/// (`cargo test --test differential survey -- --nocapture`; `DIFFERENTIAL_SURVEY=20000` for
/// the report's run). Bug 4 is too rare for a short run (5 in 20,000 files) and is shown by
/// `lone_percent_is_robotstxt_bug_4` instead.
#[test]
fn survey_disagreements() {
    let n: usize = std::env::var("DIFFERENTIAL_SURVEY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let base = Knobs::default();
    let variants: [(&str, Knobs); 7] = [
        ("none (the property test)", base),
        (
            "1 star_inside",
            Knobs {
                star_inside: true,
                ..base
            },
        ),
        ("2 bom", Knobs { bom: true, ..base }),
        (
            "3 stray_between_agents",
            Knobs {
                stray_between_agents: true,
                ..base
            },
        ),
        (
            "4 lone_percent",
            Knobs {
                lone_percent: true,
                ..base
            },
        ),
        (
            "5 leading_ws_no_colon",
            Knobs {
                leading_ws_no_colon: true,
                ..base
            },
        ),
        ("6 nbsp", Knobs { nbsp: true, ..base }),
    ];
    for (name, k) in variants {
        let mut runner = TestRunner::deterministic();
        let strategy = case(k);
        let (mut files, mut checks, mut bad_files, mut bad_checks, mut disallowed) =
            (0, 0, 0, 0, 0);
        let mut example = None;
        for _ in 0..n {
            let (body, pairs) = strategy.new_tree(&mut runner).expect("tree").current();
            files += 1;
            let mut bad = false;
            for (agent, url) in &pairs {
                checks += 1;
                let (ours, theirs) = answers(&body, agent, url);
                disallowed += usize::from(!theirs);
                if ours != theirs {
                    bad_checks += 1;
                    bad = true;
                    if example.is_none()
                        || body.len()
                            < example
                                .as_ref()
                                .map_or(0, |e: &(String, String, String)| e.0.len())
                    {
                        example = Some((body.clone(), agent.clone(), url.clone()));
                    }
                }
            }
            bad_files += usize::from(bad);
        }
        println!(
            "{name}: {files} files, {checks} checks ({disallowed} disallowed by robotstxt), {bad_checks} disagreements in {bad_files} files"
        );
        if name.starts_with("none") {
            assert_eq!(bad_checks, 0, "{name}: {example:?}");
        } else if !name.starts_with('4') || n >= 20_000 {
            assert!(bad_checks > 0, "{name}: the documented bug did not show");
        }
        if let Some((body, agent, url)) = example {
            println!("  smallest: agent {agent:?}, url {url:?}\n  {body:?}");
        }
    }
}

/// Bug 4: robotstxt drops a `%` that does not start an escape together with the two characters
/// after it, so `Disallow: /100%/é` stops matching what it should.
#[test]
fn lone_percent_is_robotstxt_bug_4() {
    let body = "User-agent: *\nDisallow: /100%/\u{e9}\n";
    let url = "http://example.com/100%/%C3%A9";
    let (ours, theirs) = answers(body, "foobot", url);
    assert!(
        !ours,
        "crawlgate (Google mode) disallows, as google/robotstxt does"
    );
    assert!(theirs, "robotstxt 0.3 allows: bug 4 still present");
}

/// crawlgate in `Mode::Google` with the agent taken verbatim (as the CLI's `--mode google`
/// does), and robotstxt 0.3, which takes any string.
fn answers_verbatim(body: &str, agent: &str, url: &str) -> (bool, bool) {
    let robots = Robots::parse_with(body.as_bytes(), &Options::mode(Mode::Google)).robots;
    let ours = robots.check(&ProductToken::verbatim(agent), url).allowed;
    let theirs = robotstxt::DefaultMatcher::default().one_agent_allowed_by_robots(body, agent, url);
    (ours, theirs)
}

/// Fixed cases for what the generator does not produce, each with the answer google/robotstxt
/// gives (robots.cc, and robotstxt 0.3 agrees): agents with digits or spaces or none or
/// beyond ASCII, group values with digits, and a missing colon next to a vertical tab or form
/// feed.
#[test]
fn agents_and_separators_agree_with_robotstxt() {
    const MJ12: &str = "User-agent: *\nDisallow: /\n\nUser-agent: MJ12bot\nDisallow: /private\n";
    const EMPTY: &str = "User-agent: *\nAllow: /\n\nUser-agent:\nDisallow: /\n";
    const DIGITS: &str = "User-agent: *\nAllow: /\n\nUser-agent: 360Spider\nDisallow: /\n";
    const XYZ: &str = "User-agent: *\nDisallow: /\n\nUser-agent: XYZ123bot\nAllow: /\n";
    const FOO_BAR: &str = "User-agent: *\nDisallow: /\n\nUser-agent: Foo Bar\nAllow: /\n";
    const UNICODE: &str = "User-agent: *\nDisallow: /\n\nUser-agent: UnicödeBöt\nAllow: /\n";
    const KBOT: &str = "User-agent: *\nDisallow: /\n\nUser-agent: kbot\nAllow: /\n";
    let cases: &[(&str, &str, &str, bool)] = &[
        // `ExtractUserAgent` stops at the digit: the group is `MJ`, so `MJ12bot` gets `*`.
        (MJ12, "MJ12bot", "/page", false),
        (MJ12, "mj", "/page", true),
        (MJ12, "MJ", "/private/x", false),
        // The empty agent equals the empty token of `User-agent:` and `User-agent: 360Spider`.
        (EMPTY, "", "/x", false),
        (EMPTY, "FooBot", "/x", true),
        (DIGITS, "", "/x", false),
        (DIGITS, "360Spider", "/x", true),
        (XYZ, "XYZ123bot", "/x", false),
        (XYZ, "XYZ", "/x", true),
        (FOO_BAR, "Foo Bar", "/x", false),
        (FOO_BAR, "Foo", "/x", true),
        // Names beyond ASCII: the group is `Unic`; KELVIN SIGN is not `k` to Google.
        (UNICODE, "UnicödeBöt", "/x", false),
        (UNICODE, "UNICÖDEBÖT", "/x", false),
        (UNICODE, "Unic", "/x", true),
        (KBOT, "\u{212a}bot", "/x", false),
        (KBOT, "KBOT", "/x", true),
        // Without a colon, only a space or tab separates key and value.
        ("User-agent: *\nDisallow\x0b/x\n", "FooBot", "/x", true),
        ("User-agent: *\nDisallow\x0c/x\n", "FooBot", "/x", true),
        ("User-agent: *\nDisallow\t/x\n", "FooBot", "/x", false),
        ("User-agent: *\nDisallow \x0b/x\n", "FooBot", "/x", false),
        (
            "User-agent: *\nDisallow /x\x0b/y\n",
            "FooBot",
            "/x\x0b/y",
            false,
        ),
        ("User-agent: *\nDisallow /x\x0b/y\n", "FooBot", "/x", true),
        ("User-agent: *\nDisallow\x0b/x /y\n", "FooBot", "/y", false),
    ];
    for &(body, agent, url, google) in cases {
        let (ours, theirs) = answers_verbatim(body, agent, url);
        assert_eq!(
            theirs, google,
            "robotstxt 0.3: agent {agent:?}, url {url:?}\n{body}"
        );
        assert_eq!(
            ours, google,
            "crawlgate: agent {agent:?}, url {url:?}\n{body}"
        );
    }
}
