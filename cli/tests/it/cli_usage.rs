//! `crawlgate check --agents` (one crawler that obeys several tokens) and the usage
//! preferences (`Content-Usage`) `check` shows for each URL, with `--robots` and against real
//! servers on 127.0.0.1 (each run with a crawl state of its own).
use crate::run::{assert_error_says, code, lines as records, text, Dir};
use crate::support;

use crate::support::{Reply, TestServer};
use serde_json::Value;

/// Google's example: Googlebot-Image obeys `googlebot-image`, then `googlebot`.
const GOOGLE: &str = "\
User-agent: *
Disallow: /
Content-Usage: train-ai=n

User-agent: Googlebot
Disallow: /private/
Content-Usage: train-ai=n, search=y
Content-Usage: /news/ train-ai=y
";

#[test]
fn agents_get_the_most_specific_group_not_star() {
    let d = Dir::new();
    let robots = d.file("robots.txt", GOOGLE.as_bytes());
    let urls = ["/images/a.png", "/private/a.png", "/news/a"];
    let args = |agents: &[&str]| {
        let mut a = vec!["check", "--robots", robots.as_str()];
        a.extend_from_slice(agents);
        a.extend_from_slice(&urls);
        a.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let run = |a: Vec<String>| d.run(&a.iter().map(String::as_str).collect::<Vec<_>>());

    // One crawler, two tokens: googlebot-image has no group, so googlebot's applies (not `*`),
    // one answer per URL and no token column.
    let o = run(args(&["--agents", "Googlebot-Image,Googlebot"]));
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "allowed\t/images/a.png\t\tusage: train-ai=n, search=y (line 7)\n\
         disallowed\t/private/a.png\tline 6: Disallow: /private/\n\
         allowed\t/news/a\t\tusage: train-ai=y (line 8)\n"
    );

    // The token alone gets `*`; a repeated --agent answers per token.
    let o = run(args(&["--agent", "Googlebot-Image"]));
    assert!(text(&o.stdout).starts_with("disallowed\t/images/a.png\tline 2: Disallow: /\n"));
    let o = run(args(&[
        "--agent",
        "Googlebot-Image",
        "--agent",
        "Googlebot",
    ]));
    let out = text(&o.stdout);
    assert_eq!(out.lines().count(), 6, "{out}");
    assert!(out.starts_with("googlebot-image\tdisallowed\t/images/a.png\tline 2: Disallow: /\n"));

    // Most specific first: a group of googlebot-image's own wins over googlebot's.
    let own = d.file(
        "own.txt",
        format!("{GOOGLE}\nUser-agent: googlebot-image\nDisallow: /images/\n").as_bytes(),
    );
    let o = d.run(&[
        "check",
        "--agents",
        "googlebot-image,googlebot",
        "--robots",
        &own,
        "/images/a.png",
        "/private/a.png",
    ]);
    assert_eq!(
        text(&o.stdout),
        "disallowed\t/images/a.png\tline 11: Disallow: /images/\n\
         allowed\t/private/a.png\n"
    );
    // The order given is the order of specificity.
    let o = d.run(&[
        "check",
        "--agents",
        "googlebot,googlebot-image",
        "--robots",
        &own,
        "/images/a.png",
    ]);
    assert_eq!(
        text(&o.stdout),
        "allowed\t/images/a.png\t\tusage: train-ai=n, search=y (line 7)\n"
    );

    // Neither token named: `*`.
    let o = d.run(&["check", "--agents", "a,b", "--robots", &robots, "/x"]);
    assert_eq!(text(&o.stdout), "disallowed\t/x\tline 2: Disallow: /\n");
}

#[test]
fn agents_json_names_the_token_that_won() {
    let d = Dir::new();
    let robots = d.file("robots.txt", GOOGLE.as_bytes());
    let o = d.run(&[
        "check",
        "--json",
        "--agents",
        "googlebot-image,googlebot",
        "--robots",
        &robots,
        "/news/a",
        "/private/x",
    ]);
    assert_eq!(code(&o), 1);
    let r = records(&o);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0]["agent"], "googlebot");
    assert_eq!(
        r[0]["agents"],
        serde_json::json!(["googlebot-image", "googlebot"])
    );
    assert_eq!(r[0]["group"], "token");
    assert_eq!(
        r[0]["usage"],
        serde_json::json!({
            "preferences": {"train-ai": "allowed", "search": "unknown"},
            "rules": [{
                "line": 8,
                "path": "/news/",
                "statement": "train-ai=y",
                "rule": "Content-Usage: /news/ train-ai=y",
                "preferences": {"train-ai": "allowed", "search": "unknown"}
            }]
        })
    );
    // Disallowed: no preferences (they apply only to crawlable URLs).
    assert_eq!(r[1]["allowed"], false);
    assert_eq!(r[1]["usage"], Value::Null);
    // One agent: `agents` is that one.
    let o = d.run(&[
        "check", "--json", "--agent", "MyBot", "--robots", &robots, "/a",
    ]);
    let r = records(&o);
    assert_eq!(r[0]["agents"], serde_json::json!(["mybot"]));
    assert_eq!(r[0]["usage"], Value::Null);
}

#[test]
fn agent_and_agents_exclude_each_other_but_the_variable_gives_way() {
    let d = Dir::new();
    let robots = d.file("robots.txt", GOOGLE.as_bytes());
    let o = d.run(&[
        "check", "--agent", "x", "--agents", "a,b", "--robots", &robots, "/a",
    ]);
    assert_error_says(&o, 2, "--agent and --agents cannot be used together");
    assert!(
        text(&o.stderr).contains("crawlgate check"),
        "{}",
        text(&o.stderr)
    );
    // CRAWLGATE_AGENT stands for --agent only when neither is given.
    let o = d.run_env(
        &[
            "check",
            "--agents",
            "googlebot-image,googlebot",
            "--robots",
            &robots,
            "/a",
        ],
        &[("CRAWLGATE_AGENT", "OtherBot")],
    );
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "allowed\t/a\t\tusage: train-ai=n, search=y (line 7)\n"
    );
    let o = d.run_env(
        &["check", "--robots", &robots, "/a"],
        &[("CRAWLGATE_AGENT", "OtherBot")],
    );
    assert_eq!(text(&o.stdout), "disallowed\t/a\tline 2: Disallow: /\n");
    // Neither: a usage error.
    let o = d.run(&["check", "--robots", &robots, "/a"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn usage_only_for_allowed_urls_and_after_the_rule_column() {
    let d = Dir::new();
    let robots = d.file(
        "robots.txt",
        b"User-agent: *\n\
          Allow: /open/\n\
          Disallow: /\n\
          Content-Usage: train-ai=n\n\
          Content-Usage: /open/ai/ train-ai=y\n\
          Content-Usage: /open/ai/ search=n\n\
          User-agent: nousage\n\
          Disallow: /closed\n",
    );
    let o = d.check("MyBot", &robots, &["/open/x", "/open/ai/x", "/closed"]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    // Two rules of the longest path combine (vocab §5.1); the rule column stays third.
    assert_eq!(
        text(&o.stdout),
        "allowed\t/open/x\tline 2: Allow: /open/\tusage: train-ai=n (line 4)\n\
         allowed\t/open/ai/x\tline 2: Allow: /open/\tusage: train-ai=y, search=n (lines 5, 6)\n\
         disallowed\t/closed\tline 3: Disallow: /\n"
    );
    // No Content-Usage for the group: nothing added.
    let o = d.check("nousage", &robots, &["/open/x"]);
    assert_eq!(text(&o.stdout), "allowed\t/open/x\n");
}

#[test]
fn hostile_usage_values_are_escaped() {
    let d = Dir::new();
    let robots = d.file(
        "robots.txt",
        b"User-agent: *\nContent-Usage: /a\x1b[2J\ttrain-ai=n\nDisallow: /never\n",
    );
    let o = d.run(&[
        "check",
        "--agent",
        "MyBot",
        "--robots",
        &robots,
        "/a\u{1b}[2Jb",
    ]);
    let out = text(&o.stdout);
    assert!(!out.contains('\u{1b}'), "{out:?}");
    assert_eq!(
        out,
        "allowed\t/a\\u{1b}[2Jb\t\tusage: train-ai=n (line 2)\n"
    );
    // JSON carries the text as written (JSON escapes it).
    let o = d.run(&[
        "check",
        "--json",
        "--agent",
        "MyBot",
        "--robots",
        &robots,
        "/a\u{1b}[2Jb",
    ]);
    assert!(!text(&o.stdout).contains('\u{1b}'));
    let r = records(&o);
    assert_eq!(r[0]["usage"]["rules"][0]["path"], "/a\u{1b}[2J");
}

#[test]
fn agents_against_the_crawl_state() {
    let (_rt, server) = support::serve_blocking(|_| Reply::text(200, GOOGLE));
    let d = Dir::new();
    let o = d.run(&[
        "check",
        "--agents",
        "Googlebot-Image,Googlebot",
        &server.url("/images/a.png"),
        &server.url("/private/a.png"),
    ]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        format!(
            "allowed\t{}\t\tusage: train-ai=n, search=y (line 7)\n\
             disallowed\t{}\tline 6: Disallow: /private/\n",
            server.url("/images/a.png"),
            server.url("/private/a.png")
        )
    );
    assert_eq!(server.hits(), 1);
    // The first token, as given, is the User-Agent header.
    assert_eq!(
        server.requests()[0].header("user-agent"),
        Some("Googlebot-Image")
    );
    let o = d.run(&[
        "check",
        "--json",
        "--agents",
        "googlebot-image,googlebot",
        &server.url("/news/a"),
    ]);
    let r = records(&o);
    assert_eq!(r[0]["agent"], "googlebot");
    assert_eq!(r[0]["verdict"], "rules");
    assert_eq!(r[0]["reason"], "fetched");
    assert_eq!(r[0]["usage"]["preferences"]["train-ai"], "allowed");
    assert_eq!(server.hits(), 1, "answered from the crawl state");
}

#[test]
fn agents_follow_the_failure_rules_as_one_agent_does() {
    let (rt, server) = support::serve_blocking(|_| Reply::status(503));
    let d = Dir::new();
    let url = server.url("/a");
    let robots_txt = server.url("/robots.txt");
    let o = d.run(&["check", "--agents", "a,b", &url, &robots_txt]);
    assert_eq!(code(&o), 3, "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[0].starts_with(&format!(
            "unreachable\t{url}\trobots.txt unreachable (HTTP 503): not crawling until "
        )),
        "{out}"
    );
    assert_eq!(lines[1], format!("allowed\t{robots_txt}"), "{out}");
    let o = d.run(&["check", "--json", "--agents", "a,b", &url]);
    let r = records(&o);
    assert_eq!(r[0]["decided_by"], "policy");
    assert_eq!(r[0]["verdict"], "disallow-all");
    assert_eq!(r[0]["agent"], "a");
    assert_eq!(r[0]["agents"], serde_json::json!(["a", "b"]));
    assert_eq!(r[0]["usage"], Value::Null);
    // A 404: everything allowed, no preferences.
    let server = rt.block_on(TestServer::start(|_| Reply::status(404)));
    let o = d.run(&["check", "--json", "--agents", "a,b", &server.url("/x")]);
    let r = records(&o);
    assert_eq!(r[0]["allowed"], true);
    assert_eq!(r[0]["verdict"], "allow-all");
    assert_eq!(r[0]["usage"], Value::Null);
}
