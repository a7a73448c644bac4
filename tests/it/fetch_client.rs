//! `Fetcher::fetch` against real HTTP servers on 127.0.0.x: every row of the status table,
//! redirects, caps, compression, broken responses, timeouts and the address policy.
use crate::support::assert_has;
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::gzip::{gzip_at, gzip_parts};
use crate::support::{refused_addr, Reply, Request, TestServer};
use crawlgate::http::{AddressPolicy, FetchError, FetchOptions, Fetcher, LocalError};
use crawlgate::policy::{Fetch, FetchOutcome, Unavailable, Unreachable};
use crawlgate::{Code, Origin, Parsed, ProductToken, DEFAULT_MAX_BYTES};
use flate2::write::ZlibEncoder;
use flate2::Compression;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Asserts that a fetch's outcome matches a pattern, showing the fetch when it does not.
macro_rules! assert_outcome {
    ($fetch:expr, $pattern:pat) => {
        assert!(matches!($fetch.outcome, $pattern), "{:?}", $fetch)
    };
}

const RULES: &str = "User-agent: *\nDisallow: /private\nAllow: /private/ok\n";
const UA: &str = "crawlgate-test/1.0 (+https://example.com/bot)";

fn options() -> FetchOptions {
    {
        let mut fetch = FetchOptions::default();
        fetch.user_agent = UA.into();
        // Loopback answers in milliseconds; these bound a test that goes wrong, and are long
        // enough that a loaded machine never turns a fetch that works into a timeout (a 2 s
        // total could be). The timeout tests set their own.
        fetch.connect_timeout = Duration::from_secs(10);
        fetch.timeout = Duration::from_secs(30);
        fetch
    }
}

fn fetcher() -> Fetcher {
    Fetcher::new(options()).expect("fetcher")
}

/// A fetcher with `options()` changed by `change`.
fn fetcher_with(change: impl FnOnce(&mut FetchOptions)) -> Fetcher {
    let mut fetch = options();
    change(&mut fetch);
    Fetcher::new(fetch).expect("fetcher")
}

/// `server`'s robots.txt through `fetcher`, which must not fail locally.
async fn fetch_with(fetcher: &Fetcher, server: &TestServer) -> Fetch {
    fetcher
        .fetch(&origin(server))
        .await
        .expect("no local failure")
}

/// `server`'s robots.txt through the default fetcher.
async fn fetch_from(server: &TestServer) -> Fetch {
    fetch_with(&fetcher(), server).await
}

/// A server answering with `handler`, and its robots.txt through the default fetcher.
async fn served(
    handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
) -> (TestServer, Fetch) {
    let server = TestServer::start(handler).await;
    let fetch = fetch_from(&server).await;
    (server, fetch)
}

fn origin(server: &TestServer) -> Origin {
    Origin::from_url(&server.url("/")).expect("origin")
}

fn token() -> ProductToken {
    ProductToken::new("TestBot").expect("token")
}

/// The parsed rules and the body, or a panic naming the outcome.
fn rules(fetch: &Fetch) -> (&[u8], &Parsed) {
    match &fetch.outcome {
        FetchOutcome::Rules { body, parsed } => (body, parsed),
        other => panic!("expected rules, got {other:?} ({fetch:?})"),
    }
}

fn allowed(fetch: &Fetch, path: &str) -> bool {
    rules(fetch)
        .1
        .robots
        .is_allowed(&token(), &format!("http://example.com{path}"))
}

fn has_code(parsed: &Parsed, code: Code) -> bool {
    parsed.diagnostics.iter().any(|d| d.code == code)
}

/// `/robots.txt` → `/r1` → … → `/rN`, which answers `RULES`.
fn redirect_chain(n: usize) -> impl Fn(&Request) -> Reply + Send + Sync + 'static {
    move |req| {
        let hop = if req.path == "/robots.txt" {
            0
        } else {
            req.path
                .trim_start_matches("/r")
                .parse::<usize>()
                .unwrap_or(usize::MAX)
        };
        if hop < n {
            Reply::redirect(301, &format!("/r{}", hop + 1))
        } else {
            Reply::text(200, RULES)
        }
    }
}

/// Bodies here are gzipped fast.
fn gzip(data: &[u8]) -> Vec<u8> {
    gzip_at(Compression::fast(), data)
}

#[tokio::test]
async fn ok_200_rules_are_obeyed() {
    let (server, fetch) = served(|_| Reply::text(200, RULES)).await;
    assert_eq!(fetch.status, Some(200));
    assert_eq!(fetch.url, server.url("/robots.txt"));
    assert_eq!(fetch.final_url, server.url("/robots.txt"));
    assert_eq!(fetch.redirects, 0);
    assert_eq!(fetch.retry_after, None);
    assert_eq!(fetch.size(), RULES.len());
    assert_eq!(rules(&fetch).0, RULES.as_bytes());
    assert!(!allowed(&fetch, "/private/x"));
    assert!(allowed(&fetch, "/private/ok"));
    assert!(allowed(&fetch, "/public"));
    assert_eq!(server.hits(), 1);
    assert_eq!(server.requests()[0].path, "/robots.txt");
}

#[tokio::test]
async fn no_content_204_allows_all() {
    let (_server, fetch) = served(|_| Reply::status(204)).await;
    assert_eq!(fetch.status, Some(204));
    assert_eq!(fetch.size(), 0);
    assert_eq!(rules(&fetch).1.robots.rule_count(), 0);
    assert!(allowed(&fetch, "/anything"));
}

#[tokio::test]
async fn five_redirects_then_200_is_read() {
    let (server, fetch) = served(redirect_chain(5)).await;
    assert_eq!(fetch.redirects, 5);
    assert_eq!(fetch.status, Some(200));
    assert_eq!(fetch.url, server.url("/robots.txt"));
    assert_eq!(fetch.final_url, server.url("/r5"));
    assert!(!allowed(&fetch, "/private/x"));
    assert_eq!(server.hits(), 6);
}

#[tokio::test]
async fn six_redirects_are_too_many() {
    let (server, fetch) = served(redirect_chain(6)).await;
    assert_outcome!(
        fetch,
        FetchOutcome::Unavailable(Unavailable::TooManyRedirects)
    );
    assert_eq!(fetch.redirects, 5);
    assert_eq!(fetch.status, Some(301));
    assert_eq!(fetch.final_url, server.url("/r5"));
    // The sixth redirect's target is never requested.
    assert_eq!(server.hits(), 6);
    assert!(server.requests().iter().all(|r| r.path != "/r6"));
}

#[tokio::test]
async fn max_redirects_is_configurable() {
    let server = TestServer::start(redirect_chain(2)).await;
    let f = fetcher_with(|fetch| {
        fetch.max_redirects = 1;
    });
    let fetch = fetch_with(&f, &server).await;
    assert_outcome!(
        fetch,
        FetchOutcome::Unavailable(Unavailable::TooManyRedirects)
    );
    assert_eq!(fetch.redirects, 1);
}

#[tokio::test]
async fn redirect_loop_is_detected() {
    // /robots.txt → /a → /b → /robots.txt
    let server = TestServer::start(|req| match req.path.as_str() {
        "/robots.txt" => Reply::redirect(302, "/a"),
        "/a" => Reply::redirect(307, "/b"),
        _ => Reply::redirect(308, "/robots.txt"),
    })
    .await;
    let fetch = fetch_from(&server).await;
    assert_outcome!(fetch, FetchOutcome::Unavailable(Unavailable::RedirectLoop));
    assert_eq!(fetch.redirects, 2);
    assert_eq!(fetch.final_url, server.url("/b"));
    assert_eq!(server.hits(), 3);

    // A redirect to itself: a fragment does not make the URL new.
    let (server, fetch) = served(|_| Reply::redirect(303, "/robots.txt#top")).await;
    assert_outcome!(fetch, FetchOutcome::Unavailable(Unavailable::RedirectLoop));
    assert_eq!(fetch.redirects, 0);
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn client_errors_are_unavailable() {
    for code in [400, 401, 403, 404, 410, 451] {
        let (_server, fetch) = served(move |_| Reply::text(code, "<h1>nope</h1>")).await;
        assert!(
            matches!(fetch.outcome, FetchOutcome::Unavailable(Unavailable::Status(c)) if c == code),
            "{code}: {fetch:?}"
        );
        assert_eq!(fetch.status, Some(code));
        assert_eq!(fetch.size(), 0);
        assert_eq!(fetch.max_age, None);
    }
}

#[tokio::test]
async fn too_many_requests_is_unreachable_with_retry_after() {
    let (_server, fetch) = served(|_| Reply::status(429).with_header("retry-after", "120")).await;
    assert_outcome!(fetch, FetchOutcome::Unreachable(Unreachable::Status(429)));
    assert_eq!(fetch.status, Some(429));
    assert_eq!(fetch.retry_after, Some(Duration::from_secs(120)));
}

#[tokio::test]
async fn server_errors_are_unreachable() {
    for code in [500, 502, 503] {
        let (_server, fetch) = served(move |_| {
            Reply::status(code)
                .with_header("retry-after", "30")
                .with_header("cache-control", "max-age=60")
        })
        .await;
        assert!(
            matches!(fetch.outcome, FetchOutcome::Unreachable(Unreachable::Status(c)) if c == code),
            "{code}: {fetch:?}"
        );
        // Retry-After counts on 429 and 503 only; max-age on 2xx only.
        let want = (code == 503).then_some(Duration::from_secs(30));
        assert_eq!(fetch.retry_after, want, "{code}");
        assert_eq!(fetch.max_age, None);
    }
}

#[tokio::test]
async fn retry_after_as_http_date() {
    // A date long past: retry at once.
    let (_server, fetch) =
        served(|_| Reply::status(503).with_header("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"))
            .await;
    assert_eq!(fetch.retry_after, Some(Duration::ZERO));
}

#[tokio::test]
async fn connection_refused_is_connect() {
    let addr = refused_addr().await;
    let origin = Origin::from_url(&format!("http://{addr}/")).expect("origin");
    let fetch = fetcher().fetch(&origin).await.expect("no local failure");
    match &fetch.outcome {
        FetchOutcome::Unreachable(Unreachable::Connect(msg)) => {
            assert!(msg.to_lowercase().contains("refused"), "{msg}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fetch.status, None);
    assert_eq!(fetch.size(), 0);
}

/// How long the misbehaving servers below take to finish answering: far beyond any timeout
/// here, so that a timeout not applied shows as a fetch that succeeded after a minute, not as
/// a few hundred milliseconds too many (a tight upper bound on wall time, which a loaded
/// machine broke).
const SERVER_ENDS_AFTER: Duration = Duration::from_secs(60);

/// A timeout fired well before the server's end: half of it.
fn well_before_the_server_ends(took: Duration) -> bool {
    took < SERVER_ENDS_AFTER / 2
}

#[tokio::test]
async fn silent_server_times_out() {
    // Silent for a minute, then the rules.
    let server =
        TestServer::start(|_| Reply::Delayed(SERVER_ENDS_AFTER, Box::new(Reply::text(200, RULES))))
            .await;
    let f = fetcher_with(|fetch| {
        fetch.timeout = Duration::from_secs(1);
    });
    let started = Instant::now();
    let fetch = fetch_with(&f, &server).await;
    let took = started.elapsed();
    assert_outcome!(fetch, FetchOutcome::Unreachable(Unreachable::Timeout));
    assert_eq!(fetch.status, None);
    // Not before the timeout (a timer never fires early), and from the timeout, not the server.
    assert!(took >= Duration::from_millis(900), "{took:?}");
    assert!(well_before_the_server_ends(took), "{took:?}");
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn trickling_server_times_out() {
    // The head at once, then a byte every 200 ms: the body would take a minute.
    let every = Duration::from_millis(200);
    let body: Vec<u8> = RULES
        .bytes()
        .cycle()
        .take((SERVER_ENDS_AFTER.as_millis() / every.as_millis()) as usize)
        .collect();
    let server = TestServer::start(move |_| Reply::Trickle {
        body: body.clone(),
        every,
    })
    .await;
    let f = fetcher_with(|fetch| {
        fetch.timeout = Duration::from_secs(1);
    });
    let started = Instant::now();
    let fetch = fetch_with(&f, &server).await;
    let took = started.elapsed();
    assert_outcome!(fetch, FetchOutcome::Unreachable(Unreachable::Timeout));
    // The head arrived; the body did not finish in time.
    assert_eq!(fetch.status, Some(200));
    assert!(took >= Duration::from_millis(900), "{took:?}");
    assert!(well_before_the_server_ends(took), "{took:?}");
}

#[tokio::test]
async fn timeout_covers_all_redirect_hops() {
    // Each hop answers in 500 ms: the 2 s timeout is reached on the way (5 redirects and the
    // file take 3 s), though no hop comes near it (a timeout per hop would read the file). The
    // first hop has 1.5 s of room, so that a loaded machine still sees a redirect followed.
    let server = TestServer::start(|req| {
        let inner = redirect_chain(5)(req);
        Reply::Delayed(Duration::from_millis(500), Box::new(inner))
    })
    .await;
    let f = fetcher_with(|fetch| {
        fetch.timeout = Duration::from_secs(2);
    });
    let fetch = fetch_with(&f, &server).await;
    assert_outcome!(fetch, FetchOutcome::Unreachable(Unreachable::Timeout));
    assert!(fetch.redirects >= 1 && fetch.redirects < 5, "{fetch:?}");
}

#[tokio::test]
async fn reset_half_way_is_body() {
    let server = TestServer::start(|_| Reply::ResetAfter {
        length: 1000,
        body: RULES.as_bytes().to_vec(),
    })
    .await;
    let fetch = fetch_from(&server).await;
    assert_outcome!(fetch, FetchOutcome::Unreachable(Unreachable::Body(_)));
    assert_eq!(fetch.status, Some(200));
    assert_eq!(fetch.size(), 0);
}

#[tokio::test]
async fn content_length_not_reached_is_body() {
    let (_server, fetch) = served(|_| {
        let mut raw = b"HTTP/1.1 200 OK\r\ncontent-length: 500\r\n\r\n".to_vec();
        raw.extend_from_slice(RULES.as_bytes());
        Reply::Raw(raw)
    })
    .await;
    assert_outcome!(fetch, FetchOutcome::Unreachable(Unreachable::Body(_)));
}

#[tokio::test]
async fn broken_chunking_is_body() {
    let (_server, fetch) = served(|_| {
        Reply::Raw(
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n\
              e\r\nUser-agent: *\n\r\nzz-not-a-size\r\nDisallow: /\r\n0\r\n\r\n"
                .to_vec(),
        )
    })
    .await;
    assert_outcome!(fetch, FetchOutcome::Unreachable(Unreachable::Body(_)));
    assert_eq!(fetch.status, Some(200));
}

#[tokio::test]
async fn chunked_body_is_read() {
    let (_server, fetch) = served(|_| {
        Reply::Raw(
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n\
              e\r\nUser-agent: *\n\r\nc\r\nDisallow: /\n\r\n0\r\n\r\n"
                .to_vec(),
        )
    })
    .await;
    assert_eq!(rules(&fetch).0, b"User-agent: *\nDisallow: /\n");
    assert!(!allowed(&fetch, "/x"));
}

/// A 700 KiB file: `Disallow: /early` at the top, a `Disallow: /straddle` line that the
/// 512,000-byte limit cuts, `Disallow: /late` after the limit.
fn big_file() -> Vec<u8> {
    let mut body = b"User-agent: *\nDisallow: /early\n".to_vec();
    let pad = format!("#{}\n", "x".repeat(98));
    while body.len() + pad.len() <= 511_990 {
        body.extend_from_slice(pad.as_bytes());
    }
    let rest = 511_990 - body.len();
    if rest >= 2 {
        body.push(b'#');
        body.extend(std::iter::repeat_n(b'y', rest - 2));
    }
    if rest >= 1 {
        body.push(b'\n');
    }
    assert_eq!(body.len(), 511_990);
    body.extend_from_slice(b"Disallow: /straddle\n");
    while body.len() < 700 * 1024 - 100 {
        body.extend_from_slice(pad.as_bytes());
    }
    body.extend_from_slice(b"Disallow: /late\n");
    body
}

#[tokio::test]
async fn large_body_is_capped_one_byte_past_the_limit() {
    let file = big_file();
    assert!(file.len() > 690 * 1024);
    let (_server, fetch) = served(move |_| Reply::Full {
        status: 200,
        headers: vec![],
        body: file.clone(),
    })
    .await;
    let (body, parsed) = rules(&fetch);
    assert_eq!(body.len(), DEFAULT_MAX_BYTES + 1);
    assert_eq!(fetch.size(), DEFAULT_MAX_BYTES + 1);
    assert_eq!(parsed.robots.bytes_used(), 512_000);
    assert!(
        has_code(parsed, Code::ContentAfterLimit),
        "{:?}",
        parsed.diagnostics
    );
    assert!(!allowed(&fetch, "/early"));
    // The line the limit cuts is dropped, the one after it never read.
    assert!(allowed(&fetch, "/straddle"));
    assert!(allowed(&fetch, "/late"));
}

#[tokio::test]
async fn gzip_body_is_decompressed_and_counted_decompressed() {
    // Rules plus 100 KB of comment: compresses to a few KB.
    let mut plain = RULES.as_bytes().to_vec();
    plain.extend(std::iter::repeat_n(b"# comment line\n", 7000).flatten());
    let compressed = gzip(&plain);
    assert!(compressed.len() < plain.len() / 10);
    let (server, fetch) = served(move |_| Reply::Full {
        status: 200,
        headers: vec![("content-encoding".into(), "gzip".into())],
        body: compressed.clone(),
    })
    .await;
    assert_eq!(fetch.size(), plain.len());
    assert_eq!(rules(&fetch).0, &plain[..]);
    assert!(!allowed(&fetch, "/private/x"));
    assert!(allowed(&fetch, "/private/ok"));
    let accept = server.requests()[0]
        .header("accept-encoding")
        .map(str::to_owned)
        .unwrap_or_default();
    assert_has(&accept, "gzip");
}

#[tokio::test]
async fn deflate_body_is_decompressed() {
    let mut enc = ZlibEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(RULES.as_bytes()).expect("zlib");
    let compressed = enc.finish().expect("zlib");
    let (_server, fetch) = served(move |_| Reply::Full {
        status: 200,
        headers: vec![("content-encoding".into(), "deflate".into())],
        body: compressed.clone(),
    })
    .await;
    assert_eq!(rules(&fetch).0, RULES.as_bytes());
}

#[tokio::test]
async fn gzip_bomb_is_capped() {
    // 50 MB of zeros in about 50 KB.
    let zeros = vec![0u8; 1 << 20];
    let bomb = Arc::new(gzip_parts(
        Compression::fast(),
        std::iter::repeat_n(&zeros[..], 50),
    ));
    assert!(bomb.len() < 512 * 1024, "{}", bomb.len());
    let shared = bomb.clone();
    let (_server, fetch) = served(move |_| Reply::Full {
        status: 200,
        headers: vec![("content-encoding".into(), "gzip".into())],
        body: shared.to_vec(),
    })
    .await;
    let (body, parsed) = rules(&fetch);
    assert_eq!(body.len(), DEFAULT_MAX_BYTES + 1);
    assert!(body.iter().all(|&b| b == 0));
    assert!(has_code(parsed, Code::ContentAfterLimit));
}

#[tokio::test]
async fn bad_gzip_is_body() {
    let (_server, fetch) = served(|_| Reply::Full {
        status: 200,
        headers: vec![("content-encoding".into(), "gzip".into())],
        body: b"this is not gzip at all, just text pretending".to_vec(),
    })
    .await;
    assert_outcome!(fetch, FetchOutcome::Unreachable(Unreachable::Body(_)));
}

#[tokio::test]
async fn html_body_is_parsed_with_a_diagnostic() {
    let html =
        "<!DOCTYPE html>\n<html><head><title>Home</title></head>\n<body>Welcome</body></html>\n";
    let server =
        TestServer::start(move |_| Reply::text(200, html).with_header("content-type", "text/html"))
            .await;
    let fetch = fetch_from(&server).await;
    let (_, parsed) = rules(&fetch);
    assert!(has_code(parsed, Code::HtmlBody), "{:?}", parsed.diagnostics);
    assert!(allowed(&fetch, "/anything"));
}

#[tokio::test]
async fn cross_host_redirect_keeps_the_original_url() {
    let other = TestServer::start_on("127.0.0.2", |_| Reply::text(200, RULES)).await;
    let target = other.url("/robots.txt");
    let first = TestServer::start(move |_| Reply::redirect(301, &target)).await;
    let fetch = fetch_from(&first).await;
    assert_eq!(fetch.url, first.url("/robots.txt"));
    assert_eq!(fetch.final_url, other.url("/robots.txt"));
    assert!(fetch.final_url.starts_with("http://127.0.0.2:"));
    assert_eq!(fetch.redirects, 1);
    assert!(!allowed(&fetch, "/private/x"));
    assert_eq!((first.hits(), other.hits()), (1, 1));
}

#[tokio::test]
async fn unusable_location_is_unavailable() {
    for (code, location) in [
        (301, None),
        (302, Some("ftp://example.com/robots.txt")),
        (307, Some("http://")),
        (308, Some("")),
    ] {
        let (server, fetch) = served(move |_| match location {
            Some(l) => Reply::redirect(code, l),
            None => Reply::status(code),
        })
        .await;
        assert!(
            matches!(fetch.outcome, FetchOutcome::Unavailable(Unavailable::Status(c)) if c == code),
            "{code} {location:?}: {fetch:?}"
        );
        assert_eq!(fetch.redirects, 0);
        assert_eq!(server.hits(), 1);
    }
    // 300 and 304 are not followed even with a Location.
    let (server, fetch) = served(|_| Reply::redirect(300, "/other")).await;
    assert_outcome!(fetch, FetchOutcome::Unavailable(Unavailable::Status(300)));
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn headers_sent_are_user_agent_and_nothing_private() {
    let (server, fetch) = served(|req| {
        if req.path == "/robots.txt" {
            Reply::redirect(302, "/next").with_header("set-cookie", "session=secret; Path=/")
        } else {
            Reply::text(200, RULES)
        }
    })
    .await;
    assert_eq!(fetch.redirects, 1);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for req in &requests {
        assert_eq!(req.header("user-agent"), Some(UA), "{req:?}");
        assert_eq!(req.header("cookie"), None, "{req:?}");
        assert_eq!(req.header("authorization"), None, "{req:?}");
        assert_eq!(req.header("referer"), None, "{req:?}");
    }
}

#[tokio::test]
async fn default_user_agent_names_the_crate() {
    let server = TestServer::start(|_| Reply::text(200, RULES)).await;
    let f = fetcher_with(|fetch| {
        fetch.user_agent = FetchOptions::default().user_agent;
    });
    fetch_with(&f, &server).await;
    let ua = server.requests()[0]
        .header("user-agent")
        .map(str::to_owned)
        .unwrap_or_default();
    assert_eq!(ua, format!("crawlgate/{}", env!("CARGO_PKG_VERSION")));
}

#[tokio::test]
async fn userinfo_is_never_sent() {
    let server = TestServer::start(|req| {
        if req.path == "/robots.txt" {
            Reply::redirect(301, "/placeholder")
        } else {
            Reply::text(200, RULES)
        }
    })
    .await;
    // Redirect to an absolute URL with credentials on the same server.
    let port = server.addr.port();
    let creds = TestServer::start(move |_| {
        Reply::redirect(
            301,
            &format!("http://alice:s3cret@127.0.0.1:{port}/final.txt#frag"),
        )
    })
    .await;
    let fetch = fetch_from(&creds).await;
    assert_outcome!(fetch, FetchOutcome::Rules { .. });
    assert_eq!(
        fetch.final_url,
        format!("http://127.0.0.1:{port}/final.txt")
    );
    let req = &server.requests()[0];
    assert_eq!(req.path, "/final.txt");
    assert_eq!(req.header("authorization"), None, "{req:?}");
    assert!(!format!("{req:?}").contains("s3cret"));
    assert!(!format!("{req:?}").contains("alice"));
}

#[tokio::test]
async fn max_age_is_captured_on_2xx() {
    let server = TestServer::start(|_| {
        Reply::text(200, RULES).with_header("cache-control", "public, no-cache, max-age=86400")
    })
    .await;
    let fetch = fetch_from(&server).await;
    assert_eq!(fetch.max_age, Some(Duration::from_secs(86_400)));
    assert_eq!(fetch.retry_after, None);

    let (_server, fetch) = served(|_| Reply::text(200, RULES)).await;
    assert_eq!(fetch.max_age, None);
}

#[tokio::test]
async fn public_only_refuses_loopback_before_connecting() {
    let server = TestServer::start(|_| Reply::text(200, RULES)).await;
    let f = fetcher_with(|fetch| {
        fetch.addresses = AddressPolicy::PublicOnly;
    });
    assert_eq!(f.options().addresses, AddressPolicy::PublicOnly);

    // An IP literal.
    let fetch = fetch_with(&f, &server).await;
    match &fetch.outcome {
        FetchOutcome::Unreachable(Unreachable::Connect(msg)) => {
            assert_has(msg, "refused by the address policy");
            assert_has(msg, "127.0.0.1");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fetch.status, None);

    // A name that resolves to loopback only (from the hosts file, no DNS traffic).
    let by_name =
        Origin::from_url(&format!("http://localhost:{}/", server.addr.port())).expect("origin");
    let fetch = f.fetch(&by_name).await.expect("no local failure");
    match &fetch.outcome {
        FetchOutcome::Unreachable(Unreachable::Connect(msg)) => {
            assert!(msg.contains("refused by the address policy"), "{msg}");
            // What an internal name resolves to stays in the log.
            assert!(!msg.contains("127.0.0.1") && !msg.contains("::1"), "{msg}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.hits(), 0);

    // The same server is reachable under the default policy.
    let fetch = fetch_from(&server).await;
    assert_outcome!(fetch, FetchOutcome::Rules { .. });
    assert_eq!(server.hits(), 1);
}

#[tokio::test]
async fn tls_failure_is_tls() {
    // A plain-text server on an https URL: the handshake gets an HTTP answer.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let task = tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut buf = [0u8; 512];
            let _ = stream.read(&mut buf).await;
            let _ = stream
                .write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
                .await;
            let _ = stream.shutdown().await;
        }
    });
    let origin = Origin::from_url(&format!("https://{addr}/")).expect("origin");
    let fetch = fetcher().fetch(&origin).await.expect("no local failure");
    task.abort();
    assert_outcome!(fetch, FetchOutcome::Unreachable(Unreachable::Tls(_)));
    assert_eq!(fetch.url, format!("https://{addr}/robots.txt"));
}

#[tokio::test]
async fn invalid_user_agent_is_a_client_error() {
    let err = Fetcher::new({
        let mut fetch = FetchOptions::default();
        fetch.user_agent = "bad\nagent".into();
        fetch
    })
    .expect_err("a newline is not a header value");
    let FetchError::Client(source) = &err else {
        panic!("not a client error: {err:?}");
    };
    assert!(source.is_builder(), "{source:?}");
    assert_eq!(err.to_string(), "cannot build the HTTP client");
    // The cause is kept as the source, for reporters that walk the chain.
    assert!(std::error::Error::source(&err).is_some());
}

#[tokio::test]
async fn fetcher_is_shared_across_tasks() {
    let server = TestServer::start(|_| Reply::text(200, RULES)).await;
    let f = fetcher();
    let o = origin(&server);
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let (f, o) = (f.clone(), o.clone());
            tokio::spawn(async move { f.fetch(&o).await.expect("no local failure") })
        })
        .collect();
    for t in tasks {
        let fetch = t.await.expect("task");
        assert!(!allowed(&fetch, "/private/x"));
    }
    assert_eq!(server.hits(), 4);
}

/// Records the events of target `crawlgate::fetch`, with the thread that emitted them.
///
/// Installed as the global subscriber: a thread-local one (`set_default`) races with the
/// other tests registering the same callsites and can miss events.
#[derive(Clone, Default)]
struct Recorder(Arc<std::sync::Mutex<Vec<(std::thread::ThreadId, tracing::Level, String)>>>);

fn recorder() -> &'static Recorder {
    static RECORDER: std::sync::OnceLock<Recorder> = std::sync::OnceLock::new();
    RECORDER.get_or_init(|| {
        let recorder = Recorder::default();
        tracing::subscriber::set_global_default(recorder.clone()).expect("no other subscriber");
        recorder
    })
}

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!("{}={:?} ", field.name(), value));
    }
}

impl tracing::Subscriber for Recorder {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        if event.metadata().target() == "crawlgate::fetch" {
            let mut fields = Fields(String::new());
            event.record(&mut fields);
            if let Ok(mut events) = self.0.lock() {
                let thread = std::thread::current().id();
                events.push((thread, *event.metadata().level(), fields.0));
            }
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test]
async fn tracing_one_debug_event_per_hop_and_one_info_per_fetch() {
    let recorder = recorder();
    let server = TestServer::start(redirect_chain(1)).await;
    // The current-thread runtime polls the fetch on this thread.
    let fetch = fetch_from(&server).await;
    assert_eq!(fetch.redirects, 1);
    let me = std::thread::current().id();
    let events: Vec<_> = recorder
        .0
        .lock()
        .expect("events")
        .iter()
        .filter(|(thread, _, _)| *thread == me)
        .map(|(_, level, fields)| (*level, fields.clone()))
        .collect();
    let debug: Vec<_> = events
        .iter()
        .filter(|(l, _)| *l == tracing::Level::DEBUG)
        .collect();
    let info: Vec<_> = events
        .iter()
        .filter(|(l, _)| *l == tracing::Level::INFO)
        .collect();
    assert_eq!(debug.len(), 2, "{events:?}");
    assert!(debug[0].1.contains("status=301"), "{events:?}");
    assert!(debug[1].1.contains("status=200"), "{events:?}");
    assert_eq!(info.len(), 1, "{events:?}");
    let line = &info[0].1;
    for field in [
        "url=",
        "status=200",
        "outcome=rules",
        &format!("size={}", RULES.len()),
        "redirects=1",
        "elapsed_ms=",
    ] {
        assert!(line.contains(field), "{field} in {line}");
    }
}

/// A server answering every request with `body` in `content-encoding: coding`.
async fn encoded(coding: &'static str, body: Vec<u8>) -> TestServer {
    TestServer::start(move |_| Reply::Full {
        status: 200,
        headers: vec![("content-encoding".into(), coding.into())],
        body: body.clone(),
    })
    .await
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut enc = ZlibEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(data).expect("zlib");
    enc.finish().expect("zlib")
}

fn raw_deflate(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(data).expect("deflate");
    enc.finish().expect("deflate")
}

#[tokio::test]
async fn only_gzip_and_deflate_are_asked_for() {
    let server = TestServer::start(|_| Reply::text(200, RULES)).await;
    fetch_from(&server).await;
    assert_eq!(
        server.requests()[0].header("accept-encoding"),
        Some("gzip, deflate")
    );
}

#[tokio::test]
async fn stacked_multi_member_and_raw_codings_are_decoded() {
    let (head, tail) = RULES.as_bytes().split_at(10);
    let cases: Vec<(&'static str, Vec<u8>)> = vec![
        ("gzip, gzip", gzip(&gzip(RULES.as_bytes()))),
        ("deflate, gzip", gzip(&zlib(RULES.as_bytes()))),
        ("GZIP", gzip(RULES.as_bytes())),
        ("x-gzip", gzip(RULES.as_bytes())),
        ("identity", RULES.as_bytes().to_vec()),
        ("gzip, identity", gzip(RULES.as_bytes())),
        // Several gzip members are one valid gzip body.
        ("gzip", [gzip(head), gzip(tail)].concat()),
        // Raw deflate, as some servers send for `deflate`.
        ("deflate", raw_deflate(RULES.as_bytes())),
    ];
    for (coding, body) in cases {
        let server = encoded(coding, body).await;
        let fetch = fetch_from(&server).await;
        assert_eq!(rules(&fetch).0, RULES.as_bytes(), "{coding}");
        assert!(!allowed(&fetch, "/private/x"), "{coding}");
    }
}

#[tokio::test]
async fn codings_it_cannot_decode_are_unreachable_never_raw_bytes() {
    // Each body, read raw, would be parsed as no rules at all: allow-all.
    let disallow_all = b"User-agent: *\nDisallow: /\n";
    let cases: Vec<(&'static str, Vec<u8>)> = vec![
        ("br", disallow_all.to_vec()),
        ("compress", disallow_all.to_vec()),
        ("zstd", disallow_all.to_vec()),
        ("gzip, br", gzip(disallow_all)),
        (
            "gzip, gzip, gzip, gzip",
            gzip(&gzip(&gzip(&gzip(disallow_all)))),
        ),
        ("x-unknown", disallow_all.to_vec()),
    ];
    for (coding, body) in cases {
        let server = encoded(coding, body).await;
        let fetch = fetch_from(&server).await;
        match &fetch.outcome {
            FetchOutcome::Unreachable(Unreachable::Encoding(why)) => {
                assert!(
                    why.contains("content encoding") || why.contains("codings"),
                    "{why}"
                )
            }
            other => panic!("{coding}: {other:?}"),
        }
        assert_eq!(fetch.status, Some(200), "{coding}");
    }
    // A coding it knows with a body that is not in it: broken, not raw.
    let server = encoded("gzip, gzip", gzip(disallow_all)).await;
    let fetch = fetch_from(&server).await;
    assert_outcome!(fetch, FetchOutcome::Unreachable(Unreachable::Body(_)));
}

/// A raw response with `Location: <location>` (bytes as given) and `Content-Length: 0`.
fn raw_redirect(location: &[u8]) -> Vec<u8> {
    let mut out = b"HTTP/1.1 301 Moved\r\ncontent-length: 0\r\nlocation: ".to_vec();
    out.extend_from_slice(location);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

#[tokio::test]
async fn a_redirect_that_cannot_be_followed_is_unavailable_however_it_breaks() {
    let long_path = format!("/{}", "a".repeat(64 * 1024));
    let just_too_long = format!("/{}", "b".repeat(8_000));
    let cases: Vec<(&str, Option<Vec<u8>>)> = vec![
        ("no Location", None),
        ("empty", Some(b"".to_vec())),
        ("spaces", Some(b"   ".to_vec())),
        ("javascript:", Some(b"javascript:alert(1)".to_vec())),
        ("ftp:", Some(b"ftp://example.com/robots.txt".to_vec())),
        ("no host", Some(b"http://".to_vec())),
        ("bad host", Some(b"http://exa mple.com/robots.txt".to_vec())),
        ("bad IPv6 host", Some(b"http://[::1/robots.txt".to_vec())),
        ("control byte", Some(b"/robots\x01.txt".to_vec())),
        ("64 KiB path", Some(long_path.into_bytes())),
        ("8,001 bytes", Some(just_too_long.into_bytes())),
        ("not UTF-8", Some(b"/r\xffobots.txt".to_vec())),
    ];
    for (what, location) in cases {
        let head = match &location {
            Some(l) => raw_redirect(l),
            None => b"HTTP/1.1 301 Moved\r\ncontent-length: 0\r\n\r\n".to_vec(),
        };
        let (server, fetch) = served(move |_| Reply::Raw(head.clone())).await;
        assert!(
            matches!(
                fetch.outcome,
                FetchOutcome::Unavailable(Unavailable::Status(301))
            ),
            "{what}: {:?}",
            fetch.outcome
        );
        assert_eq!(fetch.redirects, 0, "{what}");
        assert_eq!(server.hits(), 1, "{what}");
    }
    // A NUL byte anywhere in the head makes it no HTTP response at all (browsers refuse it
    // too): unreachable, with no status, whatever the status line said.
    let (_server, fetch) = served(|_| Reply::Raw(raw_redirect(b"/robots\x00.txt"))).await;
    assert!(
        matches!(fetch.outcome, FetchOutcome::Unreachable(_)),
        "{:?}",
        fetch.outcome
    );
    assert_eq!(fetch.status, None);
    // 8,000 bytes is still followed.
    let path = format!("/{}", "c".repeat(7_999 - "http://127.0.0.1:00000".len()));
    let (_server, fetch) = served(move |req| {
        if req.path == "/robots.txt" {
            Reply::redirect(301, &path)
        } else {
            Reply::text(200, RULES)
        }
    })
    .await;
    assert_eq!(fetch.redirects, 1, "{:?}", fetch.outcome);
    assert_outcome!(fetch, FetchOutcome::Rules { .. });
}

/// A 200 with `n` extra header lines, then the rules.
fn with_headers(n: usize) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n", RULES.len()).into_bytes();
    for i in 0..n {
        out.extend_from_slice(format!("x-h{i}: {i}\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(RULES.as_bytes());
    out
}

#[tokio::test]
async fn many_response_headers_are_read_and_too_many_is_always_unreachable() {
    use crawlgate::http::MAX_RESPONSE_HEADERS;
    // 150 is over hyper's default of 100; the limit counts the Content-Length line too.
    for n in [150, MAX_RESPONSE_HEADERS - 1] {
        let response = with_headers(n);
        let (_server, fetch) = served(move |_| Reply::Raw(response.clone())).await;
        assert!(!allowed(&fetch, "/private/x"), "{n} headers");
    }
    let response = with_headers(MAX_RESPONSE_HEADERS);
    let server = TestServer::start(move |_| Reply::Raw(response.clone())).await;
    for _ in 0..3 {
        let fetch = fetch_from(&server).await;
        assert!(
            matches!(fetch.outcome, FetchOutcome::Unreachable(_)),
            "{:?}",
            fetch.outcome
        );
        assert_eq!(fetch.status, None);
    }
}

#[tokio::test]
async fn a_malformed_header_line_is_dropped_not_the_response() {
    let response = format!(
        "HTTP/1.1 200 OK\r\nx-bad: a\x01b\r\ncontent-length: {}\r\n\r\n{RULES}",
        RULES.len()
    );
    let server = TestServer::start(move |_| Reply::Raw(response.clone().into_bytes())).await;
    let fetch = fetch_from(&server).await;
    assert!(!allowed(&fetch, "/private/x"), "{:?}", fetch.outcome);
}

#[tokio::test]
async fn public_only_refuses_ipv4_translated_and_isatap_literals() {
    let server = TestServer::start(|_| Reply::text(200, RULES)).await;
    let f = fetcher_with(|fetch| {
        fetch.addresses = AddressPolicy::PublicOnly;
    });
    let port = server.addr.port();
    for host in [
        "[::ffff:0:7f00:1]",
        "[::ffff:0:a00:1]",
        "[::ffff:7f00:1]",
        "[2001:4860:1:2:0:5efe:7f00:1]",
        "[64:ff9b::7f00:1]",
        "[2002:7f00:1::1]",
    ] {
        let origin = Origin::from_url(&format!("http://{host}:{port}/")).expect("origin");
        let fetch = f.fetch(&origin).await.expect("no local failure");
        match &fetch.outcome {
            FetchOutcome::Unreachable(Unreachable::Connect(msg)) => {
                assert!(
                    msg.contains("refused by the address policy"),
                    "{host}: {msg}"
                )
            }
            other => panic!("{host}: {other:?}"),
        }
    }
    assert_eq!(server.hits(), 0);
}

#[tokio::test]
async fn the_declared_size_of_a_cut_file_is_kept() {
    let file = big_file();
    let len = file.len() as u64;
    let plain = file.clone();
    let server = TestServer::start(move |_| Reply::Full {
        status: 200,
        headers: vec![],
        body: plain.clone(),
    })
    .await;
    let fetch = fetch_from(&server).await;
    assert_eq!(fetch.size(), DEFAULT_MAX_BYTES + 1);
    assert_eq!(fetch.declared_size, Some(len));
    // Compressed, the server's Content-Length is not the file's size: none is kept.
    let server = encoded("gzip", gzip(&file)).await;
    let fetch = fetch_from(&server).await;
    assert_eq!(fetch.size(), DEFAULT_MAX_BYTES + 1);
    assert_eq!(fetch.declared_size, None);
}

#[tokio::test]
async fn a_compact_gzip_gzip_bomb_is_cut_at_the_cap() {
    // 64 MiB of zeros, gzip over gzip at the best level: a few hundred bytes that arrive in
    // one piece, so the cap is crossed only when the stream ends.
    let zeros = vec![0u8; 64 << 20];
    let bomb = gzip_at(Compression::best(), &gzip_at(Compression::best(), &zeros));
    assert!(bomb.len() < 4096, "{}", bomb.len());
    let server = encoded("gzip, gzip", bomb).await;
    let fetch = fetch_from(&server).await;
    let (body, parsed) = rules(&fetch);
    assert_eq!(body.len(), DEFAULT_MAX_BYTES + 1);
    assert!(has_code(parsed, Code::ContentAfterLimit));
}

/// Tarpits do not hold every turn: with 4 requests in flight at most and 4 robots.txt that
/// never answer holding all of them, 4 fast origins asked after them are answered while 3
/// tarpit requests (three quarters of the turns) still run; the tarpit beyond that share is
/// given up as this side's failure ([`LocalError::Busy`]), not the site's. With one queue for
/// all, the fast ones would wait for a whole tarpit timeout.
///
/// Nothing here races the clock except a fast fetch on loopback, which has `slow_after` (3 s)
/// to finish: the fast ones can only start once a tarpit is given up, and the tarpits still
/// running are the ones cancelled at the end, not counted while the fast ones finish.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tarpits_do_not_hold_fast_origins_behind_them() {
    let tarpit = TestServer::start(|_| {
        Reply::Delayed(Duration::from_secs(600), Box::new(Reply::text(200, RULES)))
    })
    .await;
    let fast = TestServer::start(|_| Reply::text(200, RULES)).await;
    let fetcher = fetcher_with(|o| {
        o.max_in_flight = 4;
        o.slow_after = Duration::from_secs(3);
        // Far beyond the test's few seconds: a tarpit still running at the end was not
        // given up by the timeout either.
        o.timeout = Duration::from_secs(120);
    });
    let mut tarpits = tokio::task::JoinSet::new();
    for _ in 0..4 {
        let (fetcher, origin) = (fetcher.clone(), origin(&tarpit));
        tarpits.spawn(async move { fetcher.fetch(&origin).await });
    }
    // The four hold every turn before the fast ones queue.
    for _ in 0..6000 {
        if tarpit.hits() >= 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(tarpit.hits(), 4);
    let mut fasts = tokio::task::JoinSet::new();
    for _ in 0..4 {
        let (fetcher, origin) = (fetcher.clone(), origin(&fast));
        fasts.spawn(async move { fetcher.fetch(&origin).await });
    }
    while let Some(fetch) = fasts.join_next().await {
        let fetch = fetch.expect("task").expect("no local failure");
        assert!(
            matches!(fetch.outcome, FetchOutcome::Rules { .. }),
            "{fetch:?}"
        );
    }
    assert_eq!(fast.hits(), 4);
    // Those still running when the fast ones were answered are cancelled here.
    tarpits.abort_all();
    let (mut given_up, mut still_running) = (0, 0);
    while let Some(fetch) = tarpits.join_next().await {
        match fetch {
            Ok(Err(LocalError::Busy(_))) => given_up += 1,
            Err(e) if e.is_cancelled() => still_running += 1,
            other => panic!("a tarpit given up is this side's failure: {other:?}"),
        }
    }
    assert_eq!(
        (given_up, still_running),
        (1, 3),
        "three quarters of the turns stayed with the tarpits; the one beyond was given up"
    );
}

/// `fetch_page`: the final response's page-directive fields (only those, repeated ones kept in
/// order), its status, and its body cut at the cap; a 404's headers with no body.
#[tokio::test]
async fn fetch_page_keeps_directive_fields_and_caps_the_body() {
    let server = TestServer::start(|req: &Request| match req.path.as_str() {
        "/old" => Reply::Full {
            status: 301,
            headers: vec![
                ("location".into(), "/page".into()),
                ("x-robots-tag".into(), "noarchive".into()),
            ],
            body: Vec::new(),
        },
        "/page" => Reply::Full {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/html".into()),
                ("x-robots-tag".into(), "noindex".into()),
                ("X-Robots-Tag".into(), "examplebot: nofollow".into()),
                ("tdm-reservation".into(), "1".into()),
                ("server".into(), "test".into()),
            ],
            body: vec![b'x'; 10_000],
        },
        _ => Reply::Full {
            status: 404,
            headers: vec![("x-robots-tag".into(), "none".into())],
            body: b"<html>not found</html>".to_vec(),
        },
    })
    .await;
    let page = fetcher()
        .fetch_page(&server.url("/old"), 1000)
        .await
        .expect("fetched");
    assert_eq!(page.status, 200);
    assert_eq!(page.redirects, 1);
    assert_eq!(page.final_url, server.url("/page"));
    assert!(page.is_html());
    let names: Vec<(&str, &[u8])> = page
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_slice()))
        .collect();
    assert_eq!(
        names,
        [
            ("x-robots-tag", &b"noindex"[..]),
            ("x-robots-tag", &b"examplebot: nofollow"[..]),
            ("tdm-reservation", &b"1"[..]),
        ],
        "the redirect's own fields are not the page's"
    );
    assert_eq!(page.body.len(), 1000);
    let missing = fetcher()
        .fetch_page(&server.url("/gone"), 1000)
        .await
        .expect("fetched");
    assert_eq!(missing.status, 404);
    assert!(missing.body.is_empty());
    assert_eq!(missing.headers.len(), 1);
}
