//! `crawlgate report --html`: the "AI crawlers" section of a real local server's robots.txt,
//! opened in headless Chromium: the crawlers grouped by purpose, each row's access and
//! deciding line as `crawlgate audit --json` gives them, the deciding lines marked in the file
//! view, and markup from the site shown as text (no script of it runs). A screenshot of the
//! section is written to `target/report-ai-screenshot.png` for review.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::run::{self, text};
use crate::support::{self, chromium, Reply, TestServer};

/// GPTBot and CCBot blocked (one by a rule with markup in it), Applebot partly, the rest
/// through `*`, which opens all but `/private/`.
const ROBOTS: &str = "User-agent: *\n\
Disallow: /private/\n\
\n\
User-agent: GPTBot\n\
Disallow: /\n\
\n\
User-agent: CCBot\n\
Disallow: /<script>window.pwned=1</script>\n\
Disallow: /\n\
\n\
User-agent: Applebot\n\
Allow: /$\n\
Disallow: /\n";

fn target_dir() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_crawlgate"));
    bin.parent()
        .and_then(Path::parent)
        .expect("target directory")
        .to_owned()
}

#[test]
fn ai_crawlers_section_in_headless_chromium() {
    chromium::binary();
    let rt = support::runtime(1);
    let server = rt.block_on(TestServer::start(|_| Reply::text(200, ROBOTS)));
    let dir = tempfile::tempdir().expect("temp dir");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let state = dir.path().join("state.redb");
    let html = dir.path().join("report.html");
    let target = server.url("/");
    let out = run::output(
        run::command(
            &home,
            &[
                "report",
                "--state",
                state.to_str().expect("UTF-8 path"),
                "--html",
                html.to_str().expect("UTF-8 path"),
                &target,
            ],
        )
        .env("CRAWLGATE_NOW", "2026-11-20T10:00:00Z"),
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    // What `audit` says of the same file.
    let file = dir.path().join("robots.txt");
    std::fs::write(&file, ROBOTS).expect("write");
    let out = run::run(&["audit", "--json", file.to_str().expect("UTF-8 path")]);
    let audits: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .filter(|r: &Value| r["type"] == "audit")
        .collect();
    assert_eq!(audits.len(), 166);
    drop(server);
    drop(rt);

    let page = std::fs::read_to_string(&html).expect("the HTML page");
    assert_eq!(page.matches("<script").count(), 1, "one <script> element");
    let mut browser = chromium::Browser::start(1280, 900, &[]);
    browser.open(&format!("file://{}", html.display()));
    assert_eq!(browser.eval("document.title"), "robots.txt report");
    assert_eq!(browser.eval("window.pwned === undefined"), true);

    // One table per purpose, in order, with every crawler once.
    assert_eq!(
        browser.eval(
            "[...document.querySelectorAll('#r1-ai table.ai-crawlers')].map(t => t.dataset.purpose)"
        ),
        serde_json::json!(["training", "search", "agent", "other"])
    );
    let rows = browser.eval(
        "[...document.querySelectorAll('#r1-ai tr.ai-row')].map(r => [r.dataset.crawler, \
         r.dataset.access, [...r.querySelectorAll('td:nth-child(4) a')].map(a => a.textContent)])",
    );
    let rows = rows.as_array().expect("rows");
    assert_eq!(rows.len(), 166);
    for a in &audits {
        let name = a["crawler"].as_str().expect("name");
        let row = rows
            .iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("{name} has no row"));
        let root = &a["paths"][0];
        assert_eq!(row[1], root["access"], "{name}");
        let links: Vec<String> = root["line"]
            .as_u64()
            .into_iter()
            .chain(root["other_line"].as_u64())
            .map(|l| format!("line {l}"))
            .collect();
        assert_eq!(row[2], serde_json::json!(links), "{name}");
    }
    let access = |name: &str| {
        rows.iter()
            .find(|r| r[0] == name)
            .map(|r| r[1].clone())
            .unwrap_or_default()
    };
    assert_eq!(access("GPTBot"), "blocked");
    assert_eq!(access("CCBot"), "blocked");
    assert_eq!(access("Applebot"), "partly");
    assert_eq!(access("ClaudeBot"), "partly");
    // The rule with markup is text in the section and in the file view.
    assert_eq!(
        browser.eval(
            "[...document.querySelectorAll('#r1-src .line')].find(l => l.dataset.line === '8')\
             .querySelector('.tx').textContent"
        ),
        "Disallow: /<script>window.pwned=1</script>"
    );
    // The deciding lines are marked in the file view, and only they.
    let marked: BTreeSet<u64> = browser
        .eval(
            "[...document.querySelectorAll('#r1-src .line.ai-decides')].map(l => +l.dataset.line)",
        )
        .as_array()
        .expect("lines")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    let deciding: BTreeSet<u64> = audits
        .iter()
        .flat_map(|a| {
            [
                a["paths"][0]["line"].as_u64(),
                a["paths"][0]["other_line"].as_u64(),
            ]
        })
        .flatten()
        .collect();
    assert_eq!(marked, deciding);
    assert_eq!(marked, BTreeSet::from([2, 5, 9, 12, 13]));
    let colour = browser.eval(
        "getComputedStyle(document.querySelector('#r1-src .line.ai-decides .tx')).backgroundColor",
    );
    assert_eq!(colour, "rgb(243, 239, 255)");
    // A deciding-line link leads to its line.
    browser.eval(
        "document.querySelector('#r1-ai tr.ai-row[data-crawler=GPTBot] td:nth-child(4) a').click()",
    );
    assert_eq!(browser.eval("location.hash"), "#r1-L5");
    assert_eq!(browser.eval("window.pwned === undefined"), true);

    // For review: the section first on the page.
    browser.eval("document.body.prepend(document.getElementById('r1-ai')); window.scrollTo(0, 0)");
    let shot = target_dir().join("report-ai-screenshot.png");
    browser.screenshot(&shot, 1280, 1600);
    eprintln!("report_html_ai: screenshot {}", shot.display());
}
