//! Exit statuses as a CI job reads them: "blocked by a rule" and "the site is down" are
//! different answers, against a real server on 127.0.0.1 and a closed port.
use std::process::{Command, Stdio};

use crate::support::{self, Reply, TestServer};

/// The harness script of docs/cli.md ("Exit status"): asserts that `$1` is blocked.
const HARNESS: &str = r#"
crawlgate check --no-state --agent Googlebot "$1"
case $? in
  1) echo "ok: $1 is blocked" ;;
  0) echo "FAIL: $1 is allowed"; exit 1 ;;
  3) echo "FAIL: robots.txt could not be read: is the site down?"; exit 3 ;;
  *) echo "FAIL: crawlgate could not check"; exit 2 ;;
esac
"#;

/// Runs the harness on `url` with the binary first on `PATH`, a state of its own.
fn harness(url: &str) -> (Option<i32>, String) {
    let state = tempfile::tempdir().expect("temp dir");
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_crawlgate"))
        .parent()
        .expect("the binary's directory")
        .to_owned();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new("bash")
        .args(["-c", HARNESS, "harness", url])
        .env("PATH", path)
        .env_remove("CRAWLGATE_AGENT")
        .env_remove("CRAWLGATE_STATE")
        .env("XDG_STATE_HOME", state.path())
        .env("HOME", state.path())
        .stdin(Stdio::null())
        .output()
        .expect("run bash");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn blocked_and_site_down_are_different_statuses() {
    let rt = support::runtime(1);
    let server = rt.block_on(TestServer::start(|_| {
        Reply::text(200, "User-agent: *\nDisallow: /admin\n")
    }));
    let blocked = server.url("/admin");
    let (code, out) = harness(&blocked);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.starts_with(&format!(
            "disallowed\t{blocked}\tline 2: Disallow: /admin\n"
        )),
        "{out}"
    );
    assert!(
        out.ends_with(&format!("ok: {blocked} is blocked\n")),
        "{out}"
    );

    let closed = rt.block_on(support::refused_addr());
    let down = format!("http://{closed}/admin");
    let (code, out) = harness(&down);
    assert_eq!(code, Some(3), "{out}");
    assert!(
        out.starts_with(&format!("unreachable\t{down}\trobots.txt unreachable (")),
        "{out}"
    );
    assert!(out.contains("could not be read"), "{out}");
}

#[test]
fn a_disallow_by_the_failure_rules_is_status_3_in_json_too() {
    let rt = support::runtime(1);
    let server = rt.block_on(TestServer::start(|_| Reply::status(503)));
    let url = server.url("/a");
    let state = tempfile::tempdir().expect("temp dir");
    let o = Command::new(env!("CARGO_BIN_EXE_crawlgate"))
        .args(["check", "--no-state", "--json", "--agent", "MyBot", &url])
        .env_remove("CRAWLGATE_AGENT")
        .env("XDG_STATE_HOME", state.path())
        .env("HOME", state.path())
        .stdin(Stdio::null())
        .output()
        .expect("run crawlgate");
    assert_eq!(o.status.code(), Some(3));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines[0]["allowed"], false);
    assert_eq!(lines[0]["decided_by"], "policy");
    assert_eq!(lines[1]["exit"], 3);
    // explain: the same status.
    let o = Command::new(env!("CARGO_BIN_EXE_crawlgate"))
        .args(["explain", "--no-state", "--agent", "MyBot", &url])
        .env_remove("CRAWLGATE_AGENT")
        .env("XDG_STATE_HOME", state.path())
        .env("HOME", state.path())
        .stdin(Stdio::null())
        .output()
        .expect("run crawlgate");
    assert_eq!(o.status.code(), Some(3));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(&format!(
            "  unreachable\t{url}\trobots.txt unreachable (HTTP 503)"
        )),
        "{out}"
    );
}
