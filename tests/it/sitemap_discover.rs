//! `Fetcher::discover_sitemaps` and `Fetcher::fetch_sitemap` against real HTTP servers on
//! 127.0.0.1: announced sitemaps and indexes read once each, cycles, nesting, failures,
//! compression bombs, the robots.txt cross-check and the sitemap limit.
use std::time::{Duration, Instant};

use crate::support::gzip::{gzip, gzip_parts, Compression};
use crate::support::sitemap::{base, gz_file, index, urlset, xml};
use crate::support::{thread_cpu_time, Reply, Request, TestServer};
use crawlgate::http::sitemaps::{Discovery, SitemapFetchError};
use crawlgate::http::{AddressPolicy, FetchOptions, Fetcher};
use crawlgate::policy::{FetchOutcome, Unreachable};
use crawlgate::sitemap::discover::{SitemapReport, WalkOptions};
use crawlgate::sitemap::{Code, Format, MAX_BYTES};
use crawlgate::{Origin, ProductToken};

fn fetcher() -> Fetcher {
    Fetcher::new({
        let mut fetch = FetchOptions::default();
        fetch.connect_timeout = Duration::from_secs(2);
        fetch.timeout = Duration::from_secs(20);
        // Loopback servers: the default already, said out loud.
        fetch.addresses = AddressPolicy::Any;
        fetch
    })
    .expect("fetcher")
}

fn origin(server: &TestServer) -> Origin {
    Origin::from_url(&server.url("/")).expect("origin")
}

/// The sitemaps `server`'s robots.txt announces, walked for `agent` with `options`.
async fn discover_with(
    server: &TestServer,
    agent: Option<&ProductToken>,
    options: WalkOptions,
) -> Discovery {
    fetcher()
        .discover_sitemaps(&origin(server), agent, options)
        .await
        .expect("no local failure")
}

/// The sitemaps `server`'s robots.txt announces, walked for no agent with the default options.
async fn discover(server: &TestServer) -> Discovery {
    discover_with(server, None, WalkOptions::default()).await
}

/// `robots.txt` announcing `paths` (on the same server), with `/private` disallowed for all.
fn robots(req: &Request, paths: &[&str]) -> Reply {
    let mut body = String::from("User-agent: *\nDisallow: /private\n\n");
    for p in paths {
        body.push_str(&format!("Sitemap: {}{p}\n", base(req)));
    }
    Reply::text(200, &body)
}

/// The report of the sitemap at `path`.
fn report<'a>(found: &'a Discovery, server: &TestServer, path: &str) -> &'a SitemapReport {
    let url = server.url(path);
    found
        .sitemaps
        .iter()
        .find(|s| s.url == url)
        .unwrap_or_else(|| panic!("no report for {url}: {found:#?}"))
}

fn codes(report: &SitemapReport) -> Vec<Code> {
    report.diagnostics.iter().map(|d| d.code).collect()
}

fn token() -> ProductToken {
    ProductToken::new("TestBot").expect("token")
}

#[tokio::test]
async fn announced_and_listed_sitemaps_are_fetched_once() {
    // Uncompressed, b.xml.gz is 3 URLs; served as a raw gzip file.
    let b_gz = gzip(&urlset(&[
        "http://127.0.0.1/b1".into(),
        "http://127.0.0.1/b2".into(),
        "http://127.0.0.1/b3".into(),
    ]));
    let b_len = b_gz.len();
    let server = TestServer::start(move |req| match req.path.as_str() {
        "/robots.txt" => robots(req, &["/index.xml", "/pages.xml", "/pages.xml"]),
        "/index.xml" => xml(index(&[
            format!("{}/a.xml", base(req)),
            format!("{}/b.xml.gz", base(req)),
            // Announced too: listed here, read once.
            format!("{}/pages.xml", base(req)),
        ])),
        "/pages.xml" => xml(urlset(&[
            format!("{}/p1", base(req)),
            format!("{}/p2", base(req)),
        ])),
        "/a.xml" => xml(urlset(&[format!("{}/a1", base(req))])),
        "/b.xml.gz" => gz_file(b_gz.clone()),
        _ => Reply::status(404),
    })
    .await;
    let found = discover(&server).await;

    for path in [
        "/robots.txt",
        "/index.xml",
        "/pages.xml",
        "/a.xml",
        "/b.xml.gz",
    ] {
        assert_eq!(server.hits_on(path), 1, "{path}");
    }
    assert_eq!(server.hits(), 5);
    assert_eq!(found.robots_url(), server.url("/robots.txt"));
    assert!(matches!(found.robots.outcome, FetchOutcome::Rules { .. }));
    assert_eq!(found.robots.status, Some(200));
    assert!(!found.truncated());

    // Announced first, in order, then what the index lists.
    let order: Vec<&str> = found.sitemaps.iter().map(|s| s.url.as_str()).collect();
    let want = ["/index.xml", "/pages.xml", "/a.xml", "/b.xml.gz"].map(|p| server.url(p));
    assert_eq!(order, want);

    let idx = report(&found, &server, "/index.xml");
    assert_eq!(
        (idx.format, idx.entries, idx.depth),
        (Some(Format::Index), 3, 0)
    );
    // The third <sitemap> (line 5) names a sitemap already announced.
    assert_eq!(codes(idx), [Code::DuplicateSitemap]);
    assert_eq!(idx.diagnostics[0].line(), 5);

    let pages = report(&found, &server, "/pages.xml");
    assert_eq!((pages.format, pages.entries), (Some(Format::UrlSet), 2));
    // Announced twice.
    assert_eq!(codes(pages), [Code::DuplicateSitemap]);
    assert_eq!((pages.errors, pages.warnings), (0, 1));

    let a = report(&found, &server, "/a.xml");
    assert_eq!((a.entries, a.errors, a.warnings), (1, 0, 0));
    assert_eq!(a.parent.as_deref(), Some(server.url("/index.xml").as_str()));
    assert_eq!(a.depth, 1);
    assert_eq!(a.listed_at.map(|p| p.line), Some(3));

    let b = report(&found, &server, "/b.xml.gz");
    // Its URLs name port 80, another origin than the server's: outside what it may list.
    assert_eq!(
        (b.format, b.entries, b.errors),
        (Some(Format::UrlSet), 3, 3)
    );
    assert_eq!(codes(b), [Code::UrlNotAllowed; 3]);
    // The bytes fetched were the compressed ones; the reader decompressed them.
    assert_eq!(b.size, b_len);
    assert_eq!(b.fetch_error, None);
}

#[tokio::test]
async fn an_index_listing_itself_is_a_cycle() {
    let server = TestServer::start(|req| match req.path.as_str() {
        "/robots.txt" => robots(req, &["/index.xml"]),
        "/index.xml" => xml(index(&[
            format!("{}/a.xml", base(req)),
            format!("{}/index.xml", base(req)),
        ])),
        "/a.xml" => xml(urlset(&[format!("{}/a1", base(req))])),
        _ => Reply::status(404),
    })
    .await;
    let found = discover(&server).await;
    assert_eq!(server.hits_on("/index.xml"), 1);
    assert_eq!(server.hits_on("/a.xml"), 1);
    assert_eq!(found.sitemaps.len(), 2);
    let idx = report(&found, &server, "/index.xml");
    assert_eq!(codes(idx), [Code::IndexCycle]);
    assert_eq!(idx.diagnostics[0].line(), 4);
    assert_eq!(idx.errors, 1);
    assert_eq!(report(&found, &server, "/a.xml").entries, 1);
}

#[tokio::test]
async fn a_nested_index_is_an_error_and_not_followed() {
    let server = TestServer::start(|req| match req.path.as_str() {
        "/robots.txt" => robots(req, &["/index.xml"]),
        "/index.xml" => xml(index(&[
            format!("{}/a.xml", base(req)),
            format!("{}/inner.xml", base(req)),
        ])),
        "/inner.xml" => xml(index(&[
            format!("{}/grand1.xml", base(req)),
            format!("{}/grand2.xml", base(req)),
        ])),
        "/a.xml" | "/grand1.xml" | "/grand2.xml" => xml(urlset(&[format!("{}/page", base(req))])),
        _ => Reply::status(404),
    })
    .await;
    let found = discover(&server).await;
    assert_eq!(server.hits_on("/inner.xml"), 1);
    assert_eq!(server.hits_on("/grand1.xml"), 0);
    assert_eq!(server.hits_on("/grand2.xml"), 0);
    assert_eq!(found.sitemaps.len(), 3);

    let outer = report(&found, &server, "/index.xml");
    assert_eq!((outer.errors, outer.warnings), (0, 0));
    let inner = report(&found, &server, "/inner.xml");
    assert_eq!(inner.format, Some(Format::Index));
    assert_eq!(inner.depth, 1);
    assert_eq!(codes(inner), [Code::NestedIndex]);
    // Where the outer index lists it.
    assert_eq!(inner.diagnostics[0].line(), 4);
    assert_eq!(inner.entries, 2);
}

#[tokio::test]
async fn failed_fetches_are_fetch_failed() {
    let server = TestServer::start(|req| match req.path.as_str() {
        "/robots.txt" => robots(
            req,
            &["/missing.xml", "/broken.xml", "/moved.xml", "/loop.xml"],
        ),
        "/broken.xml" => Reply::status(503),
        "/moved.xml" => Reply::redirect(301, "/pages.xml"),
        "/loop.xml" => Reply::redirect(302, "/loop.xml"),
        "/pages.xml" => xml(urlset(&[format!("{}/p1", base(req))])),
        _ => Reply::status(404),
    })
    .await;
    let found = discover(&server).await;
    assert_eq!(found.sitemaps.len(), 4);

    let missing = report(&found, &server, "/missing.xml");
    assert_eq!(codes(missing), [Code::FetchFailed]);
    assert_eq!(missing.fetch_error.as_deref(), Some("HTTP 404"));
    assert_eq!((missing.format, missing.entries), (None, 0));
    assert_eq!(missing.count(Code::FetchFailed), 1);

    let broken = report(&found, &server, "/broken.xml");
    assert_eq!(codes(broken), [Code::FetchFailed]);
    assert_eq!(broken.fetch_error.as_deref(), Some("HTTP 503"));

    // A redirect is followed; the report keeps the URL announced.
    let moved = report(&found, &server, "/moved.xml");
    assert_eq!((moved.entries, moved.errors), (1, 0));
    assert_eq!(server.hits_on("/pages.xml"), 1);

    let looped = report(&found, &server, "/loop.xml");
    assert_eq!(codes(looped), [Code::FetchFailed]);
    assert_eq!(looped.fetch_error.as_deref(), Some("redirect loop"));
}

#[tokio::test]
async fn fetch_sitemap_errors_are_readable() {
    let server = TestServer::start(|req| match req.path.as_str() {
        "/ok.xml" => Reply::text(200, "https://example.com/a\n"),
        "/gone.xml" => Reply::status(410),
        p if p.starts_with("/r") => {
            let n: usize = p[2..].parse().unwrap_or(0);
            Reply::redirect(301, &format!("/r{}", n + 1))
        }
        _ => Reply::status(404),
    })
    .await;
    let f = fetcher();
    assert_eq!(
        f.fetch_sitemap(&server.url("/ok.xml")).await,
        Ok(b"https://example.com/a\n".to_vec())
    );
    let gone = f.fetch_sitemap(&server.url("/gone.xml")).await;
    assert_eq!(gone, Err(SitemapFetchError::Status(410)));
    assert_eq!(gone.unwrap_err().to_string(), "HTTP 410");
    let chain = f.fetch_sitemap(&server.url("/r0")).await;
    assert_eq!(chain, Err(SitemapFetchError::TooManyRedirects));
    let bad = f.fetch_sitemap("not a url").await.unwrap_err();
    assert!(
        matches!(bad, SitemapFetchError::Unreachable(Unreachable::Other(_))),
        "{bad:?}"
    );
    assert!(bad.to_string().contains("not a url"), "{bad}");
}

/// The open and close of a `<urlset>` listing one page.
fn urlset_halves() -> (Vec<u8>, Vec<u8>) {
    let whole = urlset(&["http://127.0.0.1/a".into()]);
    let (open, close) = whole.split_at(whole.len() - "</urlset>\n".len());
    (open.to_vec(), close.to_vec())
}

/// 256 MiB of uncompressed XML in about 550 KB of gzip: a `<urlset>` listing one page, then
/// comments, as 256 gzip members of 1 MiB each (a gzip file may hold several members, and the
/// reader reads them all; the same member repeated keeps the test fast to build).
fn multi_member_bomb() -> Vec<u8> {
    let (open, close) = urlset_halves();
    let pad = gzip(&markup_pad());
    let mut out = gzip(&open);
    for _ in 0..256 {
        out.extend_from_slice(&pad);
    }
    out.extend_from_slice(&gzip(&close));
    out
}

/// 1 MiB of short comments, so the reader's 1 MiB bound on one XML event (`oversized-text`)
/// is not what stops it; the size limit is.
fn markup_pad() -> Vec<u8> {
    b"<!-- pad -->\n".repeat((1 << 20) / 13)
}

/// The same XML, 52 MiB of it (just past the limit), as one gzip member: HTTP clients decode
/// only the first member of a `Content-Encoding: gzip` body.
fn single_member_bomb() -> Vec<u8> {
    let (open, close) = urlset_halves();
    let pad = markup_pad();
    let parts = std::iter::once(&open[..])
        .chain(std::iter::repeat_n(&pad[..], 52))
        .chain([&close[..]]);
    gzip_parts(Compression::fast(), parts)
}

/// The peak resident set of this process (Linux), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[tokio::test]
async fn a_gzip_bomb_stops_at_the_limit() {
    let bomb = multi_member_bomb();
    assert!(bomb.len() < 1_000_000, "{} bytes of gzip", bomb.len());
    let bomb_len = bomb.len();
    let encoded_bomb = single_member_bomb();
    assert!(
        encoded_bomb.len() < 1_000_000,
        "{} bytes",
        encoded_bomb.len()
    );
    let server = TestServer::start(move |req| match req.path.as_str() {
        "/robots.txt" => robots(req, &["/bomb.xml.gz", "/encoded.xml"]),
        // A raw .gz file: the reader decompresses it, up to its own limit.
        "/bomb.xml.gz" => gz_file(bomb.clone()),
        // As Content-Encoding: the fetcher decompresses it, up to its own cap.
        "/encoded.xml" => xml(encoded_bomb.clone()).with_header("content-encoding", "gzip"),
        _ => Reply::status(404),
    })
    .await;
    // The work of the discovery, as this thread's CPU time (the server and the reader run on
    // this test's one thread; no blocking pool): a loaded machine lengthens the wall time,
    // not this.
    let (cpu, wall) = (thread_cpu_time(), Instant::now());
    let found = discover(&server).await;
    let elapsed = match (cpu, thread_cpu_time()) {
        (Some(start), Some(end)) => end.saturating_sub(start),
        _ => wall.elapsed(),
    };
    eprintln!(
        "  discovery: {elapsed:?} of CPU, {:?} of wall time",
        wall.elapsed()
    );

    let raw = report(&found, &server, "/bomb.xml.gz");
    assert_eq!(raw.size, bomb_len);
    assert_eq!(raw.count(Code::TooLarge), 1, "{raw:#?}");
    assert!(codes(raw).contains(&Code::TooLarge));
    assert_eq!(raw.fetch_error, None);
    assert_eq!(raw.format, Some(Format::UrlSet));

    let encoded = report(&found, &server, "/encoded.xml");
    // The fetcher stopped one byte past the limit; the reader says why.
    assert_eq!(
        encoded.size,
        usize::try_from(MAX_BYTES).expect("fits") + 1,
        "{encoded:#?}"
    );
    assert_eq!(encoded.count(Code::TooLarge), 1, "{encoded:#?}");
    // Generous for debug builds: reading all 256 MiB would take far longer.
    assert!(elapsed < Duration::from_secs(60), "took {elapsed:?}");
    // Each layer holds at most about one limit (50 MiB); the whole bomb would be 256 MiB more.
    if let Some(peak) = peak_rss() {
        assert!(peak < 400 << 20, "peak RSS {} MiB", peak >> 20);
    }
}

#[tokio::test]
async fn blocked_entries_are_reported_for_the_agent() {
    let server = TestServer::start(|req| match req.path.as_str() {
        "/robots.txt" => robots(req, &["/pages.xml"]),
        "/pages.xml" => xml(urlset(&[
            format!("{}/public", base(req)),
            format!("{}/private/report", base(req)),
            // Another host: this robots.txt says nothing about it.
            "http://other.example/private/x".to_owned(),
        ])),
        _ => Reply::status(404),
    })
    .await;
    let agent = token();
    let with_agent = discover_with(&server, Some(&agent), WalkOptions::default()).await;
    let pages = report(&with_agent, &server, "/pages.xml");
    assert_eq!(pages.entries, 3);
    // The other host's URL is not checked against this robots.txt, and it is outside what a
    // sitemap of this site may list.
    assert_eq!(codes(pages), [Code::BlockedByRobots, Code::UrlNotAllowed]);
    assert_eq!(pages.diagnostics[0].line(), 4);
    assert!(
        pages.diagnostics[0].message.contains("Disallow: /private"),
        "{}",
        pages.diagnostics[0].message
    );
    assert_eq!((pages.errors, pages.warnings), (1, 1));

    let without = discover(&server).await;
    let pages = report(&without, &server, "/pages.xml");
    assert_eq!((pages.entries, pages.errors, pages.warnings), (3, 1, 0));
}

#[tokio::test]
async fn max_sitemaps_caps_the_fetches() {
    let server = TestServer::start(|req| match req.path.as_str() {
        "/robots.txt" => robots(req, &["/index.xml"]),
        "/index.xml" => xml(index(
            &(1..=5)
                .map(|i| format!("{}/s{i}.xml", base(req)))
                .collect::<Vec<_>>(),
        )),
        _ => xml(urlset(&[format!("{}/page", base(req))])),
    })
    .await;
    let mut options = WalkOptions::default();
    options.max_sitemaps = 3;
    let found = discover_with(&server, None, options).await;
    // robots.txt, the index and two of its five sitemaps.
    assert_eq!(server.hits(), 4);
    assert_eq!(found.sitemaps.len(), 3);
    assert_eq!(found.skipped, 3);
    assert!(found.truncated());
    assert_eq!(server.hits_on("/s3.xml"), 0);
}

#[tokio::test]
async fn no_robots_txt_announces_nothing() {
    let server = TestServer::start(|_| Reply::status(404)).await;
    let found = discover_with(&server, Some(&token()), WalkOptions::default()).await;
    assert!(found.sitemaps.is_empty());
    assert_eq!(found.robots.status, Some(404));
    assert_eq!(found.robots.outcome.as_str(), "unavailable");
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn a_redirected_robots_txt_scopes_its_sitemaps_to_the_host_that_served_it() {
    // The apex (127.0.0.1) redirects robots.txt to "www" (127.0.0.2), which announces a sitemap
    // listing its own URLs: they are the site's, not `url-not-allowed`.
    let www = TestServer::start_on("127.0.0.2", |req| match req.path.as_str() {
        "/robots.txt" => robots(req, &["/sitemap.xml"]),
        "/sitemap.xml" => xml(urlset(&[
            format!("{}/a", base(req)),
            format!("{}/b", base(req)),
            // A third site is still outside.
            "http://other.example/c".to_owned(),
        ])),
        _ => Reply::status(404),
    })
    .await;
    let target = www.url("/robots.txt");
    let apex = TestServer::start(move |_| Reply::redirect(301, &target)).await;
    let found = discover(&apex).await;
    assert_eq!(found.robots.final_url, www.url("/robots.txt"));
    let sitemap = report(&found, &www, "/sitemap.xml");
    assert_eq!(sitemap.entries, 3, "{sitemap:#?}");
    assert_eq!(codes(sitemap), [Code::UrlNotAllowed], "{sitemap:#?}");
    let d = &sitemap.diagnostics[0];
    assert!(
        d.message.starts_with("http://other.example/c is outside"),
        "{}",
        d.message
    );
    assert!(
        d.message.contains(&apex.url("/")) && d.message.contains(&www.url("/")),
        "both hosts named: {}",
        d.message
    );
}
