//! Every command's output, human and `--json`, pinned as snapshots in `cli/tests/it/snapshots/`: a
//! change of output shows up as a diff of those files, to be reviewed like code.
//!
//! `SNAPSHOTS=overwrite cargo test -p crawlgate-cli --test it cli_snapshots::` rewrites them from the current output.
//! What changes from run to run is redacted, never wildcarded away: a test server's address is
//! `[ADDR]` (`[DOWN]` for the second server of a test) and a time `[TIME]`; everything else,
//! field names and order included, must match byte for byte.

use crate::support;
use std::path::Path;

use crate::support::sitemap::{base, index, urlset, xml};
use crate::support::{Reply, TestServer};
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

/// The binary with a state home of its own under `home` (see `run::command`).
fn crawlgate(home: &Path, args: &[&str]) -> Command {
    Command::from_std(crate::run::command(home, args))
}

/// One test's home and servers: each run expects an exit status and a stdout snapshot.
struct Case<'a> {
    home: tempfile::TempDir,
    servers: &'a [(&'static str, &'a TestServer)],
}

impl<'a> Case<'a> {
    /// A case with a home of its own, its output redacted for `servers`.
    fn new(servers: &'a [(&'static str, &'a TestServer)]) -> Case<'a> {
        Case {
            home: temp(),
            servers,
        }
    }

    fn home(&self) -> &Path {
        self.home.path()
    }

    fn run(&self, args: &[&str], code: i32, human: snapbox::Data) {
        crawlgate(self.home(), args)
            .with_assert(assert(self.servers))
            .assert()
            .code(code)
            .stdout_eq(human);
    }

    /// Runs `head` then `tail`, and again with `--json` between them: one exit status, and a
    /// snapshot for each output.
    fn run_both(
        &self,
        head: &[&str],
        tail: &[&str],
        code: i32,
        human: snapbox::Data,
        json: snapbox::Data,
    ) {
        let args: Vec<&str> = head.iter().chain(tail).copied().collect();
        self.run(&args, code, human);
        let args: Vec<&str> = head
            .iter()
            .chain(&["--json"])
            .chain(tail)
            .copied()
            .collect();
        self.run(&args, code, json);
    }
}

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

// ---- files only --------------------------------------------------------------------------

#[test]
fn lint() {
    let case = Case::new(&[]);
    let files = [
        "testdata/cli/errors.txt",
        "testdata/cli/warnings.txt",
        "testdata/cli/clean.txt",
    ];
    case.run_both(
        &["lint"],
        &files,
        1,
        file!["snapshots/lint.txt": Text],
        file!["snapshots/lint.jsonl": Text],
    );
}

#[test]
fn page_html() {
    let case = Case::new(&[]);
    case.run_both(
        &["page", "--agent", "examplebot"],
        &[
            "--html",
            "testdata/page/example.html",
            "--header",
            "Robots-Tag: *;nosnippet, examplebot;noindex",
        ],
        0,
        file!["snapshots/page.txt": Text],
        file!["snapshots/page.jsonl": Text],
    );
}

#[test]
fn check_robots() {
    let case = Case::new(&[]);
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
    case.run_both(
        &head,
        &urls,
        1,
        file!["snapshots/check-robots.txt": Text],
        file!["snapshots/check-robots.jsonl": Text],
    );
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
    crawlgate(case.home(), &args)
        .with_assert(assert(&[]))
        .assert()
        .code(2)
        .stdout_eq(file!["snapshots/check-robots-badbot.jsonl": Text])
        .stderr_eq(file!["snapshots/check-robots-badbot.stderr": Text]);
}

#[test]
fn url() {
    let case = Case::new(&[]);
    let urls = ["HTTPS://Example.COM:443/a?b", "http://example.com:8080/x"];
    case.run_both(
        &["url"],
        &urls,
        0,
        file!["snapshots/url.txt": Text],
        file!["snapshots/url.jsonl": Text],
    );
    // A bad URL: reported on stderr, counted in the summary.
    crawlgate(case.home(), &["url", "--json", "ftp://example.com/"])
        .with_assert(assert(&[]))
        .assert()
        .code(2)
        .stdout_eq(file!["snapshots/url-bad.jsonl": Text])
        .stderr_eq(file!["snapshots/url-bad.stderr": Text]);
}

#[test]
fn sitemap_lint() {
    let case = Case::new(&[]);
    let files = [
        "testdata/sitemap/seeds/video-full.xml",
        "testdata/sitemap/diagnostics/invalid-url.txt",
    ];
    case.run_both(
        &["sitemap", "lint"],
        &files,
        1,
        file!["snapshots/sitemap-lint.txt": Text],
        file!["snapshots/sitemap-lint.jsonl": Text],
    );
}

#[test]
fn sitemap_urls() {
    let case = Case::new(&[]);
    let files = [
        "testdata/sitemap/seeds/basic.xml",
        "testdata/sitemap/seeds/image-video.xml",
    ];
    case.run_both(
        &["sitemap", "urls"],
        &files,
        0,
        file!["snapshots/sitemap-urls.txt": Text],
        file!["snapshots/sitemap-urls.jsonl": Text],
    );
}

// ---- against local servers ----------------------------------------------------------------

const ROBOTS: &str = "User-agent: *\nDisallow: /private\nCrawl-delay: 5\n";

/// `check` without `--robots`: one origin with rules, one whose robots.txt answers 503.
#[test]
fn check_remote() {
    let rt = support::runtime(1);
    let up = rt.block_on(TestServer::start(|_| Reply::text(200, ROBOTS)));
    let down = rt.block_on(TestServer::start_on("127.0.0.2", |_| Reply::status(503)));
    let servers = [("[ADDR]", &up), ("[DOWN]", &down)];
    let case = Case::new(&servers);
    let urls = [
        up.url("/private/a"),
        up.url("/public"),
        down.url("/a"),
        down.url("/robots.txt"),
    ];
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    let head = ["check", "--no-state", "--agent", "MyBot"];
    // 3: a URL disallowed because its robots.txt could not be read wins over 1.
    case.run_both(
        &head,
        &urls,
        3,
        file!["snapshots/check-remote.txt": Text],
        file!["snapshots/check-remote.jsonl": Text],
    );
}

/// `policy`: robots.txt, TDMRep and the page for one URL robots.txt disallows whose page says
/// noindex (the trap, exit 1) and one it allows.
#[test]
fn policy_remote() {
    let (_rt, server) = support::serve_blocking(|r| match r.path.as_str() {
        "/robots.txt" => Reply::text(200, ROBOTS),
        "/.well-known/tdmrep.json" => Reply::text(
            200,
            r#"[{"location": "/private", "tdm-reservation": 1, "tdm-policy": "https://example.com/tdm.json"}]"#,
        ),
        _ => Reply::Full {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/html".into()),
                ("x-robots-tag".into(), "noarchive".into()),
            ],
            body: br#"<html><head><meta name="robots" content="noindex, noai"></head><body>"#
                .to_vec(),
        },
    });
    let servers = [("[ADDR]", &server)];
    let case = Case::new(&servers);
    let (private, public) = (server.url("/private/a"), server.url("/public"));
    case.run_both(
        &["policy", "--agent", "MyBot"],
        &[&private, &public],
        1,
        file!["snapshots/policy.txt": Text],
        file!["snapshots/policy.jsonl": Text],
    );
}

/// `explain` from the crawl state with `--pages`: the politeness line, and the noindex trap
/// under the disallowed URL whose page says noindex (the allowed one's page is not fetched).
#[test]
fn explain_pages() {
    let (_rt, server) = support::serve_blocking(|r| match r.path.as_str() {
        "/robots.txt" => Reply::text(200, ROBOTS),
        _ => Reply::Full {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/html".into()),
                ("x-robots-tag".into(), "noarchive".into()),
            ],
            body: b"<html><head>\n<meta name=\"robots\" content=\"noindex\"></head><body>".to_vec(),
        },
    });
    let servers = [("[ADDR]", &server)];
    let case = Case::new(&servers);
    let origin = server.url("/");
    case.run_both(
        &["explain", "--pages", "--agent", "MyBot"],
        &[&origin, "/private/a", "/public"],
        1,
        file!["snapshots/explain_pages.txt": Text],
        file!["snapshots/explain_pages.jsonl": Text],
    );
}

/// `fetch`, then `history`, then `recrawl`, on one state.
#[test]
fn fetch_history_recrawl() {
    let (_rt, server) = support::serve_blocking(|_| Reply::text(200, ROBOTS));
    let servers = [("[ADDR]", &server)];
    let case = Case::new(&servers);
    let url = server.url("/");
    case.run(
        &["fetch", "--json", &url],
        0,
        file!["snapshots/fetch.jsonl": Text],
    );
    case.run(&["fetch", &url], 0, file!["snapshots/fetch.txt": Text]);
    case.run_both(
        &["history"],
        &[&url],
        0,
        file!["snapshots/history.txt": Text],
        file!["snapshots/history.jsonl": Text],
    );
    case.run_both(
        &["recrawl"],
        &[&url],
        0,
        file!["snapshots/recrawl.txt": Text],
        file!["snapshots/recrawl.jsonl": Text],
    );
    assert_eq!(server.hits(), 4, "history never fetches");
}

/// `report`: a file with problems that changes from one day to the next (a fixed clock, UTC
/// as the local zone), with two agents and a few URLs: the status block, problems by line,
/// versions, the diff, verdict changes, RFC vs Google and the matrix.
#[test]
fn report() {
    let body = std::sync::Arc::new(std::sync::Mutex::new(
        "User-agent: *\nDisallow: /a\nDisallow: /b/\n".to_owned(),
    ));
    let served = body.clone();
    let (_rt, server) =
        support::serve_blocking(move |_| Reply::text(200, &served.lock().expect("lock")));
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
    let (_rt, server) = support::serve_blocking(|req| {
        let b = base(req);
        match req.path.as_str() {
            "/robots.txt" => Reply::text(
                200,
                &format!(
                    "User-agent: *\nDisallow: /private\n\nSitemap: {b}/index.xml\n\
                     Sitemap: {b}/pages.xml\n"
                ),
            ),
            "/index.xml" => xml(index(&[format!("{b}/more.xml")])),
            "/pages.xml" => xml(urlset(&[format!("{b}/p1"), format!("{b}/p2")])),
            "/more.xml" => xml(urlset(&[format!("{b}/private/x")])),
            _ => Reply::status(404),
        }
    });
    let servers = [("[ADDR]", &server)];
    let case = Case::new(&servers);
    let url = server.url("/");
    case.run_both(
        &["sitemap", "discover"],
        &[&url],
        0,
        file!["snapshots/sitemap-discover.txt": Text],
        file!["snapshots/sitemap-discover.jsonl": Text],
    );
}

#[test]
fn audit() {
    let case = Case::new(&[]);
    // A catalogue of five (one name with markup in its operator, one with an escape sequence
    // in its name, one that is not a token) against a crafted file and two paths.
    case.run_both(
        &["audit"],
        &[
            "testdata/audit/site.txt",
            "--catalogue",
            "testdata/audit/catalogue.json",
            "--paths",
            "testdata/audit/paths.txt",
        ],
        0,
        file!["snapshots/audit.txt": Text],
        file!["snapshots/audit.jsonl": Text],
    );
    // The built-in catalogue on a real file: its search crawlers.
    case.run(
        &[
            "audit",
            "--purpose",
            "search",
            "testdata/audit/real/www.blu-ray.com.txt",
        ],
        0,
        file!["snapshots/audit-builtin-search.txt": Text],
    );
    case.run(
        &[
            "audit",
            "--suggest",
            "block=training",
            "testdata/audit/site.txt",
            "--catalogue",
            "testdata/audit/catalogue.json",
        ],
        0,
        file!["snapshots/audit-suggest.txt": Text],
    );
}

#[test]
fn test_and_diff() {
    let case = Case::new(&[]);
    // The candidate against its expectations: every one holds.
    case.run_both(
        &["test", "--expect", "testdata/ci/robots.expect"],
        &["testdata/ci/robots.txt"],
        0,
        file!["snapshots/test.txt": Text],
        file!["snapshots/test.jsonl": Text],
    );
    // The deployed file against them: it lets most training crawlers in.
    case.run(
        &[
            "test",
            "--expect",
            "testdata/ci/robots.expect",
            "testdata/ci/deployed.txt",
        ],
        1,
        file!["snapshots/test-fails.txt": Text],
    );
    case.run_both(
        &["diff"],
        &[
            "testdata/ci/deployed.txt",
            "testdata/ci/robots.txt",
            "--agent",
            "Googlebot",
            "--urls",
            "testdata/ci/important-urls.txt",
        ],
        1,
        file!["snapshots/diff.txt": Text],
        file!["snapshots/diff.jsonl": Text],
    );
}
