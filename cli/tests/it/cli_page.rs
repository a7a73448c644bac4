//! `crawlgate page`: a page fetched once from a real server on 127.0.0.1, its directives for
//! `--agent` with their sources; a local file with `--header`s.

use crate::run::{records, run, stdout};
use crate::support;
use crate::support::Reply;

fn page(headers: &[(&str, &str)], content_type: &str, body: &str) -> Reply {
    let mut h: Vec<(String, String)> = vec![("content-type".into(), content_type.into())];
    h.extend(
        headers
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    Reply::Full {
        status: 200,
        headers: h,
        body: body.as_bytes().to_vec(),
    }
}

#[test]
fn page_fetches_once_and_shows_sources() {
    let html = r#"<html><head><meta name="robots" content="max-snippet:20"><meta name="examplebot" content="nofollow"></head>"#;
    let (_rt, server) = support::serve_blocking(move |req| match req.path.as_str() {
        "/moved" => Reply::Full {
            status: 301,
            headers: vec![("location".into(), "/a".into())],
            body: Vec::new(),
        },
        _ => page(
            &[
                ("x-robots-tag", "examplebot: noindex"),
                ("robots-tag", "*;nosnippet, otherbot;noarchive"),
                ("content-usage", "train-ai=n"),
            ],
            "text/html; charset=utf-8",
            html,
        ),
    });
    let o = run(&[
        "page",
        "--json",
        "--agent",
        "ExampleBot",
        &server.url("/moved"),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(server.hits(), 2, "the redirect and the page, once each");
    assert_eq!(
        server.requests()[1].header("user-agent"),
        Some("ExampleBot"),
        "the agent is the User-Agent sent"
    );
    let (pages, summary) = records(&o);
    assert_eq!(summary["command"], "page");
    let p = &pages[0];
    assert_eq!(p["type"], "page");
    assert_eq!(p["status"], 200);
    assert_eq!(p["final_url"], server.url("/a"));
    assert_eq!(p["index"], false);
    assert_eq!(p["follow"], false);
    assert_eq!(p["snippet"], false);
    assert_eq!(
        p["archive"], true,
        "otherbot's noarchive is not examplebot's"
    );
    assert_eq!(p["max_snippet"], 20);
    assert_eq!(p["train_ai"], "disallowed");
    let sources: Vec<(String, String)> = p["directives"]
        .as_array()
        .expect("directives")
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap_or("").to_owned(),
                d["raw"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let want = [
        ("x-robots-tag", "noindex"),
        ("robots-tag", "nosnippet"),
        ("content-usage", "train-ai=n"),
        ("robots", "max-snippet:20"),
        ("examplebot", "nofollow"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| ((*a).into(), (*b).into()))
        .collect();
    assert_eq!(sources, want);
    // Another agent: only the generic directives.
    let o = run(&["page", "--agent", "otherbot", &server.url("/a")]);
    let text = stdout(&o);
    assert!(
        text.contains("index: yes  follow: yes  archive: no  snippet: no"),
        "{text}"
    );
}

#[test]
fn page_reads_meta_only_in_html() {
    let (_rt, server) = support::serve_blocking(|_| {
        page(
            &[],
            "text/plain",
            r#"<meta name="robots" content="noindex">"#,
        )
    });
    let o = run(&["page", "--json", &server.url("/notes.txt")]);
    let (pages, _) = records(&o);
    assert_eq!(pages[0]["index"], true, "a text/plain body is not HTML");
}

#[test]
fn page_reports_unreachable_pages() {
    let (rt, server) = support::serve_blocking(|_| Reply::status(200));
    let url = server.url("/a");
    drop(server);
    drop(rt);
    let o = run(&["page", &url]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains(&url));
}

#[test]
fn page_reads_a_local_file_with_headers() {
    let o = run(&[
        "page",
        "--json",
        "--agent",
        "examplebot",
        "--html",
        "testdata/page/example.html",
        "--header",
        "X-Robots-Tag: unavailable_after: 25 Jun 2010 15:00:00 PST",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let (pages, _) = records(&o);
    let p = &pages[0];
    assert_eq!(
        p["index"], true,
        "a <meta> written by a script is not in the HTML"
    );
    assert_eq!(p["archive"], true, "a <meta> in the body is not read");
    assert_eq!(p["follow"], true, "a <meta> in a comment is not read");
    assert_eq!(p["translate"], false);
    assert_eq!(p["noai"], true);
    assert_eq!(p["tdm_reservation"], true);
    assert_eq!(p["unavailable_after"], 1_277_506_800);
    let bad = run(&[
        "page",
        "--html",
        "testdata/page/example.html",
        "--header",
        "nocolon",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}
