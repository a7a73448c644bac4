//! Refusals at the edge through the binary, against real servers on 127.0.0.1: `fetch`,
//! `report` (terminal, JSON and HTML) and `lint URL` say a robots.txt was challenged, priced
//! (402) or an HTML page, with the site's markup escaped in HTML. (A control byte cannot reach
//! a price: a header value with one is not visible ASCII and is not kept.)
use crate::support;
use crate::support::assert_has;

use crate::run::{self, lines as records, run, text};
use crate::support::{Reply, TestServer};

fn html_page(status: u16, body: &str) -> Reply {
    Reply::Full {
        status,
        headers: vec![("content-type".into(), "text/html".into())],
        body: body.as_bytes().to_vec(),
    }
}

/// Three origins: a Cloudflare challenge (403), a 402 with a price (and markup in another
/// price header), a soft 404 page served with 200.
fn servers(rt: &tokio::runtime::Runtime) -> [TestServer; 3] {
    let challenged = rt.block_on(TestServer::start(|_| {
        html_page(403, "<html>Just a moment...</html>").with_header("cf-mitigated", "challenge")
    }));
    let priced = rt.block_on(TestServer::start(|_| {
        Reply::status(402)
            .with_header("crawler-price", "USD 0.01")
            .with_header("crawler-note", "<b>x</b>")
    }));
    let soft404 = rt.block_on(TestServer::start(|_| {
        html_page(
            200,
            "<!DOCTYPE html>\n<html><body>Page not found</body></html>\n",
        )
    }));
    [challenged, priced, soft404]
}

#[test]
fn fetch_says_challenged_priced_and_html() {
    let rt = support::runtime(1);
    let [challenged, priced, soft404] = servers(&rt);
    let o = run(&[
        "fetch",
        "--json",
        &challenged.url("/"),
        &priced.url("/"),
        &soft404.url("/"),
    ]);
    let r = records(&o);
    assert_eq!(r[0]["outcome"], "unreachable");
    assert_eq!(
        r[0]["cause"],
        "challenged at the edge (HTTP 403, cf-mitigated: challenge)"
    );
    assert_eq!(r[0]["verdict"], "disallow-all");
    assert_eq!(r[1]["outcome"], "payment-required");
    assert_eq!(r[1]["status"], 402);
    assert_eq!(r[1]["verdict"], "disallow-all");
    assert_eq!(r[1]["reason"], "payment-required");
    assert_has(
        r[1]["cause"].as_str().expect("cause"),
        "crawler-price: USD 0.01",
    );
    assert_eq!(r[2]["outcome"], "fetched");
    assert_eq!(r[2]["html"], true);
    assert_eq!(r[2]["verdict"], "rules");
    assert!(r[0].get("html").is_none(), "html only when true");

    let o = run(&["fetch", &priced.url("/"), &soft404.url("/")]);
    let out = text(&o.stdout);
    assert_has(
        &out,
        "  outcome:   payment-required (crawler-price: USD 0.01; crawler-note: <b>x</b>)\n",
    );
    assert_has(
        &out,
        "  html:      an HTML page, not a robots.txt (a soft 404 or a bot wall); parsed as one\n",
    );
    assert_has(&out, "html-body");
}

#[test]
fn report_and_lint_say_it_too() {
    let rt = support::runtime(1);
    let [challenged, priced, soft404] = servers(&rt);
    let dir = tempfile::tempdir().expect("temp dir");
    let state = dir.path().join("state.redb");
    let state = state.to_str().expect("UTF-8");
    let html = dir.path().join("report.html");
    let html_path = html.to_str().expect("UTF-8");
    let report = |args: &[&str]| {
        let mut all = vec!["report", "--state", state];
        all.extend_from_slice(args);
        run::output(
            run::command(dir.path(), &all).env("CRAWLGATE_NOW", "2026-11-20T10:00:00Z"),
            None,
        )
    };
    let urls = [challenged.url("/"), priced.url("/"), soft404.url("/")];
    let mut args = vec!["--json"];
    args.extend(urls.iter().map(String::as_str));
    let o = report(&args);
    let (r, _) = run::records(&o);
    let kinds: Vec<(&str, &str)> = r
        .iter()
        .map(|r| {
            (
                r["status"].as_str().expect("status"),
                r["in_force"]["verdict"].as_str().expect("verdict"),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("not-fetched", "disallow-all"),
            ("payment-required", "disallow-all"),
            ("fetched", "rules"),
        ]
    );
    assert_has(
        r[0]["status_text"].as_str().expect("text"),
        "challenged at the edge (HTTP 403, cf-mitigated: challenge)",
    );
    assert_has(
        r[1]["status_text"].as_str().expect("text"),
        "crawler-price: USD 0.01",
    );
    assert_eq!(r[1]["in_force"]["reason"], "payment-required");
    assert_eq!(
        r[2]["status_text"],
        "Fetched – an HTML page, not a robots.txt (a soft 404 or a bot wall)"
    );

    // Terminal: the same words, the site's text escaped.
    let mut args = vec!["--offline"];
    args.extend(urls.iter().map(String::as_str));
    let out = text(&report(&args).stdout);
    assert_has(&out, "an HTML page, not a robots.txt");
    assert_has(&out, "crawler-price: USD 0.01");

    // HTML: the same words, the site's markup escaped.
    let mut args = vec!["--offline", "--html", html_path];
    args.extend(urls.iter().map(String::as_str));
    let o = report(&args);
    assert!(
        o.status.code().is_some_and(|c| c <= 1),
        "{}",
        text(&o.stderr)
    );
    let page = std::fs::read_to_string(&html).expect("report.html");
    assert_has(&page, "an HTML page, not a robots.txt");
    assert_has(&page, "crawler-price: USD 0.01");
    assert_has(&page, "challenged at the edge");
    assert!(!page.contains("<b>x</b>"), "site markup escaped");
    assert_has(&page, "&lt;b&gt;x&lt;/b&gt;");

    // lint URL says what was served.
    let o = run(&["lint", &soft404.url("/")]);
    let out = text(&o.stdout);
    assert_has(
        &out,
        "an HTML page, not a robots.txt (Content-Type text/html): a soft 404 or a bot wall",
    );
    assert_has(&out, "html-body");
}

#[test]
fn check_tdm_adds_the_tdmrep_reservation() {
    let (_rt, server) = support::serve_blocking(|req| match req.path.as_str() {
        "/robots.txt" => Reply::text(200, "User-agent: *\nDisallow: /private\n"),
        "/.well-known/tdmrep.json" => Reply::text(
            200,
            r#"[{"location": "/news/", "tdm-reservation": 1,
                 "tdm-policy": "https://example.com/tdm-policy.json"},
                {"location": "/", "tdm-reservation": 0}]"#,
        ),
        _ => Reply::status(404),
    });
    let news = server.url("/news/a.html");
    let home = server.url("/");
    let o = run(&["check", "--agent", "MyBot", "--tdm", "--json", &news, &home]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let r = records(&o);
    assert_eq!(r[0]["tdm"]["reservation"], "reserved");
    assert_eq!(r[0]["tdm"]["policy"], "https://example.com/tdm-policy.json");
    assert_eq!(r[0]["tdm"]["rule"], 1);
    assert_eq!(r[0]["tdm"]["location"], "/news/");
    assert_eq!(r[0]["tdm"]["file"], server.url("/.well-known/tdmrep.json"));
    assert_eq!(r[0]["tdm"]["reason"], "fetched");
    assert_eq!(r[1]["tdm"]["reservation"], "not-reserved");
    assert_eq!(
        server.hits_on("/.well-known/tdmrep.json"),
        1,
        "one fetch per origin"
    );
    let o = run(&["check", "--agent", "MyBot", "--tdm", &news]);
    assert_eq!(
        text(&o.stdout),
        format!(
            "allowed\t{news}\ttdm: reserved (policy https://example.com/tdm-policy.json; rule 1: /news/)\n"
        )
    );
    // Without --tdm, no field and no request.
    let (_rt2, plain) = support::serve_blocking(|_| Reply::status(404));
    let o = run(&["check", "--agent", "MyBot", "--json", &plain.url("/")]);
    assert!(records(&o)[0].get("tdm").is_none());
    assert_eq!(plain.hits_on("/.well-known/tdmrep.json"), 0);
    // No file: unset.
    let o = run(&["check", "--agent", "MyBot", "--tdm", &plain.url("/x")]);
    assert_eq!(
        text(&o.stdout),
        format!("allowed\t{}\ttdm: unset\n", plain.url("/x"))
    );
}
