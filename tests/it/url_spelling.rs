//! A URL is judged as an HTTP client will request it: TAB, LF and CR removed, `\` read as `/`,
//! dot segments (`/x/../`, `/./`, `/x/%2e%2e/`) resolved, as the WHATWG parser (the `url`
//! crate, hence reqwest) does. Otherwise `Disallow: /private/` is walked around by spelling
//! `/private/x` as `/x/../private/x`: the check sees one path, the server is sent another.
//!
//! The property: for any such URL, the verdict on the URL as written equals the verdict on
//! `Url::parse(url).as_str()`, the URL reqwest sends. And at real servers: no disallowed path is
//! ever requested through `acquire` + reqwest, or through the middleware.

use proptest::prelude::*;
use url::Url;

use crawlgate::{request_target, respelled, Mode, Options, ProductToken, Robots};

/// Rules whose verdicts a respelling could flip.
const RULES: &str =
    "User-agent: *\nDisallow: /private/\nDisallow: /a/b\nAllow: /private/ok\nDisallow: /*.pdf$\n";

fn bot() -> ProductToken {
    ProductToken::new("testbot").expect("token")
}

/// The spellings of the issue's repro, and what a client requests for each.
#[test]
fn the_known_bypasses_are_judged_as_requested() {
    let robots = Robots::parse(b"User-agent: *\nDisallow: /private/\nDisallow: /admin\n").robots;
    for (url, requested) in [
        ("http://localhost:8080/x/../private/x", "/private/x"),
        ("http://127.0.0.1:8080/priv\tate/x", "/private/x"),
        ("http://localhost:8080\\private\\x", "/private/x"),
        ("https://site.test/x/../admin", "/admin"),
        ("https://site.test/./admin", "/admin"),
        ("https://site.test/%2e/admin", "/admin"),
        ("https://site.test/x/%2E%2e/admin", "/admin"),
        ("https://site.test/x/.%2e/admin", "/admin"),
        ("https://site.test/ad\nmin\r", "/admin"),
        ("  https://site.test/admin?x#y ", "/admin?x"),
        ("/x/../admin", "/admin"),
        ("//site.test/x/../admin", "/admin"),
        ("\\\\site.test\\x\\..\\admin", "/admin"),
        ("site.test/x/../admin", "/admin"),
    ] {
        assert_eq!(request_target(url), requested, "{url:?}");
        let d = robots.check(&bot(), url);
        assert!(!d.allowed, "{url:?} allowed");
        assert!(d.rule().is_some(), "{url:?}: no rule decided");
    }
    // Names that only look like dot segments stay as they are, and are allowed.
    for url in [
        "https://site.test/.well-known/x",
        "https://site.test/x/..a/admin",
        "https://site.test/x/a../admin",
        "https://site.test/a?next=/../admin",
    ] {
        assert!(robots.check(&bot(), url).allowed, "{url:?}");
    }
    assert_eq!(respelled("https://site.test/.well-known/x"), None);
    assert_eq!(
        respelled("https://site.test/x/../admin").map(|r| r.url),
        Some("https://site.test/admin".to_owned())
    );
}

/// `Mode::Google` keeps google/robotstxt's behaviour at the `Robots` level: the path as
/// written (its library does not normalise; Googlebot does before it asks).
#[test]
fn google_mode_judges_the_path_as_written() {
    let parsed = Robots::parse_with(
        b"User-agent: *\nDisallow: /admin\n",
        &Options::mode(Mode::Google),
    );
    assert!(parsed.robots.check(&bot(), "https://h/x/../admin").allowed);
    assert!(!parsed.robots.check(&bot(), "https://h/admin").allowed);
    // The same file in RFC mode judges what is requested.
    let rfc = Robots::parse(b"User-agent: *\nDisallow: /admin\n").robots;
    assert!(!rfc.check(&bot(), "https://h/x/../admin").allowed);
}

/// A path segment: names, dot segments in every spelling, and names that only resemble them.
fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["private", "a", "b", "ok", "x", "f.pdf", "private.pdf"]).prop_map(str::to_owned),
        3 => prop::sample::select(vec![".", "..", "%2e", "%2E", ".%2e", "%2e.", "%2E%2e", "...", "..a", ".well-known"]).prop_map(str::to_owned),
        1 => "[a-z.%2eE]{0,4}",
        1 => "",
    ]
}

/// A URL with dot segments, `/` or `\` between segments, TAB, LF or CR anywhere after the
/// scheme, outer spaces, a query and a fragment.
fn spelled_url() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["http://", "https://", "HTTP://"]),
        prop::sample::select(vec!["site.test", "127.0.0.1:8080", "h.example:81"]),
        prop::collection::vec(
            (prop::sample::select(vec!["/", "\\", "/", "/"]), segment()),
            0..7,
        ),
        prop::option::of("[a-z=/.]{0,6}"),
        prop::option::of("[a-z/.]{0,4}"),
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                prop::sample::select(vec!['\t', '\n', '\r']),
            ),
            0..3,
        ),
        prop::sample::select(vec!["", " ", "\t"]),
    )
        .prop_map(|(scheme, host, segments, query, fragment, controls, pad)| {
            let mut tail = String::new();
            for (sep, seg) in segments {
                tail.push_str(sep);
                tail.push_str(&seg);
            }
            if let Some(q) = query {
                tail.push('?');
                tail.push_str(&q);
            }
            if let Some(f) = fragment {
                tail.push('#');
                tail.push_str(&f);
            }
            for (at, c) in controls {
                // Anywhere after the scheme (inside it the URL is no longer http).
                let mut boundaries: Vec<usize> = (0..=tail.len())
                    .filter(|&i| tail.is_char_boundary(i))
                    .collect();
                boundaries.dedup();
                let i = boundaries[at.index(boundaries.len())];
                tail.insert(i, c);
            }
            format!("{pad}{scheme}{host}{tail}{pad}")
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4_000))]

    /// The verdict on the URL as written is the verdict on the URL reqwest sends, rule and
    /// line included; and the path judged is the sent URL's path and query.
    #[test]
    fn the_verdict_is_that_of_the_url_requested(input in spelled_url()) {
        let robots = Robots::parse(RULES.as_bytes()).robots;
        let sent = Url::parse(&input).map_err(|e| TestCaseError::fail(format!("{input:?}: {e}")))?;
        let on_input = robots.check(&bot(), &input);
        let on_sent = robots.check(&bot(), sent.as_str());
        prop_assert_eq!(on_input.allowed, on_sent.allowed, "{:?} sent as {}", input, sent);
        prop_assert_eq!(on_input.rule().map(|r| r.line), on_sent.rule().map(|r| r.line), "{:?}", input);
        let want = &sent[url::Position::BeforePath..url::Position::AfterQuery];
        prop_assert_eq!(request_target(&input), want, "{:?}", input);
        // What the answer reports as judged is the URL sent, whenever it differs.
        if let Some(r) = respelled(&input) {
            prop_assert_eq!(r.url, sent.as_str(), "{:?}", input);
        }
    }
}

#[cfg(feature = "fetch")]
mod engine {
    use std::sync::{Arc, Mutex};

    use crate::support::{Reply, TestServer};
    use crawlgate::engine::Refused;
    use crawlgate::engine::{CacheOptions, RobotsCache};
    use crawlgate::{Mode, ProductToken};

    /// The spellings of `/private/x` on `base` (`http://127.0.0.1:PORT`), and a
    /// `localhost` twin for the backslash and dot forms.
    fn spellings(base: &str) -> Vec<String> {
        let host = base.trim_start_matches("http://");
        vec![
            format!("{base}/x/../private/x"),
            format!("{base}/priv\tate/x"),
            format!("{base}\\private\\x"),
            format!("{base}/./private/x"),
            format!("{base}/x/%2e%2e/private/x"),
            format!("{base}/x/.%2E/private/x"),
            format!("{base}/pri\nvate/x\r"),
            format!(" {base}/x/./../private/./x "),
            format!("http://{host}/a/b/../../private/x#f"),
        ]
    }

    fn engine(mode: Mode) -> RobotsCache {
        let mut options = CacheOptions::default();
        options.gate.default_delay = std::time::Duration::ZERO;
        options.fetch.mode = mode;
        RobotsCache::new(options).expect("engine")
    }

    /// A server whose robots.txt disallows `/private/`, and the paths of the other requests it
    /// was sent, in order.
    async fn logging_server() -> (TestServer, Arc<Mutex<Vec<String>>>) {
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let log = seen.clone();
        let server = TestServer::start(move |r| {
            if r.path == "/robots.txt" {
                return Reply::text(200, "User-agent: *\nDisallow: /private/\n");
            }
            log.lock().expect("log").push(r.path.clone());
            Reply::text(200, "ok")
        })
        .await;
        (server, seen)
    }

    /// `acquire` refuses every spelling, in both modes, and names the URL it judged; reqwest,
    /// sent what `acquire` allowed, never reaches `/private`. A control: the server does log
    /// the allowed pages that reqwest sends after the same kind of respelling.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn acquire_then_reqwest_never_requests_a_disallowed_path() {
        let (server, seen) = logging_server().await;
        let base = server.url("");
        let base = base.trim_end_matches('/');
        let client = reqwest::Client::new();
        let bot = ProductToken::new("testbot").expect("token");
        for mode in [Mode::Rfc, Mode::Google] {
            let cache = engine(mode);
            let mut urls = spellings(base);
            // Allowed pages spelled the same ways: requested, and their normalised paths logged.
            urls.push(format!("{base}/x/../public/x"));
            urls.push(format!("{base}\\pub\tlic\\y"));
            for url in &urls {
                match cache.acquire(&bot, url).await {
                    Ok(permit) => {
                        let status = client.get(url.as_str()).send().await.map(|r| r.status());
                        assert_eq!(status.ok().map(|s| s.as_u16()), Some(200), "{url:?}");
                        drop(permit);
                    }
                    Err(Refused::Disallowed { answer, .. }) => {
                        let judged = answer.judged_url.as_deref().unwrap_or_default();
                        let path = judged.split('#').next().unwrap_or_default();
                        assert!(path.ends_with("/private/x"), "{url:?} judged as {judged:?}");
                        assert_eq!(answer.rule.as_ref().map(|r| r.line), Some(2), "{url:?}");
                    }
                    Err(other) => panic!("{url:?}: {other}"),
                }
            }
        }
        let seen = seen.lock().expect("log").clone();
        assert!(
            seen.iter().all(|p| !p.starts_with("/private")),
            "requested: {seen:?}"
        );
        assert_eq!(seen, ["/public/x", "/public/y", "/public/x", "/public/y"]);
    }

    /// The middleware judges the request reqwest built (already normalised): the same
    /// spellings are refused before anything is sent.
    #[cfg(feature = "middleware")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_middleware_never_sends_a_disallowed_path() {
        use crawlgate::engine::{refusal, GateMiddleware};
        use reqwest_middleware::ClientBuilder;

        let (server, seen) = logging_server().await;
        let base = server.url("");
        let base = base.trim_end_matches('/');
        let client = ClientBuilder::new(reqwest::Client::new())
            .with(GateMiddleware::new(
                engine(Mode::Rfc),
                ProductToken::new("testbot").expect("token"),
            ))
            .build();
        for url in spellings(base) {
            let err = client.get(url.as_str()).send().await.expect_err("refused");
            assert!(
                matches!(refusal(&err), Some(Refused::Disallowed { .. })),
                "{url:?}: {err}"
            );
        }
        client
            .get(format!("{base}/x/../public"))
            .send()
            .await
            .expect("an allowed page");
        assert_eq!(*seen.lock().expect("log"), ["/public"]);
    }
}
