//! Agents through the real binary (issue 12, "Agents, as Google and crawlers have them"):
//! product tokens with digits and full User-Agent headers in RFC mode, any agent string in
//! `--mode google`, the missing-colon separators and the size limit, and Google's 145 reference
//! cases run through `crawlgate check --mode google` with each agent exactly as given.
//!
//! Answers are read from the exit status (0: every URL allowed, 1: one disallowed, 2: an error)
//! and from the first column of the text output, one URL per line.

use crate::support::assert_has;
use std::process::Output;

use crate::run::{code, run_with, stderr, stdout};
use serde_json::Value;

/// Runs the binary (see `run::command`), feeding `stdin`.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_with(args, Some(stdin), &[])
}

/// `crawlgate check --mode MODE --agent=AGENT --robots - -- URL...` with `robots` on stdin. The
/// `--agent=` form passes any string as it is, even one that starts with `-`.
fn check(mode: &str, agent: &str, robots: &[u8], urls: &[&str]) -> Output {
    let agent = format!("--agent={agent}");
    let mut args = vec!["check", "--mode", mode, &agent, "--robots", "-", "--"];
    args.extend_from_slice(urls);
    run(&args, robots)
}

/// The answer per URL line, `allowed` or `disallowed`, in order.
fn answers(o: &Output) -> Vec<String> {
    stdout(o)
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default().to_owned())
        .collect()
}

/// An answer with no error: exit 0 or 1, nothing on stderr.
fn assert_answered(o: &Output, what: &str) {
    assert!(
        matches!(code(o), 0 | 1) && o.stderr.is_empty(),
        "{what}: exit {}, stderr {:?}",
        code(o),
        stderr(o)
    );
}

const MJ12: &[u8] = b"User-agent: *\nDisallow: /\n\nUser-agent: MJ12bot\nDisallow: /private\n";

#[test]
fn rfc_mode_gives_mj12bot_its_own_group() {
    let urls = ["https://example.com/page", "https://example.com/private/x"];
    let o = check("rfc", "MJ12bot", MJ12, &urls);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(answers(&o), ["allowed", "disallowed"], "{}", stdout(&o));
    assert!(
        stdout(&o).contains("line 5: Disallow: /private"),
        "{}",
        stdout(&o)
    );
    // Exact matching, case-insensitive: `mj12BOT` is the same crawler, `MJ` another one.
    let o = check("rfc", "mj12BOT", MJ12, &urls[..1]);
    assert_eq!((code(&o), answers(&o)), (0, vec!["allowed".to_owned()]));
    let o = check("rfc", "MJ", MJ12, &urls[..1]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    // The crawler's own header names it too.
    let header = "Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)";
    let o = check("rfc", header, MJ12, &urls);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(answers(&o), ["allowed", "disallowed"]);
}

#[test]
fn google_mode_reads_mj12bot_as_google_does() {
    // google/robotstxt reads `User-agent: MJ12bot` as `MJ`: the caller `MJ12bot` gets `*`.
    let o = check("google", "MJ12bot", MJ12, &["https://example.com/page"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stdout(&o).contains("line 2: Disallow: /"), "{}", stdout(&o));
    let o = check("google", "MJ", MJ12, &["https://example.com/page"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}

#[test]
fn full_googlebot_headers_get_the_googlebot_group() {
    let robots = b"User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nDisallow: /nogoogle\n";
    for header in [
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.204 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Googlebot/2.1 (+http://www.google.com/bot.html)",
    ] {
        let o = check(
            "rfc",
            header,
            robots,
            &["https://example.com/page", "https://example.com/nogoogle/x"],
        );
        assert_eq!(code(&o), 1, "{header}: {}", stderr(&o));
        assert_eq!(answers(&o), ["allowed", "disallowed"], "{header}");
    }
    // A Googlebot-Image header is `googlebot-image`: no prefix match, so `*` applies.
    let o = check(
        "rfc",
        "Googlebot-Image/1.0",
        robots,
        &["https://example.com/page"],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
}

#[test]
fn browser_header_is_refused_in_rfc_mode_with_one_sentence() {
    let chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
    let o = check("rfc", chrome, MJ12, &["https://example.com/page"]);
    assert_eq!(code(&o), 2);
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("crawlgate: "), "{err}");
    assert_has(&err, "browser User-Agent header");
    assert_has(&err, "product token");
}

#[test]
fn google_mode_answers_for_any_agent_string() {
    let robots =
        b"User-agent: *\nDisallow: /\n\nUser-agent: XYZ123bot\nUser-agent: Foo Bar\nAllow: /\n";
    for agent in ["", "Foo Bar", "XYZ123bot", "-XYZ123bot"] {
        let o = check("google", agent, robots, &["https://example.com/page"]);
        assert_answered(&o, agent);
        // Google reads the group as `XYZ` and `Foo`; none of these callers is either.
        assert_eq!(code(&o), 1, "{agent:?}: {}", stdout(&o));
    }
    let o = check("google", "Foo", robots, &["https://example.com/page"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    // The empty agent gets the group whose user-agent has no token, as in Google's API.
    let robots = b"User-agent: *\nAllow: /\n\nUser-agent:\nDisallow: /\n";
    let o = check("google", "", robots, &["https://example.com/page"]);
    assert_answered(&o, "empty agent");
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    let o = check("google", "FooBot", robots, &["https://example.com/page"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    // RFC mode: `XYZ123bot` is a token and gets its group; the others are refused.
    let robots = b"User-agent: *\nDisallow: /\n\nUser-agent: XYZ123bot\nAllow: /\n";
    let o = check("rfc", "XYZ123bot", robots, &["https://example.com/page"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for agent in ["", "Foo Bar"] {
        let o = check("rfc", agent, robots, &["https://example.com/page"]);
        assert_eq!(code(&o), 2, "{agent:?}: {}", stdout(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    }
}

#[test]
fn missing_colon_separates_at_space_or_tab_only() {
    for mode in ["google", "rfc"] {
        for sep in ["\x0b", "\x0c"] {
            // Not a record, so `/x` stays allowed.
            let robots = format!("User-agent: *\nDisallow{sep}/x\n");
            let o = check(
                mode,
                "FooBot",
                robots.as_bytes(),
                &["https://example.com/x"],
            );
            assert_eq!(code(&o), 0, "{mode} {sep:?}: {}", stdout(&o));
        }
        let o = check(
            mode,
            "FooBot",
            b"User-agent: *\nDisallow\t/x\n",
            &["https://example.com/x"],
        );
        assert_eq!(code(&o), 1, "{mode}: {}", stdout(&o));
    }
}

#[test]
fn size_limit_applies_in_google_mode_too() {
    let mut robots = b"User-agent: *\nDisallow: /a\n".to_vec();
    while robots.len() < 512_000 {
        robots.extend_from_slice(b"# filler filler filler filler filler filler filler\n");
    }
    robots.extend_from_slice(b"Disallow: /b\n");
    for mode in ["google", "rfc"] {
        let urls = ["https://example.com/a", "https://example.com/b"];
        let o = check(mode, "FooBot", &robots, &urls);
        assert_eq!(code(&o), 1, "{mode}: {}", stderr(&o));
        assert_eq!(answers(&o), ["disallowed", "allowed"], "{mode}");
    }
}

/// All 145 cases of `testdata/conformance/google-robotstxt-unit.json` through the binary, with
/// the agent and URL exactly as Google's test gives them (`--` before the URL, which may be
/// empty).
#[test]
fn google_mode_passes_every_conformance_case_through_the_cli() {
    let text = std::fs::read_to_string(
        std::path::Path::new(crate::ROOT).join("testdata/conformance/google-robotstxt-unit.json"),
    )
    .expect("conformance file");
    let doc: Value = serde_json::from_str(&text).expect("conformance JSON parses");
    let cases = doc["cases"].as_array().expect("cases array");
    assert_eq!(cases.len(), 145);
    let mut failures = Vec::new();
    for c in cases {
        let field = |k: &str| c[k].as_str().unwrap_or_else(|| panic!("{k} in {c}"));
        let (name, agent, url) = (field("name"), field("agent"), field("url"));
        let want = c["allowed"].as_bool().expect("allowed");
        let o = check("google", agent, field("robots").as_bytes(), &[url]);
        let got = match code(&o) {
            0 => Some(true),
            1 => Some(false),
            _ => None,
        };
        // Nothing on stderr, but the warning an empty robots.txt gets.
        let empty =
            "crawlgate: warning: <stdin>: the file is empty: everything is allowed (empty)\n";
        let quiet = o.stderr.is_empty() || (field("robots").is_empty() && stderr(&o) == empty);
        if got != Some(want) || !quiet {
            failures.push(format!(
                "{name} (agent {agent:?}, url {url:?}): want allowed={want}, exit {}, stderr {:?}",
                code(&o),
                stderr(&o)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 145 cases fail through the CLI:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Several `--agent`s: one answer per agent per URL, each line starting with the agent, in the
/// order given; JSON counts URLs, not answers.
#[test]
fn several_agents_get_one_answer_each() {
    let robots = b"User-agent: *\nDisallow: /private\n\nUser-agent: Googlebot\nAllow: /private/ok\nDisallow: /x\n";
    let args = [
        "check",
        "--agent",
        "Googlebot",
        "--agent",
        "Googlebot-Image",
        "--robots",
        "-",
        "/private/ok",
        "/x",
    ];
    let o = run(&args, robots);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "googlebot\tallowed\t/private/ok\tline 5: Allow: /private/ok\n\
         googlebot-image\tdisallowed\t/private/ok\tline 2: Disallow: /private\n\
         googlebot\tdisallowed\t/x\tline 6: Disallow: /x\n\
         googlebot-image\tallowed\t/x\n"
    );
    let mut json = args.to_vec();
    json.insert(1, "--json");
    let o = run(&json, robots);
    let records: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let agents: Vec<&str> = records[..4]
        .iter()
        .map(|r| r["agent"].as_str().expect("agent"))
        .collect();
    assert_eq!(
        agents,
        [
            "googlebot",
            "googlebot-image",
            "googlebot",
            "googlebot-image"
        ]
    );
    assert_eq!(records[4]["type"], "summary");
    assert_eq!(records[4]["urls"], 2);
    assert_eq!(records[4]["allowed"], 2);
    assert_eq!(records[4]["disallowed"], 2);
    // One agent: no agent column.
    let o = run(
        &["check", "--agent", "Googlebot", "--robots", "-", "/x"],
        robots,
    );
    assert_eq!(stdout(&o), "disallowed\t/x\tline 6: Disallow: /x\n");
}
