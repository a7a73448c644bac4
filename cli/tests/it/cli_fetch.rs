//! `crawlgate fetch`, and `crawlgate check` without `--robots`, against real servers on
//! 127.0.0.1 (the binary runs while the test's runtime serves).
use crate::support;
use crate::support::assert_has;

use crate::run::{lines as records, run, text};
use crate::support::gzip::{gzip_at, Compression};
use crate::support::{Reply, TestServer};

#[test]
fn lint_of_an_ftp_url_names_it_once() {
    let o = run(&["lint", "ftp://example.com/robots.txt"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert_eq!(
        err,
        "crawlgate: cannot lint: \"ftp://example.com/robots.txt\" has scheme \"ftp\"; only http \
         and https URLs have a robots.txt\n"
    );
    assert_eq!(err.matches("ftp://").count(), 1, "{err}");
}

#[test]
fn check_fetches_each_origin_once() {
    let (_rt, server) =
        support::serve_blocking(|_| Reply::text(200, "User-agent: *\nDisallow: /private\n"));
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
    let (_rt, server) = support::serve_blocking(|_| Reply::status(503));
    let url = server.url("/a");
    let o = run(&["check", "--agent", "MyBot", "--json", &url]);
    assert_eq!(o.status.code(), Some(3));
    let v = &records(&o)[0];
    assert_eq!(v["type"], "check");
    assert_eq!(v["allowed"], false);
    assert_eq!(v["decided_by"], "policy");
    assert_eq!(v["verdict"], "disallow-all");
    assert_eq!(v["reason"], "unreachable");
    // The cause once, when the stop ends and when robots.txt is tried again.
    let reason = v["reason_text"].as_str().expect("reason_text");
    assert!(
        reason.starts_with("robots.txt unreachable (HTTP 503): not crawling until ")
            && reason.contains("Z, next attempt ")
            && reason.matches("503").count() == 1,
        "{reason}"
    );
    assert_eq!(v["group"], serde_json::Value::Null);
    assert_eq!(v["robots_txt"], server.url("/robots.txt"));
    let o = run(&["check", "--agent", "MyBot", &url]);
    let line = text(&o.stdout);
    assert!(
        line.starts_with(&format!(
            "unreachable\t{url}\trobots.txt unreachable (HTTP 503): not crawling until "
        )) && line.ends_with("Z\n")
            && line.lines().count() == 1,
        "{line}"
    );
}

#[test]
fn fetch_reports_each_origin() {
    let (_rt, server) = support::serve_blocking(|req| match req.path.as_str() {
        "/robots.txt" => Reply::redirect(301, "/real-robots.txt"),
        _ => Reply::text(200, "User-agent: *\nDisalow: /x\nFoo: bar\n"),
    });
    let o = run(&["fetch", "--json", &server.url("/a"), &server.url("/b")]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let lines = records(&o);
    assert_eq!(lines.len(), 1, "one origin");
    let v = &lines[0];
    assert_eq!(v["type"], "fetch");
    assert_eq!(v["origin"], server.url(""));
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
    assert_has(&out, "  outcome:   fetched");
    assert_has(&out, "(1 redirect)");
    assert_has(&out, "  problems:  1 error, 1 warning");
}

#[test]
fn fetch_exit_codes() {
    let rt = support::runtime(1);
    let missing = rt.block_on(TestServer::start(|_| Reply::status(404)));
    let o = run(&["fetch", &missing.url("/")]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).contains("unavailable (HTTP 404)"));
    let refused = rt.block_on(support::refused_addr());
    let o = run(&["fetch", "--timeout", "2", &format!("http://{refused}/")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stdout).contains("  outcome:   unreachable (connection refused)\n"),
        "{}",
        text(&o.stdout)
    );
    let o = run(&["fetch", "ftp://example.com/"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).starts_with("crawlgate: "));
}

/// A 2.6 MB robots.txt: a rule, then comments.
fn huge_file() -> Vec<u8> {
    let mut file = b"User-agent: *\nDisallow: /private\n".to_vec();
    while file.len() < 2_600_000 {
        file.extend_from_slice(b"# a comment line that pads the file out\n");
    }
    file
}

#[test]
fn fetch_says_how_big_a_cut_file_is() {
    let file = huge_file();
    let len = file.len();
    let plain = file.clone();
    let (rt, server) = support::serve_blocking(move |_| Reply::Full {
        status: 200,
        headers: vec![],
        body: plain.clone(),
    });
    // The server said the size: it is shown, not the cap.
    let o = run(&["fetch", &server.url("/")]);
    let out = text(&o.stdout);
    assert_has(
        &out,
        &format!("  size:      {len} bytes, cut: only the first 512000 are read\n"),
    );
    assert_has(&out, "(content-after-limit)");
    let o = run(&["fetch", "--json", &server.url("/")]);
    let v = &records(&o)[0];
    assert_eq!(v["size"], len);
    assert_eq!(v["bytes_read"], 512_001);
    assert_eq!(v["cut"], true);
    assert_eq!(v["codes"], serde_json::json!(["content-after-limit"]));

    // Compressed, the server did not say: "more than", never the cap as the size.
    let gz = gzip_at(Compression::fast(), &file);
    let server = rt.block_on(TestServer::start(move |_| Reply::Full {
        status: 200,
        headers: vec![("content-encoding".into(), "gzip".into())],
        body: gz.clone(),
    }));
    let o = run(&["fetch", &server.url("/")]);
    let out = text(&o.stdout);
    assert_has(&out, "  size:      more than 512000 bytes, cut\n");
    let o = run(&["fetch", "--json", &server.url("/")]);
    let v = &records(&o)[0];
    assert_eq!(v["size"], serde_json::Value::Null);
    assert_eq!(v["cut"], true);

    // A file that fits says its size and nothing more.
    let small = rt.block_on(TestServer::start(|_| {
        Reply::text(200, "User-agent: *\nDisallow: /x\n")
    }));
    let o = run(&["fetch", &small.url("/")]);
    let out = text(&o.stdout);
    assert_has(&out, "  size:      27 bytes\n");
    assert_has(&out, "  problems:  0 errors, 0 warnings\n");
}

#[test]
fn check_answers_each_agent_from_one_fetch() {
    let (_rt, server) = support::serve_blocking(|_| {
        Reply::text(
            200,
            "User-agent: *\nDisallow: /private\n\nUser-agent: MJ12bot\nDisallow: /\n",
        )
    });
    let o = run(&[
        "check",
        "--agent",
        "MJ12bot",
        "--agent",
        "Googlebot",
        &server.url("/a"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        format!(
            "mj12bot\tdisallowed\t{url}\tline 5: Disallow: /\ngooglebot\tallowed\t{url}\n",
            url = server.url("/a")
        )
    );
    assert_eq!(server.hits(), 1);
    // The first --agent, as given, is the User-Agent header.
    assert_eq!(server.requests()[0].header("user-agent"), Some("MJ12bot"));
}

#[test]
fn discover_says_when_robots_txt_was_redirected() {
    let rt = support::runtime(1);
    let www = rt.block_on(TestServer::start_on("127.0.0.2", |req| {
        let host = req.header("host").unwrap_or("127.0.0.2").to_owned();
        match req.path.as_str() {
            "/robots.txt" => Reply::text(200, &format!("Sitemap: http://{host}/s.xml\n")),
            _ => Reply::text(
                200,
                &format!(
                    "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>http://{host}/a</loc></url></urlset>"
                ),
            ),
        }
    }));
    let target = www.url("/robots.txt");
    let apex = rt.block_on(TestServer::start(move |_| Reply::redirect(301, &target)));
    let o = run(&["sitemap", "discover", &apex.url("/")]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert_has(
        &out,
        &format!(
            "  served by {} after 1 redirect: its sitemaps may list URLs of both hosts\n",
            www.url("/robots.txt")
        ),
    );
    // The www sitemap's own URL is in scope: no url-not-allowed.
    assert!(!out.contains("url-not-allowed"), "{out}");
}

#[test]
fn discover_escapes_what_the_site_wrote() {
    let (_rt, server) = support::serve_blocking(|req| {
        let host = req.header("host").unwrap_or("127.0.0.1").to_owned();
        match req.path.as_str() {
            "/robots.txt" => Reply::text(
                200,
                &format!("User-agent: *\nDisallow: /p\x1b[2J\nSitemap: http://{host}/s.xml\n"),
            ),
            _ => Reply::text(
                200,
                &format!(
                    "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>http://{host}/p\x1b[2J/x</loc></url></urlset>"
                ),
            ),
        }
    });
    let o = run(&["sitemap", "discover", "--agent", "bot", &server.url("/")]);
    let out = text(&o.stdout);
    assert_has(&out, "blocked-by-robots");
    assert!(!out.contains('\x1b'), "{out:?}");
    assert_has(&out, "\\u{1b}[2J");
}
