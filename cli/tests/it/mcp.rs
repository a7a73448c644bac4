//! `crawlgate mcp` driven by the official SDK's client (rmcp, `TokioChildProcess`) over the
//! real process's standard input and output, against real robots.txt servers on 127.0.0.1:
//! the tools listed, each tool's answer, a disallowed URL, an origin answering 503
//! (unreachable), bad arguments and a private address refused.

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt as _;
use serde_json::{json, Value};

use crate::support::{self, Reply, TestServer};

/// A client session with `crawlgate mcp ARGS` (`--no-state` unless ARGS say otherwise), in
/// a home of its own, its standard error discarded.
async fn connect(home: &std::path::Path, args: &[&str]) -> RunningService<RoleClient, ()> {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_crawlgate"));
    cmd.arg("mcp")
        .args(args)
        .env_remove("CRAWLGATE_AGENT")
        .env_remove("CRAWLGATE_STATE")
        .env("XDG_STATE_HOME", home)
        .env("HOME", home);
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("crawlgate mcp starts");
    ().serve(transport).await.expect("the MCP handshake")
}

/// Calls `tool` with `args` (a JSON object).
async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &'static str,
    args: Value,
) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
        .await
        .expect("a tool result, not a protocol error")
}

/// The text blocks of a result.
fn texts(r: &CallToolResult) -> Vec<String> {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

fn structured(r: &CallToolResult) -> &Value {
    r.structured_content.as_ref().expect("structured content")
}

fn is_error(r: &CallToolResult) -> bool {
    r.is_error == Some(true)
}

const ROBOTS: &str = "User-agent: *\nDisallow: /private\nCrawl-delay: 2\n\
                      Sitemap: http://example.com/sitemap.xml\nNoindex: /x\n\
                      Request-rate: 1/5s 0600-0845\n";

#[test]
fn tools_are_listed_with_their_arguments() {
    let home = tempfile::tempdir().expect("temp dir");
    support::runtime(2).block_on(async {
        let client = connect(home.path(), &["--no-state"]).await;
        let tools = client.list_tools(None).await.expect("tools/list").tools;
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["check_url", "explain_robots", "robots_report"]);
        for t in &tools {
            let required = t.input_schema.get("required").cloned().unwrap_or_default();
            assert_eq!(required, json!(["url"]), "{}", t.name);
            assert!(t.description.as_deref().is_some_and(|d| !d.is_empty()));
        }
        let check = &tools[0].input_schema["properties"];
        assert!(
            check.get("agent").is_some() && check.get("mode").is_some(),
            "{check}"
        );
        client.cancel().await.expect("close");
    });
}

#[test]
fn check_explain_and_report_from_one_fetch() {
    let home = tempfile::tempdir().expect("temp dir");
    let rt = support::runtime(2);
    let server = rt.block_on(TestServer::start(|_| Reply::text(200, ROBOTS)));
    rt.block_on(async {
        let client = connect(
            home.path(),
            &["--no-state", "--allow-private", "--agent", "ExampleAgent"],
        )
        .await;

        let allowed = call(&client, "check_url", json!({"url": server.url("/public")})).await;
        assert!(!is_error(&allowed), "{allowed:?}");
        let a = structured(&allowed);
        assert_eq!(a["type"], "check");
        assert_eq!(a["answer"], "allowed");
        assert_eq!(a["allowed"], true);
        assert_eq!(a["agent"], "exampleagent");
        assert_eq!(a["verdict"], "rules");
        assert_eq!(a["crawl_delay"], json!({"seconds": 2.0, "line": 3}));
        assert_eq!(
            a["request_rate"],
            json!({"requests": 1, "seconds": 5, "window": "0600-0845", "line": 6})
        );
        // The fields in the order of the CLI's `check --json` record, then the answer.
        let keys: Vec<&str> = a.as_object().expect("object").keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "type",
                "url",
                "judged_url",
                "agent",
                "allowed",
                "decided_by",
                "line",
                "rule",
                "group",
                "robots_txt",
                "verdict",
                "reason",
                "reason_text",
                "agents",
                "crawl_delay",
                "request_rate",
                "usage",
                "answer"
            ]
        );
        assert_eq!(a["robots_txt"], server.url("/robots.txt"));
        let text = texts(&allowed);
        assert!(text[0].starts_with("allowed: "), "{text:?}");
        assert!(
            text[0].contains("crawl-delay 2 s; request-rate 1/5 s (0600-0845 UTC)"),
            "{text:?}"
        );
        // The same JSON as text, for clients that read text only.
        assert_eq!(
            serde_json::from_str::<Value>(&text[1]).ok().as_ref(),
            Some(a)
        );

        let url = server.url("/private/a");
        let disallowed = call(
            &client,
            "check_url",
            json!({"url": url, "agent": "OtherBot"}),
        )
        .await;
        assert!(!is_error(&disallowed), "{disallowed:?}");
        let d = structured(&disallowed);
        assert_eq!(d["answer"], "disallowed");
        assert_eq!(d["allowed"], false);
        assert_eq!(d["agent"], "otherbot");
        assert_eq!(
            (d["line"].clone(), d["rule"].clone()),
            (json!(2), json!("Disallow: /private"))
        );
        assert_eq!(d["decided_by"], "rule");
        let text = texts(&disallowed);
        assert_eq!(
            text[0],
            format!("disallowed: {url} for otherbot (line 2: Disallow: /private); crawl-delay 2 s; request-rate 1/5 s (0600-0845 UTC)")
        );

        // Google's parser: the same file, the other mode.
        let google = call(
            &client,
            "check_url",
            json!({"url": server.url("/private"), "mode": "google"}),
        )
        .await;
        assert_eq!(structured(&google)["answer"], "disallowed", "{google:?}");

        // A control character of the URL is escaped in the text; the JSON keeps it.
        let odd = format!("{}?q=\u{1b}[2J", server.url("/public"));
        let escaped = call(&client, "check_url", json!({"url": odd})).await;
        assert!(!texts(&escaped)[0].contains('\u{1b}'), "{escaped:?}");
        assert!(texts(&escaped)[0].contains("\\u{1b}"), "{escaped:?}");
        assert_eq!(structured(&escaped)["url"], odd.as_str());

        let explained = call(
            &client,
            "explain_robots",
            json!({"url": server.url("/private/b")}),
        )
        .await;
        assert!(!is_error(&explained), "{explained:?}");
        let e = structured(&explained);
        assert_eq!(e["explain"]["type"], "explain");
        assert_eq!(e["explain"]["group"], "star");
        assert_eq!(e["explain"]["rules"][0]["rule"], "Disallow: /private");
        assert_eq!(e["explain"]["crawl_delay"]["seconds"], 2.0);
        assert_eq!(
            e["explain"]["sitemaps"][0]["url"],
            "http://example.com/sitemap.xml"
        );
        assert_eq!(e["check"]["allowed"], false);
        let problems = e["problems"].as_array().expect("problems");
        assert!(
            problems
                .iter()
                .any(|p| p["type"] == "problem" && p["line"] == 5),
            "{problems:?}"
        );

        let reported = call(&client, "robots_report", json!({"url": server.url("/")})).await;
        assert!(!is_error(&reported), "{reported:?}");
        let r = structured(&reported);
        assert_eq!(r["type"], "report");
        assert_eq!(r["robots_txt"], server.url("/robots.txt"));
        assert_eq!(r["status"], "fetched");
        assert_eq!(r["http_status"], 200);
        assert_eq!(r["versions"].as_array().map(Vec::len), Some(1));

        // One robots.txt fetch for the origin, whichever mode asks: both engines read the one
        // state.
        assert_eq!(server.hits_on("/robots.txt"), 1);
        client.cancel().await.expect("close");
    });
}

#[test]
fn an_origin_answering_503_is_unreachable_a_tool_error() {
    let home = tempfile::tempdir().expect("temp dir");
    let rt = support::runtime(2);
    let server = rt.block_on(TestServer::start(|_| Reply::status(503)));
    rt.block_on(async {
        let client = connect(
            home.path(),
            &["--no-state", "--allow-private", "--agent", "ExampleAgent"],
        )
        .await;
        let r = call(&client, "check_url", json!({"url": server.url("/a")})).await;
        assert!(is_error(&r), "{r:?}");
        let s = structured(&r);
        assert_eq!(s["answer"], "unreachable");
        assert_eq!(s["allowed"], false);
        assert_eq!(s["verdict"], "disallow-all");
        assert!(texts(&r)[0].contains("do not fetch"), "{r:?}");

        let e = call(&client, "explain_robots", json!({"url": server.url("/")})).await;
        assert!(is_error(&e), "{e:?}");
        assert_eq!(structured(&e)["explain"]["verdict"], "disallow-all");

        // The report is an answer: the robots.txt is not fetched, and why.
        let report = call(&client, "robots_report", json!({"url": server.url("/")})).await;
        assert!(!is_error(&report), "{report:?}");
        assert_eq!(structured(&report)["status"], "not-fetched");
        assert_eq!(structured(&report)["http_status"], 503);
        client.cancel().await.expect("close");
    });
}

#[test]
fn bad_arguments_are_tool_errors() {
    let home = tempfile::tempdir().expect("temp dir");
    support::runtime(2).block_on(async {
        // No --agent: each call must name one.
        let client = connect(home.path(), &["--no-state", "--allow-private"]).await;
        let cases = [
            ("check_url", json!({"agent": "a"}), "url"),
            (
                "check_url",
                json!({"url": "http://127.0.0.1:9/"}),
                "no agent",
            ),
            (
                "check_url",
                json!({"url": "ftp://example.com/", "agent": "a"}),
                "url:",
            ),
            (
                "check_url",
                json!({"url": "not a url", "agent": "a"}),
                "url:",
            ),
            (
                "check_url",
                json!({"url": "http://127.0.0.1:9/", "agent": "a", "mode": "bing"}),
                "bing",
            ),
            (
                "explain_robots",
                json!({"url": 7, "agent": "a"}),
                "invalid type",
            ),
            ("robots_report", json!({}), "url"),
            (
                "robots_report",
                json!({"url": "mailto:a@example.com"}),
                "url:",
            ),
        ];
        for (tool, args, says) in cases {
            let r = call(&client, tool, args.clone()).await;
            assert!(is_error(&r), "{tool} {args}: {r:?}");
            assert!(texts(&r).join("\n").contains(says), "{tool} {args}: {r:?}");
        }
        // An unknown tool is the protocol's error.
        let unknown = client
            .call_tool(CallToolRequestParams::new("fetch_page"))
            .await;
        assert!(unknown.is_err(), "{unknown:?}");
        client.cancel().await.expect("close");
    });
}

#[test]
fn private_addresses_are_refused_without_allow_private() {
    let home = tempfile::tempdir().expect("temp dir");
    let rt = support::runtime(2);
    let server = rt.block_on(TestServer::start(|_| Reply::text(200, ROBOTS)));
    rt.block_on(async {
        let client = connect(home.path(), &["--no-state", "--agent", "ExampleAgent"]).await;
        for url in [
            server.url("/a"),
            "http://localhost/".to_owned(),
            "http://[::1]/".to_owned(),
            "http://10.0.0.1/".to_owned(),
        ] {
            let r = call(&client, "check_url", json!({"url": url})).await;
            assert!(is_error(&r), "{url}: {r:?}");
            assert!(texts(&r)[0].contains("--allow-private"), "{url}: {r:?}");
        }
        assert_eq!(server.hits(), 0);
        client.cancel().await.expect("close");
    });
}

#[test]
fn the_fetches_are_recorded_in_the_crawl_state() {
    let home = tempfile::tempdir().expect("temp dir");
    let state = home.path().join("state.redb");
    let state = state.to_str().expect("a UTF-8 path");
    let rt = support::runtime(2);
    let server = rt.block_on(TestServer::start(|_| Reply::text(200, ROBOTS)));
    rt.block_on(async {
        let args = [
            "--state",
            state,
            "--allow-private",
            "--agent",
            "ExampleAgent",
        ];
        let client = connect(home.path(), &args).await;
        let r = call(&client, "check_url", json!({"url": server.url("/private")})).await;
        assert_eq!(structured(&r)["answer"], "disallowed", "{r:?}");
        client.cancel().await.expect("close");
        // Another session on the same state answers without fetching again.
        let client = connect(home.path(), &args).await;
        let r = call(&client, "check_url", json!({"url": server.url("/x")})).await;
        assert_eq!(structured(&r)["answer"], "allowed", "{r:?}");
        assert_eq!(structured(&r)["reason"], "fetched", "{r:?}");
        client.cancel().await.expect("close");
    });
    assert_eq!(server.hits_on("/robots.txt"), 1);
    // And the other commands read what it recorded.
    let out = crate::run::command(
        home.path(),
        &["history", "--json", "--state", state, &server.url("/")],
    )
    .output()
    .expect("run crawlgate history");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let history = String::from_utf8_lossy(&out.stdout);
    assert!(history.contains("\"type\":\"version\""), "{history}");
}
