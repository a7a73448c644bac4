//! `crawlgate report --html`: the page of a report of real local servers (a 200 with problems
//! and markup injected in the file and in URLs, a 404, a 503 run, a redirect, a file that
//! changes across three runs a day apart under `CRAWLGATE_NOW`), opened in real headless
//! Chromium (the Debian package `chromium`; `scripts/test.sh` installs it) and checked over the
//! DevTools protocol: the host table, the highlighted lines against the `--json` report of the
//! same run, real key presses moving between problems, no injected script run, the diff shown.
//! A screenshot is written to `target/report-screenshot.png` for review.
use crate::support;
use crate::support::chromium;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::run::{self, text};
use crate::support::{Reply, TestServer};
use serde_json::Value;

/// The page's title: a script injected by a site would change it.
const TITLE: &str = "robots.txt report";

/// The file with problems, and markup in it: the lines of `<script>` and `<img onerror>`
/// are invalid lines (errors); `Crawl-delay` is a warning; `Disalow` a warning; an error and a
/// warning share no line.
const PROBLEMS: &str = "User-agent: *\n\
Disallow: /private\n\
<script>document.title='pwned';window.pwned=1</script>\n\
Crawl-delay: 5\n\
Allow: /private/ok\n\
<img src=x onerror=\"window.pwned=2;document.title='pwned'\">\n\
Disalow: /typo\n\
Sitemap: /relative.xml\n\
# \"quoted\" & 'single' <b>bold</b>\n";

/// The three versions of the changing file.
const CHANGING: [&str; 3] = [
    "User-agent: *\nDisallow: /private\n",
    "User-agent: *\nDisallow: /private\nDisallow: /tmp\n",
    "User-agent: *\nAllow: /private\nDisallow: /tmp\nDisallow: /old\n",
];

/// One run of `crawlgate report` on day `day` (2026-11-`day`, 10:00 UTC), with a private state
/// home and the given state file.
fn report(home: &Path, day: u32, args: &[&str]) -> Output {
    let mut all = vec!["report"];
    all.extend_from_slice(args);
    run::output(
        run::command(home, &all).env("CRAWLGATE_NOW", format!("2026-11-{day:02}T10:00:00Z")),
        None,
    )
}

/// `target/`, from where the binary is (`target/debug/crawlgate`).
fn target_dir() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_crawlgate"));
    bin.parent()
        .and_then(Path::parent)
        .expect("target directory")
        .to_path_buf()
}

/// The problem lines of a `report` record's file: (errors, warnings), an error line not counted
/// as a warning line.
fn problem_lines(record: &Value) -> (BTreeSet<u64>, BTreeSet<u64>) {
    let file = &record["file"];
    let count = file["lines"].as_array().map_or(0, Vec::len) as u64;
    let (mut errors, mut warnings) = (BTreeSet::new(), BTreeSet::new());
    for p in file["problems"].as_array().into_iter().flatten() {
        let line = p["line"].as_u64().expect("a line");
        if line == 0 || line > count {
            continue;
        }
        if p["severity"] == "error" {
            errors.insert(line);
        } else {
            warnings.insert(line);
        }
    }
    let warnings = warnings.difference(&errors).copied().collect();
    (errors, warnings)
}

fn numbers(v: Value) -> BTreeSet<u64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|n| n.as_u64().expect("a number"))
        .collect()
}

#[test]
fn html_report_in_headless_chromium() {
    // Fail (not skip) at once when there is no browser.
    chromium::binary();
    let started = Instant::now();
    let rt = support::runtime(2);
    let generation = Arc::new(AtomicUsize::new(0));
    let (problems, not_found, down, redirect, changing) = rt.block_on(async {
        // Validators: the first fetch gets a 200, the later ones a 304 (re-confirmed).
        let problems = TestServer::start(|r| {
            if r.header("if-none-match") == Some("\"p1\"") {
                Reply::status(304).with_header("ETag", "\"p1\"")
            } else {
                Reply::text(200, PROBLEMS).with_header("ETag", "\"p1\"")
            }
        })
        .await;
        let not_found = TestServer::start(|_| Reply::status(404)).await;
        let down = TestServer::start(|_| Reply::status(503)).await;
        let redirect = TestServer::start(|r| {
            if r.path == "/robots.txt" {
                Reply::redirect(301, "/real/robots.txt")
            } else {
                Reply::text(200, "User-agent: *\nDisallow: /r\n")
            }
        })
        .await;
        let g = generation.clone();
        let changing =
            TestServer::start(move |_| Reply::text(200, CHANGING[g.load(Ordering::SeqCst).min(2)]))
                .await;
        (problems, not_found, down, redirect, changing)
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let state = dir.path().join("state.redb");
    let urls = dir.path().join("urls.txt");
    let html = dir.path().join("report.html");
    std::fs::write(
        &urls,
        format!(
            "/private/x\n/tmp/y\n/public\n/<script>window.pwned=3</script>\n\
             /<img src=x onerror=window.pwned=4>\n{}\n",
            problems.url("/a?q=<script>window.pwned=5</script>&x='\"")
        ),
    )
    .expect("urls file");
    let targets: Vec<String> = [&problems, &not_found, &down, &redirect, &changing]
        .iter()
        .map(|s| s.url("/"))
        .collect();
    let mut args: Vec<&str> = vec![
        "--state",
        state.to_str().expect("UTF-8 path"),
        "--agent",
        "googlebot",
        "--agent",
        "bingbot",
        "--urls",
        urls.to_str().expect("UTF-8 path"),
    ];
    args.extend(targets.iter().map(String::as_str));

    // Three runs, a day apart; the changing file changes before each.
    for day in [18, 19] {
        let out = report(&home, day, &args);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "run of day {day}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        generation.fetch_add(1, Ordering::SeqCst);
    }
    args.extend(["--json", "--html", html.to_str().expect("UTF-8 path")]);
    let out = report(&home, 20, &args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "findings (errors, an unreachable robots.txt): {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    drop((problems, not_found, down, redirect, changing));
    drop(rt);
    let records: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .filter(|r: &Value| r["type"] == "report")
        .collect();
    assert_eq!(records.len(), 5, "{}", text(&out.stdout));
    let statuses: Vec<&str> = records
        .iter()
        .map(|r| r["status"].as_str().expect("status"))
        .collect();
    assert_eq!(
        statuses,
        ["fetched", "not-found", "not-fetched", "fetched", "fetched"]
    );

    // The page itself: one script (its own), markup from the site only as text.
    let page = std::fs::read_to_string(&html).expect("the HTML page");
    assert_eq!(page.matches("<script").count(), 1, "one <script> element");
    assert!(!page.contains("<img"), "an <img> from the site got through");
    assert!(page.contains("&lt;script&gt;document.title=&#39;pwned&#39;"));
    assert!(page.contains("Content-Security-Policy"));

    // Into Chromium, in a time zone that is not UTC (the page shows local times).
    let mut browser = chromium::Browser::start(1280, 900, &[("TZ", "Europe/Prague")]);
    let url = format!("file://{}", html.display());
    browser.open(&url);

    assert_eq!(browser.eval("document.title"), TITLE);
    assert_eq!(
        browser.eval("document.documentElement.classList.contains('js')"),
        true,
        "the page's own script did not run (its CSP hash?)"
    );

    // The host table: a row per robots.txt, in order, with its status and colour.
    assert_eq!(
        browser.eval("document.querySelectorAll('tr.host').length"),
        5
    );
    let shown: Vec<Value> = browser
        .eval(
            "[...document.querySelectorAll('tr.host')].map(r => [r.dataset.status, \
             r.querySelector('.badge').className, r.querySelector('.badge').textContent])",
        )
        .as_array()
        .expect("rows")
        .clone();
    for ((row, record), status) in shown.iter().zip(&records).zip(&statuses) {
        assert_eq!(row[0], *status);
        assert_eq!(row[1], format!("badge st-{status}"));
        let badge = row[2].as_str().expect("badge text");
        assert!(
            badge.starts_with(record["status_text"].as_str().expect("status text")),
            "{badge:?} vs {record}"
        );
    }
    let badge_colours = browser.eval(
        "[...document.querySelectorAll('tr.host .badge')].map(b => getComputedStyle(b).color)",
    );
    let colours = badge_colours.as_array().expect("colours");
    assert_eq!(colours[0], "rgb(26, 127, 55)", "fetched: green");
    assert_eq!(colours[1], "rgb(11, 92, 173)", "not found: blue");
    assert_eq!(colours[2], "rgb(180, 35, 24)", "not fetched: red");
    assert!(
        shown[2][2]
            .as_str()
            .is_some_and(|t| t.contains("503") || t.to_lowercase().contains("server")),
        "{shown:?}"
    );

    // Local time: the UTC value in the page, shown in Europe/Prague (UTC+1 in November).
    let first_time = browser.eval(
        "(() => { const t = document.querySelector('tr.host time'); \
         return [t.getAttribute('datetime'), t.textContent, t.title]; })()",
    );
    assert_eq!(first_time[0], "2026-11-20T10:00:00Z");
    assert_eq!(first_time[1], "2026-11-20 11:00:00 +01:00");
    assert_eq!(first_time[2], "2026-11-20 10:00:00 UTC");

    // The highlighted lines are the problem lines of the model, per file, error over warning.
    for (i, record) in records.iter().enumerate() {
        let n = i + 1;
        let (errors, warnings) = problem_lines(record);
        let shown_errors = numbers(browser.eval(&format!(
            "[...document.querySelectorAll('#r{n}-src .line.error')].map(l => +l.dataset.line)"
        )));
        let shown_warnings = numbers(browser.eval(&format!(
            "[...document.querySelectorAll('#r{n}-src .line.warning')].map(l => +l.dataset.line)"
        )));
        assert_eq!(shown_errors, errors, "error lines of robots.txt {n}");
        assert_eq!(shown_warnings, warnings, "warning lines of robots.txt {n}");
    }
    let (errors, warnings) = problem_lines(&records[0]);
    assert!(errors.contains(&3) && errors.contains(&6), "{errors:?}");
    assert!(!warnings.is_empty());
    let mut problem_order: Vec<u64> = errors.union(&warnings).copied().collect();
    problem_order.sort_unstable();
    let background = browser.eval(
        "[getComputedStyle(document.querySelector('#r1-src .line.error')).backgroundColor, \
         getComputedStyle(document.querySelector('#r1-src .line.warning')).backgroundColor, \
         getComputedStyle(document.querySelector('#r1-src .line:not(.error):not(.warning)'))\
         .backgroundColor]",
    );
    assert_ne!(
        background[0], background[1],
        "errors and warnings look alike"
    );
    assert_ne!(background[0], background[2]);

    // The site's markup is text: the lines read as they are in the file.
    assert_eq!(
        browser.eval("document.querySelector('#r1-L3 .tx').textContent"),
        "<script>document.title='pwned';window.pwned=1</script>"
    );
    assert_eq!(
        browser.eval("document.querySelector('#r1-L9 .tx').textContent"),
        "# \"quoted\" & 'single' <b>bold</b>"
    );
    let matrix_urls = browser.eval(
        "[...document.querySelectorAll('#r1 table.matrix td.url')].map(td => td.textContent)",
    );
    assert!(
        matrix_urls
            .as_array()
            .expect("matrix")
            .iter()
            .any(|u| u == "/<img src=x onerror=window.pwned=4>"),
        "{matrix_urls}"
    );

    // Real key presses: Down, then j, then Up and k, move between the problem lines.
    let active = "(() => { const a = document.activeElement; \
                  return [a.id, a.classList.contains('current'), \
                  document.querySelectorAll('.line.current').length, \
                  (() => { const r = a.getBoundingClientRect(); \
                  return r.top >= 0 && r.bottom <= innerHeight; })()]; })()";
    assert_eq!(
        browser.eval("document.querySelectorAll('.line.current').length"),
        0
    );
    let expect_at = |browser: &mut chromium::Browser, line: u64, key: &str| {
        let a = browser.eval(active);
        assert_eq!(a[0], format!("r1-L{line}"), "after {key}: {a}");
        assert_eq!(a[1], true, "after {key}: not marked");
        assert_eq!(a[2], 1, "after {key}: one line marked");
        assert_eq!(a[3], true, "after {key}: not scrolled into view");
    };
    browser.press("ArrowDown");
    expect_at(&mut browser, problem_order[0], "ArrowDown");
    browser.press("j");
    expect_at(&mut browser, problem_order[1], "j");
    browser.press("ArrowDown");
    expect_at(&mut browser, problem_order[2], "ArrowDown");
    browser.press("ArrowUp");
    expect_at(&mut browser, problem_order[1], "ArrowUp");
    browser.press("k");
    expect_at(&mut browser, problem_order[0], "k");

    // Nothing injected ran.
    assert_eq!(browser.eval("document.title"), TITLE);
    assert_eq!(browser.eval("typeof window.pwned"), "undefined");
    assert_eq!(browser.eval("document.scripts.length"), 1);
    assert_eq!(browser.eval("document.images.length"), 0);

    // The changing file: three versions, the last in force, its diff shown and coloured.
    let versions = browser.eval(
        "[...document.querySelectorAll('#r5 table.versions tr.version')]\
         .map(r => [+r.dataset.version, r.classList.contains('in-force')])",
    );
    assert_eq!(
        versions,
        serde_json::json!([[1, false], [2, false], [3, true]])
    );
    let diff = browser.eval(
        "(() => { const d = document.querySelector('#r5 details.version[open] .diff'); \
         const r = d.getBoundingClientRect(); \
         return [d.dataset.from, d.dataset.to, r.height > 0, \
         [...d.querySelectorAll('.d.added .tx')].map(e => e.textContent), \
         [...d.querySelectorAll('.d.removed .tx')].map(e => e.textContent), \
         getComputedStyle(d.querySelector('.d.added')).backgroundColor, \
         getComputedStyle(d.querySelector('.d.removed')).backgroundColor]; })()",
    );
    assert_eq!(diff[0], "2");
    assert_eq!(diff[1], "3");
    assert_eq!(diff[2], true, "the diff is not shown");
    assert_eq!(
        diff[3],
        serde_json::json!(["Allow: /private", "Disallow: /old"])
    );
    assert_eq!(diff[4], serde_json::json!(["Disallow: /private"]));
    assert_ne!(diff[5], diff[6]);
    assert_eq!(
        records[4]["versions"][2]["diff"]["added"], 2,
        "{}",
        records[4]["versions"]
    );
    // Every version's text can be opened; the newest one's is the file shown above.
    assert_eq!(
        browser.eval(
            "[...document.querySelectorAll('#r5 details.version')].map(d => \
             d.querySelector('details.text') ? 'text' : d.querySelector('.text a').hash)"
        ),
        serde_json::json!(["text", "text", "#r5-src"])
    );
    // The verdict changes: /tmp/y from 1 to 2, /private/x from 2 to 3, for both agents.
    let changes = browser.eval(
        "[...document.querySelectorAll('#r5 table.verdict-changes tbody tr')]\
         .map(r => [...r.cells].slice(0, 3).map(c => c.textContent).join(' '))",
    );
    let changes: Vec<&str> = changes
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| c.as_str().expect("text"))
        .collect();
    assert_eq!(
        changes.len(),
        records[4]["verdict_changes"]
            .as_array()
            .expect("changes")
            .len()
    );
    for want in [
        "1 → 2 googlebot /tmp/y",
        "1 → 2 bingbot /tmp/y",
        "2 → 3 googlebot /private/x",
    ] {
        assert!(changes.contains(&want), "{want:?} not in {changes:?}");
    }
    // The header says that this report fetched every robots.txt now.
    assert_eq!(
        browser.eval("document.querySelector('p.meta').textContent.includes('(fetched now)')"),
        true
    );
    // The summary table fits a 1280 px window: no cell is cut or scrolls, the table does not
    // scroll sideways.
    let overflow = browser.eval(
        "(() => { const s = document.querySelector('#hosts').parentElement; \
         const cut = [...document.querySelectorAll('#hosts td, #hosts th')] \
         .filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent); \
         return [innerWidth, s.scrollWidth <= s.clientWidth, cut]; })()",
    );
    assert_eq!(overflow[0], 1280);
    assert_eq!(
        overflow[1], true,
        "the host table scrolls sideways at 1280 px"
    );
    assert_eq!(overflow[2], serde_json::json!([]), "cells cut at 1280 px");
    // The same with the long host names real sites have (the test's servers are all on
    // 127.0.0.1): a long robots.txt URL wraps instead of pushing the table past the window.
    let long = browser.eval(
        "(() => { const a = document.querySelector('#hosts tr.host td.url a'); \
         const was = a.textContent; \
         a.textContent = 'https://www.a-rather-long-host-name-of-a-site.' + \
         'with-a-long-registered-domain.example.co.uk/robots.txt'; \
         const s = document.querySelector('#hosts').parentElement; \
         const fits = s.scrollWidth <= s.clientWidth; \
         const cut = [...document.querySelectorAll('#hosts td')] \
         .filter(c => c.scrollWidth > c.clientWidth + 1).length; \
         a.textContent = was; return [fits, cut]; })()",
    );
    assert_eq!(
        long,
        serde_json::json!([true, 0]),
        "a long URL pushes the host table past 1280 px"
    );
    // One status code per badge; the file re-confirmed by 304s shows the 200 that produced it.
    let badges = browser.eval("[...document.querySelectorAll('.badge')].map(b => b.textContent)");
    for badge in badges.as_array().expect("badges") {
        let badge = badge.as_str().expect("text");
        let codes = ["200", "304", "404", "503"]
            .iter()
            .map(|c| badge.matches(c).count())
            .sum::<usize>();
        assert!(codes <= 1, "{badge:?}: more than one status code");
    }
    assert_eq!(
        browser
            .eval(
                "[...document.querySelector('#r1 tr.version').cells].map(c => c.textContent)\
             .join('|')"
            )
            .as_str()
            .map(|row| (
                row.contains("|200|"),
                row.contains("re-confirmed"),
                row.contains("304")
            )),
        Some((true, true, true)),
        "a re-confirmed version: the 200 that produced it, then the 304s"
    );
    // The verdict table speaks in sentences: no machine words.
    let matrix = browser.eval("document.querySelector('#r1 table.matrix').textContent");
    let matrix = matrix.as_str().expect("matrix text");
    assert!(!matrix.contains("no-matching-rule"), "{matrix}");
    assert!(matrix.contains("no rule matches"), "{matrix}");
    // The host table tells the redirect.
    assert_eq!(
        browser.eval("document.querySelectorAll('tr.host')[3].textContent.includes('redirect')"),
        true,
        "the host table does not show the redirect"
    );
    // The 503 run: one version of three fetches.
    assert_eq!(
        browser.eval(
            "document.querySelector('#r3 tr.version').cells[2].textContent.includes('3 fetches')"
        ),
        true
    );
    // The redirect is told.
    assert_eq!(
        browser.eval(
            "document.querySelector('#r4 dl.facts').textContent.includes('/real/robots.txt')"
        ),
        true
    );

    // Were the escaping to fail, the Content-Security-Policy would still run nothing but the
    // page's own script: a copy of the page with markup slipped in runs none of it.
    let broken = dir.path().join("broken.html");
    std::fs::write(
        &broken,
        page.replacen(
            "<h1>",
            "<script>window.pwned=6;document.title='pwned'</script>\
             <img src=x onerror=\"window.pwned=7\"><div onclick=\"window.pwned=8\" id=\"click\">\
             x</div><h1>",
            1,
        ),
    )
    .expect("write the broken page");
    browser.open(&format!("file://{}", broken.display()));
    browser.eval("document.getElementById('click').click()");
    assert_eq!(browser.eval("document.title"), TITLE);
    assert_eq!(browser.eval("typeof window.pwned"), "undefined");
    assert_eq!(
        browser.eval("document.documentElement.classList.contains('js')"),
        true,
        "the page's own script still runs"
    );
    browser.open(&url);

    // For review.
    browser.eval("window.scrollTo(0, 0)");
    let shot = target_dir().join("report-screenshot.png");
    browser.screenshot(&shot, 1280, 6000);
    drop(browser);
    eprintln!(
        "report_html: page {} bytes, {:.1}s, screenshot {}",
        page.len(),
        started.elapsed().as_secs_f64(),
        shot.display()
    );
}
