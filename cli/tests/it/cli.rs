//! The `crawlgate` binary, run for real: output formats, exit codes and error sentences.

use crate::run::{
    assert_error_says, assert_error_starts, check, code, objects as json_lines, run, run_with,
    stderr, stdout, Dir, TempFile,
};
use crate::support::assert_has;
use serde_json::Value;
use std::process::Stdio;

const ROBOTS_MODES: &str = "User-agent: *\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n";

fn keys(m: &serde_json::Map<String, Value>) -> Vec<&str> {
    let mut k: Vec<&str> = m.keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

// ---- lint -------------------------------------------------------------------------------

#[test]
fn lint_clean_file_exits_0_with_no_problems() {
    let o = run(&["lint", "testdata/cli/clean.txt"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "1 file: no problems\n");
    assert_eq!(stderr(&o), "");
}

#[test]
fn lint_error_exits_1_with_path_line_column_code() {
    let o = run(&["lint", "testdata/cli/errors.txt"]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with("testdata/cli/errors.txt:3:1: error[invalid-line]: "),
        "{out}"
    );
    assert!(
        lines[1].starts_with("testdata/cli/errors.txt:4:14: warning[ignored-directive]: "),
        "{out}"
    );
    assert_eq!(lines[2], "1 file: 1 error, 1 warning");
}

#[test]
fn lint_warnings_exit_0_unless_denied() {
    let o = run(&["lint", "testdata/cli/warnings.txt"]);
    assert_eq!(code(&o), 0);
    assert!(
        stdout(&o).ends_with("\n1 file: 2 warnings\n"),
        "{}",
        stdout(&o)
    );

    let o = run(&["lint", "--deny-warnings", "testdata/cli/warnings.txt"]);
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("warnings.txt:2:1: warning[misspelled-key]: "));
}

#[test]
fn lint_summary_counts_files_and_pluralises() {
    let o = run(&[
        "lint",
        "testdata/cli/clean.txt",
        "testdata/cli/errors.txt",
        "testdata/cli/warnings.txt",
    ]);
    assert_eq!(code(&o), 1);
    assert_eq!(
        stdout(&o).lines().last(),
        Some("3 files: 1 error, 3 warnings")
    );
}

#[test]
fn lint_json_problems_then_one_summary() {
    let o = run(&[
        "lint",
        "--json",
        "testdata/cli/errors.txt",
        "testdata/cli/clean.txt",
    ]);
    assert_eq!(code(&o), 1);
    let objs = json_lines(&o);
    assert_eq!(objs.len(), 3, "{}", stdout(&o));
    for m in &objs[..2] {
        assert_eq!(
            keys(m),
            ["code", "column", "line", "message", "path", "severity", "type"]
        );
        assert_eq!(m["type"], "problem");
    }
    let first = &objs[0];
    assert_eq!(first["path"], "testdata/cli/errors.txt");
    assert_eq!(first["line"], 3);
    assert_eq!(first["column"], 1);
    assert_eq!(first["severity"], "error");
    assert_eq!(first["code"], "invalid-line");
    assert!(first["message"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(objs[1]["severity"], "warning");
    // Fields in the documented order, `type` first.
    assert!(
        stdout(&o).starts_with("{\"type\":\"problem\",\"path\":"),
        "{}",
        stdout(&o)
    );
    let summary = &objs[2];
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["command"], "lint");
    assert_eq!(
        (&summary["files"], &summary["errors"], &summary["warnings"]),
        (&Value::from(2), &Value::from(1), &Value::from(1))
    );
    assert_eq!(summary["failed"], 0);
    assert_eq!(summary["exit"], 1);
}

#[test]
fn lint_json_clean_run_still_prints_a_summary() {
    let o = run(&["lint", "--json", "testdata/cli/clean.txt"]);
    assert_eq!(code(&o), 0);
    assert_eq!(
        stdout(&o),
        "{\"type\":\"summary\",\"command\":\"lint\",\"files\":1,\"errors\":0,\"warnings\":0,\"failed\":0,\"exit\":0}\n"
    );
    // An unreadable file is counted, and the exit status is the one returned.
    let o = run(&["lint", "--json", "robots.txt.missing"]);
    assert_eq!(code(&o), 2);
    let objs = json_lines(&o);
    assert_eq!(objs.len(), 1);
    assert_eq!(
        (&objs[0]["failed"], &objs[0]["exit"]),
        (&Value::from(1), &Value::from(2))
    );
}

#[test]
fn lint_missing_file_exits_2_with_one_sentence() {
    let o = run(&["lint", "robots.txt.missing"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("crawlgate: cannot read robots.txt.missing: "),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(stdout(&o), "");
}

#[test]
fn lint_still_lints_readable_files_when_one_is_missing() {
    let o = run(&["lint", "robots.txt.missing", "testdata/cli/errors.txt"]);
    assert_eq!(code(&o), 2, "an I/O error outranks lint errors");
    assert!(stdout(&o).contains("testdata/cli/errors.txt:3:1: error[invalid-line]: "));
    assert!(stdout(&o).ends_with("1 file: 1 error, 1 warning\n"));
    assert!(stderr(&o).contains("robots.txt.missing"));
}

#[test]
fn lint_reads_stdin_and_counts_columns_in_characters() {
    let o = run_with(
        &["lint", "-"],
        Some("User-agent: *\nDisallow: /ä*\n".as_bytes()),
        &[],
    );
    assert_eq!(code(&o), 0);
    assert!(
        stdout(&o).starts_with("<stdin>:2:13: warning[redundant-wildcard]: "),
        "{}",
        stdout(&o)
    );
}

#[test]
fn lint_names_unusable_crawl_delay_and_request_rate_values() {
    let o = run_with(
        &["lint", "-"],
        Some(
            "User-agent: *\nCrawl-delay: NaN\nCrawl-delay: 10 seconds\nRequest-rate: 1/0\n\
             Crawl-delay: 5\nDisallow: /x\n"
                .as_bytes(),
        ),
        &[],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with(
            "<stdin>:2:14: warning[unusable-crawl-delay]: `NaN` is not a usable crawl-delay"
        ),
        "{out}"
    );
    assert!(
        lines[1].starts_with("<stdin>:3:14: warning[unusable-crawl-delay]: `10 seconds` "),
        "{out}"
    );
    assert!(
        lines[2].starts_with("<stdin>:4:15: warning[unusable-request-rate]: `1/0` "),
        "{out}"
    );
    assert!(lines[0].contains("crawlgate ignores the line"), "{out}");
    assert!(
        lines[3].starts_with("<stdin>:5:14: warning[ignored-directive]: "),
        "a usable value keeps the generic warning: {out}"
    );
}

#[test]
fn lint_mode_changes_what_is_an_error() {
    let body: &[u8] = b"User-agent: *\nDisallowed: /x\n";
    let rfc = run_with(&["lint", "-"], Some(body), &[]);
    let google = run_with(&["lint", "--mode", "google", "-"], Some(body), &[]);
    assert_eq!(code(&rfc), 1);
    assert!(stdout(&rfc).contains("error[unknown-directive]"));
    assert_eq!(code(&google), 0);
    assert!(stdout(&google).contains("warning[misspelled-key]"));
}

#[test]
fn lint_refuses_stdin_twice() {
    let o = run_with(&["lint", "-", "-"], Some(b""), &[]);
    assert_error_starts(&o, 2, "crawlgate: ");
}

// ---- check ------------------------------------------------------------------------------

#[test]
fn check_prints_tab_separated_lines_and_exits_by_result() {
    let o = check(
        "MyBot",
        "testdata/cli/clean.txt",
        &[
            "https://example.com/private/x",
            "https://example.com/private/public.html",
        ],
    );
    assert_eq!(code(&o), 1);
    assert_eq!(
        stdout(&o),
        "disallowed\thttps://example.com/private/x\tline 3: Disallow: /private/\n\
         allowed\thttps://example.com/private/public.html\tline 4: Allow: /private/public.html\n"
    );

    let o = check(
        "MyBot",
        "testdata/cli/clean.txt",
        &["https://example.com/", "/private/public.html"],
    );
    assert_eq!(code(&o), 0);
    assert_eq!(
        stdout(&o),
        "allowed\thttps://example.com/\n\
         allowed\t/private/public.html\tline 4: Allow: /private/public.html\n"
    );
}

#[test]
fn check_json_fields() {
    let o = run(&[
        "check",
        "--json",
        "--agent",
        "BadBot/1.0",
        "--robots",
        "testdata/cli/clean.txt",
        "https://example.com/a",
        "/robots.txt",
    ]);
    assert_eq!(code(&o), 1);
    let objs = json_lines(&o);
    assert_eq!(objs.len(), 3);
    for m in &objs[..2] {
        assert_eq!(
            keys(m),
            [
                "agent",
                "agents",
                "allowed",
                "crawl_delay",
                "decided_by",
                "group",
                "judged_url",
                "line",
                "reason",
                "reason_text",
                "request_rate",
                "robots_txt",
                "rule",
                "type",
                "url",
                "usage",
                "verdict"
            ]
        );
        assert_eq!(m["type"], "check");
        assert_eq!(m["agent"], "badbot");
        assert_eq!(m["robots_txt"], "testdata/cli/clean.txt");
        assert_eq!(m["verdict"], "rules");
        assert_eq!(m["reason"], "given");
    }
    assert_eq!(objs[0]["url"], "https://example.com/a");
    assert_eq!(objs[0]["allowed"], false);
    assert_eq!(objs[0]["decided_by"], "rule");
    assert_eq!(objs[0]["line"], 7);
    assert_eq!(objs[0]["rule"], "Disallow: /");
    assert_eq!(objs[0]["group"], "token");
    assert_eq!(objs[1]["allowed"], true);
    assert_eq!(objs[1]["decided_by"], "robots-txt");
    assert_eq!(objs[1]["line"], Value::Null);
    assert_eq!(objs[1]["rule"], Value::Null);
    let summary = &objs[2];
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["command"], "check");
    assert_eq!(
        (
            &summary["urls"],
            &summary["allowed"],
            &summary["disallowed"]
        ),
        (&Value::from(2), &Value::from(1), &Value::from(1))
    );
    assert_eq!(summary["exit"], 1);
}

#[test]
fn check_json_reasons_no_group_and_no_matching_rule() {
    let file = TempFile::new("reasons.txt", b"User-agent: OtherBot\nDisallow: /x\n");
    let robots = file.path();
    let o = run(&[
        "check", "--json", "--agent", "MyBot", "--robots", robots, "/x",
    ]);
    assert_eq!(code(&o), 0);
    let objs = json_lines(&o);
    assert_eq!(objs[0]["decided_by"], "no-group");
    assert_eq!(objs[0]["group"], "none");

    let o = run(&[
        "check", "--json", "--agent", "OtherBot", "--robots", robots, "/y",
    ]);
    let objs = json_lines(&o);
    assert_eq!(objs[0]["decided_by"], "no-matching-rule");
    assert_eq!(objs[0]["group"], "token");
    // Standard input is named as the other commands name it.
    let o = run_with(
        &["check", "--json", "--agent", "MyBot", "--robots", "-", "/x"],
        Some(b"User-agent: *\nDisallow: /x\n"),
        &[],
    );
    assert_eq!(code(&o), 1);
    assert_eq!(json_lines(&o)[0]["robots_txt"], "<stdin>");
}

/// A URL is judged as a client requests it, in both modes: `/x/../admin`, `/./admin` and
/// `/%2e/admin` are requests for `/admin`. The line and the record say what was judged.
#[test]
fn check_judges_the_url_a_client_requests() {
    let file = TempFile::new("spelling.txt", b"User-agent: *\nDisallow: /admin\n");
    let robots = file.path();
    let urls = [
        "https://site.test/x/../admin",
        "https://site.test/./admin",
        "https://site.test/%2e/admin",
        "https://site.test\\admin",
        "https://site.test/adm\tin",
    ];
    for mode in ["rfc", "google"] {
        let mut args = vec![
            "check", "--agent", "bot", "--mode", mode, "--robots", robots,
        ];
        args.extend(urls);
        let o = run(&args);
        assert_eq!(code(&o), 1, "{mode}");
        let want: String = urls
            .iter()
            .map(|u| {
                let shown = u.replace('\t', "\\t");
                format!(
                    "disallowed\t{shown} (as https://site.test/admin)\tline 2: Disallow: /admin\n"
                )
            })
            .collect();
        assert_eq!(stdout(&o), want, "{mode}");
        args.insert(1, "--json");
        let objs = json_lines(&run(&args));
        for (m, url) in objs.iter().zip(urls) {
            assert_eq!(m["url"], url);
            assert_eq!(m["judged_url"], "https://site.test/admin", "{url:?}");
            assert_eq!(m["allowed"], false, "{url:?}");
        }
    }
    // Spelled as requested: no second URL.
    let o = run(&[
        "check",
        "--json",
        "--agent",
        "bot",
        "--robots",
        robots,
        "https://site.test/admin",
    ]);
    assert_eq!(json_lines(&o)[0]["judged_url"], Value::Null);
}

#[test]
fn check_mode_google_and_rfc_differ_on_percent_encoding() {
    let file = TempFile::new("modes.txt", ROBOTS_MODES.as_bytes());
    let robots = file.path();
    let url = "http://x/foo/bar/baz";
    let rfc = check("MyBot", robots, &[url]);
    assert_eq!(code(&rfc), 0);
    assert_eq!(
        stdout(&rfc),
        format!("allowed\t{url}\tline 3: Allow: /foo/bar/%62%61%7A\n")
    );

    let google = check("MyBot", robots, &["--mode", "google", url]);
    assert_eq!(code(&google), 1);
    assert_eq!(
        stdout(&google),
        format!("disallowed\t{url}\tline 2: Disallow: /\n")
    );
}

#[test]
fn check_google_index_html_rule_says_how_it_was_read() {
    let robots = TempFile::new(
        "index-html.txt",
        b"User-agent: *\nDisallow: /dir/\nAllow: /dir/index.html\n",
    );
    let o = run(&[
        "check",
        "--json",
        "--mode",
        "google",
        "--agent",
        "MyBot",
        "--robots",
        robots.path(),
        "http://x/dir/",
    ]);
    assert_eq!(code(&o), 0);
    let objs = json_lines(&o);
    assert_eq!(objs[0]["rule"], "Allow: /dir/index.html (read as /dir/$)");
    assert_eq!(objs[0]["line"], 3);
}

#[test]
fn check_reads_agent_from_env() {
    let args = [
        "check",
        "--robots",
        "testdata/cli/clean.txt",
        "https://example.com/a",
    ];
    let o = run_with(
        &args,
        None,
        &[("CRAWLGATE_AGENT", "BadBot/2.0 (+https://bad.example)")],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "disallowed\thttps://example.com/a\tline 7: Disallow: /\n"
    );

    // Without the variable, --agent is a missing required option: a usage error.
    let o = run(&args);
    assert_error_says(&o, 2, "--agent");
}

#[test]
fn check_refuses_browser_header() {
    // A browser's own header names no crawler (a crawler's `compatible; Googlebot/2.1` header
    // is read as `googlebot`: tests/cli_agents.rs).
    let o = check("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36", "testdata/cli/clean.txt", &["/"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("crawlgate: "), "{err}");
    assert_has(&err, "browser User-Agent header");
    assert_eq!(stdout(&o), "");
}

#[test]
fn check_without_urls_exits_2() {
    let o = check("MyBot", "testdata/cli/clean.txt", &[]);
    assert_error_starts(&o, 2, "crawlgate: no URLs to check");
}

#[test]
fn check_urls_file_skips_blank_and_comment_lines() {
    let urls = TempFile::new(
        "urls.txt",
        b"# to check\n\nhttps://example.com/private/a\r\n  /ok  \n",
    );
    let o = check(
        "MyBot",
        "testdata/cli/clean.txt",
        &["--urls", urls.path(), "/first"],
    );
    assert_eq!(code(&o), 1);
    assert_eq!(
        stdout(&o),
        "allowed\t/first\n\
         disallowed\thttps://example.com/private/a\tline 3: Disallow: /private/\n\
         allowed\t/ok\n"
    );
}

#[test]
fn check_reads_robots_or_urls_from_stdin_but_not_both() {
    let o = run_with(
        &["check", "--agent", "MyBot", "--robots", "-", "/a"],
        Some(b"User-agent: *\nDisallow: /a\n"),
        &[],
    );
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "disallowed\t/a\tline 2: Disallow: /a\n");

    let o = run_with(
        &[
            "check",
            "--agent",
            "MyBot",
            "--robots",
            "testdata/cli/clean.txt",
            "--urls",
            "-",
        ],
        Some(b"/private/x\n"),
        &[],
    );
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).starts_with("disallowed\t/private/x\t"));

    let o = run_with(
        &["check", "--agent", "MyBot", "--robots", "-", "--urls", "-"],
        Some(b""),
        &[],
    );
    assert_error_starts(&o, 2, "crawlgate: ");
    assert_eq!(stdout(&o), "");
}

#[test]
fn check_missing_robots_file_exits_2() {
    let o = check("MyBot", "robots.txt.missing", &["/"]);
    assert_error_starts(&o, 2, "crawlgate: cannot read robots.txt.missing: ");
}

#[test]
fn closed_stdout_pipe_is_not_a_panic() {
    let many: String = (0..100_000).map(|i| format!("/page/{i}\n")).collect();
    let urls = TempFile::new("many-urls.txt", many.as_bytes());
    let clean = format!("{}/testdata/cli/clean.txt", crate::ROOT);
    let home = Dir::new();
    let mut child = home
        .command(&[
            "check",
            "--agent",
            "MyBot",
            "--robots",
            &clean,
            "--urls",
            urls.path(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("crawlgate runs");
    // Close the reading end at once: ~1.5 MB of output cannot fit in the pipe.
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err, "");
    assert_eq!(code(&o), 0);
}

// ---- url --------------------------------------------------------------------------------

#[test]
fn url_prints_robots_txt_urls() {
    let o = run(&[
        "url",
        "HTTPS://User:pw@Example.COM:443/a/b?c#d",
        "http://example.com:8080/x",
    ]);
    assert_eq!(code(&o), 0);
    assert_eq!(
        stdout(&o),
        "https://example.com/robots.txt\nhttp://example.com:8080/robots.txt\n"
    );
}

#[test]
fn url_bad_url_exits_2_after_printing_the_good_ones() {
    let o = run(&[
        "url",
        "ftp://example.com/x",
        "https://example.com/a",
        "not a url",
    ]);
    assert_eq!(code(&o), 2);
    assert_eq!(stdout(&o), "https://example.com/robots.txt\n");
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with("crawlgate: \"ftp://example.com/x\""),
        "{err}"
    );
    assert!(lines[1].starts_with("crawlgate: \"not a url\""), "{err}");
}

#[test]
fn url_json() {
    let o = run(&["url", "--json", "https://Example.com/a?b", "ftp://x/"]);
    assert_eq!(code(&o), 2);
    let objs = json_lines(&o);
    assert_eq!(objs.len(), 2);
    assert_eq!(keys(&objs[0]), ["robots_txt", "type", "url"]);
    assert_eq!(objs[0]["type"], "robots-txt-url");
    assert_eq!(objs[0]["url"], "https://Example.com/a?b");
    assert_eq!(objs[0]["robots_txt"], "https://example.com/robots.txt");
    assert_eq!(objs[1]["type"], "summary");
    assert_eq!(
        (&objs[1]["urls"], &objs[1]["failed"]),
        (&Value::from(1), &Value::from(1))
    );
    assert_eq!(objs[1]["exit"], 2);
}

// ---- usage ------------------------------------------------------------------------------

#[test]
fn help_and_version_exit_0() {
    let o = run(&["--help"]);
    assert_eq!(code(&o), 0);
    let help = stdout(&o);
    for cmd in ["lint", "check", "url"] {
        assert!(help.contains(cmd), "{help}");
    }
    let o = run(&["check", "--help"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("CRAWLGATE_AGENT"));
    let o = run(&["--version"]);
    assert_eq!(code(&o), 0);
    assert_eq!(
        stdout(&o),
        format!("crawlgate {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["frobnicate"][..],
        &["lint"],
        &["lint", "--mode", "bing", "testdata/cli/clean.txt"],
        &["url"],
        &[],
    ] {
        let o = run(args);
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn an_endless_input_is_an_error_not_a_hang() {
    // A robots.txt is read as far as the parser reads: an endless one is a file too long
    // (`content-after-limit`, as when fetched), not a read error.
    let o = run(&["lint", "/dev/zero"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("error[content-after-limit]"),
        "{}",
        stdout(&o)
    );
    assert_eq!(stderr(&o), "");
    // Other inputs stop at 64 MiB.
    let robots = TempFile::new("endless.txt", b"User-agent: *\nDisallow: /x\n");
    let o = check("bot", robots.path(), &["--urls", "/dev/zero"]);
    assert_error_starts(&o, 2, "crawlgate: cannot read /dev/zero: ");
}

// ---- inputs that make no sense, output that could hurt ---------------------------------------

#[test]
fn check_robots_refuses_what_is_neither_a_url_nor_a_path() {
    let robots = TempFile::new("check-targets.txt", b"User-agent: *\nDisallow: /private\n");
    let bad = [
        "private/report.pdf",
        "ftp://h/x",
        "mailto:a@b",
        "http://",
        "",
    ];
    let mut args = vec!["check", "--agent", "bot", "--robots", robots.path()];
    args.extend(["/private/x", "https://e.example/private/y", "*/x"]);
    args.extend(bad);
    let o = run(&args);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // The good ones are still answered, in order…
    let lines: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
    assert_eq!(
        lines,
        [
            "disallowed\t/private/x\tline 2: Disallow: /private",
            "disallowed\thttps://e.example/private/y\tline 2: Disallow: /private",
            "allowed\t*/x",
        ]
    );
    // …and each bad one gets one sentence.
    let err = stderr(&o);
    assert_eq!(err.lines().count(), bad.len(), "{err}");
    assert!(err.lines().all(|l| l.starts_with("crawlgate: ")), "{err}");
    assert_has(&err, "\"private/report.pdf\" is neither an http(s) URL nor a path starting with `/` or `*` (did you mean `https://private/report.pdf`?)");
    assert_has(&err, "\"ftp://h/x\"");

    // Google mode takes every string as google/robotstxt's API does.
    let mut args = vec![
        "check",
        "--mode",
        "google",
        "--agent",
        "bot",
        "--robots",
        robots.path(),
    ];
    args.extend(bad);
    let o = run(&args);
    assert_eq!(stdout(&o).lines().count(), bad.len(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

#[test]
fn check_output_escapes_controls_and_cannot_be_forged_by_a_url() {
    let robots = TempFile::new(
        "check-escape.txt",
        b"User-agent: *\nDisallow: /a\x1b]0;pwned\x07\n",
    );
    let o = run(&[
        "check",
        "--agent",
        "bot",
        "--robots",
        robots.path(),
        "/a\x1b]0;pwned\x07/x",
        "/b\tallowed\t/c\nallowed\t/d",
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "disallowed\t/a\\u{1b}]0;pwned\\u{7}/x\tline 2: Disallow: /a\\u{1b}]0;pwned\\u{7}",
            "allowed\t/b\\tallowed\\t/c\\nallowed\\t/d (as /ballowed/callowed/d)",
        ]
    );
}

#[test]
fn lint_output_escapes_what_the_file_says() {
    let o = run_with(
        &["lint", "-"],
        Some(b"User-agent: *\nSitemap: \x1b[2J/not-absolute\n"),
        &[],
    );
    let out = stdout(&o);
    assert!(!out.contains('\x1b'), "{out:?}");
    assert_has(&out, "\\u{1b}[2J");
}

#[test]
fn sitemap_lint_refuses_stdin_for_both_robots_and_sitemap() {
    let sitemap = b"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>https://e.example/</loc></url></urlset>";
    let o = run_with(
        &["sitemap", "lint", "--robots", "-", "-"],
        Some(sitemap),
        &[],
    );
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert_eq!(
        stderr(&o),
        "crawlgate: --robots and a sitemap cannot both read standard input (`-`)\n"
    );
    assert_eq!(stdout(&o), "");
}

#[test]
fn sitemap_urls_escapes_the_urls_it_prints() {
    let o = run(&["sitemap", "urls", "testdata/fuzz/sitemap-loc-form-feed.xml"]);
    let out = stdout(&o);
    assert!(!out.contains('\x0c'), "{out:?}");
    assert_has(&out, "https://example.com/%C3%BCmlat.htm\\u{c}\t");
}

#[test]
fn unreadable_inputs_are_one_sentence_in_words() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path().to_str().expect("UTF-8 path");
    for args in [
        vec!["lint", dir],
        vec!["check", "--agent", "bot", "--robots", dir, "/x"],
    ] {
        let o = run(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        assert_eq!(
            stderr(&o),
            format!("crawlgate: cannot read {dir}: it is a directory\n"),
            "{args:?}"
        );
    }
    // `lint URL` fetches it (tests/cli_explain.rs); `--robots` reads files only.
    let o = check("bot", "https://example.com/robots.txt", &["/x"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.starts_with("crawlgate: cannot read https://example.com/robots.txt: no such file (https://example.com/robots.txt is a URL: this command reads files and `-`;"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn quiet_prints_nothing_and_keeps_the_exit_status() {
    let robots = TempFile::new(
        "quiet.txt",
        b"User-agent: *\nDisallow: /private\nCrawl-delay: 5\n",
    );
    for (args, exit) in [
        (
            vec![
                "-q",
                "check",
                "--agent",
                "bot",
                "--robots",
                robots.path(),
                "/private/x",
            ],
            1,
        ),
        (
            vec![
                "check",
                "--quiet",
                "--agent",
                "bot",
                "--robots",
                robots.path(),
                "/ok",
            ],
            0,
        ),
        (vec!["lint", "-q", "--json", robots.path()], 0),
        (vec!["lint", "-q", "--deny-warnings", robots.path()], 1),
    ] {
        let o = run(&args);
        assert_eq!(code(&o), exit, "{args:?}");
        assert_eq!(stdout(&o), "", "{args:?}");
        assert_eq!(stderr(&o), "", "{args:?}");
    }
    // Errors still say why.
    let o = run(&["-q", "lint", "/nonexistent/robots.txt"]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        "crawlgate: cannot read /nonexistent/robots.txt: no such file\n"
    );
}

#[test]
fn max_problems_caps_each_code_per_file_and_counts_the_rest() {
    let robots = TempFile::new(
        "max-problems.txt",
        b"User-agent: *\nfoo\nbar\nbaz\nqux\nCrawl-delay: 1\n",
    );
    let o = run(&["lint", "--max-problems", "2", robots.path()]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("error[invalid-line]"))
            .count(),
        2
    );
    assert!(lines[2].contains("warning[ignored-directive]"), "{out}");
    assert_eq!(
        lines[3],
        format!(
            "{}: 2 more invalid-line problems not shown (--max-problems)",
            robots.path()
        )
    );
    // The summary counts every problem.
    assert_eq!(lines[4], "1 file: 4 errors, 1 warning");
    let o = run(&["lint", "--json", "--max-problems", "2", robots.path()]);
    let records = json_lines(&o);
    assert_eq!(records.len(), 4);
    let summary = &records[3];
    assert_eq!(summary["omitted"], 2);
    assert_eq!(summary["errors"], 4);
    // 0, or no flag: everything.
    for args in [vec!["lint", "--max-problems", "0"], vec!["lint"]] {
        let mut args = args;
        args.push(robots.path());
        let o = run(&args);
        assert_eq!(stdout(&o).lines().count(), 6, "{args:?}");
    }
    let sitemap = TempFile::new(
        "max-problems-sitemap.txt",
        b"notaurl\nalso bad\nthird bad\nhttps://e.example/ok\n",
    );
    let o = run(&["sitemap", "lint", "--max-problems", "1", sitemap.path()]);
    assert!(
        stdout(&o).contains(&format!(
            "{}: 2 more invalid-url problems not shown",
            sitemap.path()
        )),
        "{}",
        stdout(&o)
    );
}

#[test]
fn help_names_every_capability_and_completions_and_man_are_generated() {
    let commands = [
        "lint",
        "check",
        "explain",
        "url",
        "fetch",
        "history",
        "recrawl",
        "page",
        "policy",
        "sitemap",
        "completions",
        "man",
    ];
    let o = run(&["--help"]);
    assert_eq!(code(&o), 0);
    let help = stdout(&o);
    for c in commands {
        assert!(
            help.contains(&format!("\n  {c} ")),
            "{c} in --help:\n{help}"
        );
    }
    for word in [
        "Lint",
        "check URLs",
        "crawl state",
        "sitemaps",
        "JSON Lines",
    ] {
        assert!(help.contains(word), "{word:?} in --help:\n{help}");
    }
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = run(&["completions", shell]);
        assert_eq!(code(&o), 0, "{shell}");
        let script = stdout(&o);
        for c in ["lint", "check", "discover", "max-problems"] {
            assert!(script.contains(c), "{shell} completion names {c}");
        }
    }
    let o = run(&["completions", "tcsh"]);
    assert_eq!(code(&o), 2);
    let o = run(&["man"]);
    assert_eq!(code(&o), 0);
    let page = stdout(&o);
    assert_has(&page, ".TH crawlgate 1");
    for c in commands {
        assert!(page.contains(c), "{c} in the manual page");
    }
}

#[test]
fn sitemap_lint_of_a_directory_or_another_scheme_is_exit_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path().to_str().expect("UTF-8 path");
    let o = run(&["sitemap", "lint", dir, "ftp://example.com/sitemap.xml"]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        format!(
            "crawlgate: cannot read {dir}: it is a directory\n\
             crawlgate: cannot read ftp://example.com/sitemap.xml: only http and https URLs are \
             fetched, and no such file\n"
        )
    );
    // Nothing was read: no finding, no summary line.
    assert_eq!(stdout(&o), "");
}

/// A 10 MB robots.txt whose `mybot` group sits past the 512,000-byte limit.
fn ten_megabytes() -> Vec<u8> {
    let mut file = b"User-agent: *\nAllow: /\n".to_vec();
    while file.len() < 10_485_760 {
        file.extend_from_slice(b"# a comment line that pads the file out\n");
    }
    file.extend_from_slice(b"User-agent: mybot\nDisallow: /\n");
    file
}

#[test]
fn check_warns_when_the_robots_txt_was_cut() {
    let d = crate::run::Dir::new();
    let file = ten_megabytes();
    let size = file.len();
    let path = d.file("big.txt", &file);
    let o = run(&["check", "--agent", "MyBot", "--robots", &path, "/x"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "allowed\t/x\tline 2: Allow: /\n");
    assert_eq!(
        stderr(&o),
        format!(
            "crawlgate: warning: {path}: cut at the 512000-byte limit: the file is {size} \
             bytes, and what follows the limit is ignored (content-after-limit)\n"
        )
    );
    let o = run(&[
        "check", "--json", "--agent", "MyBot", "--robots", &path, "/x",
    ]);
    let lines = json_lines(&o);
    assert_eq!(lines[0]["type"], "warning", "{:?}", lines[0]);
    assert_eq!(lines[0]["robots_txt"], path.as_str());
    assert_eq!(lines[0]["code"], "content-after-limit");
    assert_eq!(lines[1]["type"], "check");
    assert_eq!(lines[2]["type"], "summary");
    assert_eq!(lines[2]["exit"], 0);
    // From standard input the size is not known: more than the limit.
    let o = run_with(
        &["check", "--agent", "MyBot", "--robots", "-", "/x"],
        Some(&file),
        &[],
    );
    assert!(
        stderr(&o).contains("cut at the 512000-byte limit: the file is more than 512000 bytes"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn check_warns_when_the_robots_txt_is_binary_or_empty() {
    let d = crate::run::Dir::new();
    let binary = d.file(
        "bin.txt",
        b"\x7fELF\x02\x01\x01\0\0\0\0\nDisallow: /\xff\xfe\n",
    );
    let o = run(&["check", "--agent", "MyBot", "--robots", &binary, "/x"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with(&format!(
            "crawlgate: warning: {binary}: not a text file: a NUL byte on line 1 (nul-byte)"
        )),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "check", "--json", "--agent", "MyBot", "--robots", &binary, "/x",
    ]);
    assert_eq!(json_lines(&o)[0]["type"], "warning");
    assert_eq!(json_lines(&o)[0]["code"], "nul-byte");

    let latin1 = d.file("latin1.txt", b"User-agent: *\nDisallow: /caf\xe9\n");
    let o = run(&["check", "--agent", "MyBot", "--robots", &latin1, "/x"]);
    assert!(
        stderr(&o).starts_with(&format!(
            "crawlgate: warning: {latin1}: not a text file: bytes that are not UTF-8 on line 2 \
             (invalid-utf8)"
        )),
        "{}",
        stderr(&o)
    );

    let empty = d.file("empty.txt", b"");
    let o = run(&["check", "--agent", "MyBot", "--robots", &empty, "/x"]);
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o), "allowed\t/x\n");
    assert_eq!(
        stderr(&o),
        format!("crawlgate: warning: {empty}: the file is empty: everything is allowed (empty)\n")
    );
    let o = run(&[
        "check", "--json", "--agent", "MyBot", "--robots", &empty, "/x",
    ]);
    let lines = json_lines(&o);
    assert_eq!(lines[0]["type"], "warning");
    assert_eq!(lines[0]["code"], "empty");
    assert_eq!(lines[0]["line"], Value::Null);
    // A clean file: no warning.
    let o = run(&[
        "check",
        "--agent",
        "MyBot",
        "--robots",
        "testdata/cli/clean.txt",
        "/x",
    ]);
    assert_eq!(stderr(&o), "");
}

#[test]
fn lint_says_the_real_size_of_a_big_file() {
    let d = crate::run::Dir::new();
    let file = ten_megabytes();
    let size = file.len();
    let path = d.file("big.txt", &file);
    let o = run(&["lint", &path]);
    assert!(
        stdout(&o).contains(&format!(
            "error[content-after-limit]: the file is {size} bytes; everything after byte 512000 \
             is ignored"
        )),
        "{}",
        stdout(&o)
    );
    let o = run_with(&["lint", "-"], Some(&file), &[]);
    assert!(
        stdout(&o).contains(
            "error[content-after-limit]: the file is more than 512000 bytes; everything after \
             byte 512000 is ignored"
        ),
        "{}",
        stdout(&o)
    );
}

#[test]
fn check_json_has_an_error_record_for_a_bad_url_in_input_order() {
    let o = run(&[
        "check",
        "--json",
        "--agent",
        "BadBot",
        "--robots",
        "testdata/cli/clean.txt",
        "https://example.com/",
        "private/x",
        "/a",
    ]);
    assert_eq!(code(&o), 2);
    let lines = json_lines(&o);
    let types: Vec<&str> = lines
        .iter()
        .map(|l| l["type"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(types, ["check", "error", "check", "summary"]);
    assert_eq!(
        keys(&lines[1]),
        ["message", "type", "url"],
        "{:?}",
        lines[1]
    );
    assert_eq!(lines[1]["url"], "private/x");
    assert_eq!(
        lines[1]["message"],
        "\"private/x\" is neither an http(s) URL nor a path starting with `/` or `*`"
    );
    assert_eq!(lines[3]["failed"], 1);
    // Still on standard error too.
    assert!(
        stderr(&o).contains("\"private/x\" is neither"),
        "{}",
        stderr(&o)
    );
}

#[cfg(feature = "fetch")]
#[test]
fn check_json_without_robots_has_an_error_record_for_a_bad_url() {
    let o = run(&[
        "check",
        "--json",
        "--no-state",
        "--agent",
        "MyBot",
        "ftp://example.com/x",
    ]);
    assert_eq!(code(&o), 2);
    let lines = json_lines(&o);
    assert_eq!(lines[0]["type"], "error", "{:?}", lines[0]);
    assert_eq!(lines[0]["url"], "ftp://example.com/x");
    assert!(
        lines[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("ftp")),
        "{:?}",
        lines[0]
    );
    assert_eq!(lines[1]["type"], "summary");
}
