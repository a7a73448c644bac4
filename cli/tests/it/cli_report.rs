//! `crawlgate report` against real servers on 127.0.0.1, over days of a fixed clock
//! (`CRAWLGATE_NOW`): the status kinds, the ladder in force, versions and their diffs, verdict
//! changes on a hand-made pair of versions, RFC vs Google, hosts, dormant origins, escaping.
use crate::support;
use crate::support::assert_has;
use std::path::Path;
use std::process::Output;
use std::sync::{Arc, Mutex};

use crate::run::{self, text};
use crate::support::{Reply, TestServer};
use serde_json::Value;

/// Runs the binary at `now` (RFC 3339) on the state file `state`, with UTC as the local zone.
fn report_at(state: &Path, now: &str, args: &[&str]) -> Output {
    let home = state.parent().expect("state dir");
    let state = state.to_str().expect("UTF-8 state path");
    let mut all = vec!["report", "--state", state];
    all.extend_from_slice(args);
    run::output(
        run::command(home, &all)
            .env("CRAWLGATE_NOW", now)
            .env("TZ", "UTC"),
        None,
    )
}

/// The `report` records of a `--json` run, and its summary.
fn records(o: &Output) -> (Vec<Value>, Value) {
    let (lines, summary) = run::records(o);
    assert!(lines.iter().all(|r| r["type"] == "report"));
    (lines, summary)
}

/// A server whose robots.txt is whatever `body` holds at the time (`None`: 503).
fn changing(rt: &tokio::runtime::Runtime) -> (TestServer, Arc<Mutex<Option<String>>>) {
    let body: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let shared = body.clone();
    let server = rt.block_on(TestServer::start(move |_| {
        match shared.lock().expect("lock").clone() {
            Some(b) => Reply::text(200, &b),
            None => Reply::status(503),
        }
    }));
    (server, body)
}

fn set(body: &Mutex<Option<String>>, to: Option<&str>) {
    *body.lock().expect("lock") = to.map(str::to_owned);
}

#[test]
fn each_status_kind_as_search_console_names_it() {
    let rt = support::runtime(1);
    let ok = rt.block_on(TestServer::start(|_| {
        Reply::text(
            200,
            "User-agent: *\nDisalow: /x\nFoo: bar\nDisallow: /private\n",
        )
    }));
    let missing = rt.block_on(TestServer::start(|_| Reply::status(404)));
    let down = rt.block_on(TestServer::start(|_| Reply::status(503)));
    let moved = rt.block_on(TestServer::start(|req| match req.path.as_str() {
        "/robots.txt" => Reply::redirect(301, "/real-robots.txt"),
        _ => Reply::text(200, "User-agent: *\nAllow: /\n"),
    }));
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.redb");
    let targets = [
        ok.url("/"),
        missing.url("/"),
        down.url("/a"),
        moved.url("/"),
    ];
    let mut args = vec!["--json"];
    args.extend(targets.iter().map(String::as_str));
    let o = report_at(&state, "2026-11-20T10:00:00Z", &args);
    // An unreachable robots.txt and lint errors are findings.
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let (r, summary) = records(&o);
    assert_eq!(r.len(), 4);
    let kinds: Vec<(&str, &str)> = r
        .iter()
        .map(|r| {
            (
                r["status"].as_str().expect("status"),
                r["status_text"].as_str().expect("text"),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("fetched", "Fetched"),
            ("not-found", "Not fetched – Not found (404)"),
            ("not-fetched", "Not fetched – HTTP 503"),
            ("fetched", "Fetched"),
        ]
    );
    assert_eq!(r[0]["robots_txt"], ok.url("/robots.txt"));
    assert_eq!(r[0]["last_fetch"], "2026-11-20T10:00:00Z");
    assert_eq!(r[0]["size"], 54);
    assert_eq!(
        (r[0]["errors"].clone(), r[0]["warnings"].clone()),
        (1.into(), 1.into())
    );
    // Each problem on its line, numbered as the file's lines are.
    let file = &r[0]["file"];
    let lines: Vec<u64> = file["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| p["line"].as_u64().expect("line"))
        .collect();
    assert_eq!(lines, [2, 3]);
    assert_eq!(file["lines"][1], "Disalow: /x");
    assert_eq!(file["problems"][0]["code"], "misspelled-key");
    // Size is empty when the last fetch failed; the 503 stops crawling for 12 hours.
    assert_eq!(r[2]["size"], Value::Null);
    assert_eq!(r[2]["http_status"], 503);
    assert_eq!(r[2]["in_force"]["verdict"], "disallow-all");
    assert_eq!(r[2]["in_force"]["until"], "2026-11-20T22:00:00Z");
    assert_eq!(r[1]["in_force"]["verdict"], "allow-all");
    assert_eq!(r[3]["redirects"], 1);
    assert_eq!(r[3]["final_url"], moved.url("/real-robots.txt"));
    assert_eq!(summary["origins"], 4);
    assert_eq!(summary["unreachable"], 1);
    assert_eq!(summary["exit"], 1);

    // The terminal says the same, in local time (UTC here).
    let o = report_at(&state, "2026-11-20T11:00:00Z", &["--offline", &ok.url("/")]);
    let out = text(&o.stdout);
    assert_has(&out, "  status:      Fetched (200)\n");
    assert_has(&out, "  last fetch:  2026-11-20 10:00:00 +00:00\n");
    assert_has(&out, "  size:        54 bytes\n");
    assert_has(
        &out,
        "        2 | Disalow: /x\n          warning[misspelled-key]",
    );
    // An error in the file is a finding.
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
}

#[test]
fn a_file_that_changes_over_three_days() {
    let rt = support::runtime(1);
    let (server, body) = changing(&rt);
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.redb");
    let urls = dir.path().join("urls.txt");
    std::fs::write(
        &urls,
        format!("/a\n/a/x\n/b/c\n/b/d\n/c\n/d\n{}\n", server.url("/e")),
    )
    .expect("write urls");
    let urls = urls.to_str().expect("UTF-8 path");
    let target = server.url("/");
    let args = ["--json", "--agent", "MyBot", "--urls", urls, &target];

    // A hand-made pair of versions: `/a` becomes `/a/`, `/b/` goes (`/b/c` allowed on its
    // own), `/c` closes. The changes for MyBot, worked out by hand:
    //   /a    disallowed (line 2) -> allowed (no rule: `/a/` does not match `/a`)
    //   /a/x  disallowed -> disallowed (line 2 both times): no change
    //   /b/c  disallowed (line 3) -> allowed (line 3: Allow: /b/c)
    //   /b/d  disallowed (line 3) -> allowed (no rule)
    //   /c    allowed -> disallowed (line 4)
    //   /d, /e  allowed both times: no change
    set(&body, Some("User-agent: *\nDisallow: /a\nDisallow: /b/\n"));
    let o = report_at(&state, "2026-11-20T10:00:00Z", &args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    set(
        &body,
        Some("User-agent: *\nDisallow: /a/\nAllow: /b/c\nDisallow: /c\n"),
    );
    let o = report_at(&state, "2026-11-21T10:00:00Z", &args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // Day three: the same rules with a comment added changes lines, not verdicts.
    set(
        &body,
        Some("# day three\nUser-agent: *\nDisallow: /a/\nAllow: /b/c\nDisallow: /c\n"),
    );
    let o = report_at(&state, "2026-11-22T10:00:00Z", &args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (r, _) = records(&o);
    let r = &r[0];
    let versions = r["versions"].as_array().expect("versions");
    assert_eq!(versions.len(), 3);
    let in_force: Vec<bool> = versions
        .iter()
        .map(|v| v["in_force"].as_bool().expect("bool"))
        .collect();
    assert_eq!(in_force, [false, false, true]);
    assert_eq!(versions[0]["diff"], Value::Null);
    let d = &versions[1]["diff"];
    assert_eq!(
        (d["from"].clone(), d["added"].clone(), d["removed"].clone()),
        (1.into(), 3.into(), 2.into())
    );
    let d = &versions[2]["diff"];
    assert_eq!(
        (d["added"].clone(), d["removed"].clone()),
        (1.into(), 0.into())
    );
    assert_eq!(d["hunks"][0][0]["op"], "added");
    assert_eq!(d["hunks"][0][0]["new_line"], 1);
    assert_eq!(d["hunks"][0][0]["text"], "# day three");

    let changes: Vec<(u64, u64, String, String, String, Value)> = r["verdict_changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| {
            (
                c["from"].as_u64().expect("from"),
                c["to"].as_u64().expect("to"),
                c["url"].as_str().expect("url").to_owned(),
                c["before"]["verdict"].as_str().expect("before").to_owned(),
                c["after"]["verdict"].as_str().expect("after").to_owned(),
                c["after"]["line"].clone(),
            )
        })
        .collect();
    let change = |url: &str, before: &str, after: &str, line: Value| {
        (
            1,
            2,
            url.to_owned(),
            before.to_owned(),
            after.to_owned(),
            line,
        )
    };
    assert_eq!(
        changes,
        [
            change("/a", "disallowed", "allowed", Value::Null),
            change("/b/c", "disallowed", "allowed", 3.into()),
            change("/b/d", "disallowed", "allowed", Value::Null),
            change("/c", "allowed", "disallowed", 4.into()),
        ]
    );
    assert_eq!(
        r["verdict_changes"][0]["before"]["rule"],
        "line 2: Disallow: /a"
    );

    // The terminal shows the diff and the changes.
    let o = report_at(
        &state,
        "2026-11-22T10:00:00Z",
        &["--offline", "--agent", "MyBot", "--urls", urls, &target],
    );
    let out = text(&o.stdout);
    assert_has(&out, "  changes from version 1 to 2 (+3 −2):\n");
    assert_has(&out, "    -     2 | Disallow: /a\n");
    assert_has(&out, "    +     2 | Disallow: /a/\n");
    assert_has(
        &out,
        "    1 → 2  MyBot  /c  allowed (no rule matches the path) → disallowed (line 4: Disallow: \
         /c)\n",
    );
}

#[test]
fn a_failure_run_uses_the_last_good_version_after_12_hours() {
    let rt = support::runtime(1);
    let (server, body) = changing(&rt);
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.redb");
    let target = server.url("/");
    set(&body, Some("User-agent: *\nDisallow: /private\n"));
    let o = report_at(&state, "2026-11-20T10:00:00Z", &[&target]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    set(&body, None);
    let o = report_at(&state, "2026-11-21T10:00:00Z", &["--json", &target]);
    assert_eq!(o.status.code(), Some(1));
    let (r, _) = records(&o);
    assert_eq!(r[0]["in_force"]["reason"], "unreachable");
    assert_eq!(r[0]["in_force"]["until"], "2026-11-21T22:00:00Z");
    assert_eq!(r[0]["in_force"]["version"], 2);
    // The last fetched file and its problems are still shown, from version 1.
    assert_eq!(r[0]["file"]["version"], 1);
    // Thirteen hours into the run: the version of day one is in force, until 30 days after
    // the first failure.
    let o = report_at(
        &state,
        "2026-11-21T23:00:00Z",
        &["--json", "--offline", &target],
    );
    let (r, _) = records(&o);
    let f = &r[0]["in_force"];
    assert_eq!(f["reason"], "last-good-version");
    assert_eq!(f["verdict"], "rules");
    assert_eq!(f["version"], 1);
    assert_eq!(f["until"], "2026-12-21T10:00:00Z");
    assert_eq!(f["failing_since"], "2026-11-21T10:00:00Z");
    assert_eq!(
        f["text"],
        "robots.txt unreachable since 2026-11-21T10:00:00Z: using the version fetched \
         2026-11-20T10:00:00Z until 2026-12-21T10:00:00Z"
    );
    let o = report_at(&state, "2026-11-21T23:00:00Z", &["--offline", &target]);
    let out = text(&o.stdout);
    assert_has(
        &out,
        "  in force:    rules: robots.txt unreachable since 2026-11-21 10:00:00 +00:00: using the \
         version fetched 2026-11-20 10:00:00 +00:00 until 2026-12-21 10:00:00 +00:00 (version 1)\n",
    );
    assert_has(&out, "    *  1  2026-11-20 10:00:00 +00:00  200  fetched");
}

#[test]
fn a_host_is_both_its_origins_and_a_long_404_drops_out() {
    let rt = support::runtime(1);
    let missing = rt.block_on(TestServer::start(|_| Reply::status(404)));
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.redb");
    let host = missing.addr.to_string();
    // The https fetch waits for a TLS answer that never comes: a short timeout.
    let o = report_at(
        &state,
        "2026-10-01T10:00:00Z",
        &["--json", "--timeout", "1", &host],
    );
    let (r, _) = records(&o);
    let urls: Vec<&str> = r
        .iter()
        .map(|r| r["robots_txt"].as_str().expect("url"))
        .collect();
    assert_eq!(
        urls,
        [
            format!("http://{host}/robots.txt"),
            format!("https://{host}/robots.txt")
        ]
    );
    assert_eq!(r[0]["status"], "not-found");
    // The plain-HTTP server does not speak TLS: https is unreachable.
    assert_eq!(r[1]["status"], "not-fetched");
    // 31 days of 404: left out of the report, and still fetched.
    let hits = missing.hits();
    let http = missing.url("/");
    let o = report_at(&state, "2026-11-01T10:00:00Z", &["--json", &http]);
    assert_eq!(missing.hits(), hits + 1);
    let (r, summary) = records(&o);
    assert!(r.is_empty(), "{r:?}");
    assert_eq!(summary["dormant"], 1);
    assert_eq!(o.status.code(), Some(0));
    let o = report_at(&state, "2026-11-01T10:00:00Z", &["--offline", &http]);
    // The first line says that nothing was fetched.
    assert_eq!(
        text(&o.stdout),
        format!(
            "robots.txt report, 2026-11-01 10:00:00 +00:00: from the state, nothing fetched \
             (--offline)\n\nnot shown: 1 robots.txt not found for over 30 days (still checked): \
             {}\n",
            missing.url("/robots.txt")
        )
    );
}

#[test]
fn rfc_and_google_disagreements_and_the_agent_matrix() {
    // Google reads `MJ12bot`'s group token as `mj` (letters only); RFC 9309 as `mj12bot`.
    let (_rt, server) = support::serve_blocking(|_| {
        Reply::text(
            200,
            "User-agent: MJ12bot\nDisallow: /\n\nUser-agent: *\nDisallow: /tmp\n",
        )
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.redb");
    let urls = dir.path().join("urls.txt");
    std::fs::write(&urls, "/page\n/tmp/x\n").expect("write urls");
    let target = server.url("/");
    let args = [
        "--json",
        "--agent",
        "MJ12bot",
        "--agent",
        "OtherBot",
        "--urls",
        urls.to_str().expect("UTF-8 path"),
        &target,
    ];
    let o = report_at(&state, "2026-11-20T10:00:00Z", &args);
    let (r, _) = records(&o);
    let diffs = r[0]["mode_differences"].as_array().expect("differences");
    assert_eq!(diffs.len(), 1, "{diffs:?}");
    assert_eq!(diffs[0]["agent"], "MJ12bot");
    assert_eq!(diffs[0]["url"], "/page");
    assert_eq!(diffs[0]["rfc"]["verdict"], "disallowed");
    assert_eq!(diffs[0]["google"]["verdict"], "allowed");
    let matrix: Vec<Vec<&str>> = r[0]["matrix"]
        .as_array()
        .expect("matrix")
        .iter()
        .map(|row| {
            row["cells"]
                .as_array()
                .expect("cells")
                .iter()
                .map(|c| c["verdict"].as_str().expect("verdict"))
                .collect()
        })
        .collect();
    assert_eq!(
        matrix,
        [["disallowed", "allowed"], ["disallowed", "disallowed"]]
    );
}

#[test]
fn site_text_is_escaped_and_bad_input_is_an_error() {
    let (_rt, server) = support::serve_blocking(|_| {
        Reply::text(200, "User-agent: *\nDisalow: /\x1b[2J\x1b]0;pwned\x07\n")
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.redb");
    let o = report_at(&state, "2026-11-20T10:00:00Z", &[&server.url("/")]);
    let out = text(&o.stdout);
    assert!(!out.contains('\x1b'), "{out:?}");
    assert_has(&out, "Disalow: /\\u{1b}[2J\\u{1b}]0;pwned\\u{7}");

    // Nothing recorded, offline: an error, exit 2.
    let o = report_at(
        &state,
        "2026-11-20T10:00:00Z",
        &["--offline", "http://127.0.0.1:9/"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("nothing recorded for http://127.0.0.1:9"),
        "{}",
        text(&o.stderr)
    );
    // Not a host or URL.
    let o = report_at(&state, "2026-11-20T10:00:00Z", &["--offline", "a/b c"]);
    assert_eq!(o.status.code(), Some(2));
    // --urls without --agent.
    let o = report_at(
        &state,
        "2026-11-20T10:00:00Z",
        &["--offline", "--urls", "-", &server.url("/")],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--urls and --sitemap-urls need --agent"),
        "{}",
        text(&o.stderr)
    );
    // A --urls line that is neither a path nor a URL: reported, exit 2, the rest still shown.
    let urls = dir.path().join("urls.txt");
    std::fs::write(&urls, "/fine\nnot a url\n").expect("write urls");
    let o = report_at(
        &state,
        "2026-11-20T10:00:00Z",
        &[
            "--offline",
            "--agent",
            "MyBot",
            "--urls",
            urls.to_str().expect("UTF-8 path"),
            &server.url("/"),
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("--urls: "), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("    /fine  allowed\n"),
        "{}",
        text(&o.stdout)
    );
    // A bad CRAWLGATE_NOW.
    let o = report_at(&state, "yesterday", &["--offline", &server.url("/")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("CRAWLGATE_NOW"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn the_sites_own_sitemaps_give_urls_to_follow() {
    let base: Arc<Mutex<String>> = Arc::new(Mutex::new(String::new()));
    let b = base.clone();
    let (_rt, server) = support::serve_blocking(move |req| {
        let base = b.lock().expect("lock").clone();
        match req.path.as_str() {
            "/robots.txt" => Reply::text(
                200,
                &format!("User-agent: *\nDisallow: /private\nSitemap: {base}/index.xml\n"),
            ),
            "/index.xml" => Reply::text(
                200,
                &format!(
                    "<?xml version=\"1.0\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>{base}/pages.xml</loc></sitemap></sitemapindex>\n"
                ),
            ),
            "/pages.xml" => Reply::text(
                200,
                &format!(
                    "<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>https://elsewhere.example/x</loc></url><url><loc>{base}/private/a</loc></url><url><loc>{base}/public</loc></url><url><loc>{base}/third</loc></url></urlset>\n"
                ),
            ),
            _ => Reply::status(404),
        }
    });
    *base.lock().expect("lock") = server.url("");
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.redb");
    let target = server.url("/");
    let o = report_at(
        &state,
        "2026-11-20T10:00:00Z",
        &["--json", "--agent", "MyBot", "--sitemap-urls", "2", &target],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (r, _) = records(&o);
    // The first two URLs on this origin, in sitemap order; another site's URL is not followed.
    let rows: Vec<(String, String)> = r[0]["matrix"]
        .as_array()
        .expect("matrix")
        .iter()
        .map(|row| {
            (
                row["url"].as_str().expect("url").to_owned(),
                row["cells"][0]["verdict"]
                    .as_str()
                    .expect("verdict")
                    .to_owned(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (server.url("/private/a"), "disallowed".to_owned()),
            (server.url("/public"), "allowed".to_owned())
        ]
    );
    // Offline, nothing can be fetched: a usage error.
    let o = report_at(
        &state,
        "2026-11-20T10:00:00Z",
        &[
            "--offline",
            "--agent",
            "MyBot",
            "--sitemap-urls",
            "2",
            &target,
        ],
    );
    assert_eq!(o.status.code(), Some(2));
}
