//! `crawlgate mcp` driven by the official SDK's client (rmcp, `TokioChildProcess`) over the
//! real process's standard input and output, against real robots.txt servers on 127.0.0.1:
//! the tools listed with their output schemas, each tool's answer (its structured content
//! validated against the tool's declared schema, its text a summary and not the JSON again),
//! a disallowed URL, an origin answering 503 (unreachable), a page's whole policy, bad
//! arguments and a private address refused.

use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, ProtocolVersion, Tool};
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

/// The errors of `value` against `schema` (`at` its place), `root` holding the `$defs`: the
/// keywords the tools' output schemas use, and a panic on any other, so that no rule of a
/// schema goes unchecked.
fn violations(root: &Value, schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
    let Some(schema) = schema.as_object() else {
        if schema == &Value::Bool(false) {
            out.push(format!("{at}: nothing is allowed here"));
        }
        return;
    };
    for (keyword, rule) in schema {
        match keyword.as_str() {
            "$schema"
            | "$defs"
            | "title"
            | "description"
            | "format"
            | "default"
            | "examples"
            | "required"
            | "additionalProperties" => {}
            "$ref" => {
                let name = rule.as_str().and_then(|r| r.strip_prefix("#/$defs/"));
                let def = name
                    .and_then(|n| root["$defs"].get(n))
                    .expect("a known $ref");
                violations(root, def, value, at, out);
            }
            "type" => {
                let types: Vec<&str> = match rule {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                    _ => panic!("type {rule}"),
                };
                let is = |t: &str| match t {
                    "null" => value.is_null(),
                    "boolean" => value.is_boolean(),
                    "integer" => value.is_i64() || value.is_u64(),
                    "number" => value.is_number(),
                    "string" => value.is_string(),
                    "array" => value.is_array(),
                    "object" => value.is_object(),
                    other => panic!("type {other}"),
                };
                if !types.iter().any(|t| is(t)) {
                    out.push(format!("{at}: {value} is not {rule}"));
                }
            }
            "const" if value != rule => out.push(format!("{at}: {value} is not {rule}")),
            "enum" if !rule.as_array().is_some_and(|e| e.contains(value)) => {
                out.push(format!("{at}: {value} is not one of {rule}"));
            }
            "const" | "enum" => {}
            "minimum" | "maximum" => {
                let (Some(v), Some(bound)) = (value.as_f64(), rule.as_f64()) else {
                    continue;
                };
                if (keyword == "minimum" && v < bound) || (keyword == "maximum" && v > bound) {
                    out.push(format!("{at}: {v} is out of {keyword} {bound}"));
                }
            }
            "minItems" => {
                let min = rule.as_u64().expect("minItems") as usize;
                if value.as_array().is_some_and(|a| a.len() < min) {
                    out.push(format!("{at}: fewer than {min} items"));
                }
            }
            "properties" => {
                let Some(object) = value.as_object() else {
                    continue;
                };
                let properties = rule.as_object().expect("properties");
                for name in schema
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let name = name.as_str().expect("a required name");
                    if !object.contains_key(name) {
                        out.push(format!("{at}: {name} is missing"));
                    }
                }
                for (name, v) in object {
                    let place = format!("{at}.{name}");
                    match (properties.get(name), schema.get("additionalProperties")) {
                        (Some(p), _) => violations(root, p, v, &place, out),
                        (None, Some(extra)) => violations(root, extra, v, &place, out),
                        (None, None) => {}
                    }
                }
            }
            "items" | "prefixItems" => {
                let Some(items) = value.as_array() else {
                    continue;
                };
                let first = schema.get("prefixItems").and_then(Value::as_array);
                let skip = if keyword == "items" {
                    first.map_or(0, Vec::len)
                } else {
                    0
                };
                for (i, item) in items.iter().enumerate().skip(skip) {
                    let rule = match (keyword.as_str(), rule) {
                        ("prefixItems", Value::Array(each)) => match each.get(i) {
                            Some(r) => r,
                            None => continue,
                        },
                        _ => rule,
                    };
                    violations(root, rule, item, &format!("{at}[{i}]"), out);
                }
            }
            "anyOf" | "oneOf" => {
                let branches = rule.as_array().expect("branches");
                let fits = branches
                    .iter()
                    .filter(|b| {
                        let mut errors = Vec::new();
                        violations(root, b, value, at, &mut errors);
                        errors.is_empty()
                    })
                    .count();
                let ok = if keyword == "oneOf" {
                    fits == 1
                } else {
                    fits >= 1
                };
                if !ok {
                    out.push(format!("{at}: {value} fits {fits} of {keyword} {rule}"));
                }
            }
            "allOf" => {
                for b in rule.as_array().expect("branches") {
                    violations(root, b, value, at, out);
                }
            }
            other => panic!("the schema uses {other:?}, which this validator does not check"),
        }
    }
}

/// `value` is what the tool's output schema says it is.
fn assert_valid(tool: &Tool, value: &Value) {
    let schema = Value::Object(
        tool.output_schema
            .as_deref()
            .cloned()
            .unwrap_or_else(|| panic!("{} has no output schema", tool.name)),
    );
    let mut errors = Vec::new();
    violations(&schema, &schema, value, "$", &mut errors);
    assert!(errors.is_empty(), "{}: {errors:#?}\n{value:#}", tool.name);
}

/// The seconds since 1970 of an RFC 3339 UTC time (`2026-11-20T10:00:00Z`, a fraction
/// dropped).
fn seconds(t: &str) -> i64 {
    let n = |range: std::ops::Range<usize>| -> i64 {
        t.get(range)
            .and_then(|d| d.parse().ok())
            .unwrap_or_else(|| panic!("{t}"))
    };
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    days * 86_400 + n(11..13) * 3600 + n(14..16) * 60 + n(17..19)
}

/// The tools the server lists, by name.
async fn tools(client: &RunningService<RoleClient, ()>) -> std::collections::HashMap<String, Tool> {
    let tools = client.list_tools(None).await.expect("tools/list").tools;
    tools.into_iter().map(|t| (t.name.to_string(), t)).collect()
}

/// The answer's text is a summary for people: one block, not the structured content again.
fn assert_summary_only(r: &CallToolResult) {
    let text = texts(r);
    assert_eq!(text.len(), 1, "{r:?}");
    assert!(
        serde_json::from_str::<Value>(&text[0]).is_err(),
        "the text is JSON: {text:?}"
    );
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
        assert_eq!(
            names,
            [
                "check_url",
                "crawl_policy",
                "explain_robots",
                "robots_report"
            ]
        );
        for t in &tools {
            let required = t.input_schema.get("required").cloned().unwrap_or_default();
            assert_eq!(required, json!(["url"]), "{}", t.name);
            assert!(t.description.as_deref().is_some_and(|d| !d.is_empty()));
            // Every tool says the shape of its answer: an object, its fields closed.
            let output = t.output_schema.as_deref().expect("an output schema");
            assert_eq!(output.get("type"), Some(&json!("object")), "{}", t.name);
            assert_eq!(
                output.get("additionalProperties"),
                Some(&json!(false)),
                "{}",
                t.name
            );
        }
        // The validator the answers go through finds what a schema forbids.
        let schema = Value::Object(tools[0].output_schema.as_deref().cloned().expect("schema"));
        let mut errors = Vec::new();
        let wrong = json!({"type": "check", "allowed": "yes", "extra": 1});
        violations(&schema, &schema, &wrong, "$", &mut errors);
        assert!(errors.iter().any(|e| e.contains("$.allowed")), "{errors:?}");
        assert!(errors.iter().any(|e| e.contains("$.extra")), "{errors:?}");
        assert!(
            errors.iter().any(|e| e.contains("url is missing")),
            "{errors:?}"
        );
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
        // The text is for people: the JSON is not given twice.
        assert_summary_only(&allowed);
        let tools = tools(&client).await;
        assert_valid(&tools["check_url"], a);

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
        assert_valid(&tools["check_url"], d);
        assert_summary_only(&disallowed);
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
        assert_valid(&tools["explain_robots"], e);
        assert_summary_only(&explained);
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
        assert_valid(&tools["robots_report"], r);
        assert_summary_only(&reported);
        // How the agent's requests are paced now: the site's crawl-delay, under the key the
        // permits take; no backoff, no stop.
        let pace = &r["politeness"][0];
        assert_eq!(pace["agent"], "ExampleAgent", "{r:#}");
        assert_eq!(pace["key"], server.url("/").trim_end_matches('/'), "{r:#}");
        assert_eq!((pace["delay"].clone(), pace["reason"].clone()), (json!(2.0), json!("crawl-delay")));
        assert_eq!(pace["backoff"], Value::Null);
        assert_eq!((r["not_before"].clone(), r["next_attempt"].clone()), (Value::Null, Value::Null));
        assert!(texts(&reported)[0].contains("2 s between requests (Crawl-delay: 2 s)"), "{reported:?}");

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
        let tools = tools(&client).await;
        let r = structured(&report);
        assert_valid(&tools["robots_report"], r);
        assert_valid(&tools["check_url"], s);
        assert_valid(&tools["explain_robots"], structured(&e));
        assert_eq!(r["status"], "not-fetched");
        assert_eq!(r["http_status"], 503);
        // The stop and the next try as fields, not only in the sentence: the stop ends 12
        // hours after the failure, the robots.txt is tried again before that.
        let time = |field: &str| {
            seconds(
                r[field]
                    .as_str()
                    .unwrap_or_else(|| panic!("{field}: {r:#}")),
            )
        };
        let (not_before, next_attempt) = (time("not_before"), time("next_attempt"));
        assert_eq!(r["not_before"], r["in_force"]["until"]);
        let last = time("last_fetch");
        assert_eq!(not_before - last, 12 * 3600, "{r:#}");
        assert!(next_attempt > last && next_attempt < not_before, "{r:#}");
        assert!(r["politeness"][0]["agent"] == "ExampleAgent", "{r:#}");
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

/// `crawl_policy`: robots.txt, TDMRep's file and the page's own directives (an X-Robots-Tag
/// header, meta robots) for one URL, in the `policy --json` record and its declared shape.
#[test]
fn crawl_policy_gives_a_pages_whole_policy() {
    let home = tempfile::tempdir().expect("temp dir");
    let rt = support::runtime(2);
    let server = rt.block_on(TestServer::start(|r| match r.path.as_str() {
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
    }));
    rt.block_on(async {
        let client = connect(
            home.path(),
            &["--no-state", "--allow-private", "--agent", "ExampleAgent"],
        )
        .await;
        let tools = tools(&client).await;
        let url = server.url("/private/a");
        let r = call(&client, "crawl_policy", json!({"url": url})).await;
        assert!(!is_error(&r), "{r:?}");
        let p = structured(&r);
        assert_valid(&tools["crawl_policy"], p);
        assert_summary_only(&r);
        assert_eq!(p["type"], "policy");
        assert_eq!(p["agent"], "exampleagent");
        assert_eq!(p["allowed"], false);
        assert_eq!(p["robots"]["rule"], "Disallow: /private");
        assert_eq!(p["edge"], Value::Null);
        assert_eq!(p["tdm"]["reservation"], "reserved");
        assert_eq!(p["tdm"]["policy"], "https://example.com/tdm.json");
        let page = &p["page"];
        assert_eq!(page["status"], 200);
        assert_eq!(
            (
                page["index"].clone(),
                page["archive"].clone(),
                page["noai"].clone()
            ),
            (json!(false), json!(false), json!(true)),
            "{page:#}"
        );
        let sources: Vec<&str> = page["directives"]
            .as_array()
            .expect("directives")
            .iter()
            .filter_map(|d| d["name"].as_str())
            .collect();
        assert_eq!(sources, ["x-robots-tag", "robots", "robots"], "{page:#}");
        // The trap: disallowed, and the page says noindex, which no crawler sees.
        assert_eq!(p["warnings"][0]["code"], "noindex-unseen", "{p:#}");
        let text = &texts(&r)[0];
        assert!(
            text.starts_with(&format!("{url}: disallowed for exampleagent (line 2")),
            "{text}"
        );
        assert!(
            text.contains("tdm: reserved; page: HTTP 200 noindex noai"),
            "{text}"
        );
        assert!(text.contains("warning[noindex-unseen]"), "{text}");

        // Without the page: robots.txt and TDMRep only; the page is not read again.
        let hits = server.hits_on("/public");
        let r = call(
            &client,
            "crawl_policy",
            json!({"url": server.url("/public"), "page": false}),
        )
        .await;
        let p = structured(&r);
        assert_valid(&tools["crawl_policy"], p);
        assert_eq!(
            (p["allowed"].clone(), p["page"].clone()),
            (json!(true), Value::Null)
        );
        assert_eq!(p["tdm"]["reservation"], "unset");
        assert_eq!(server.hits_on("/public"), hits);
        // One robots.txt fetch for both.
        assert_eq!(server.hits_on("/robots.txt"), 1);
        client.cancel().await.expect("close");
    });
}

/// The same private-address rule as the other tools: nothing fetched, robots.txt or page.
#[test]
fn crawl_policy_refuses_private_addresses() {
    let home = tempfile::tempdir().expect("temp dir");
    let rt = support::runtime(2);
    let server = rt.block_on(TestServer::start(|_| Reply::text(200, ROBOTS)));
    rt.block_on(async {
        let client = connect(home.path(), &["--no-state", "--agent", "ExampleAgent"]).await;
        let r = call(&client, "crawl_policy", json!({"url": server.url("/a")})).await;
        assert!(is_error(&r), "{r:?}");
        assert!(texts(&r)[0].contains("--allow-private"), "{r:?}");
        client.cancel().await.expect("close");
    });
    assert_eq!(server.hits(), 0);
}

/// A client of a protocol older than structured content (2025-03-26) reads text only: it
/// gets the JSON as text after the summary, as the specification's compatibility note asks.
#[test]
fn a_client_older_than_structured_content_gets_the_json_as_text() {
    let home = tempfile::tempdir().expect("temp dir");
    let rt = support::runtime(2);
    let server = rt.block_on(TestServer::start(|_| Reply::text(200, ROBOTS)));
    rt.block_on(async {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_crawlgate"));
        cmd.args([
            "mcp",
            "--no-state",
            "--allow-private",
            "--agent",
            "ExampleAgent",
        ])
        .env("XDG_STATE_HOME", home.path())
        .env("HOME", home.path());
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("crawlgate mcp starts");
        let mut info = ClientConfig::default();
        info.protocol_version = ProtocolVersion::V_2025_03_26;
        let client = info.serve(transport).await.expect("the MCP handshake");
        let args = json!({"url": server.url("/public")});
        let Value::Object(args) = args else {
            unreachable!()
        };
        let r = client
            .call_tool(CallToolRequestParams::new("check_url").with_arguments(args))
            .await
            .expect("a tool result");
        let text = texts(&r);
        assert_eq!(text.len(), 2, "{r:?}");
        assert!(text[0].starts_with("allowed: "), "{text:?}");
        let json: Value = serde_json::from_str(&text[1]).expect("the JSON as text");
        assert_eq!(json["answer"], "allowed");
        client.cancel().await.expect("close");
    });
}
