//! Every command's output, human and `--json`, pinned as snapshots in `cli/tests/it/snapshots/`: a
//! change of output shows up as a diff of those files, to be reviewed like code.
//!
//! `SNAPSHOTS=overwrite cargo test -p crawlgate-cli --test it cli_snapshots::` rewrites them from the current output.
//! What changes from run to run is redacted, never wildcarded away: a test server's address is
//! `[ADDR]` (`[DOWN]` for the second server of a test) and a time `[TIME]`; everything else,
//! field names and order included, must match byte for byte.

use crate::support;
use std::path::Path;

use crate::support::{Reply, Request, TestServer};
use snapbox::cmd::Command;
use snapbox::{file, Assert, Redactions};

/// Comparison with the run-to-run values redacted; `servers` pairs a placeholder with a test
/// server whose address it stands for.
fn assert(servers: &[(&'static str, &TestServer)]) -> Assert {
    let mut redactions = Redactions::new();
    for (placeholder, server) in servers {
        redactions
            .insert(placeholder, server.addr.to_string())
            .expect("placeholder");
    }
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ").expect("regex");
    redactions.insert("[TIME]", time).expect("placeholder");
    Assert::new()
        .action_env("SNAPSHOTS")
        .redact_with(redactions)
        // JSON escapes (`\"`) are not Windows paths.
        .normalize_paths(false)
}

/// The binary, run from the package root (so `testdata/…` paths print as given) with a state
/// home of its own under `home`.
fn crawlgate(home: &Path, args: &[&str]) -> Command {
    Command::new(env!("CARGO_BIN_EXE_crawlgate"))
        .args(args)
        .current_dir(crate::ROOT)
        .env_remove("CRAWLGATE_AGENT")
        .env_remove("CRAWLGATE_STATE")
        .env("XDG_STATE_HOME", home)
        .env("HOME", home)
}

/// One test's home and servers: each run expects an exit status and a stdout snapshot.
struct Case<'a> {
    home: &'a Path,
    servers: &'a [(&'static str, &'a TestServer)],
}

impl Case<'_> {
    fn run(&self, args: &[&str], code: i32, human: snapbox::Data) {
        crawlgate(self.home, args)
            .with_assert(assert(self.servers))
            .assert()
            .code(code)
            .stdout_eq(human);
    }
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

// ---- files only --------------------------------------------------------------------------

#[test]
fn lint() {
    let home = temp();
    let case = Case {
        home: home.path(),
        servers: &[],
    };
    let files = [
        "testdata/cli/errors.txt",
        "testdata/cli/warnings.txt",
        "testdata/cli/clean.txt",
    ];
    let args: Vec<&str> = ["lint"].into_iter().chain(files).collect();
    case.run(&args, 1, file!["snapshots/lint.txt": Text]);
    let args: Vec<&str> = ["lint", "--json"].into_iter().chain(files).collect();
    case.run(&args, 1, file!["snapshots/lint.jsonl": Text]);
}

#[test]
fn check_robots() {
    let home = temp();
    let case = Case {
        home: home.path(),
        servers: &[],
    };
    let urls = [
        "https://example.com/private/report.pdf",
        "https://example.com/private/public.html",
        "https://example.com/about",
        "/robots.txt",
    ];
    let head = [
        "check",
        "--agent",
        "MyBot/1.0",
        "--robots",
        "testdata/cli/clean.txt",
    ];
    let args: Vec<&str> = head.into_iter().chain(urls).collect();
    case.run(&args, 1, file!["snapshots/check-robots.txt": Text]);
    let args: Vec<&str> = head.into_iter().chain(["--json"]).chain(urls).collect();
    case.run(&args, 1, file!["snapshots/check-robots.jsonl": Text]);
    // Another agent: a token group, and a URL that is not one (reported, exit 2).
    let args = [
        "check",
        "--json",
        "--agent",
        "BadBot",
        "--robots",
        "testdata/cli/clean.txt",
        "https://example.com/",
        "private/x",
    ];
    crawlgate(home.path(), &args)
        .with_assert(assert(&[]))
        .assert()
        .code(2)
        .stdout_eq(file!["snapshots/check-robots-badbot.jsonl": Text])
        .stderr_eq(file!["snapshots/check-robots-badbot.stderr": Text]);
}

#[test]
fn url() {
    let home = temp();
    let case = Case {
        home: home.path(),
        servers: &[],
    };
    let urls = ["HTTPS://Example.COM:443/a?b", "http://example.com:8080/x"];
    let args: Vec<&str> = ["url"].into_iter().chain(urls).collect();
    case.run(&args, 0, file!["snapshots/url.txt": Text]);
    let args: Vec<&str> = ["url", "--json"].into_iter().chain(urls).collect();
    case.run(&args, 0, file!["snapshots/url.jsonl": Text]);
    // A bad URL: reported on stderr, counted in the summary.
    crawlgate(home.path(), &["url", "--json", "ftp://example.com/"])
        .with_assert(assert(&[]))
        .assert()
        .code(2)
        .stdout_eq(file!["snapshots/url-bad.jsonl": Text])
        .stderr_eq(file!["snapshots/url-bad.stderr": Text]);
}

#[test]
fn sitemap_lint() {
    let home = temp();
    let case = Case {
        home: home.path(),
        servers: &[],
    };
    let files = [
        "testdata/sitemap/seeds/video-full.xml",
        "testdata/sitemap/diagnostics/invalid-url.txt",
    ];
    let args: Vec<&str> = ["sitemap", "lint"].into_iter().chain(files).collect();
    case.run(&args, 1, file!["snapshots/sitemap-lint.txt": Text]);
    let args: Vec<&str> = ["sitemap", "lint", "--json"]
        .into_iter()
        .chain(files)
        .collect();
    case.run(&args, 1, file!["snapshots/sitemap-lint.jsonl": Text]);
}

#[test]
fn sitemap_urls() {
    let home = temp();
    let case = Case {
        home: home.path(),
        servers: &[],
    };
    let files = [
        "testdata/sitemap/seeds/basic.xml",
        "testdata/sitemap/seeds/image-video.xml",
    ];
    let args: Vec<&str> = ["sitemap", "urls"].into_iter().chain(files).collect();
    case.run(&args, 0, file!["snapshots/sitemap-urls.txt": Text]);
    let args: Vec<&str> = ["sitemap", "urls", "--json"]
        .into_iter()
        .chain(files)
        .collect();
    case.run(&args, 0, file!["snapshots/sitemap-urls.jsonl": Text]);
}

// ---- against local servers ----------------------------------------------------------------

const ROBOTS: &str = "User-agent: *\nDisallow: /private\nCrawl-delay: 5\n";

/// `check` without `--robots`: one origin with rules, one whose robots.txt answers 503.
#[test]
fn check_remote() {
    let rt = support::runtime(1);
    let up = rt.block_on(TestServer::start(|_| Reply::text(200, ROBOTS)));
    let down = rt.block_on(TestServer::start_on("127.0.0.2", |_| Reply::status(503)));
    let home = temp();
    let servers = [("[ADDR]", &up), ("[DOWN]", &down)];
    let case = Case {
        home: home.path(),
        servers: &servers,
    };
    let urls = [
        up.url("/private/a"),
        up.url("/public"),
        down.url("/a"),
        down.url("/robots.txt"),
    ];
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    let head = ["check", "--no-state", "--agent", "MyBot"];
    let args: Vec<&str> = head.into_iter().chain(urls.iter().copied()).collect();
    // 3: a URL disallowed because its robots.txt could not be read wins over 1.
    case.run(&args, 3, file!["snapshots/check-remote.txt": Text]);
    let args: Vec<&str> = head
        .into_iter()
        .chain(["--json"])
        .chain(urls.iter().copied())
        .collect();
    case.run(&args, 3, file!["snapshots/check-remote.jsonl": Text]);
}

/// `fetch`, then `history`, then `recrawl`, on one state.
#[test]
fn fetch_history_recrawl() {
    let rt = support::runtime(1);
    let server = rt.block_on(TestServer::start(|_| Reply::text(200, ROBOTS)));
    let home = temp();
    let servers = [("[ADDR]", &server)];
    let case = Case {
        home: home.path(),
        servers: &servers,
    };
    let url = server.url("/");
    case.run(
        &["fetch", "--json", &url],
        0,
        file!["snapshots/fetch.jsonl": Text],
    );
    case.run(&["fetch", &url], 0, file!["snapshots/fetch.txt": Text]);
    case.run(&["history", &url], 0, file!["snapshots/history.txt": Text]);
    case.run(
        &["history", "--json", &url],
        0,
        file!["snapshots/history.jsonl": Text],
    );
    case.run(&["recrawl", &url], 0, file!["snapshots/recrawl.txt": Text]);
    case.run(
        &["recrawl", "--json", &url],
        0,
        file!["snapshots/recrawl.jsonl": Text],
    );
    assert_eq!(server.hits(), 4, "history never fetches");
}

/// `report`: a file with problems that changes from one day to the next (a fixed clock, UTC
/// as the local zone), with two agents and a few URLs: the status block, problems by line,
/// versions, the diff, verdict changes, RFC vs Google and the matrix.
#[test]
fn report() {
    let rt = support::runtime(1);
    let body = std::sync::Arc::new(std::sync::Mutex::new(
        "User-agent: *\nDisallow: /a\nDisallow: /b/\n".to_owned(),
    ));
    let served = body.clone();
    let server = rt.block_on(TestServer::start(move |_| {
        Reply::text(200, &served.lock().expect("lock"))
    }));
    let home = temp();
    let urls = home.path().join("urls.txt");
    std::fs::write(&urls, "/a\n/b/c\n/c\n/page\n").expect("write urls");
    let state = home.path().join("report.redb");
    let url = server.url("/");
    let args = |now: &str, more: &[&str]| {
        let mut all = vec![
            "report",
            "--state",
            state.to_str().expect("UTF-8 path"),
            "--agent",
            "MyBot",
            "--agent",
            "MJ12bot",
            "--urls",
            urls.to_str().expect("UTF-8 path"),
        ];
        all.extend(more);
        all.push(&url);
        crawlgate(home.path(), &all)
            .env("CRAWLGATE_NOW", now)
            .env("TZ", "UTC")
            .with_assert(assert(&[("[ADDR]", &server)]))
    };
    args("2026-11-21T10:00:00Z", &[]).assert().code(0);
    *body.lock().expect("lock") =
        "User-agent: *\nDisallow: /a/\nAllow: /b/c\nDisalow: /c\nDisallow: /c\n\nUser-agent: MJ12bot\nDisallow: /page\n"
            .to_owned();
    args("2026-11-22T10:00:00Z", &[])
        .assert()
        .code(0)
        .stdout_eq(file!["snapshots/report.txt": Text]);
    args("2026-11-22T10:00:00Z", &["--offline", "--json"])
        .assert()
        .code(0)
        .stdout_eq(file!["snapshots/report.jsonl": Text]);
    assert_eq!(server.hits(), 2, "--offline never fetches");
}

/// `sitemap discover`: robots.txt announces an index and a sitemap; the index lists one more,
/// whose URL robots.txt blocks.
#[test]
fn sitemap_discover() {
    fn base(req: &Request) -> String {
        format!("http://{}", req.header("host").unwrap_or("127.0.0.1"))
    }
    fn xml(root: &str, child: &str, locs: &[String]) -> Reply {
        let mut body = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <{root} xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
        );
        for loc in locs {
            body.push_str(&format!("  <{child}><loc>{loc}</loc></{child}>\n"));
        }
        body.push_str(&format!("</{root}>\n"));
        Reply::Full {
            status: 200,
            headers: vec![("content-type".into(), "application/xml".into())],
            body: body.into_bytes(),
        }
    }
    let rt = support::runtime(1);
    let server = rt.block_on(TestServer::start(|req| {
        let b = base(req);
        match req.path.as_str() {
            "/robots.txt" => Reply::text(
                200,
                &format!(
                    "User-agent: *\nDisallow: /private\n\nSitemap: {b}/index.xml\n\
                     Sitemap: {b}/pages.xml\n"
                ),
            ),
            "/index.xml" => xml("sitemapindex", "sitemap", &[format!("{b}/more.xml")]),
            "/pages.xml" => xml("urlset", "url", &[format!("{b}/p1"), format!("{b}/p2")]),
            "/more.xml" => xml("urlset", "url", &[format!("{b}/private/x")]),
            _ => Reply::status(404),
        }
    }));
    let home = temp();
    let servers = [("[ADDR]", &server)];
    let case = Case {
        home: home.path(),
        servers: &servers,
    };
    let url = server.url("/");
    case.run(
        &["sitemap", "discover", &url],
        0,
        file!["snapshots/sitemap-discover.txt": Text],
    );
    case.run(
        &["sitemap", "discover", "--json", &url],
        0,
        file!["snapshots/sitemap-discover.jsonl": Text],
    );
}
