//! Politeness and the noindex trap in `report` and `explain`, at real servers on 127.0.0.1: a
//! 429 recorded through the library's gate (into the state file the command then reads) shows
//! as a backoff with its step and when it is forgiven; `--pages` fetches the disallowed pages
//! and flags those that say `noindex` (by header or by `<meta>`), and only those.

use std::path::Path;
use std::process::Output;
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use crawlgate::engine::{CacheOptions, ManualClock, Recorded, RobotsCache};
use crawlgate::http::{FetchOptions, Fetcher};
use crawlgate::store::EmbeddedStore;
use crawlgate::ProductToken;
use serde_json::Value;

use crate::run::{self, text};
use crate::support::{self, Reply};

/// 2026-11-20T10:00:00Z.
const T: u64 = 1_795_168_800;

fn run_at(state: &Path, now: &str, args: &[&str]) -> Output {
    let home = state.parent().expect("state dir");
    let state = state.to_str().expect("UTF-8 state path");
    let mut all = args.to_vec();
    all.extend_from_slice(&["--state", state]);
    run::output(
        run::command(home, &all)
            .env("CRAWLGATE_NOW", now)
            .env("TZ", "UTC"),
        None,
    )
}

/// The seconds of an RFC 3339 UTC time after `T`.
fn after_t(rfc3339: &Value) -> i64 {
    let s = rfc3339.as_str().expect("a time");
    let t: i64 = s[11..13].parse::<i64>().expect("hh") * 3600
        + s[14..16].parse::<i64>().expect("mm") * 60
        + s[17..19].parse::<i64>().expect("ss");
    assert_eq!(&s[..11], "2026-11-20T", "{s}");
    t - 10 * 3600
}

#[test]
fn a_429_recorded_by_the_gate_shows_as_a_backoff_in_report_and_explain() {
    let (_rt, server) = support::serve_blocking(|req| match req.path.as_str() {
        "/robots.txt" => Reply::text(200, "User-agent: *\nCrawl-delay: 2\nDisallow: /private\n"),
        _ => Reply::status(429),
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.redb");
    // A crawler on the state file, at T: its permit's fetch answers 429, no Retry-After.
    {
        let rt = support::runtime(1);
        rt.block_on(async {
            let store = Arc::new(EmbeddedStore::open(&state).expect("open the state"));
            let clock = Arc::new(ManualClock::new(UNIX_EPOCH + Duration::from_secs(T)));
            let mut options = CacheOptions::default();
            options.gate.jitter_seed = Some(3);
            let cache = RobotsCache::with_store(options, store, clock).expect("engine");
            let bot = ProductToken::new("testbot").expect("token");
            let url = server.url("/busy");
            let permit = cache.acquire(&bot, &url).await.expect("allowed");
            let page = Fetcher::new(FetchOptions::default())
                .expect("client")
                .fetch_page(&url, 1024)
                .await
                .expect("fetched");
            assert_eq!(page.status, 429);
            assert!(matches!(
                permit.record(page.status, None).await,
                Recorded::BackedOff(_)
            ));
            cache.flush().await.expect("flush");
        });
    }
    let origin = server.url("/");
    let now = "2026-11-20T10:00:10Z";

    let o = run_at(
        &state,
        now,
        &[
            "report",
            "--json",
            "--offline",
            "--agent",
            "testbot",
            &origin,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (records, _) = run::records(&o);
    let p = &records[0]["politeness"][0];
    assert_eq!(p["agent"], "testbot");
    assert_eq!(p["key"], origin.trim_end_matches('/'));
    assert_eq!(
        (p["delay"].clone(), p["reason"].clone()),
        (2.0.into(), "crawl-delay".into())
    );
    assert_eq!(p["asked"], 2.0);
    let b = &p["backoff"];
    assert_eq!(
        (b["step"].clone(), b["active"].clone()),
        (1.into(), true.into())
    );
    let until = after_t(&b["until"]);
    assert!((54..=66).contains(&until), "60 s ±10 %: {until}");
    assert_eq!(after_t(&b["forgiven_at"]), until + 1800);
    assert_eq!(b["last_failure"], "2026-11-20T10:00:00Z");
    assert_eq!(p["next_slot"], b["until"]);

    // The terminal's line and the HTML page's row say the same.
    let html = dir.path().join("report.html");
    let o = run_at(
        &state,
        now,
        &[
            "report",
            "--offline",
            "--agent",
            "testbot",
            "--html",
            html.to_str().expect("UTF-8"),
            &origin,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let line = out
        .lines()
        .find(|l| l.starts_with("  politeness:"))
        .unwrap_or_else(|| panic!("no politeness line: {out}"));
    assert!(
        line.starts_with(
            "  politeness:  testbot: 2 s between requests (Crawl-delay: 2 s); backed off (step 1) \
             until 2026-11-20 10:0"
        ),
        "{line}"
    );
    // The jitter moves the end within 54–66 s, and the forgiveness with it.
    assert!(line.contains(", forgiven at 2026-11-20 10:3"), "{line}");
    let page = std::fs::read_to_string(&html).expect("the page");
    assert!(page.contains("<dt>Politeness</dt>"), "no politeness row");
    assert!(page.contains("backed off (step 1) until <time"), "{page}");

    // `explain` of the origin from the crawl state: the same record.
    let o = run_at(
        &state,
        now,
        &["explain", "--json", "--agent", "testbot", &origin],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (records, _) = run::records(&o);
    assert_eq!(records[0]["politeness"], *p);
    let o = run_at(&state, now, &["explain", "--agent", "testbot", &origin]);
    let out = text(&o.stdout);
    assert!(
        out.contains("\n  politeness:  2 s between requests (Crawl-delay: 2 s); backed off (step 1) until 2026-11-20T10:0"),
        "{out}"
    );

    // Half an hour after the backoff's end it is forgiven: nothing to show but the spacing.
    let o = run_at(
        &state,
        "2026-11-20T10:40:00Z",
        &[
            "report",
            "--json",
            "--offline",
            "--agent",
            "testbot",
            &origin,
        ],
    );
    let (records, _) = run::records(&o);
    assert_eq!(records[0]["politeness"][0]["backoff"], Value::Null);
    assert_eq!(records[0]["politeness"][0]["next_slot"], Value::Null);
}

/// A 200 HTML page.
fn html(body: &str) -> Reply {
    Reply::Full {
        status: 200,
        headers: vec![("content-type".into(), "text/html; charset=utf-8".into())],
        body: body.as_bytes().to_vec(),
    }
}

/// A site whose `/private` pages are disallowed: one says noindex in a header, one in a
/// `<meta>`, one says nothing; `/open` (allowed) says noindex and is never fetched.
fn trap_site() -> (tokio::runtime::Runtime, support::TestServer) {
    support::serve_blocking(|req| {
        match req.path.as_str() {
        "/robots.txt" => Reply::text(200, "User-agent: *\nDisallow: /private/\n"),
        "/private/header" => Reply::text(200, "<p>hidden</p>").with_header("X-Robots-Tag", "noindex"),
        "/private/meta" => html(
            "<!doctype html><html><head>\n<meta name=\"robots\" content=\"noindex\">\n</head><body>x</body></html>",
        ),
        "/private/plain" => html("<html><head></head><body>x</body></html>"),
        _ => Reply::text(200, "open").with_header("X-Robots-Tag", "noindex"),
    }
    })
}

#[test]
fn explain_pages_flags_a_disallowed_noindex_page_by_header_and_by_meta() {
    let (_rt, server) = trap_site();
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.redb");
    let now = "2026-11-20T10:00:00Z";
    let args = [
        "explain",
        "--json",
        "--pages",
        "--agent",
        "testbot",
        &server.url("/"),
        "/private/header",
        "/private/meta",
        "/private/plain",
        "/open",
    ];
    let o = run_at(&state, now, &args);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let (records, _) = run::records(&o);
    let checks: Vec<&Value> = records.iter().filter(|r| r["type"] == "check").collect();
    let warned: Vec<(&str, Vec<&str>)> = checks
        .iter()
        .map(|c| {
            let codes = c["warnings"].as_array().map_or_else(Vec::new, |w| {
                w.iter()
                    .map(|w| w["code"].as_str().expect("code"))
                    .collect()
            });
            (c["url"].as_str().expect("url"), codes)
        })
        .collect();
    assert_eq!(
        warned,
        [
            ("/private/header", vec!["noindex-unseen"]),
            ("/private/meta", vec!["noindex-unseen"]),
            ("/private/plain", vec![]),
            ("/open", vec![]),
        ]
    );
    assert_eq!(
        checks[0]["warnings"][0]["sources"][0],
        "noindex (header x-robots-tag #0 @0)"
    );
    assert_eq!(
        checks[1]["warnings"][0]["sources"][0],
        "noindex (meta robots line 2)"
    );
    // The allowed page was not fetched: robots.txt and the three disallowed pages.
    assert_eq!(server.hits(), 4);

    // Without --pages, no page is fetched and nothing is flagged.
    let mut plain = args.to_vec();
    plain.retain(|a| *a != "--pages");
    let o = run_at(&state, now, &plain);
    let (records, _) = run::records(&o);
    assert!(records.iter().all(|r| r.get("warnings").is_none()));
    assert_eq!(server.hits(), 4);

    // On the terminal, under the URL's line.
    let mut human = args.to_vec();
    human.retain(|a| *a != "--json");
    let out = text(&run_at(&state, now, &human).stdout);
    assert!(
        out.contains("/private/meta\tline 2: Disallow: /private/\n    warning[noindex-unseen]: robots.txt disallows this URL"),
        "{out}"
    );
    assert!(
        out.contains("\n      page says noindex (meta robots line 2)\n"),
        "{out}"
    );
}

#[test]
fn report_pages_flags_up_to_n_disallowed_pages_and_offline_fetches_none() {
    let (_rt, server) = trap_site();
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.redb");
    let urls = dir.path().join("urls.txt");
    std::fs::write(
        &urls,
        "/private/header\n/private/plain\n/open\n/private/meta\n",
    )
    .expect("urls");
    let urls = urls.to_str().expect("UTF-8");
    let origin = server.url("/");
    let now = "2026-11-20T10:00:00Z";
    let o = run_at(
        &state,
        now,
        &[
            "report", "--json", "--agent", "testbot", "--urls", urls, "--pages", "2", &origin,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (records, _) = run::records(&o);
    let rows = records[0]["matrix"].as_array().expect("matrix");
    let flagged: Vec<(&str, usize)> = rows
        .iter()
        .map(|r| {
            (
                r["url"].as_str().expect("url"),
                r["warnings"].as_array().map_or(0, Vec::len),
            )
        })
        .collect();
    // Two pages read: the first two disallowed URLs; /private/meta is past the limit.
    assert_eq!(
        flagged,
        [
            ("/private/header", 1),
            ("/private/plain", 0),
            ("/open", 0),
            ("/private/meta", 0)
        ]
    );
    assert_eq!(rows[0]["warnings"][0]["agent"], "testbot");
    assert_eq!(rows[0]["warnings"][0]["code"], "noindex-unseen");
    assert_eq!(server.hits(), 3, "robots.txt and two pages");

    // The terminal and the page show it under the URL.
    let html = dir.path().join("report.html");
    let o = run_at(
        &state,
        now,
        &[
            "report",
            "--agent",
            "testbot",
            "--urls",
            urls,
            "--pages",
            "9",
            "--html",
            html.to_str().expect("UTF-8"),
            &origin,
        ],
    );
    let out = text(&o.stdout);
    assert!(
        out.contains("      warning[noindex-unseen] for testbot: robots.txt disallows this URL"),
        "{out}"
    );
    assert!(
        out.contains("        page says noindex (meta robots line 2)"),
        "{out}"
    );
    let page = std::fs::read_to_string(&html).expect("the page");
    assert_eq!(
        page.matches("<div class=\"trap\" data-code=\"noindex-unseen\">")
            .count(),
        2
    );

    // --pages follows the URLs followed: without any, it is a usage error.
    let o = run_at(
        &state,
        now,
        &["report", "--agent", "testbot", "--pages", "2", &origin],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--pages reads the pages of the URLs the report follows"));

    // --offline fetches nothing, and says so.
    let hits = server.hits();
    let o = run_at(
        &state,
        now,
        &[
            "report",
            "--json",
            "--offline",
            "--agent",
            "testbot",
            "--urls",
            urls,
            "--pages",
            "2",
            &origin,
        ],
    );
    assert_eq!(server.hits(), hits);
    assert!(
        text(&o.stderr).contains("--pages: no page fetched (--offline fetches nothing)"),
        "{}",
        text(&o.stderr)
    );
    let (records, _) = run::records(&o);
    assert!(records[0]["matrix"]
        .as_array()
        .expect("matrix")
        .iter()
        .all(|r| r.get("warnings").is_none()));
}
