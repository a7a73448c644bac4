//! `crawlgate fetch`, and `crawlgate check` without `--robots`, against real servers on
//! 127.0.0.1 (the binary runs while the test's runtime serves).
#![cfg(feature = "fetch")]

mod support;

use std::process::{Command, Output, Stdio};

use support::{Reply, TestServer};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Runs the binary with a state of its own (a fresh `XDG_STATE_HOME`): no run sees another's
/// state (the same local port may come back), and the user's real state is never touched.
fn run(args: &[&str]) -> Output {
    let state = tempfile::tempdir().expect("temp dir");
    Command::new(env!("CARGO_BIN_EXE_crawlgate"))
        .args(args)
        .env_remove("CRAWLGATE_AGENT")
        .env_remove("CRAWLGATE_STATE")
        .env("XDG_STATE_HOME", state.path())
        .env("HOME", state.path())
        .stdin(Stdio::null())
        .output()
        .expect("run crawlgate")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).expect("UTF-8")
}

#[test]
fn check_fetches_each_origin_once() {
    let rt = runtime();
    let server = rt.block_on(TestServer::start(|_| {
        Reply::text(200, "User-agent: *\nDisallow: /private\n")
    }));
    let o = run(&[
        "check",
        "--agent",
        "MyBot/1.0 (+https://mybot.example)",
        &server.url("/private/a"),
        &server.url("/public"),
        &server.url("/private/b"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let lines: Vec<String> = text(&o.stdout).lines().map(str::to_owned).collect();
    assert_eq!(
        lines,
        [
            format!(
                "disallowed\t{}\tline 2: Disallow: /private",
                server.url("/private/a")
            ),
            format!("allowed\t{}", server.url("/public")),
            format!(
                "disallowed\t{}\tline 2: Disallow: /private",
                server.url("/private/b")
            ),
        ]
    );
    assert_eq!(server.hits(), 1);
    // The --agent value, as given, is the User-Agent header.
    assert_eq!(
        server.requests()[0].header("user-agent"),
        Some("MyBot/1.0 (+https://mybot.example)")
    );
}

#[test]
fn check_says_why_an_unreachable_origin_is_disallowed() {
    let rt = runtime();
    let server = rt.block_on(TestServer::start(|_| Reply::status(503)));
    let url = server.url("/a");
    let o = run(&["check", "--agent", "MyBot", "--json", &url]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["allowed"], false);
    assert_eq!(v["verdict"], "unreachable");
    assert_eq!(v["robots_txt"], server.url("/robots.txt"));
    let o = run(&["check", "--agent", "MyBot", &url]);
    assert_eq!(
        text(&o.stdout),
        format!(
            "disallowed\t{url}\trobots.txt unreachable (HTTP 503): crawling stopped for 12 hours\n"
        )
    );
}

#[test]
fn fetch_reports_each_origin() {
    let rt = runtime();
    let server = rt.block_on(TestServer::start(|req| match req.path.as_str() {
        "/robots.txt" => Reply::redirect(301, "/real-robots.txt"),
        _ => Reply::text(200, "User-agent: *\nDisalow: /x\nFoo: bar\n"),
    }));
    let o = run(&["fetch", "--json", &server.url("/a"), &server.url("/b")]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let lines: Vec<serde_json::Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 1, "one origin");
    let v = &lines[0];
    assert_eq!(v["robots_txt"], server.url("/robots.txt"));
    assert_eq!(v["status"], 200);
    assert_eq!(v["outcome"], "fetched");
    assert_eq!(v["final_url"], server.url("/real-robots.txt"));
    assert_eq!(v["redirects"], 1);
    assert_eq!(v["size"], 35);
    assert_eq!(v["errors"], 1);
    assert_eq!(v["warnings"], 1);
    assert_eq!(v["verdict"], "rules");

    let o = run(&["fetch", &server.url("/")]);
    let out = text(&o.stdout);
    assert!(out.contains("  outcome:   fetched"), "{out}");
    assert!(out.contains("(1 redirect)"), "{out}");
    assert!(out.contains("  problems:  1 error, 1 warning"), "{out}");
}

#[test]
fn fetch_exit_codes() {
    let rt = runtime();
    let missing = rt.block_on(TestServer::start(|_| Reply::status(404)));
    let o = run(&["fetch", &missing.url("/")]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).contains("not-found (HTTP 404)"));
    let refused = rt.block_on(support::refused_addr());
    let o = run(&["fetch", "--timeout", "2", &format!("http://{refused}/")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stdout).contains("unreachable (connection failed"),
        "{}",
        text(&o.stdout)
    );
    let o = run(&["fetch", "ftp://example.com/"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).starts_with("crawlgate: "));
}
