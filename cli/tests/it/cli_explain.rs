//! `crawlgate explain` (which group applies to an agent, its rules in precedence order, the
//! line that decides each URL) and `crawlgate lint URL` (a live robots.txt linted), run for
//! real; the servers are real ones on 127.0.0.1.
use crate::run::{assert_error_says, code, records, text, Dir};
use crate::support;
use crate::support::assert_has;

use crate::support::Reply;
use serde_json::Value;

/// The section of `agent` in a human explanation: from `agent NAME` to the next blank line.
fn section<'a>(out: &'a str, agent: &str) -> Vec<&'a str> {
    out.lines()
        .skip_while(|l| *l != format!("agent {agent}"))
        .take_while(|l| !l.is_empty())
        .collect()
}

const SITE: &str = "\
# A site with a group of its own for MyBot.
User-agent: *
Disallow: /private/
Allow: /private/public.html
Crawl-delay: 3

User-agent: OtherBot
User-agent: MyBot
Disallow: /
Allow: /shop
Disallow: /shop/*.pdf$
Crawl-delay: 10

User-agent: mybot
Allow: /blog
Sitemap: https://example.com/sitemap.xml
";

#[test]
fn explain_names_the_group_and_the_lines_that_chose_it() {
    let d = Dir::new();
    let robots = d.file("robots.txt", SITE.as_bytes());
    let o = d.run(&[
        "explain",
        "--agent",
        "MyBot/1.0 (+https://mybot.example)",
        "--agent",
        "SomeBot",
        "--robots",
        &robots,
    ]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert_eq!(text(&o.stderr), "");
    let out = text(&o.stdout);
    assert_eq!(
        out.lines().next(),
        Some(format!("robots.txt: {robots}").as_str())
    );
    // Two groups name mybot: merged, each shown by the user-agent line that named it.
    assert_eq!(
        section(&out, "mybot"),
        [
            "agent mybot",
            "  group:       the group naming mybot (2 groups, merged), chosen by:",
            "    line 8: User-agent: MyBot (group from line 7)",
            "    line 14: User-agent: mybot",
            "  rules, longest first (allow before disallow on equal length); the first that \
             matches decides:",
            "    line 11: Disallow: /shop/*.pdf$",
            "    line 10: Allow: /shop",
            "    line 15: Allow: /blog",
            "    line 9: Disallow: /",
            "  crawl-delay: 10 seconds (line 12)",
            "  sitemaps:",
            "    line 16: https://example.com/sitemap.xml",
        ]
    );
    // No group names SomeBot: the `*` group.
    assert_eq!(
        section(&out, "somebot")[..4],
        [
            "agent somebot",
            "  group:       no group names somebot: the * group applies, chosen by:",
            "    line 2: User-agent: *",
            "  rules, longest first (allow before disallow on equal length); the first that \
             matches decides:",
        ]
    );
    assert!(section(&out, "somebot").contains(&"  crawl-delay: 3 seconds (line 5)"));

    // No group for the agent and no `*` group: nothing applies.
    let robots = d.file("no-star.txt", b"User-agent: OtherBot\nDisallow: /\n");
    let o = d.run(&["explain", "--agent", "MyBot", "--robots", &robots, "/a"]);
    assert_eq!(code(&o), 0);
    assert_eq!(
        section(&text(&o.stdout), "mybot"),
        [
            "agent mybot",
            "  group:       none: no group names mybot and there is no * group: everything \
             allowed",
            "  crawl-delay: none",
            "  sitemaps:    none",
            "  allowed\t/a\tno group: everything allowed",
        ]
    );
}

#[test]
fn explain_lists_rules_in_the_order_the_matcher_tries_them() {
    let d = Dir::new();
    // Equal lengths: allow before disallow whatever the file order; a wildcard counts its `*`
    // and `$` (`/*.gif$` is 7, longer than `/page`); among equals, file order.
    let robots = d.file(
        "robots.txt",
        b"User-agent: *\n\
          Disallow: /page\n\
          Allow: /page\n\
          Disallow: /*.gif$\n\
          Disallow: /a\n\
          Disallow: /b\n\
          Allow: /page/long\n",
    );
    let o = d.run(&[
        "explain",
        "--agent",
        "MyBot",
        "--robots",
        &robots,
        "/page",
        "/page/x.gif",
        "/page/long/x.gif",
        "/b",
        "/c",
        "/robots.txt",
    ]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let s = section(&out, "mybot");
    assert_eq!(
        s[4..],
        [
            "    line 7: Allow: /page/long",
            "    line 4: Disallow: /*.gif$",
            "    line 3: Allow: /page",
            "    line 2: Disallow: /page",
            "    line 5: Disallow: /a",
            "    line 6: Disallow: /b",
            "  crawl-delay: none",
            "  sitemaps:    none",
            // The deciding line of each URL, as `check` finds it.
            "  allowed\t/page\tline 3: Allow: /page",
            "  disallowed\t/page/x.gif\tline 4: Disallow: /*.gif$",
            "  allowed\t/page/long/x.gif\tline 7: Allow: /page/long",
            "  disallowed\t/b\tline 6: Disallow: /b",
            "  allowed\t/c\tno rule matched",
            "  allowed\t/robots.txt\t/robots.txt is always allowed",
        ]
    );
    // The same answers as `check`.
    let check = d.check(
        "MyBot",
        &robots,
        &["/page", "/page/x.gif", "/page/long/x.gif", "/b"],
    );
    assert_eq!(
        text(&check.stdout),
        "allowed\t/page\tline 3: Allow: /page\n\
         disallowed\t/page/x.gif\tline 4: Disallow: /*.gif$\n\
         allowed\t/page/long/x.gif\tline 7: Allow: /page/long\n\
         disallowed\t/b\tline 6: Disallow: /b\n"
    );
}

#[test]
fn explain_shows_where_google_and_rfc_differ() {
    let d = Dir::new();
    let robots = d.file(
        "robots.txt",
        b"User-agent: *\nDisallow: /\nAllow: /foo/bar/%62%61%7A\nAllow: /dir/index.html\n",
    );
    let explain = |mode: &str| {
        let o = d.run(&[
            "explain",
            "--agent",
            "MyBot",
            "--mode",
            mode,
            "--robots",
            &robots,
            "/foo/bar/baz",
            "/dir/",
        ]);
        (code(&o), text(&o.stdout))
    };
    let (rfc_code, rfc) = explain("rfc");
    let (google_code, google) = explain("google");
    assert_eq!((rfc_code, google_code), (1, 1));
    // RFC 9309 reads `%62%61%7A` as `baz` (12 characters, shorter than `/dir/index.html`);
    // Google counts the escaped bytes (18) and derives `/dir/$` from `/dir/index.html`.
    assert_eq!(
        section(&rfc, "mybot")[4..],
        [
            "    line 4: Allow: /dir/index.html",
            "    line 3: Allow: /foo/bar/%62%61%7A",
            "    line 2: Disallow: /",
            "  crawl-delay: none",
            "  sitemaps:    none",
            "  allowed\t/foo/bar/baz\tline 3: Allow: /foo/bar/%62%61%7A",
            "  disallowed\t/dir/\tline 2: Disallow: /",
        ]
    );
    assert_eq!(
        section(&google, "mybot")[4..],
        [
            "    line 3: Allow: /foo/bar/%62%61%7A",
            "    line 4: Allow: /dir/index.html",
            "    line 4: Allow: /dir/index.html (read as /dir/$)",
            "    line 2: Disallow: /",
            "  crawl-delay: none",
            "  sitemaps:    none",
            "  disallowed\t/foo/bar/baz\tline 2: Disallow: /",
            "  allowed\t/dir/\tline 4: Allow: /dir/index.html (read as /dir/$)",
        ]
    );
}

#[test]
fn explain_json_has_an_explain_record_per_agent_then_check_records() {
    let d = Dir::new();
    let robots = d.file("robots.txt", SITE.as_bytes());
    let o = d.run(&[
        "explain",
        "--json",
        "--agent",
        "MyBot",
        "--agent",
        "SomeBot",
        "--robots",
        &robots,
        "https://example.com/shop/a.pdf",
        "/blog/x",
    ]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    let (recs, summary) = records(&o);
    let types: Vec<&str> = recs.iter().filter_map(|r| r["type"].as_str()).collect();
    assert_eq!(
        types,
        ["explain", "check", "check", "explain", "check", "check"]
    );
    let e = &recs[0];
    // The fields in the documented order.
    let line = text(&o.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    let at: Vec<usize> = [
        "type",
        "agent",
        "robots_txt",
        "verdict",
        "reason",
        "reason_text",
        "group",
        "user_agents",
        "rules",
        "crawl_delay",
        "sitemaps",
    ]
    .iter()
    .map(|k| line.find(&format!("\"{k}\":")).expect("field present"))
    .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{line}");
    assert_eq!(e["agent"], "mybot");
    assert_eq!(e["robots_txt"], robots.as_str());
    assert_eq!(e["verdict"], "rules");
    assert_eq!(e["reason"], "given");
    assert_eq!(e["group"], "token");
    assert_eq!(
        e["user_agents"],
        serde_json::json!([
            {"group_line": 7, "line": 8, "text": "User-agent: MyBot"},
            {"group_line": 14, "line": 14, "text": "User-agent: mybot"},
        ])
    );
    assert_eq!(
        e["rules"][0],
        serde_json::json!({"line": 11, "kind": "disallow", "pattern": "/shop/*.pdf$",
                           "rule": "Disallow: /shop/*.pdf$"})
    );
    assert_eq!(e["rules"].as_array().map(Vec::len), Some(4));
    assert_eq!(
        e["crawl_delay"],
        serde_json::json!({"seconds": 10.0, "line": 12})
    );
    assert_eq!(
        e["sitemaps"],
        serde_json::json!([{"line": 16, "url": "https://example.com/sitemap.xml"}])
    );
    // The check records are `check`'s, the same fields in the same order.
    let c = &recs[1];
    assert_eq!(c["url"], "https://example.com/shop/a.pdf");
    assert_eq!(c["agent"], "mybot");
    assert_eq!(c["allowed"], false);
    assert_eq!(c["decided_by"], "rule");
    assert_eq!(c["line"], 11);
    assert_eq!(c["group"], "token");
    let check = d.run(&[
        "check",
        "--json",
        "--agent",
        "MyBot",
        "--robots",
        &robots,
        "https://example.com/shop/a.pdf",
    ]);
    assert_eq!(records(&check).0[0], *c);
    assert_eq!(recs[3]["agent"], "somebot");
    assert_eq!(recs[3]["group"], "star");
    assert_eq!(recs[5]["decided_by"], "no-matching-rule");
    assert_eq!(summary["command"], "explain");
    assert_eq!(summary["urls"], 2);
    assert_eq!(summary["allowed"], 3);
    assert_eq!(summary["disallowed"], 1);
    assert_eq!(summary["failed"], 0);
    assert_eq!(summary["exit"], 1);
}

#[test]
fn explain_escapes_what_a_hostile_file_says() {
    let d = Dir::new();
    let robots = d.file(
        "robots.txt",
        b"User-agent: Evil\x1b[2J\x07bot\n\
          Disallow: /a\x1b[0m\tb\n\
          Crawl-delay: 1\n\
          Sitemap: https://e.example/\x1b]0;pwned\x07\n",
    );
    let o = d.run(&[
        "explain",
        "--agent",
        "Evil",
        "--robots",
        &robots,
        "/a\u{1b}[0m\tb",
    ]);
    // A client removes the URL's TAB (and sends the ESC as `%1B`), so the rule with a TAB in
    // it matches no request: allowed.
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{7}'),
        "raw control characters in {out:?}"
    );
    let s = section(&out, "evil");
    assert_eq!(s[2], "    line 1: User-agent: Evil\\u{1b}[2J\\u{7}bot");
    assert_eq!(s[4], "    line 2: Disallow: /a\\u{1b}[0m\\tb");
    assert_eq!(s[7], "    line 4: https://e.example/\\u{1b}]0;pwned\\u{7}");
    // The URL too: a TAB in it cannot forge a column.
    assert_eq!(
        s[8],
        "  allowed\t/a\\u{1b}[0m\\tb (as /a%1B[0mb)\tno rule matched"
    );
    // JSON carries the text as it is, escaped as JSON.
    let o = d.run(&["explain", "--json", "--agent", "Evil", "--robots", &robots]);
    assert_eq!(code(&o), 0);
    assert!(!text(&o.stdout).contains('\u{1b}'));
    let (recs, _) = records(&o);
    assert_eq!(
        recs[0]["user_agents"][0]["text"],
        "User-agent: Evil\u{1b}[2J\u{7}bot"
    );
}

#[test]
fn explain_reports_bad_urls_and_usage_errors() {
    let d = Dir::new();
    let robots = d.file("robots.txt", b"User-agent: *\nDisallow: /x\n");
    // No URL: the explanation alone, exit 0.
    let o = d.run(&["explain", "--agent", "MyBot", "--robots", &robots]);
    assert_eq!(code(&o), 0);
    assert!(text(&o.stdout).contains("    line 2: Disallow: /x\n"));
    // A URL that is not one: reported, the others still answered, exit 2.
    let o = d.run(&[
        "explain",
        "--agent",
        "MyBot",
        "--robots",
        &robots,
        "private/x",
        "/x",
    ]);
    assert_eq!(code(&o), 2);
    assert!(text(&o.stderr).starts_with("crawlgate: \"private/x\" is neither"));
    assert!(text(&o.stdout).ends_with("  disallowed\t/x\tline 2: Disallow: /x\n"));
    // Nothing to explain, a missing file, no agent: exit 2.
    assert_eq!(code(&d.run(&["explain", "--agent", "MyBot"])), 2);
    let o = d.run(&[
        "explain",
        "--agent",
        "MyBot",
        "--robots",
        "/nonexistent/robots.txt",
    ]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        text(&o.stderr),
        "crawlgate: cannot read /nonexistent/robots.txt: no such file\n"
    );
    assert_eq!(code(&d.run(&["explain", "--robots", &robots])), 2);
}

#[test]
fn explain_without_robots_reads_the_crawl_state() {
    let (_rt, server) = support::serve_blocking(|req| {
        match req.path.as_str() {
        "/robots.txt" => Reply::text(
            200,
            "User-agent: *\nDisallow: /private\n\nUser-agent: MyBot\nAllow: /private/mine\nDisallow: /private\n",
        ),
        _ => Reply::status(404),
    }
    });
    let d = Dir::new();
    let state = d.path().join("state.redb");
    let state = state.to_str().expect("UTF-8");
    // The first argument names the origin (and, having a path, is checked too); paths are of
    // that origin.
    let o = d.run(&[
        "explain",
        "--state",
        state,
        "--agent",
        "MyBot",
        &server.url("/private/x"),
        "/private/mine/y",
    ]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let robots_txt = server.url("/robots.txt");
    assert!(
        out.starts_with(&format!(
            "robots.txt: {robots_txt}\nverdict:    rules (robots.txt fetched)\n\nagent mybot\n"
        )),
        "{out}"
    );
    assert_eq!(
        section(&out, "mybot")[1..],
        [
            "  group:       the group naming mybot, chosen by:",
            "    line 4: User-agent: MyBot",
            "  rules, longest first (allow before disallow on equal length); the first that \
             matches decides:",
            "    line 5: Allow: /private/mine",
            "    line 6: Disallow: /private",
            "  crawl-delay: none",
            "  sitemaps:    none",
            "  politeness:  1 s between requests (the default delay; the site asks for none); \
             next request now",
            &format!(
                "  disallowed\t{}\tline 6: Disallow: /private",
                server.url("/private/x")
            ),
            "  allowed\t/private/mine/y\tline 5: Allow: /private/mine",
        ]
    );
    assert_eq!(server.hits(), 1);
    // The state is fresh: no second fetch; the JSON says where the rules came from.
    let o = d.run(&[
        "explain",
        "--json",
        "--state",
        state,
        "--agent",
        "MyBot",
        &server.url("/"),
    ]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert_eq!(server.hits(), 1);
    let (recs, summary) = records(&o);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["robots_txt"], robots_txt.as_str());
    assert_eq!(recs[0]["reason"], "fetched");
    assert_eq!(recs[0]["user_agents"][0]["text"], "User-agent: MyBot");
    assert_eq!(summary["urls"], 0);

    // A URL of another origin is not explained by this robots.txt.
    let o = d.run(&[
        "explain",
        "--state",
        state,
        "--agent",
        "MyBot",
        &server.url("/"),
        "http://other.invalid/x",
    ]);
    assert_error_says(&o, 2, "is not on http://127.0.0.1:");
}

#[test]
fn explain_of_an_unreachable_robots_txt_shows_the_verdict() {
    let (_rt, server) = support::serve_blocking(|_| Reply::status(503));
    let d = Dir::new();
    let o = d.run(&[
        "explain",
        "--no-state",
        "--agent",
        "MyBot",
        &server.url("/"),
        "/a",
    ]);
    // 3: disallowed because the robots.txt could not be read, not by a rule.
    assert_eq!(code(&o), 3, "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let reason = out
        .split_once("verdict:    disallow-all (")
        .and_then(|(_, r)| r.split_once(")\n"))
        .map_or("", |(r, _)| r);
    assert!(
        reason.starts_with("robots.txt unreachable (HTTP 503): not crawling until ")
            && reason.contains(", next attempt "),
        "{out}"
    );
    assert_eq!(
        out,
        format!(
            "robots.txt: {}\nverdict:    disallow-all ({reason})\n\nagent mybot\n\
             \x20 group:       none: the verdict is disallow-all, not a set of rules\n\
             \x20 politeness:  1 s between requests (the default delay; the site asks for none); \
             next request now\n\
             \x20 unreachable\t/a\t{reason}\n",
            server.url("/robots.txt")
        )
    );
    let o = d.run(&[
        "explain",
        "--no-state",
        "--json",
        "--agent",
        "MyBot",
        &server.url("/a"),
    ]);
    let (recs, _) = records(&o);
    assert_eq!(recs[0]["group"], Value::Null);
    assert_eq!(recs[0]["verdict"], "disallow-all");
    assert_eq!(recs[0]["reason"], "unreachable");
    assert_eq!(recs[1]["decided_by"], "policy");
}

// ---- lint URL ---------------------------------------------------------------------------

#[test]
fn lint_url_fetches_and_lints_the_live_robots_txt() {
    let (_rt, server) = support::serve_blocking(|req| match req.path.as_str() {
        "/robots.txt" => Reply::text(200, "User-agent: *\nDisalow: /x\nthis is not a record\n"),
        _ => Reply::status(404),
    });
    let d = Dir::new();
    let file = d.file("clean.txt", b"User-agent: *\nDisallow: /private\n");
    // Any URL of the origin, mixed with a file.
    let o = d.run(&["lint", &server.url("/some/page?q=1"), &file]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    let name = server.url("/robots.txt");
    assert_eq!(
        text(&o.stdout),
        format!(
            "{name}:2:1: warning[misspelled-key]: `Disalow` read as `disallow`\n\
             {name}:3:1: error[invalid-line]: not a `key: value` record or a comment; ignored\n\
             2 files: 1 error, 1 warning\n"
        )
    );
    assert_eq!(text(&o.stderr), "");
    assert_eq!(server.requests()[0].path, "/robots.txt");
    // The default User-Agent, and nothing recorded in the crawl state.
    assert!(server.requests()[0]
        .header("user-agent")
        .is_some_and(|ua| ua.starts_with("crawlgate/")));
    assert!(!d.path().join("crawlgate").exists());

    let o = d.run(&["lint", "--json", &server.url("/")]);
    assert_eq!(code(&o), 1);
    let (recs, summary) = records(&o);
    assert_eq!(
        recs[0],
        serde_json::json!({"type": "lint-fetch", "url": server.url("/"), "robots_txt": name,
                           "status": 200, "outcome": "fetched", "cause": null,
                           "final_url": name, "redirects": 0})
    );
    assert_eq!(recs[1]["type"], "problem");
    assert_eq!(recs[1]["path"], name.as_str());
    assert_eq!(summary["files"], 1);
    assert_eq!(summary["errors"], 1);
}

#[test]
fn lint_url_without_robots_txt_has_nothing_to_lint() {
    let (_rt, server) = support::serve_blocking(|_| Reply::status(404));
    let d = Dir::new();
    let o = d.run(&["lint", &server.url("/")]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        format!(
            "{}: no robots.txt (HTTP 404): nothing to lint\n",
            server.url("/robots.txt")
        )
    );
    assert_eq!(text(&o.stderr), "");
    let o = d.run(&["lint", "--json", &server.url("/")]);
    assert_eq!(code(&o), 0);
    let (recs, summary) = records(&o);
    assert_eq!(recs[0]["outcome"], "unavailable");
    assert_eq!(recs[0]["status"], 404);
    assert_eq!(recs[0]["cause"], "HTTP 404");
    assert_eq!(summary["files"], 0);
    assert_eq!(summary["exit"], 0);
}

#[test]
fn lint_url_unreachable_is_exit_2_with_the_cause() {
    let (rt, server) = support::serve_blocking(|_| Reply::status(503));
    let refused = rt.block_on(support::refused_addr());
    let d = Dir::new();
    let file = d.file("clean.txt", b"User-agent: *\nDisallow: /private\n");
    let dead = format!("http://{refused}/");
    let o = d.run(&["lint", &server.url("/"), &file, &dead]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        text(&o.stderr),
        format!(
            "crawlgate: {}: robots.txt unreachable (HTTP 503): nothing linted\n\
             crawlgate: http://{refused}/robots.txt: robots.txt unreachable (connection \
             refused): nothing linted\n",
            server.url("/robots.txt")
        )
    );
    // The file is still linted.
    assert_eq!(text(&o.stdout), "1 file: no problems\n");
    let o = d.run(&["lint", "--json", &server.url("/")]);
    assert_eq!(code(&o), 2);
    let (recs, summary) = records(&o);
    assert_eq!(recs[0]["outcome"], "unreachable");
    assert_eq!(recs[0]["cause"], "HTTP 503");
    assert_eq!(summary["failed"], 1);
    // Another scheme is not a file name either.
    let o = d.run(&["lint", "ftp://example.com/robots.txt"]);
    assert_error_says(&o, 2, "only http and https");
}

#[test]
fn lint_url_says_where_a_redirected_file_was_served() {
    let (_rt, server) = support::serve_blocking(|req| match req.path.as_str() {
        "/robots.txt" => Reply::redirect(301, "/real-robots.txt"),
        _ => Reply::text(200, "User-agent: *\nDisalow: /x\n"),
    });
    let d = Dir::new();
    let o = d.run(&["lint", &server.url("/")]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let name = server.url("/robots.txt");
    assert_eq!(
        text(&o.stdout),
        format!(
            "{name}: served by {} after 1 redirect\n\
             {name}:2:1: warning[misspelled-key]: `Disalow` read as `disallow`\n\
             1 file: 1 warning\n",
            server.url("/real-robots.txt")
        )
    );
    let o = d.run(&["lint", "--json", &server.url("/")]);
    let (recs, _) = records(&o);
    assert_eq!(recs[0]["final_url"], server.url("/real-robots.txt"));
    assert_eq!(recs[0]["redirects"], 1);
}

/// Googlebot-Image obeys `googlebot-image`, then `googlebot`; the file has usage records.
const AI_SITE: &str = "\
License: https://example.com/license.xml
User-agent: *
Disallow: /
Content-Signal: search=yes, ai-train=no

User-agent: Googlebot
Disallow: /private/
Content-Usage: train-ai=n
Content-Usage: /news/ train-ai=y, search=y
Content-Signal: search=yes, ai-input=yes, ai-train=no
LLM-Policy: /llms.txt
";

/// The section of a crawler of `--agents`: from `agents TOKENS` to the next blank line.
fn agents_section<'a>(out: &'a str, agents: &str) -> Vec<&'a str> {
    out.lines()
        .skip_while(|l| !l.starts_with(&format!("agents {agents} ")))
        .take_while(|l| !l.is_empty())
        .collect()
}

#[test]
fn explain_agents_shows_the_most_specific_group_and_its_usage_records() {
    let d = Dir::new();
    let robots = d.file("robots.txt", AI_SITE.as_bytes());
    let o = d.run(&[
        "explain",
        "--agents",
        "Googlebot-Image,Googlebot",
        "--robots",
        &robots,
        "/news/a",
        "/private/a",
    ]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert_eq!(
        agents_section(&out, "googlebot-image,googlebot"),
        [
            "agents googlebot-image,googlebot (one crawler, most specific token first: the \
             first with a group of its own decides, else *)",
            "  group:       the group naming googlebot, chosen by:",
            "    line 6: User-agent: Googlebot",
            "  rules, longest first (allow before disallow on equal length); the first that \
             matches decides:",
            "    line 7: Disallow: /private/",
            "  crawl-delay: none",
            "  sitemaps:    none",
            "  content-usage (the longest matching path gives a URL's preferences, for URLs \
             that may be crawled):",
            "    line 8: Content-Usage: train-ai=n",
            "    line 9: Content-Usage: /news/ train-ai=y, search=y",
            "  content-signal: search=yes, ai-input=yes, ai-train=no",
            "    line 10: Content-Signal: search=yes, ai-input=yes, ai-train=no",
            "  license:",
            "    line 1: https://example.com/license.xml",
            "  llm-policy:",
            "    line 11: /llms.txt",
            "  allowed\t/news/a\tno rule matched\tusage: train-ai=y, search=y (line 9)",
            "  disallowed\t/private/a\tline 7: Disallow: /private/",
        ]
    );
    // Neither token named: the `*` group, said of both.
    let o = d.run(&["explain", "--agents", "a,b", "--robots", &robots, "/x"]);
    let out = text(&o.stdout);
    assert_eq!(
        agents_section(&out, "a,b")[1],
        "  group:       no group names a or b: the * group applies, chosen by:"
    );
    // A group without usage records shows none of those parts.
    assert!(!out.contains("content-usage"), "{out}");
    assert_has(&out, "  content-signal: search=yes, ai-train=no\n");
}

#[test]
fn explain_json_carries_the_usage_records() {
    let d = Dir::new();
    let robots = d.file("robots.txt", AI_SITE.as_bytes());
    let o = d.run(&[
        "explain",
        "--json",
        "--agents",
        "googlebot-image,googlebot",
        "--robots",
        &robots,
        "/a",
    ]);
    assert_eq!(code(&o), 0, "{}", text(&o.stderr));
    let (r, summary) = records(&o);
    assert_eq!(summary["urls"], 1);
    let e = &r[0];
    assert_eq!(e["type"], "explain");
    assert_eq!(e["agent"], "googlebot");
    assert_eq!(
        e["agents"],
        serde_json::json!(["googlebot-image", "googlebot"])
    );
    assert_eq!(e["matched_token"], "googlebot");
    assert_eq!(e["content_usage"][1]["path"], "/news/");
    assert_eq!(e["content_usage"][1]["preferences"]["search"], "allowed");
    assert_eq!(e["content_usage"][0]["path"], Value::Null);
    assert_eq!(
        e["content_signals"]["signals"],
        serde_json::json!({"search": "allowed", "ai-input": "allowed", "ai-train": "disallowed"})
    );
    assert_eq!(e["content_signals"]["lines"][0]["line"], 10);
    assert_eq!(
        e["licenses"],
        serde_json::json!([{"line": 1, "url": "https://example.com/license.xml"}])
    );
    assert_eq!(
        e["llm_policies"],
        serde_json::json!([{"line": 11, "url": "/llms.txt"}])
    );
    assert_eq!(r[1]["type"], "check");
    assert_eq!(r[1]["usage"]["preferences"]["train-ai"], "disallowed");
    // One --agent, `*` group: the file's records, the group's own signals.
    let o = d.run(&["explain", "--json", "--agent", "MyBot", "--robots", &robots]);
    let (r, _) = records(&o);
    assert_eq!(r[0]["matched_token"], "*");
    assert_eq!(r[0]["agents"], serde_json::json!(["mybot"]));
    assert_eq!(r[0]["content_usage"], serde_json::json!([]));
    assert_eq!(r[0]["content_signals"]["signals"]["ai-input"], "unknown");
    assert_eq!(r[0]["licenses"][0]["line"], 1);
}

#[test]
fn explain_escapes_usage_records() {
    let d = Dir::new();
    let robots = d.file(
        "robots.txt",
        b"License: https://example.com/\x1b[31mlic.xml\n\
          User-agent: *\n\
          Content-Usage: /a\x1b[2J train-ai=n\n\
          Content-Signal: ai-train=no\x1b]0;x\x07\n",
    );
    let o = d.run(&[
        "explain",
        "--agent",
        "MyBot",
        "--robots",
        &robots,
        "/a\u{1b}[2J",
    ]);
    let out = text(&o.stdout);
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert_has(&out, "    line 3: Content-Usage: /a\\u{1b}[2J train-ai=n\n");
    assert_has(&out, "    line 1: https://example.com/\\u{1b}[31mlic.xml\n");
    assert_has(&out, "Content-Signal: ai-train=no\\u{1b}]0;x\\u{7}\n");
    assert_has(&out, "\tusage: train-ai=n (line 3)\n");
}

#[test]
fn explain_agents_against_the_crawl_state() {
    let (_rt, server) = support::serve_blocking(|_| Reply::text(200, AI_SITE));
    let d = Dir::new();
    let o = d.run(&[
        "explain",
        "--agents",
        "Googlebot-Image,Googlebot",
        &server.url("/news/x"),
        "/private/x",
    ]);
    assert_eq!(code(&o), 1, "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let s = agents_section(&out, "googlebot-image,googlebot");
    assert_eq!(
        s[1],
        "  group:       the group naming googlebot, chosen by:"
    );
    assert_eq!(s[2], "    line 6: User-agent: Googlebot");
    assert_eq!(
        s[s.len() - 2..],
        [
            format!(
                "  allowed\t{}\tno rule matched\tusage: train-ai=y, search=y (line 9)",
                server.url("/news/x")
            ),
            "  disallowed\t/private/x\tline 7: Disallow: /private/".to_owned(),
        ]
    );
    assert_eq!(
        server.requests()[0].header("user-agent"),
        Some("Googlebot-Image")
    );
    let o = d.run(&[
        "explain",
        "--json",
        "--agents",
        "googlebot-image,googlebot",
        &server.url("/"),
        "/news/x",
    ]);
    let (r, _) = records(&o);
    assert_eq!(r[0]["matched_token"], "googlebot");
    assert_eq!(r[0]["verdict"], "rules");
    assert_eq!(r[1]["agent"], "googlebot");
    assert_eq!(r[1]["usage"]["rules"][0]["line"], 9);
    assert_eq!(server.hits(), 1, "the second run reads the crawl state");
}
