//! `crawlgate serve` against hostile traffic, sent to loopback only and bounded in count and
//! time: slow bodies, idle and half-sent connections, cross-site pages, rebinding `Host`s.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::serve::{parse, request, robots_server, Serve};

/// A connection to the service with `head` (and what follows it) sent.
fn send(addr: &str, head: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).expect("connect to crawlgate serve");
    stream.write_all(head.as_bytes()).expect("write");
    stream
}

/// Everything the service sends until it closes, or until `bound`; and whether it closed.
fn read_until_closed(stream: &mut TcpStream, bound: Duration) -> (Vec<u8>, bool) {
    let start = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = bound.saturating_sub(start.elapsed());
        if left.is_zero() {
            return (got, false);
        }
        stream.set_read_timeout(Some(left)).expect("timeout");
        match stream.read(&mut buf) {
            Ok(0) => return (got, true),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return (got, false)
            }
            // Reset: closed as well.
            Err(_) => return (got, true),
        }
    }
}

/// One request with `head` (a whole request but its final blank line), answered within
/// `bound`: the status, the body and the time it took.
fn ask(addr: &str, head: &str, bound: Duration) -> (u16, String, Duration) {
    let start = Instant::now();
    let mut stream = send(addr, &format!("{head}Connection: close\r\n\r\n"));
    let (raw, closed) = read_until_closed(&mut stream, bound);
    assert!(closed, "no answer within {bound:?} to {head:?}");
    let (status, body) = parse(&raw);
    (status, body, start.elapsed())
}

/// The JSON error's code.
#[track_caller]
fn code(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    v["error"]["code"]
        .as_str()
        .expect("an error code")
        .to_owned()
}

/// `GET /healthz` answers 200 within `bound` (measured).
#[track_caller]
fn healthy_within(addr: &str, bound: Duration) -> Duration {
    let (status, body, took) = ask(
        addr,
        &format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n"),
        bound,
    );
    assert_eq!(status, 200, "{body}");
    took
}

const SLOW_BODY_TIMEOUT: u64 = 8;

#[test]
fn slow_http1_bodies_hold_no_place_in_flight() {
    let rt = crate::support::runtime(1);
    let site = robots_server(&rt, None);
    // The default --max-in-flight (512): the slow clients outnumber it.
    let serve = Serve::start(&[
        "--no-state",
        "--allow-private",
        "--body-timeout",
        &SLOW_BODY_TIMEOUT.to_string(),
    ]);
    let addr = serve.addr.clone();
    const SLOW: usize = 600;
    let head = format!(
        "POST /v1/check HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{"
    );
    let mut slow: Vec<TcpStream> = (0..SLOW).map(|_| send(&addr, &head)).collect();
    // More slow requests past their heads (counted in flight) than --max-in-flight's 512
    // places, before health is asked.
    crate::serve::until("the slow requests in flight", || {
        serve.metric("crawlgate_http_requests_in_flight", None) > 512.0
    });
    let took = healthy_within(&addr, Duration::from_secs(5));
    eprintln!("/healthz under {SLOW} slow bodies: {took:?}");
    // A real check answers, at the latest once the slow bodies ran out of time.
    let body = json!({"agent": "bot", "urls": [site.url("/a")]}).to_string();
    let start = Instant::now();
    let (status, text) = request(&addr, "POST", "/v1/check", None, Some(body.as_bytes()));
    assert_eq!(status, 200, "{text}");
    assert!(
        start.elapsed() < Duration::from_secs(SLOW_BODY_TIMEOUT + 10),
        "{:?}",
        start.elapsed()
    );
    eprintln!("/v1/check under {SLOW} slow bodies: {:?}", start.elapsed());
    // Every slow client got a 408 (JSON) and its connection closed.
    for stream in &mut slow {
        let (raw, closed) = read_until_closed(stream, Duration::from_secs(20));
        assert!(closed, "a slow connection left open");
        let (status, text) = parse(&raw);
        assert_eq!((status, code(&text)), (408, "body-timeout".to_owned()));
    }
}

/// A request body: none at all, or one byte and then nothing, ever.
enum Slow {
    Empty,
    Fresh,
    Sent,
}

impl hyper::body::Body for Slow {
    type Data = hyper::body::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        match *self {
            Slow::Empty => std::task::Poll::Ready(None),
            Slow::Sent => std::task::Poll::Pending,
            Slow::Fresh => {
                *self = Slow::Sent;
                std::task::Poll::Ready(Some(Ok(hyper::body::Frame::data(
                    hyper::body::Bytes::from_static(b"{"),
                ))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Slow::Empty)
    }
}

#[test]
fn slow_http2_streams_hold_no_place_in_flight() {
    let rt = crate::support::runtime(2);
    let site = robots_server(&rt, None);
    // Fewer places than slow streams (64 at once on each connection).
    let serve = Serve::start(&[
        "--no-state",
        "--allow-private",
        "--max-in-flight",
        "100",
        "--body-timeout",
        &SLOW_BODY_TIMEOUT.to_string(),
    ]);
    let addr = serve.addr.clone();
    const CONNECTIONS: usize = 3;
    const STREAMS: usize = 200;
    let statuses = rt.spawn({
        let addr = addr.clone();
        async move {
            let mut streams = Vec::new();
            for _ in 0..CONNECTIONS {
                let tcp = tokio::net::TcpStream::connect(&addr)
                    .await
                    .expect("connect");
                let (sender, connection) = hyper::client::conn::http2::handshake(
                    hyper_util::rt::TokioExecutor::new(),
                    hyper_util::rt::TokioIo::new(tcp),
                )
                .await
                .expect("HTTP/2 handshake");
                tokio::spawn(connection);
                // One request first, so that the client knows the service's stream limit
                // (and queues its streams beyond it rather than have them refused).
                let mut first = sender.clone();
                first.ready().await.expect("ready");
                let warm = hyper::Request::get(format!("http://{addr}/healthz"))
                    .body(Slow::Empty)
                    .expect("request");
                let _ = first.send_request(warm).await.expect("healthz");
                for _ in 0..STREAMS {
                    let mut sender = sender.clone();
                    let request = hyper::Request::post(format!("http://{addr}/v1/check"))
                        .header("content-type", "application/json")
                        .header("content-length", "1000")
                        .body(Slow::Fresh)
                        .expect("request");
                    streams.push(tokio::spawn(async move {
                        sender.ready().await.expect("stream");
                        let response = sender.send_request(request).await.expect("response");
                        response.status().as_u16()
                    }));
                }
            }
            let mut statuses = Vec::new();
            for s in streams {
                statuses.push(s.await.expect("stream task"));
            }
            statuses
        }
    });
    crate::serve::until("slow streams in flight", || {
        serve.metric("crawlgate_http_requests_in_flight", None) > 100.0
    });
    let took = healthy_within(&addr, Duration::from_secs(5));
    eprintln!("/healthz under {CONNECTIONS} x {STREAMS} slow HTTP/2 streams: {took:?}");
    let body = json!({"agent": "bot", "urls": [site.url("/a")]}).to_string();
    let start = Instant::now();
    let (status, text) = request(&addr, "POST", "/v1/check", None, Some(body.as_bytes()));
    assert_eq!(status, 200, "{text}");
    assert!(start.elapsed() < Duration::from_secs(SLOW_BODY_TIMEOUT + 10));
    // Every stream ends in a 408, 64 at a time per connection.
    let statuses = rt
        .block_on(async { tokio::time::timeout(Duration::from_secs(60), statuses).await })
        .expect("the slow streams all answered")
        .expect("streams");
    assert_eq!(statuses.len(), CONNECTIONS * STREAMS);
    assert!(statuses.iter().all(|s| *s == 408), "{statuses:?}");
}

#[test]
fn an_http2_authority_of_another_host_is_refused() {
    let rt = crate::support::runtime(1);
    let serve = Serve::start(&["--no-state"]);
    let addr = serve.addr.clone();
    let statuses: Vec<u16> = rt.block_on(async move {
        let tcp = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connect");
        let (mut sender, connection) = hyper::client::conn::http2::handshake(
            hyper_util::rt::TokioExecutor::new(),
            hyper_util::rt::TokioIo::new(tcp),
        )
        .await
        .expect("HTTP/2 handshake");
        tokio::spawn(connection);
        let mut statuses = Vec::new();
        for authority in ["evil.example", &addr] {
            let request = hyper::Request::get(format!("http://{authority}/openapi.json"))
                .body(String::new())
                .expect("request");
            sender.ready().await.expect("ready");
            let response = sender.send_request(request).await.expect("response");
            statuses.push(response.status().as_u16());
        }
        statuses
    });
    assert_eq!(statuses, [403, 200]);
}

#[test]
fn a_declared_body_over_max_body_is_refused_at_once() {
    let serve = Serve::start(&["--no-state", "--max-body", "4096"]);
    let addr = &serve.addr;
    // Only the head: the answer cannot wait for the body.
    let (status, text, took) = ask(
        addr,
        &format!(
            "POST /v1/check HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n"
        ),
        Duration::from_secs(5),
    );
    assert_eq!((status, code(&text)), (413, "body-too-large".to_owned()));
    eprintln!("413 for Content-Length 99999999999: {took:?}");
}

#[test]
fn idle_and_half_sent_connections_are_closed() {
    let serve = Serve::start(&["--no-state", "--idle-timeout", "1", "--header-timeout", "1"]);
    let addr = serve.addr.clone();
    let bound = Duration::from_secs(10);
    // Nothing sent.
    let mut idle = send(&addr, "");
    // Half a head.
    let mut half = send(
        &addr,
        &format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nX-A: b"),
    );
    // A head sent a byte at a time, 0.3 s apart, past the header deadline.
    let mut trickle = send(&addr, "G");
    // A request answered, then nothing.
    let mut kept = send(
        &addr,
        &format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n\r\n"),
    );
    let start = Instant::now();
    for byte in b"ET /healthz HTTP/1.1\r\n".iter().take(8) {
        std::thread::sleep(Duration::from_millis(300));
        if trickle.write_all(&[*byte]).is_err() {
            break;
        }
    }
    for (name, stream) in [
        ("idle", &mut idle),
        ("half-sent", &mut half),
        ("trickled", &mut trickle),
    ] {
        let (raw, closed) = read_until_closed(stream, bound);
        assert!(closed, "{name}: left open");
        assert!(raw.is_empty(), "{name}: {}", String::from_utf8_lossy(&raw));
    }
    let (raw, closed) = read_until_closed(&mut kept, bound);
    assert!(closed, "keep-alive: left open");
    assert_eq!(parse(&raw).0, 200);
    // The answer said how long the connection would be kept.
    let head = String::from_utf8_lossy(&raw).to_ascii_lowercase();
    assert!(head.contains("\r\nkeep-alive: timeout=1\r\n"), "{head}");
    // Each within its second (and scheduling), not the test's bound.
    assert!(
        start.elapsed() < Duration::from_secs(6),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn idle_connections_beyond_the_limits_do_not_keep_health_from_answering() {
    // --max-connections 50: 200 idle connections, closed after 1 s, 50 at a time.
    let serve = Serve::start(&[
        "--no-state",
        "--idle-timeout",
        "1",
        "--max-connections",
        "50",
    ]);
    let idle: Vec<TcpStream> = (0..200).map(|_| send(&serve.addr, "")).collect();
    let took = healthy_within(&serve.addr, Duration::from_secs(20));
    eprintln!("/healthz behind 200 idle connections, 50 at once: {took:?}");
    drop(idle);

    // Under `ulimit -n 160`, without --max-connections: 300 idle connections.
    let limited = Serve::start_under("-n 160", &["--no-state", "--idle-timeout", "1"]);
    let addr = limited.addr.clone();
    let idle: Vec<TcpStream> = (0..300).map(|_| send(&addr, "")).collect();
    let took = healthy_within(&addr, Duration::from_secs(20));
    eprintln!("/healthz behind 300 idle connections under ulimit -n 160: {took:?}");
    drop(idle);
    drop(limited);
}

#[test]
fn connections_that_send_nothing_are_closed_after_the_header_timeout() {
    // Idle connections may stay a minute; one that has never sent a byte gets the header
    // deadline, from its accept.
    let serve = Serve::start(&[
        "--no-state",
        "--idle-timeout",
        "60",
        "--header-timeout",
        "1",
        "--max-connections",
        "8",
    ]);
    let mut silent: Vec<TcpStream> = (0..8).map(|_| send(&serve.addr, "")).collect();
    // Every place is held by a silent connection: health still answers, well before the
    // idle timeout.
    healthy_within(&serve.addr, Duration::from_secs(15));
    for stream in &mut silent {
        let (raw, closed) = read_until_closed(stream, Duration::from_secs(15));
        assert!(closed, "a silent connection left open");
        assert!(raw.is_empty(), "{}", String::from_utf8_lossy(&raw));
    }
}

#[test]
fn long_polls_wait_apart_from_the_places_answers_need() {
    let rt = crate::support::runtime(1);
    let paced = rt.block_on(crate::support::TestServer::start(|req| {
        if req.path == "/robots.txt" {
            crate::support::Reply::text(200, "User-agent: *\nCrawl-delay: 5\n")
        } else {
            crate::support::Reply::status(404)
        }
    }));
    let other = robots_server(&rt, None);
    let serve = Serve::start(&[
        "--no-state",
        "--allow-private",
        "--max-in-flight",
        "2",
        "--max-waiting",
        "2",
        "--max-wait",
        "20",
    ]);
    let acquire = |path: &str| json!({"agent": "bot", "url": paced.url(path), "wait": true});
    let v = serve.json("/v1/acquire", None, acquire("/a"), 200);
    assert_eq!(v["permit"], true, "{v}");
    // Two long-polls (slots 5 s and 10 s out), each started once the one before waits.
    let polls: Vec<_> = ["/b", "/c"]
        .into_iter()
        .map(|path| {
            let addr = serve.addr.clone();
            let body = acquire(path).to_string();
            let poll = std::thread::spawn(move || {
                request(&addr, "POST", "/v1/acquire", None, Some(body.as_bytes()))
            });
            std::thread::sleep(Duration::from_millis(500));
            poll
        })
        .collect();
    // Past --max-waiting: answered at once, not a permit, with when to come back.
    let v = serve.json("/v1/acquire", None, acquire("/d"), 200);
    assert_eq!(v["permit"], false, "{v}");
    assert!(v["wait_ms"].as_u64().is_some_and(|w| w > 5_000), "{v}");
    // The long-polls hold no place in flight: a check (both places free) and a record are
    // answered while they still wait.
    for _ in 0..3 {
        let v = serve.json(
            "/v1/check",
            None,
            json!({"agent": "bot", "urls": [other.url("/x")]}),
            200,
        );
        assert_eq!(v["results"][0]["allowed"], true, "{v}");
    }
    assert!(
        polls.iter().all(|p| !p.is_finished()),
        "answered only after a long-poll ended"
    );
    for poll in polls {
        let (code, text) = poll.join().expect("long-poll");
        assert_eq!(code, 200, "{text}");
        let v: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(v["permit"], true, "{v}");
    }
}

#[test]
fn web_pages_and_rebinding_hosts_are_refused_and_nothing_is_recorded() {
    let rt = crate::support::runtime(1);
    let site = robots_server(&rt, None);
    let serve = Serve::start(&[
        "--no-state",
        "--allow-private",
        "--allow-host",
        "crawlgate.internal",
    ]);
    let addr = serve.addr.clone();
    // The origin known, as a crawler would have it.
    serve.json(
        "/v1/check",
        None,
        json!({"agent": "bot", "urls": [site.url("/")]}),
        200,
    );
    let record = json!({"url": site.url("/a"), "status": 429, "retry_after": 120}).to_string();
    let cases: &[(&str, u16, &str)] = &[
        (
            "Content-Type: text/plain\r\n",
            415,
            "unsupported-media-type",
        ),
        ("", 415, "unsupported-media-type"),
        (
            "Content-Type: application/x-www-form-urlencoded\r\n",
            415,
            "unsupported-media-type",
        ),
        (
            "Content-Type: application/json\r\nOrigin: https://evil.example\r\n",
            403,
            "cross-origin",
        ),
        (
            "Content-Type: application/json\r\nOrigin: null\r\n",
            403,
            "cross-origin",
        ),
        (
            "Content-Type: application/json\r\nSec-Fetch-Site: cross-site\r\n",
            403,
            "cross-origin",
        ),
    ];
    for (headers, status, expected) in cases {
        let (got, text) = raw_post(&addr, &format!("Host: {addr}\r\n{headers}"), &record);
        assert_eq!(
            (got, code(&text)),
            (*status, (*expected).to_owned()),
            "{headers}"
        );
    }
    // DNS rebinding: a name that resolved to loopback for the page.
    for host in [
        "evil.example",
        "evil.example:8477",
        "127.0.0.1.evil.example",
    ] {
        let (got, text) = raw_post(
            &addr,
            &format!("Host: {host}\r\nContent-Type: application/json\r\n"),
            &record,
        );
        assert_eq!(
            (got, code(&text)),
            (403, "host-not-allowed".to_owned()),
            "{host}"
        );
    }
    // Nothing was recorded: the origin is not backed off.
    let a = serve.json(
        "/v1/acquire",
        None,
        json!({"agent": "bot", "url": site.url("/b")}),
        200,
    );
    assert_eq!(a["permit"], true, "{a}");

    // What is allowed: the service's own origin, a JSON type with parameters, a host of
    // --allow-host, `localhost`, and a health probe from anywhere.
    let harmless = json!({"agent": "bot", "urls": [site.url("/c")]}).to_string();
    for headers in [
        format!("Host: {addr}\r\nContent-Type: application/json; charset=utf-8\r\nOrigin: http://{addr}\r\nSec-Fetch-Site: same-origin\r\n"),
        "Host: crawlgate.internal\r\nContent-Type: Application/JSON\r\n".to_owned(),
        format!("Host: localhost:{}\r\nContent-Type: application/json\r\n", addr.rsplit(':').next().unwrap_or("")),
    ] {
        let (got, text) = raw_post_to(&addr, "/v1/check", &headers, &harmless);
        assert_eq!(got, 200, "{headers}: {text}");
    }
    let (status, text, _) = ask(
        &addr,
        "GET /healthz HTTP/1.1\r\nHost: evil.example\r\n",
        Duration::from_secs(5),
    );
    assert_eq!(status, 200, "{text}");
}

/// `POST /v1/record` with `headers` (each line ending in CRLF) and `body`.
fn raw_post(addr: &str, headers: &str, body: &str) -> (u16, String) {
    raw_post_to(addr, "/v1/record", headers, body)
}

fn raw_post_to(addr: &str, path: &str, headers: &str, body: &str) -> (u16, String) {
    let mut stream = send(
        addr,
        &format!(
            "POST {path} HTTP/1.1\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    );
    let (raw, closed) = read_until_closed(&mut stream, Duration::from_secs(10));
    assert!(closed, "no answer to {headers}");
    parse(&raw)
}

#[test]
fn oversized_heads_get_json_errors() {
    let serve = Serve::start(&["--no-state"]);
    let addr = &serve.addr;
    let bound = Duration::from_secs(5);
    let long = format!("/v1/robots?url=http://example.com/{}", "a".repeat(9000));
    let (status, text, _) = ask(
        addr,
        &format!("GET {long} HTTP/1.1\r\nHost: {addr}\r\n"),
        bound,
    );
    assert_eq!((status, code(&text)), (414, "uri-too-long".to_owned()));

    let many: String = (0..120).map(|i| format!("X-H{i}: v\r\n")).collect();
    let (status, text, _) = ask(
        addr,
        &format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n{many}"),
        bound,
    );
    assert_eq!((status, code(&text)), (431, "headers-too-large".to_owned()));

    let big = format!("X-Big: {}\r\n", "b".repeat(20 * 1024));
    let (status, text, _) = ask(
        addr,
        &format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\n{big}"),
        bound,
    );
    assert_eq!((status, code(&text)), (431, "headers-too-large".to_owned()));

    // Under the limits, the same routes answer.
    let (status, _, _) = ask(
        addr,
        &format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nX-Ok: v\r\n"),
        bound,
    );
    assert_eq!(status, 200);
    // What hyper answers itself, before any route: an unparseable request line is a bare 400.
    let (status, text, _) = ask(addr, "GARBAGE\r\n", bound);
    assert_eq!((status, text.as_str()), (400, ""));
}
