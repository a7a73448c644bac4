//! `crawlgate serve` as a real process, against real robots.txt servers on 127.0.0.1 (and a
//! real redis-server for the replicas): every route, the token, the limits, a private target,
//! SIGTERM under load, two replicas sharing one fetch per origin, and a replica killed.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::run::Dir;
use crate::support::process::lines;
use crate::support::{redis_server::RedisServer, Reply, TestServer};

pub(crate) const ROBOTS: &str = "User-agent: *\nDisallow: /private\n";

/// A running `crawlgate serve`; killed when dropped. (Shared with the other serve suites.)
pub(crate) struct Serve {
    pub(crate) child: Child,
    pub(crate) addr: String,
    pub(crate) stdout: Receiver<String>,
    _dir: Dir,
}

impl Serve {
    /// Starts `crawlgate serve --listen 127.0.0.1:0 ARGS…` and waits for its address.
    pub(crate) fn start(args: &[&str]) -> Serve {
        Serve::spawn(args, None)
    }

    /// [`Serve::start`] under `ulimit LIMIT` (`-n 160`: open files; `-f 1000`: file size in
    /// blocks), through `sh`.
    pub(crate) fn start_under(limit: &str, args: &[&str]) -> Serve {
        Serve::spawn(args, Some(limit))
    }

    fn spawn(args: &[&str], limit: Option<&str>) -> Serve {
        let dir = Dir::new();
        let mut all = vec!["serve", "--listen", "127.0.0.1:0"];
        all.extend_from_slice(args);
        let mut command = dir.command(&all);
        if let Some(limit) = limit {
            // The same program, arguments, directory and environment, with the limit set.
            let mut sh = std::process::Command::new("sh");
            sh.arg("-c")
                .arg(format!("ulimit {limit} && exec \"$@\""))
                .arg("sh")
                .arg(command.get_program())
                .args(command.get_args());
            if let Some(d) = command.get_current_dir() {
                sh.current_dir(d);
            }
            for (k, v) in command.get_envs() {
                match v {
                    Some(v) => sh.env(k, v),
                    None => sh.env_remove(k),
                };
            }
            command = sh;
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("crawlgate serve starts");
        let stdout = lines(child.stdout.take().expect("stdout"));
        let first = stdout
            .recv_timeout(Duration::from_secs(30))
            .expect("crawlgate serve says where it listens");
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_owned();
        Serve {
            child,
            addr,
            stdout,
            _dir: dir,
        }
    }

    pub(crate) fn get(&self, path: &str, token: Option<&str>) -> (u16, String) {
        request(&self.addr, "GET", path, token, None)
    }

    pub(crate) fn post(&self, path: &str, token: Option<&str>, body: &[u8]) -> (u16, String) {
        request(&self.addr, "POST", path, token, Some(body))
    }

    /// POST `body` as JSON, expecting `status`; the answer as JSON.
    #[track_caller]
    pub(crate) fn json(&self, path: &str, token: Option<&str>, body: Value, status: u16) -> Value {
        let (code, text) = self.post(path, token, body.to_string().as_bytes());
        assert_eq!(code, status, "{path}: {text}");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"))
    }

    /// A metric's value, from /metrics.
    pub(crate) fn metric(&self, name: &str, token: Option<&str>) -> f64 {
        let (code, text) = self.get("/metrics", token);
        assert_eq!(code, 200, "{text}");
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {text}"))
    }

    pub(crate) fn signal(&self, signal: &str) {
        let status = std::process::Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request on a connection of its own; the status and the body.
pub(crate) fn request(
    addr: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&[u8]>,
) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("connect to crawlgate serve");
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(t) = token {
        head.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    let body = body.unwrap_or_default();
    if method == "POST" {
        head.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("write head");
    // The server may answer (413) and close before reading a large body.
    if method == "POST" {
        let _ = stream.write_all(body);
    }
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    parse(&raw)
}

pub(crate) fn parse(raw: &[u8]) -> (u16, String) {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP response: {text:?}"));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    (status, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// A robots.txt server that counts its fetches; `delay` before each answer.
pub(crate) fn robots_server(rt: &tokio::runtime::Runtime, delay: Option<Duration>) -> TestServer {
    rt.block_on(TestServer::start(move |req| {
        let reply = if req.path == "/robots.txt" {
            Reply::text(200, ROBOTS)
        } else {
            Reply::status(404)
        };
        match delay {
            Some(d) => Reply::Delayed(d, Box::new(reply)),
            None => reply,
        }
    }))
}

/// Waits (polling, bounded) until `ready` holds.
#[track_caller]
pub(crate) fn until(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < Duration::from_secs(30), "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn every_route_answers_with_a_token() {
    let rt = crate::support::runtime(1);
    let site = robots_server(&rt, None);
    let dir = Dir::new();
    let tokens = dir.file("tokens", b"# the fleet\n\nsecret-one\nsecret-two\n");
    let serve = Serve::start(&["--no-state", "--allow-private", "--token-file", &tokens]);
    let t = Some("secret-two");

    // Without a token (or with a wrong one): 401 with a JSON error, on every guarded route.
    let body = json!({"agent": "bot", "urls": [site.url("/a")]});
    for token in [None, Some("secret"), Some("secret-one-x")] {
        let (code, text) = serve.post("/v1/check", token, body.to_string().as_bytes());
        assert_eq!(code, 401, "{text}");
        let v: Value = serde_json::from_str(&text).expect("JSON error");
        assert_eq!(v["error"]["code"], "unauthorized");
        assert!(!text.contains("secret"), "{text}");
    }
    assert_eq!(serve.get("/metrics", None).0, 401);
    assert_eq!(site.hits(), 0, "nothing fetched for a refused request");
    // Health needs no token.
    assert_eq!(serve.get("/healthz", None).0, 200);
    let (code, text) = serve.get("/readyz", None);
    assert_eq!((code, text.contains("ready")), (200, true), "{text}");

    // check: one record per URL, in order, as `check --json` writes them.
    let v = serve.json(
        "/v1/check",
        t,
        json!({"agent": "bot", "urls": [site.url("/a"), site.url("/private/x")], "mode": "rfc"}),
        200,
    );
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["type"], "check");
    assert_eq!(results[0]["allowed"], true);
    assert_eq!(results[1]["allowed"], false);
    assert_eq!(results[1]["line"], 2);
    assert_eq!(results[1]["rule"], "Disallow: /private");
    assert_eq!(results[1]["robots_txt"], site.url("/robots.txt"));
    assert_eq!(results[1]["verdict"], "rules");
    assert_eq!(site.hits_on("/robots.txt"), 1);

    // The same record as the CLI's: the same keys in the same order.
    let cli = dir.run(&[
        "check",
        "--no-state",
        "--json",
        "--agent",
        "bot",
        &site.url("/private/x"),
    ]);
    let first: Value = serde_json::from_str(
        crate::run::stdout(&cli)
            .lines()
            .next()
            .expect("a check record"),
    )
    .expect("JSON");
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .expect("object")
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&first), keys(&results[1]));
    assert_eq!(first, results[1]);

    // acquire: a permit now, then the time to come back (the default spacing is 1 s).
    let a = serve.json(
        "/v1/acquire",
        t,
        json!({"agent": "bot", "url": site.url("/a")}),
        200,
    );
    assert_eq!(
        (a["allowed"].clone(), a["permit"].clone()),
        (json!(true), json!(true)),
        "{a}"
    );
    assert_eq!(a["check"]["type"], "check");
    let b = serve.json(
        "/v1/acquire",
        t,
        json!({"agent": "bot", "url": site.url("/b")}),
        200,
    );
    assert_eq!(b["permit"], false, "{b}");
    assert!(
        b["wait_ms"].as_u64().is_some_and(|w| w > 0 && w <= 1000),
        "{b}"
    );
    assert!(
        b["not_before"].as_str().is_some_and(|s| s.ends_with('Z')),
        "{b}"
    );
    // A long-poll waits for its slot and gets the permit.
    let c = serve.json(
        "/v1/acquire",
        t,
        json!({"agent": "bot", "url": site.url("/c"), "wait": true}),
        200,
    );
    assert_eq!(
        (c["permit"].clone(), c["wait_ms"].clone()),
        (json!(true), json!(0)),
        "{c}"
    );
    // A disallowed URL gets no slot.
    let d = serve.json(
        "/v1/acquire",
        t,
        json!({"agent": "bot", "url": site.url("/private/d")}),
        200,
    );
    assert_eq!(
        (d["allowed"].clone(), d["permit"].clone()),
        (json!(false), json!(false))
    );
    assert_eq!(d["not_before"], Value::Null);

    // record: a 429 with Retry-After backs the origin off for that long.
    let r = serve.json(
        "/v1/record",
        t,
        json!({"url": site.url("/a"), "status": 429, "retry_after": 120}),
        200,
    );
    assert_eq!(r["recorded"], "backed-off");
    assert_eq!(r["backoff_ms"], 120_000);
    let e = serve.json(
        "/v1/acquire",
        t,
        json!({"agent": "bot", "url": site.url("/e")}),
        200,
    );
    assert!(e["wait_ms"].as_u64().is_some_and(|w| w > 100_000), "{e}");
    let r = serve.json(
        "/v1/record",
        t,
        json!({"url": site.url("/a"), "status": 200}),
        200,
    );
    assert_eq!(r["recorded"], "served");

    // robots: the report record.
    let (code, text) = serve.get(&format!("/v1/robots?url={}", site.url("/")), t);
    assert_eq!(code, 200, "{text}");
    let report: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(report["type"], "report");
    assert_eq!(report["robots_txt"], site.url("/robots.txt"));
    assert_eq!(report["status"], "fetched");
    // Nothing recorded for another origin: 404.
    let (code, text) = serve.get("/v1/robots?url=http://127.0.0.1:9/", t);
    assert_eq!(code, 404, "{text}");

    // recrawl: fetched again now, the fetch record.
    let f = serve.json("/v1/recrawl", t, json!({"url": site.url("/")}), 200);
    assert_eq!(f["type"], "fetch");
    assert_eq!(f["status"], 200);
    // (The second fetch was the CLI's, above.)
    assert_eq!(site.hits_on("/robots.txt"), 3);

    // metrics: Prometheus text with the requests counted by route and code.
    let (code, text) = serve.get("/metrics", t);
    assert_eq!(code, 200);
    assert!(
        text.contains("crawlgate_http_requests_total{route=\"/v1/check\",code=\"401\"} 3"),
        "{text}"
    );
    assert!(text.contains("crawlgate_http_requests_total{route=\"/v1/check\",code=\"200\"} 1"));
    assert!(text.contains("crawlgate_http_request_duration_seconds_bucket{route=\"/v1/acquire\""));
    assert_eq!(serve.metric("crawlgate_urls_checked_total", t), 2.0);
    assert_eq!(serve.metric("crawlgate_backoffs_total", t), 1.0);

    // Unknown route, wrong method: JSON errors.
    let (code, text) = serve.get("/v1/nothing", t);
    assert_eq!(code, 404, "{text}");
    assert!(text.contains("not-found"));
    let (code, text) = serve.get("/v1/check", t);
    assert_eq!(code, 405, "{text}");
}

#[test]
fn openapi_describes_exactly_the_routes() {
    let serve = Serve::start(&["--no-state"]);
    let (code, text) = serve.get("/openapi.json", None);
    assert_eq!(code, 200);
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().expect("paths");
    let mut described: Vec<(String, String)> = Vec::new();
    for (path, ops) in paths {
        for method in ops.as_object().expect("operations").keys() {
            described.push((method.to_ascii_uppercase(), path.clone()));
        }
    }
    described.sort();
    let mut routes: Vec<(String, String)> = [
        ("POST", "/v1/check"),
        ("POST", "/v1/acquire"),
        ("POST", "/v1/record"),
        ("GET", "/v1/robots"),
        ("POST", "/v1/recrawl"),
        ("GET", "/healthz"),
        ("GET", "/readyz"),
        ("GET", "/metrics"),
        ("GET", "/openapi.json"),
    ]
    .iter()
    .map(|(m, p)| (m.to_string(), p.to_string()))
    .collect();
    routes.sort();
    assert_eq!(described, routes);
    // Each described operation is routed (a 404 or 405 would be the router's), and the other
    // method on its path is not.
    for (method, path) in &described {
        let (code, text) = request(&serve.addr, method, path, None, Some(b"{}"));
        assert!(code != 404 && code != 405, "{method} {path}: {code} {text}");
        let other = if method == "GET" { "POST" } else { "GET" };
        let (code, _) = request(&serve.addr, other, path, None, Some(b"{}"));
        assert_eq!(code, 405, "{other} {path}");
        // Every 4xx/5xx a described operation answers is described.
        let responses = &doc["paths"][path][method.to_ascii_lowercase()]["responses"];
        let (code, _) = request(&serve.addr, method, path, None, Some(b"{}"));
        assert!(
            responses.get(code.to_string()).is_some(),
            "{method} {path} answers {code}, not described"
        );
    }
}

#[test]
fn bad_requests_are_4xx_naming_the_field() {
    let rt = crate::support::runtime(1);
    let site = robots_server(&rt, None);
    let serve = Serve::start(&["--no-state", "--max-body", "2000", "--max-urls", "3"]);

    let cases: &[(&[u8], u16, &str, Option<&str>)] = &[
        (b"{\"agent\": \"bot\", \"urls\": [\"http://example.com/\", 7]}", 400, "bad-field", Some("urls[1]")),
        (b"{\"urls\": [\"http://example.com/\"]}", 400, "bad-field", Some("agent")),
        (b"{\"agent\": 1, \"urls\": []}", 400, "bad-field", Some("agent")),
        (b"{\"agent\": \"bot\", \"urls\": [], \"extra\": 1}", 400, "bad-field", Some("extra")),
        (b"{\"agent\": \"bot\", \"urls\": [\"http://example.com/\"], \"mode\": \"google\"}", 400, "bad-field", Some("mode")),
        (b"{\"agent\": \"\", \"urls\": [\"http://example.com/\"]}", 400, "bad-field", Some("agent")),
        (b"{\"agent\": \"bot\", \"urls\"", 400, "bad-json", None),
        (b"\xff\xfe", 400, "bad-json", None),
        (b"{\"agent\": \"bot\", \"urls\": [\"http://a.example/\", \"http://b.example/\", \"http://c.example/\", \"http://d.example/\"]}", 413, "too-many-urls", Some("urls")),
    ];
    for (body, status, code, field) in cases {
        let (got, text) = serve.post("/v1/check", None, body);
        let shown = String::from_utf8_lossy(body);
        assert_eq!(got, *status, "{shown}: {text}");
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(v["error"]["code"], *code, "{shown}: {text}");
        if let Some(f) = field {
            assert_eq!(v["error"]["field"], *f, "{shown}: {text}");
        }
    }
    // The missing field is named in the message.
    let (_, text) = serve.post("/v1/check", None, b"{\"urls\": [\"http://example.com/\"]}");
    assert!(text.contains("agent"), "{text}");

    // A body over --max-body: 413, JSON.
    let big = json!({"agent": "bot", "urls": ["http://example.com/".repeat(200)]}).to_string();
    let (code, text) = serve.post("/v1/check", None, big.as_bytes());
    assert_eq!(code, 413, "{text}");
    assert!(text.contains("body-too-large"), "{text}");

    // record: a status that is not one.
    let (code, text) = serve.post(
        "/v1/record",
        None,
        json!({"url": "http://example.com/", "status": 42})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(code, 400, "{text}");
    assert!(text.contains("\"field\":\"status\""), "{text}");

    // A URL that cannot be checked is answered in place, the request is not refused.
    let v = serve.json(
        "/v1/check",
        None,
        json!({"agent": "bot", "urls": ["ftp://example.com/"]}),
        200,
    );
    assert_eq!(v["results"][0]["type"], "error", "{v}");
    assert_eq!(v["results"][0]["url"], "ftp://example.com/", "{v}");

    // A loopback, private or link-local target is refused without --allow-private (in its
    // place in /v1/check, with a 403 elsewhere), and nothing is fetched from it.
    for url in [
        site.url("/a"),
        "http://10.1.2.3/".to_owned(),
        "http://[::1]/".to_owned(),
        "http://169.254.169.254/latest/meta-data/".to_owned(),
        "http://localhost:1/".to_owned(),
    ] {
        let v = serve.json(
            "/v1/check",
            None,
            json!({"agent": "bot", "urls": ["ftp://example.com/", url]}),
            200,
        );
        let results = v["results"].as_array().expect("results");
        assert_eq!(results.len(), 2, "{v}");
        assert_eq!(results[1]["type"], "error", "{url}: {v}");
        assert_eq!(results[1]["url"], url.as_str(), "{v}");
        let message = results[1]["message"].as_str().expect("message");
        assert!(message.contains("--allow-private"), "{url}: {v}");
        for (path, body) in [
            ("/v1/acquire", json!({"agent": "bot", "url": url})),
            ("/v1/recrawl", json!({"url": url})),
            ("/v1/record", json!({"url": url, "status": 200})),
        ] {
            let v = serve.json(path, None, body, 403);
            assert_eq!(v["error"]["field"], "url", "{path}: {v}");
        }
    }
    assert_eq!(site.hits(), 0);
}

#[test]
fn sigterm_lets_the_requests_in_flight_finish() {
    let rt = crate::support::runtime(1);
    // robots.txt takes a while: the requests wait on its fetch when the signal comes. 5 s:
    // the twelve requests must all be in flight before it ends, on a loaded machine too.
    let site = robots_server(&rt, Some(Duration::from_secs(5)));
    let dir = Dir::new();
    let state = dir.join("state.redb");
    let serve = Serve::start(&["--state", &state, "--allow-private"]);
    const N: usize = 12;
    let clients: Vec<_> = (0..N)
        .map(|i| {
            let addr = serve.addr.clone();
            let url = site.url(&format!("/page/{i}"));
            std::thread::spawn(move || {
                let body = json!({"agent": "bot", "urls": [url]}).to_string();
                request(&addr, "POST", "/v1/check", None, Some(body.as_bytes()))
            })
        })
        .collect();
    // All of them in flight (and the /metrics request asking).
    until("every request in flight", || {
        serve.metric("crawlgate_http_requests_in_flight", None) >= (N + 1) as f64
    });
    serve.signal("-TERM");
    for c in clients {
        let (code, text) = c.join().expect("client thread");
        assert_eq!(code, 200, "{text}");
        assert!(text.contains("\"allowed\":true"), "{text}");
    }
    let mut serve = serve;
    let status = serve.child.wait().expect("serve exits");
    assert_eq!(status.code(), Some(0));
    let rest: Vec<String> = serve.stdout.iter().collect();
    assert!(rest.iter().any(|l| l.contains("stopped")), "{rest:?}");
    // The fetch was flushed to the state: a check from it fetches nothing.
    let o = dir.run(&["history", "--json", "--state", &state, &site.url("/")]);
    crate::run::assert_exit(&o, 0);
    assert_eq!(site.hits_on("/robots.txt"), 1);
}

/// Asks both replicas about a URL of every site at once, `rounds` times over, and asserts
/// every answer is a 200 and each site's robots.txt was fetched once for both.
fn ask_both_at_once(replicas: [&Serve; 2], sites: &[TestServer], rounds: usize) {
    let mut clients = Vec::new();
    for round in 0..rounds {
        for (i, site) in sites.iter().enumerate() {
            for replica in replicas {
                let addr = replica.addr.clone();
                let url = site.url(&format!("/r{round}/{i}"));
                clients.push(std::thread::spawn(move || {
                    let body = json!({"agent": "bot", "urls": [url]}).to_string();
                    request(&addr, "POST", "/v1/check", None, Some(body.as_bytes()))
                }));
            }
        }
    }
    for c in clients {
        let (code, text) = c.join().expect("client");
        assert_eq!(code, 200, "{text}");
    }
    for site in sites {
        assert_eq!(
            site.hits_on("/robots.txt"),
            1,
            "one fetch per origin for both replicas"
        );
    }
}

#[test]
fn replicas_on_one_redis_fetch_each_origin_once_and_survive_a_kill() {
    let redis = RedisServer::start();
    let rt = crate::support::runtime(2);
    let sites: Vec<TestServer> = (0..3)
        .map(|_| robots_server(&rt, Some(Duration::from_millis(300))))
        .collect();
    let state = redis.url();
    let a = Serve::start(&["--state", &state, "--allow-private"]);
    let b = Serve::start(&["--state", &state, "--allow-private"]);

    // Both replicas asked about every origin at once.
    ask_both_at_once([&a, &b], &sites, 4);

    // A fourth origin seen by A only; then A is killed (-9) mid-load.
    let late = robots_server(&rt, None);
    let v = a.json(
        "/v1/check",
        None,
        json!({"agent": "bot", "urls": [late.url("/private/1")]}),
        200,
    );
    assert_eq!(v["results"][0]["allowed"], false);
    let load: Vec<_> = (0..8)
        .map(|i| {
            let addr = b.addr.clone();
            let url = sites[i % 3].url(&format!("/load/{i}"));
            std::thread::spawn(move || {
                let body = json!({"agent": "bot", "urls": [url]}).to_string();
                request(&addr, "POST", "/v1/check", None, Some(body.as_bytes()))
            })
        })
        .collect();
    a.signal("-KILL");
    for c in load {
        assert_eq!(c.join().expect("client").0, 200);
    }
    // B answers for the origin only A had fetched, from Redis: no new fetch.
    let v = b.json(
        "/v1/check",
        None,
        json!({"agent": "bot", "urls": [late.url("/private/1"), late.url("/ok")]}),
        200,
    );
    assert_eq!(v["results"][0]["allowed"], false);
    assert_eq!(v["results"][0]["rule"], "Disallow: /private");
    assert_eq!(v["results"][1]["allowed"], true);
    assert_eq!(late.hits_on("/robots.txt"), 1);
    let (code, text) = b.get("/readyz", None);
    assert_eq!(code, 200, "{text}");
}

/// A robots.txt server whose robots.txt answers `status` (with the file when 200).
pub(crate) fn answering(rt: &tokio::runtime::Runtime, status: u16) -> TestServer {
    rt.block_on(TestServer::start(move |req| {
        if req.path != "/robots.txt" {
            Reply::status(404)
        } else if status == 200 {
            Reply::text(200, ROBOTS)
        } else {
            Reply::status(status)
        }
    }))
}

/// A labelled metric's value (`name{label="value"}`), from /metrics.
pub(crate) fn labelled(text: &str, name: &str, label: &str, value: &str) -> u64 {
    let key = format!("{name}{{{label}=\"{value}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&key)?.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in {text}"))
}

#[test]
fn metrics_count_fetches_by_outcome_lookups_and_leases() {
    let rt = crate::support::runtime(1);
    let (ok, missing, failing) = (
        answering(&rt, 200),
        answering(&rt, 404),
        answering(&rt, 503),
    );
    let serve = Serve::start(&["--no-state", "--allow-private"]);
    let urls = json!([
        ok.url("/a"),
        missing.url("/b"),
        failing.url("/c"),
        ok.url("/private/d")
    ]);
    let v = serve.json(
        "/v1/check",
        None,
        json!({"agent": "bot", "urls": urls}),
        200,
    );
    let allowed: Vec<bool> = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["allowed"].as_bool().expect("allowed"))
        .collect();
    // 200: the rules; 404: everything allowed; 503: nothing allowed (the failure rules).
    assert_eq!(allowed, [true, true, false, false]);
    // Once more: every origin is in memory now.
    serve.json(
        "/v1/check",
        None,
        json!({"agent": "bot", "urls": urls}),
        200,
    );

    let (code, text) = serve.get("/metrics", None);
    assert_eq!(code, 200, "{text}");
    let fetches =
        |outcome: &str| labelled(&text, "crawlgate_robots_fetches_total", "outcome", outcome);
    // What the robots servers saw, class by class.
    assert_eq!(fetches("ok"), ok.hits_on("/robots.txt") as u64);
    assert_eq!(fetches("4xx"), missing.hits_on("/robots.txt") as u64);
    assert_eq!(fetches("5xx"), failing.hits_on("/robots.txt") as u64);
    assert_eq!((fetches("ok"), fetches("4xx"), fetches("5xx")), (1, 1, 1));
    for other in [
        "not-modified",
        "unreachable",
        "challenge",
        "payment-required",
        "local-failure",
    ] {
        assert_eq!(fetches(other), 0, "{other}");
    }
    // Three origins fetched (not in the store), the second request's four URLs from memory.
    let lookups = |source: &str| labelled(&text, "crawlgate_cache_lookups_total", "source", source);
    assert_eq!((lookups("fetch"), lookups("store")), (3, 0));
    assert!(lookups("memory") >= 4, "{text}");
    // The memory store hands every lease at once: one per fetch, no wait.
    let leases = |event: &str| labelled(&text, "crawlgate_fetch_leases_total", "event", event);
    assert_eq!(
        (leases("taken"), leases("waited"), leases("lost")),
        (3, 0, 0)
    );
}

#[test]
fn replicas_on_a_redis_cluster_share_one_fetch_per_origin() {
    let cluster = crate::support::redis_cluster::RedisCluster::start();
    let rt = crate::support::runtime(2);
    let sites: Vec<TestServer> = (0..4)
        .map(|_| robots_server(&rt, Some(Duration::from_millis(200))))
        .collect();
    let state = cluster.url();
    let a = Serve::start(&["--state", &state, "--allow-private"]);
    let b = Serve::start(&["--state", &state, "--allow-private"]);
    ask_both_at_once([&a, &b], &sites, 2);
    // The fleet's fetches as the replicas count them: one per origin in all.
    let metrics: Vec<String> = [&a, &b].iter().map(|s| s.get("/metrics", None).1).collect();
    let sum = |name: &str, label: &str, value: &str| -> u64 {
        metrics
            .iter()
            .map(|t| labelled(t, name, label, value))
            .sum()
    };
    let n = sites.len() as u64;
    assert_eq!(sum("crawlgate_robots_fetches_total", "outcome", "ok"), n);
    assert!(sum("crawlgate_fetch_leases_total", "event", "taken") >= n);
    // The schedule is shared too: a slot taken on A makes B wait.
    let first = a.json(
        "/v1/acquire",
        None,
        json!({"agent": "bot", "url": sites[0].url("/x")}),
        200,
    );
    assert_eq!(first["permit"], true, "{first}");
    let second = b.json(
        "/v1/acquire",
        None,
        json!({"agent": "bot", "url": sites[0].url("/y")}),
        200,
    );
    assert_eq!(second["permit"], false, "{second}");
    // The report reads the state back from the cluster.
    let (code, text) = b.get(&format!("/v1/robots?url={}", sites[3].url("/")), None);
    assert_eq!(code, 200, "{text}");
    let (code, text) = b.get("/readyz", None);
    assert_eq!(code, 200, "{text}");
}

#[test]
fn two_host_names_of_one_server_share_one_schedule_under_the_ip_key() {
    let rt = crate::support::runtime(1);
    let site = robots_server(&rt, None);
    let port = site.addr.port();
    let by_name = format!("http://localhost:{port}/a");
    let by_address = format!("http://127.0.0.1:{port}/b");
    let acquire = |serve: &Serve, url: &str| {
        serve.json(
            "/v1/acquire",
            None,
            json!({"agent": "bot", "url": url}),
            200,
        )
    };

    // By origin (the default), two origins: two schedules, a permit each.
    let serve = Serve::start(&["--no-state", "--allow-private"]);
    let a = acquire(&serve, &by_name);
    let b = acquire(&serve, &by_address);
    assert_eq!(
        (a["permit"].clone(), b["permit"].clone()),
        (json!(true), json!(true)),
        "{a} {b}"
    );
    assert_eq!(a["key"], format!("http://localhost:{port}"), "{a}");
    drop(serve);

    // By IP address: one server, one schedule; the second waits for the spacing (1 s).
    let serve = Serve::start(&["--no-state", "--allow-private", "--politeness-key", "ip"]);
    let a = acquire(&serve, &by_name);
    let b = acquire(&serve, &by_address);
    assert_eq!(a["permit"], true, "{a}");
    assert_eq!(a["key"], "ip:127.0.0.1", "{a}");
    assert_eq!(b["key"], "ip:127.0.0.1", "{b}");
    assert_eq!(b["permit"], false, "{b}");
    assert!(
        b["wait_ms"].as_u64().is_some_and(|w| w > 0 && w <= 1000),
        "{b}"
    );
    // A disallowed URL reserves nothing: no key.
    let d = acquire(&serve, &format!("http://localhost:{port}/private/d"));
    assert_eq!(d["key"], Value::Null, "{d}");

    // An unknown key is refused at the command line.
    let dir = Dir::new();
    let out = dir
        .command(&["serve", "--politeness-key", "street"])
        .output()
        .expect("crawlgate runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--politeness-key"));
}

/// `GET /v1/robots` carries the `politeness` object of `report --json`, read where the
/// service's permits are: after an acquire and a recorded 429, the backoff and the next slot;
/// for a site whose robots.txt answers 503, the stop and the next try as fields of their own.
#[test]
fn the_robots_report_has_the_pace_of_the_permits_and_the_stop() {
    let rt = crate::support::runtime(1);
    let site = robots_server(&rt, None);
    let serve = Serve::start(&["--no-state", "--allow-private"]);
    let a = serve.json(
        "/v1/acquire",
        None,
        json!({"agent": "bot", "url": site.url("/a")}),
        200,
    );
    assert_eq!(a["permit"], true, "{a}");
    let r = serve.json(
        "/v1/record",
        None,
        json!({"url": site.url("/a"), "status": 429, "retry_after": 120}),
        200,
    );
    assert_eq!(r["recorded"], "backed-off", "{r}");
    let report = |query: &str| -> Value {
        let (code, text) = serve.get(&format!("/v1/robots?{query}"), None);
        assert_eq!(code, 200, "{query}: {text}");
        serde_json::from_str(&text).expect("JSON")
    };
    let origin = site.url("/");
    let r = report(&format!("url={origin}&agent=bot"));
    let pace = &r["politeness"][0];
    assert_eq!(pace["agent"], "bot", "{r:#}");
    assert_eq!(pace["key"], origin.trim_end_matches('/'), "{r:#}");
    assert_eq!(pace["reason"], "default", "{r:#}");
    let backoff = &pace["backoff"];
    assert_eq!(
        (backoff["active"].clone(), backoff["step"].clone()),
        (json!(true), json!(1)),
        "{r:#}"
    );
    // The next slot is the backoff's end: 120 s after the 429.
    assert!(backoff["until"].is_string(), "{r:#}");
    assert_eq!(pace["next_slot"], backoff["until"], "{r:#}");
    assert_eq!(r["not_before"], Value::Null, "{r:#}");
    // Without an agent: the service's User-Agent's token, on the same schedule.
    let r = report(&format!("url={origin}"));
    assert_eq!(r["politeness"][0]["agent"], "crawlgate", "{r:#}");
    assert_eq!(r["politeness"][0]["backoff"], backoff.clone(), "{r:#}");
    // An agent that is not one: 400, naming the field.
    let (code, text) = serve.get(&format!("/v1/robots?url={origin}&agent=a%20b"), None);
    assert_eq!(code, 400, "{text}");
    assert!(text.contains("\"field\":\"agent\""), "{text}");

    // A robots.txt answering 503: the failure rules stop the site; when, and when it is
    // tried again, as fields.
    let down = answering(&rt, 503);
    let c = serve.json(
        "/v1/check",
        None,
        json!({"agent": "bot", "urls": [down.url("/x")]}),
        200,
    );
    assert_eq!(c["results"][0]["verdict"], "disallow-all", "{c}");
    let r = report(&format!("url={}", down.url("/")));
    assert_eq!(r["http_status"], 503, "{r:#}");
    let not_before = r["not_before"].as_str().expect("not_before");
    let next_attempt = r["next_attempt"].as_str().expect("next_attempt");
    assert_eq!(r["not_before"], r["in_force"]["until"], "{r:#}");
    // RFC 3339 times compare as text: the next try comes before the stop ends.
    let last = r["last_fetch"].as_str().expect("last_fetch");
    assert!(last < next_attempt && next_attempt < not_before, "{r:#}");
    assert!(
        not_before.ends_with('Z') && next_attempt.ends_with('Z'),
        "{r:#}"
    );
}

/// `/v1/check` of one URL on `serve`: its `allowed`.
fn check_one(serve: &Serve, url: &str) -> bool {
    let v = serve.json(
        "/v1/check",
        None,
        json!({"agent": "bot", "urls": [url]}),
        200,
    );
    v["results"][0]["allowed"]
        .as_bool()
        .unwrap_or_else(|| panic!("no `allowed` in {v}"))
}

#[test]
fn readyz_probes_the_store_and_is_ready_again_as_soon_as_it_answers() {
    let mut redis = RedisServer::start();
    let rt = crate::support::runtime(1);
    let (site, other) = (robots_server(&rt, None), robots_server(&rt, None));
    let state = redis.url();
    let serve = Serve::start(&["--state", &state, "--allow-private"]);
    assert!(check_one(&serve, &site.url("/a")));
    assert_eq!(serve.get("/readyz", None).0, 200);

    // Redis gone: a check still answers (a fetch, kept in memory to be written), and the
    // replica is not ready.
    redis.kill();
    assert!(check_one(&serve, &other.url("/a")));
    until("not ready while the store is down", || {
        serve.get("/readyz", None).0 == 503
    });
    // Redis back on its port, and nothing but health checks: ready again, with what was
    // pending written.
    redis.restart();
    until("ready again with no request that writes", || {
        serve.get("/readyz", None).0 == 200
    });
    let fresh = Serve::start(&["--state", &state, "--allow-private"]);
    assert!(check_one(&fresh, &other.url("/b")));
    assert_eq!(other.hits_on("/robots.txt"), 1, "read from the store");
}

#[test]
fn readyz_is_not_ready_while_changes_wait_and_shutdown_writes_them_within_its_grace() {
    let redis = RedisServer::start();
    let rt = crate::support::runtime(1);
    let (site, other) = (robots_server(&rt, None), robots_server(&rt, None));
    let state = redis.url();
    let serve = Serve::start(&[
        "--state",
        &state,
        "--allow-private",
        "--shutdown-grace",
        "30",
    ]);
    assert!(check_one(&serve, &site.url("/a")));
    assert_eq!(serve.get("/readyz", None).0, 200);

    // Redis refuses writes and answers reads (as a full disk does): the fetch's record waits.
    let set = |bytes: &[u8]| redis.command(&[b"CONFIG", b"SET", b"maxmemory", bytes]);
    assert_eq!(set(b"1"), "OK");
    assert!(check_one(&serve, &other.url("/a")));
    // A read that succeeds does not make it ready while the change waits.
    let (code, text) = serve.get(&format!("/v1/robots?url={}", site.url("/")), None);
    assert_eq!(code, 200, "{text}");
    for _ in 0..3 {
        let (code, text) = serve.get("/readyz", None);
        assert_eq!(code, 503, "{text}");
        assert!(text.contains("pending"), "{text}");
        std::thread::sleep(Duration::from_millis(600));
    }

    // SIGTERM while Redis still refuses: shutdown keeps trying, and Redis takes the change
    // within the grace period.
    serve.signal("-TERM");
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(set(b"0"), "OK");
    let mut serve = serve;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = serve.child.try_wait().expect("wait") {
            break status;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "never stopped");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    let fresh = Serve::start(&["--state", &state, "--allow-private"]);
    assert!(check_one(&fresh, &other.url("/b")));
    assert_eq!(other.hits_on("/robots.txt"), 1, "written at shutdown");
}

#[test]
fn shutdown_says_what_the_store_never_took() {
    let redis = RedisServer::start();
    let rt = crate::support::runtime(1);
    let site = robots_server(&rt, None);
    let state = redis.url();
    let mut serve = Serve::start(&[
        "--state",
        &state,
        "--allow-private",
        "--shutdown-grace",
        "1",
    ]);
    assert_eq!(
        redis.command(&[b"CONFIG", b"SET", b"maxmemory", b"1"]),
        "OK"
    );
    assert!(check_one(&serve, &site.url("/a")));
    serve.signal("-TERM");
    // The change never written: the exit says so (on standard error) and is not clean.
    let status = serve.child.wait().expect("wait");
    assert!(!status.success(), "{status}");
    let said: Vec<String> = serve.stdout.try_iter().collect();
    assert!(
        !said.iter().any(|l| l.contains("stopped")),
        "a clean stop after losing a change: {said:?}"
    );
}
