//! TDMRep's `/.well-known/tdmrep.json`: the parser and evaluator on the W3C report's examples
//! (TDMRep §4.1.1, §4.1.2), every diagnostic code, the limits, and `docs/tdmrep.md`'s code
//! table against the code.

use std::collections::BTreeSet;

use crawlgate::tdmrep::{Code, TdmRep, MAX_BYTES, MAX_RULES, MAX_VALUE_BYTES};

/// A diagnostic as compared: its code and rule number.
type Found = (&'static str, Option<usize>);

/// The codes a file produces, with their rule numbers.
fn codes(json: &str) -> Vec<Found> {
    TdmRep::parse(json.as_bytes())
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.rule))
        .collect()
}

#[test]
fn the_reports_first_example_reserves_everything() {
    // §4.1.2: opt out for every file, no policy.
    let parsed = TdmRep::parse(
        br#"
          [
            {
            "location": "/",
            "tdm-reservation": 1
            }
          ]
    "#,
    );
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    for path in ["/", "/index.html", "/a/b?c=d"] {
        let m = parsed.tdmrep.evaluate(path).expect("matches");
        assert!(m.reserved);
        assert_eq!(m.policy, None);
    }
}

#[test]
fn the_reports_second_example_three_groups() {
    // §4.1.2: PDFs in /directory-a reserved without policy, HTML in /directory-b/html reserved
    // with a policy, JPEGs in /directory-b/images not reserved.
    let parsed = TdmRep::parse(
        br#"[
            {"location": "/directory-a/", "tdm-reservation": 1},
            {"location": "/directory-b/html/", "tdm-reservation": 1,
             "tdm-policy":"https://provider.com/policies/policy.json"},
            {"location": "/directory-b/images/*.jpg", "tdm-reservation": 0}
        ]"#,
    );
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let file = &parsed.tdmrep;
    let at = |url: &str| {
        file.evaluate_url(url)
            .map(|m| (m.rule.number, m.reserved, m.policy))
    };
    assert_eq!(
        at("https://provider.com/directory-a/report.pdf"),
        Some((1, true, None))
    );
    assert_eq!(
        at("https://provider.com/directory-b/html/page.html"),
        Some((2, true, Some("https://provider.com/policies/policy.json")))
    );
    assert_eq!(
        at("https://provider.com/directory-b/images/cat.jpg"),
        Some((3, false, None))
    );
    // Outside every location: unset.
    assert_eq!(at("https://provider.com/directory-b/images/cat.png"), None);
    assert_eq!(at("https://provider.com/"), None);
    // Matching is case sensitive (§4.1: "SHOULD be case sensitive").
    assert_eq!(at("https://provider.com/Directory-A/x.pdf"), None);
}

#[test]
fn special_characters_and_escapes() {
    // §4.1.1: `$` ends the pattern, `*` is any run; a literal `$` is written `%24`.
    let file = TdmRep::parse(
        br#"[
            {"location": "/this/path/exactly$", "tdm-reservation": 1},
            {"location": "/this/*/then", "tdm-reservation": 0},
            {"location": "/path/foo-%24", "tdm-reservation": 1},
            {"location": "/%7Euser/", "tdm-reservation": 1}
        ]"#,
    )
    .tdmrep;
    let rule = |path: &str| file.evaluate(path).map(|m| m.rule.number);
    assert_eq!(rule("/this/path/exactly"), Some(1));
    assert_eq!(rule("/this/path/exactly/more"), None);
    assert_eq!(rule("/this/x/y/then"), Some(2));
    assert_eq!(rule("/path/foo-$"), Some(3));
    assert_eq!(
        file.evaluate_url("https://provider.com/path/foo-$")
            .map(|m| m.rule.number),
        Some(3)
    );
    assert_eq!(rule("/path/foo-%24"), Some(3));
    // An unreserved character's escape is decoded on both sides; a reserved one is not.
    assert_eq!(rule("/~user/a"), Some(4));
    assert_eq!(rule("/%7euser/a"), Some(4));
    // The first match wins, not the longest.
    let file = TdmRep::parse(
        br#"[{"location": "/a", "tdm-reservation": 0}, {"location": "/a/b", "tdm-reservation": 1}]"#,
    )
    .tdmrep;
    assert_eq!(file.evaluate("/a/b/c").map(|m| m.rule.number), Some(1));
}

#[test]
fn every_code_has_a_case() {
    let cases: &[(&str, &[Found])] = &[
        ("[1, ", &[("invalid-json", None)]),
        (r#"{"location": "/"}"#, &[("not-an-array", None)]),
        (
            r#"["/", {"location": "/", "tdm-reservation": 1}]"#,
            &[("not-a-rule", Some(1))],
        ),
        (
            r#"[{"tdm-reservation": 1}, {"location": "a/", "tdm-reservation": 1}, {"location": 5, "tdm-reservation": 1}]"#,
            &[
                ("invalid-location", Some(1)),
                ("invalid-location", Some(2)),
                ("invalid-location", Some(3)),
            ],
        ),
        (
            r#"[{"location": "/a"}, {"location": "/b", "tdm-reservation": 2}, {"location": "/c", "tdm-reservation": true}]"#,
            &[
                ("invalid-reservation", Some(1)),
                ("invalid-reservation", Some(2)),
                ("invalid-reservation", Some(3)),
            ],
        ),
        (
            r#"[{"location": "/", "tdm-reservation": 1, "tdm-policy": "policy.json"}]"#,
            &[("invalid-policy", Some(1))],
        ),
        (
            r#"[{"location": "/", "tdm-reservation": "1"}]"#,
            &[("reservation-as-string", Some(1))],
        ),
        (
            r#"[{"location": "/", "tdm-reservation": 0, "tdm-policy": "https://a.example/p.json"}]"#,
            &[("policy-without-reservation", Some(1))],
        ),
        (
            r#"[{"location": "/", "tdm-reservation": 1, "tdm_policy": "x"}]"#,
            &[("unknown-property", Some(1))],
        ),
        (
            r#"[{"location": "/", "tdm-reservation": 1}, {"location": "/a", "tdm-reservation": 0}, {"location": "/a", "tdm-reservation": 1}]"#,
            &[("unreachable-rule", Some(2)), ("unreachable-rule", Some(3))],
        ),
    ];
    let mut seen = BTreeSet::new();
    for (json, want) in cases {
        let got = codes(json);
        assert_eq!(&got, want, "{json}");
        seen.extend(got.iter().map(|(c, _)| *c));
    }
    // The two limits.
    let big = format!("[{}]", " ".repeat(MAX_BYTES));
    assert_eq!(codes(&big), [("too-large", None)]);
    let many = format!(
        "[{}]",
        vec![r#"{"location":"/x$","tdm-reservation":1}"#; MAX_RULES + 2].join(",")
    );
    let parsed = TdmRep::parse(many.as_bytes());
    assert_eq!(parsed.tdmrep.rules().len(), MAX_RULES);
    assert!(parsed
        .diagnostics
        .iter()
        .any(|d| d.code == Code::TooManyRules && d.rule == Some(MAX_RULES + 1)));
    seen.extend(["too-large", "too-many-rules"]);
    let all: BTreeSet<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(seen, all, "every code has a case");
}

#[test]
fn what_is_not_used_is_not_used() {
    let parsed = TdmRep::parse(
        format!(
            r#"[
                {{"location": "/bad", "tdm-reservation": "yes"}},
                {{"location": "/ok", "tdm-reservation": 1, "tdm-policy": "ftp://x/p"}},
                {{"location": "/{}", "tdm-reservation": 1}},
                {{"location": "/zero", "tdm-reservation": 0, "tdm-policy": "https://a.example/p"}}
            ]"#,
            "a".repeat(MAX_VALUE_BYTES)
        )
        .as_bytes(),
    );
    let file = parsed.tdmrep;
    assert!(
        file.evaluate("/bad").is_none(),
        "an invalid reservation is unset"
    );
    let ok = file.evaluate("/ok").expect("the rule stays");
    assert!(ok.reserved);
    assert_eq!(ok.policy, None, "the invalid policy goes");
    assert!(
        file.evaluate("/aaaa").is_none(),
        "an over-long location goes"
    );
    let zero = file.evaluate("/zero").expect("zero");
    assert_eq!((zero.reserved, zero.policy), (false, None));
    // A byte order mark and whitespace are fine; HTML is not JSON.
    assert!(
        TdmRep::parse(b"\xEF\xBB\xBF [{\"location\":\"/\",\"tdm-reservation\":1}]")
            .diagnostics
            .is_empty()
    );
    assert_eq!(
        codes("<!doctype html><p>Not found"),
        [("invalid-json", None)]
    );
    // Messages quote the file's text escaped.
    let d = &TdmRep::parse(b"[{\"location\":\"x\\u001b[31m\",\"tdm-reservation\":1}]").diagnostics;
    assert!(!d[0].message.contains('\u{1b}'), "{}", d[0].message);
}

#[test]
fn hostile_patterns_cost_bounded_time() {
    // Many stars against a long path that almost matches: the matcher has no recursion and
    // one backtrack point, so this is pattern × path at worst.
    let pattern = format!("/{}b$", "*a".repeat(500));
    let json = format!(r#"[{{"location": "{pattern}", "tdm-reservation": 1}}]"#);
    let file = TdmRep::parse(json.as_bytes()).tdmrep;
    let path = format!("/{}", "a".repeat(4_000));
    assert!(file.evaluate(&path).is_none());
    assert!(file.evaluate(&format!("{path}b")).is_some());
}

/// The codes listed in `docs/tdmrep.md`'s table.
#[test]
fn the_docs_list_every_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/tdmrep.md");
    let page = std::fs::read_to_string(path).expect("docs/tdmrep.md");
    let (_, section) = page
        .split_once("\n## Diagnostics\n")
        .expect("a `## Diagnostics` section");
    let section = section.split("\n## ").next().unwrap_or_default();
    let documented: BTreeSet<&str> = section
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split_once('`'))
        .map(|(code, _)| code)
        .collect();
    let defined: BTreeSet<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(documented, defined);
}

/// The engine: the file fetched per origin on request from a real server, once however many
/// ask, kept fresh, and read through robots.txt's failure ladder.
#[cfg(feature = "fetch")]
mod engine {
    use std::sync::atomic::{AtomicU16, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, SystemTime};

    use crate::support::{Reply, TestServer};
    use crawlgate::engine::{CacheOptions, ManualClock, RobotsCache, TdmReservation};
    use crawlgate::policy::VerdictReason;

    const HOUR: Duration = Duration::from_secs(3600);
    const FILE: &str = r#"[
        {"location": "/directory-a/", "tdm-reservation": 1},
        {"location": "/directory-b/html/", "tdm-reservation": 1,
         "tdm-policy": "https://provider.com/policies/policy.json"},
        {"location": "/directory-b/images/*.jpg", "tdm-reservation": 0}
    ]"#;

    fn engine() -> (RobotsCache, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new(
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
        ));
        let cache =
            RobotsCache::with_clock(CacheOptions::default(), clock.clone()).expect("engine");
        (cache, clock)
    }

    /// A server whose `tdmrep.json` is `FILE` while `status` holds 200, else that status.
    async fn server() -> (TestServer, Arc<AtomicU16>) {
        let status = Arc::new(AtomicU16::new(200));
        let st = status.clone();
        let server =
            TestServer::start(
                move |req| match (req.path.as_str(), st.load(Ordering::SeqCst)) {
                    ("/.well-known/tdmrep.json", 200) => Reply::Full {
                        status: 200,
                        headers: vec![("content-type".into(), "application/json".into())],
                        body: FILE.as_bytes().to_vec(),
                    },
                    ("/.well-known/tdmrep.json", s) => Reply::status(s),
                    _ => Reply::status(404),
                },
            )
            .await;
        (server, status)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_file_is_fetched_once_and_its_rules_answer() {
        let (server, _) = server().await;
        let (cache, clock) = engine();
        let urls: Vec<String> = (0..50)
            .map(|i| server.url(&format!("/directory-b/html/{i}.html")))
            .collect();
        let answers = futures_join(urls.iter().map(|u| cache.tdm(u))).await;
        assert_eq!(server.hits(), 1, "one fetch for 50 concurrent questions");
        for a in answers {
            let a = a.expect("answer");
            assert_eq!(a.reservation, TdmReservation::Reserved);
            assert_eq!(
                a.policy.as_deref(),
                Some("https://provider.com/policies/policy.json")
            );
            assert_eq!(a.rule.as_ref().map(|r| r.number), Some(2));
            assert_eq!(a.reason, VerdictReason::Fetched);
            assert_eq!(a.file_url, server.url("/.well-known/tdmrep.json"));
        }
        assert_eq!(server.requests()[0].path, "/.well-known/tdmrep.json");
        let a = cache
            .tdm(&server.url("/directory-b/images/a.jpg"))
            .await
            .expect("answer");
        assert_eq!(
            (a.reservation, a.policy),
            (TdmReservation::NotReserved, None)
        );
        let a = cache.tdm(&server.url("/other")).await.expect("answer");
        assert_eq!((a.reservation, a.rule), (TdmReservation::Unset, None));
        // Fresh for 24 hours, then fetched again.
        clock.advance(23 * HOUR);
        cache.tdm(&server.url("/x")).await.expect("answer");
        assert_eq!(server.hits(), 1);
        clock.advance(2 * HOUR);
        cache.tdm(&server.url("/x")).await.expect("answer");
        assert_eq!(server.hits(), 2);
    }

    #[tokio::test]
    async fn no_file_failures_and_refusals() {
        let (server, status) = server().await;
        let (cache, clock) = engine();
        let url = server.url("/directory-a/x.pdf");
        // A good file, then failures: 12 hours unknown, then the last good file.
        assert_eq!(
            cache.tdm(&url).await.expect("a").reservation,
            TdmReservation::Reserved
        );
        status.store(503, Ordering::SeqCst);
        clock.advance(25 * HOUR);
        let a = cache.tdm(&url).await.expect("a");
        assert_eq!(a.reservation, TdmReservation::Unknown);
        assert!(matches!(a.reason, VerdictReason::Unreachable { .. }));
        clock.advance(13 * HOUR);
        let a = cache.tdm(&url).await.expect("a");
        assert_eq!(a.reservation, TdmReservation::Reserved);
        assert!(matches!(a.reason, VerdictReason::LastGoodVersion { .. }));
        // No file: unset at once.
        status.store(404, Ordering::SeqCst);
        clock.advance(25 * HOUR);
        let a = cache.tdm(&url).await.expect("a");
        assert_eq!(a.reservation, TdmReservation::Unset);
        assert!(matches!(a.reason, VerdictReason::NoRobotsTxt(_)));
        // A 402: unknown.
        status.store(402, Ordering::SeqCst);
        clock.advance(25 * HOUR);
        let a = cache.tdm(&url).await.expect("a");
        assert_eq!(a.reservation, TdmReservation::Unknown);
        assert!(matches!(a.reason, VerdictReason::PaymentRequired(_)));
        assert!(cache.tdm("ftp://x/").await.is_err());
    }

    /// Runs the futures concurrently on this task and collects their results in order.
    async fn futures_join<F: std::future::Future>(
        futures: impl Iterator<Item = F>,
    ) -> Vec<F::Output> {
        let handles: Vec<_> = futures.map(Box::pin).collect();
        let mut out = Vec::new();
        let mut pending: Vec<Option<std::pin::Pin<Box<F>>>> =
            handles.into_iter().map(Some).collect();
        let mut results: Vec<Option<F::Output>> = (0..pending.len()).map(|_| None).collect();
        std::future::poll_fn(|cx| {
            let mut left = false;
            for (i, f) in pending.iter_mut().enumerate() {
                if let Some(fut) = f {
                    match fut.as_mut().poll(cx) {
                        std::task::Poll::Ready(v) => {
                            results[i] = Some(v);
                            *f = None;
                        }
                        std::task::Poll::Pending => left = true,
                    }
                }
            }
            if left {
                std::task::Poll::Pending
            } else {
                std::task::Poll::Ready(())
            }
        })
        .await;
        out.extend(results.into_iter().flatten());
        out
    }
}
