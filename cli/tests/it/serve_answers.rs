//! `crawlgate serve`'s answers as a real process: per-URL errors in a batch, a record that
//! never stands in for a robots.txt fetch, bounded growth, readiness and error bodies.

use serde_json::{json, Value};

use crate::run::Dir;
use crate::serve::{request, robots_server, until, Serve};
use crate::support::redis_server::RedisServer;
use crate::support::Reply;

/// A batch with URLs that cannot be checked: each of those gets an error record in its place
/// (as `check --json` writes), the others their answers, the request a 200; nothing is fetched
/// for a refused URL.
#[test]
fn a_batch_answers_each_url_in_place() {
    let rt = crate::support::runtime(1);
    let site = robots_server(&rt, None);
    let serve = Serve::start(&["--no-state", "--allow-private"]);
    let long_host = format!("http://{}.example/", "a".repeat(300));
    let long_label = format!("http://{}.example/", "b".repeat(64));
    let urls = [
        site.url("/public"),
        "/relative".to_owned(),
        "ftp://example.com/".to_owned(),
        long_host.clone(),
        long_label.clone(),
        site.url("/private"),
    ];
    let v = serve.json(
        "/v1/check",
        None,
        json!({"agent": "bot", "urls": urls}),
        200,
    );
    let results = v["results"].as_array().expect("results");
    let types: Vec<&str> = results.iter().filter_map(|r| r["type"].as_str()).collect();
    assert_eq!(
        types,
        ["check", "error", "error", "error", "error", "check"],
        "{v}"
    );
    assert_eq!(results[0]["allowed"], true, "{v}");
    assert_eq!(results[5]["allowed"], false, "{v}");
    for (i, url) in urls.iter().enumerate().take(5).skip(1) {
        assert_eq!(results[i]["url"], url.as_str(), "{v}");
        // The error record of `check --json`: the URL and a sentence, nothing else.
        let mut keys: Vec<&String> = results[i].as_object().expect("object").keys().collect();
        keys.sort();
        assert_eq!(keys, ["message", "type", "url"], "{v}");
    }
    for i in [3, 4] {
        let message = results[i]["message"].as_str().expect("message");
        assert!(
            message.contains("253") && message.contains("63"),
            "{message}"
        );
        assert!(message.len() < 200, "the host is not echoed: {message}");
    }
    assert_eq!(site.hits_on("/robots.txt"), 1);

    // Without --allow-private, a private target is an error in its place too.
    let closed = Serve::start(&["--no-state"]);
    let v = closed.json(
        "/v1/check",
        None,
        json!({"agent": "bot", "urls": [long_host, site.url("/public")]}),
        200,
    );
    assert_eq!(v["results"][0]["type"], "error", "{v}");
    assert_eq!(v["results"][1]["type"], "error", "{v}");
    let message = v["results"][1]["message"].as_str().expect("message");
    assert!(message.contains("--allow-private"), "{message}");
    assert_eq!(site.hits_on("/robots.txt"), 1);

    // A host too long is a 400 naming the field where a URL is the whole request.
    let v = serve.json(
        "/v1/acquire",
        None,
        json!({"agent": "bot", "url": long_label}),
        400,
    );
    assert_eq!(v["error"]["field"], "url", "{v}");
}

/// Checks A, records a fetch on B (never checked), then checks B: B's robots.txt is fetched
/// and B is answered by its rules, never "robots.txt not fetched yet" — in memory, a state
/// file and Redis alike. (The record may be refused: then it is harmless.)
#[test]
fn a_record_never_stands_in_for_a_robots_txt_fetch() {
    let rt = crate::support::runtime(1);
    let redis = RedisServer::start();
    let dir = Dir::new();
    let state = dir.join("state.redb");
    let redis_url = redis.url();
    for args in [
        vec!["--no-state"],
        vec!["--state", state.as_str()],
        vec!["--state", redis_url.as_str()],
    ] {
        let a = robots_server(&rt, None);
        let b = robots_server(&rt, None);
        let mut all = vec!["--allow-private"];
        all.extend(&args);
        let serve = Serve::start(&all);
        let check = |url: String| {
            let v = serve.json(
                "/v1/check",
                None,
                json!({"agent": "bot", "urls": [url]}),
                200,
            );
            v["results"][0].clone()
        };
        assert_eq!(check(a.url("/public"))["allowed"], true, "{args:?}");
        for status in [503, 500, 200] {
            let body = json!({"url": b.url("/page"), "status": status}).to_string();
            let (code, text) = serve.post("/v1/record", None, body.as_bytes());
            assert!(
                code == 200 || (400..500).contains(&code),
                "{args:?}: {code} {text}"
            );
        }
        let r = check(b.url("/public"));
        assert_eq!(r["allowed"], true, "{args:?}: {r}");
        assert_eq!(r["reason"], "fetched", "{args:?}: {r}");
        assert_eq!(b.hits_on("/robots.txt"), 1, "{args:?}");
        assert_eq!(check(b.url("/private"))["allowed"], false, "{args:?}");
    }
}

/// A missing field is named, as a field of the wrong type is.
#[test]
fn a_missing_field_is_named() {
    let serve = Serve::start(&["--no-state"]);
    for (path, body, field) in [
        (
            "/v1/check",
            json!({"urls": ["http://example.com/"]}),
            "agent",
        ),
        ("/v1/check", json!({"agent": "bot"}), "urls"),
        ("/v1/acquire", json!({"agent": "bot"}), "url"),
        (
            "/v1/record",
            json!({"url": "http://example.com/"}),
            "status",
        ),
        (
            "/v1/check",
            json!({"agent": "bot", "urls": [], "extra": 1}),
            "extra",
        ),
    ] {
        let v = serve.json(path, None, body, 400);
        assert_eq!(v["error"]["code"], "bad-field", "{path}: {v}");
        assert_eq!(v["error"]["field"], field, "{path}: {v}");
    }
}

/// A state file that cannot grow (a full disk): reads still answer, writes fail, and /readyz
/// says not ready (503, `store-unavailable`) rather than ready.
#[cfg(unix)]
#[test]
fn readyz_is_not_ready_while_the_store_cannot_write() {
    let rt = crate::support::runtime(1);
    // A robots.txt of 470 KB: its write needs the state file to grow past the limit.
    let big: String = std::iter::once("User-agent: *\n".to_owned())
        .chain((0..8000).map(|i| format!("Disallow: /p/{i}/{}\n", "x".repeat(40))))
        .collect();
    let site = rt.block_on(crate::support::TestServer::start(move |_| {
        Reply::text(200, &big)
    }));
    let dir = Dir::new();
    let state = dir.join("state.redb");
    let serve = Serve::start_under("-f 1000", &["--state", &state, "--allow-private"]);
    let (code, text) = request(&serve.addr, "GET", "/readyz", None, None);
    assert_eq!(code, 200, "{text}");
    let body = json!({"agent": "bot", "urls": [site.url("/a")]}).to_string();
    let (code, text) = request(
        &serve.addr,
        "POST",
        "/v1/check",
        None,
        Some(body.as_bytes()),
    );
    assert_eq!(code, 200, "answered from memory: {text}");
    until("the failed write is seen", || {
        let (_, text) = request(&serve.addr, "GET", "/metrics", None, None);
        text.lines().any(|l| l == "crawlgate_store_up 0")
    });
    let (code, text) = request(&serve.addr, "GET", "/readyz", None, None);
    assert_eq!(code, 503, "{text}");
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(v["error"]["code"], "store-unavailable", "{v}");
}
