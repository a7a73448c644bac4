//! The CLI's lasting crawl state (`--state`, `--no-state`, `history`, `recrawl`), through the
//! real binary, against real servers on 127.0.0.1 (and a real redis-server). Every test points
//! HOME and XDG_STATE_HOME at its own temporary directory, so the user's state is never touched.
use crate::support;
use crate::support::assert_has;
#[cfg(feature = "redis")]
use crate::support::redis_server;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::run::{self, assert_exit, text, values as json_lines};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::{Reply, TestServer};
use crawlgate::policy::Digest;
use serde_json::Value;

const BODY: &str = "User-agent: *\nDisallow: /private\n";

/// A private home for one test: the default state lands under it, never in the real one.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// A path in the temp dir (for `--state`).
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Where the state goes with neither --state nor --no-state.
    fn default_state(&self) -> PathBuf {
        self.path("xdg").join("crawlgate").join("state.redb")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = run::command(&self.path("xdg"), args);
        c.env("HOME", self.path("home"));
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("run crawlgate")
    }

    /// Every file under the temp dir.
    fn files(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, found);
                } else {
                    found.push(path);
                }
            }
        }
        let mut found = Vec::new();
        walk(self.dir.path(), &mut found);
        found
    }
}

fn short(body: &str) -> String {
    Digest::of(body.as_bytes()).short()
}

fn full(body: &str) -> String {
    Digest::of(body.as_bytes()).to_string()
}

/// A server whose robots.txt body can be changed between requests.
fn changing_server(rt: &tokio::runtime::Runtime, body: &str) -> (TestServer, Arc<Mutex<String>>) {
    let current = Arc::new(Mutex::new(body.to_owned()));
    let c = current.clone();
    let server = rt.block_on(TestServer::start(move |_| {
        Reply::text(200, &c.lock().expect("body lock"))
    }));
    (server, current)
}

#[test]
fn fetch_is_recorded_and_check_answers_from_the_state() {
    let home = Home::new();
    let (_rt, server) = support::serve_blocking(|_| Reply::text(200, BODY));
    let state = home.path("state.redb");
    let state = state.to_str().expect("UTF-8 path");
    let url = server.url("/");

    let o = home.run(&["fetch", "--state", state, &url]);
    assert_exit(&o, 0);
    assert_eq!(server.hits(), 1);
    let out = text(&o.stdout);
    assert_has(&out, "  status:    200\n");
    assert_has(&out, &format!("  version:   new ({})\n", short(BODY)));
    assert_has(&out, "  verdict:   rules (robots.txt fetched)\n");

    let o = home.run(&["history", "--state", state, &url]);
    assert_exit(&o, 0);
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], server.url("/robots.txt"), "{out}");
    assert!(
        lines[1].ends_with(&format!(
            "Z  200  fetched  {} bytes  no problems  {}",
            BODY.len(),
            short(BODY)
        )),
        "{out}"
    );
    assert_eq!(lines[2], "    in force: robots.txt fetched", "{out}");
    assert_eq!(lines[3], "  verdict:       rules", "{out}");
    assert!(lines[4].starts_with("  next fetch:    "), "{out}");
    assert_eq!(server.hits(), 1, "history never fetches");

    let o = home.run(&["history", "--json", "--state", state, &url]);
    assert_exit(&o, 0);
    let v = json_lines(&o);
    assert_eq!(v.len(), 3, "{v:?}");
    assert_eq!(v[0]["type"], "version");
    assert_eq!(v[0]["origin"], server.url(""));
    assert_eq!(v[0]["robots_txt"], server.url("/robots.txt"));
    assert_eq!(v[0]["status"], 200);
    assert_eq!(v[0]["outcome"], "fetched");
    assert_eq!(v[0]["size"], BODY.len());
    assert_eq!(v[0]["digest"], full(BODY));
    assert_eq!(v[0]["count"], 1);
    assert_eq!(v[0]["in_force"], true);
    assert_eq!(v[1]["type"], "origin");
    assert_eq!(v[1]["robots_txt"], server.url("/robots.txt"));
    assert_eq!(v[1]["verdict"], "rules");
    assert_eq!(v[1]["reason"], "fetched");
    assert_eq!(v[1]["reason_text"], "robots.txt fetched");
    assert_eq!(v[1]["digest"], full(BODY));
    assert_eq!(v[1]["failing_since"], Value::Null);
    assert_eq!(v[1]["dormant"], false);
    assert_eq!(v[2]["type"], "summary");
    assert_eq!(v[2]["command"], "history");
    assert_eq!(
        (&v[2]["origins"], &v[2]["exit"]),
        (&Value::from(1), &Value::from(0))
    );

    // Another process on the same state: answered from it, no request.
    let o = home.run(&[
        "check",
        "--state",
        state,
        "--agent",
        "MyBot",
        &server.url("/private/x"),
        &server.url("/public"),
    ]);
    assert_exit(&o, 1);
    assert_eq!(
        text(&o.stdout),
        format!(
            "disallowed\t{}\tline 2: Disallow: /private\nallowed\t{}\n",
            server.url("/private/x"),
            server.url("/public")
        )
    );
    assert_eq!(
        server.hits(),
        1,
        "check fetched although the state is fresh"
    );
}

#[test]
fn a_503_after_a_good_version_is_a_new_version_and_stops_crawling() {
    let home = Home::new();
    let served = Arc::new(AtomicUsize::new(0));
    let s = served.clone();
    let (_rt, server) = support::serve_blocking(move |_| {
        if s.fetch_add(1, Ordering::SeqCst) == 0 {
            Reply::text(200, BODY)
        } else {
            Reply::status(503)
        }
    });
    let state = home.path("state.redb");
    let state = state.to_str().expect("UTF-8 path");
    let url = server.url("/");

    assert_exit(&home.run(&["fetch", "--state", state, &url]), 0);
    let o = home.run(&["fetch", "--state", state, &url]);
    assert_exit(&o, 1);
    let out = text(&o.stdout);
    assert_has(&out, "  outcome:   unreachable (HTTP 503)\n");
    assert_has(&out, "  version:   new\n");
    // The verdict comes from the state's ladder: the first 12 hours of a failure stop crawling
    // (after them the good version before it would be in force).
    // The verdict says until when crawling stops and when robots.txt is tried again.
    let verdict = out
        .lines()
        .find_map(|l| {
            l.strip_prefix("  verdict:   disallow-all (robots.txt unreachable (HTTP 503): ")
        })
        .unwrap_or_else(|| panic!("{out}"));
    let (until, next) = verdict
        .trim_end_matches(')')
        .strip_prefix("not crawling until ")
        .and_then(|v| v.split_once(", next attempt "))
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(until.len(), "2026-01-01T00:00:00Z".len(), "{out}");
    assert!(
        next < until,
        "the next attempt comes before the stop ends: {out}"
    );
    assert_has(&out, "  next:      ");

    let o = home.run(&["history", "--state", state, &url]);
    assert_exit(&o, 0);
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[1].contains("  200  fetched  "), "{out}");
    assert!(
        lines[2].ends_with("Z  503  unreachable (HTTP 503)"),
        "{out}"
    );
    assert!(
        lines[3]
            .starts_with("    in force: robots.txt unreachable (HTTP 503): not crawling until ")
            && lines[3].contains("Z, next attempt "),
        "{out}"
    );
    assert_eq!(lines[4], "  verdict:       disallow-all", "{out}");
    assert!(lines[5].starts_with("  failing since: "), "{out}");
    assert_eq!(out.matches("in force").count(), 1, "{out}");

    let o = home.run(&["history", "--json", "--state", state, &url]);
    let v = json_lines(&o);
    assert_eq!(v.len(), 4, "{v:?}");
    assert_eq!(
        (v[0]["digest"].clone(), v[0]["in_force"].clone()),
        (Value::from(full(BODY)), Value::from(false))
    );
    assert_eq!(v[1]["status"], 503);
    assert_eq!(v[1]["outcome"], "unreachable");
    assert_eq!(v[1]["cause"], "HTTP 503");
    assert_eq!(v[1]["in_force"], true);
    assert_eq!(v[2]["verdict"], "disallow-all");
    assert_eq!(v[2]["reason"], "unreachable");
    assert_eq!(v[2]["digest"], Value::Null);
    assert_eq!(v[2]["failing_since"], v[1]["first_at"]);
}

#[test]
fn recrawl_fetches_once_and_records_a_changed_file() {
    let rt = support::runtime(1);
    let home = Home::new();
    let (server, body) = changing_server(&rt, BODY);
    let state = home.path("state.redb");
    let state = state.to_str().expect("UTF-8 path");
    let url = server.url("/");
    assert_exit(&home.run(&["fetch", "--state", state, &url]), 0);
    assert_eq!(server.hits(), 1);

    let fixed = "User-agent: *\nDisallow: /private\nAllow: /private/ok\n";
    *body.lock().expect("body lock") = fixed.to_owned();
    let o = home.run(&["recrawl", "--state", state, &url]);
    assert_exit(&o, 0);
    assert_eq!(server.hits(), 2, "recrawl makes exactly one request");
    assert_eq!(
        text(&o.stdout),
        format!(
            "{}\n  result:    200 fetched\n  version:   new ({})\n  verdict:   rules (robots.txt fetched)\n",
            server.url(""),
            short(fixed)
        )
    );

    let o = home.run(&["history", "--json", "--state", state, &url]);
    let v = json_lines(&o);
    assert_eq!(v.len(), 4, "{v:?}");
    assert_eq!(v[0]["digest"], full(BODY));
    assert_eq!(v[1]["digest"], full(fixed));
    assert_eq!(v[1]["in_force"], true);
    assert_eq!(v[2]["digest"], full(fixed));

    // The same file again: one more request, no new version.
    let o = home.run(&["recrawl", "--json", "--state", state, &url]);
    assert_exit(&o, 0);
    assert_eq!(server.hits(), 3);
    let v = json_lines(&o);
    assert_eq!(v[0]["type"], "fetch");
    assert_eq!(v[0]["origin"], server.url(""));
    assert_eq!(v[0]["new_version"], false);
    assert_eq!(v[1]["type"], "summary");
    assert_eq!(v[1]["command"], "recrawl");
    assert_eq!(v[0]["digest"], full(fixed));
    // What `check` answers now comes from the new file, without a fetch.
    let o = home.run(&[
        "check",
        "--state",
        state,
        "--agent",
        "MyBot",
        &server.url("/private/ok"),
    ]);
    assert_exit(&o, 0);
    assert_eq!(server.hits(), 3);
}

#[test]
fn no_state_writes_nothing_and_the_default_is_the_state_home() {
    let home = Home::new();
    let (_rt, server) = support::serve_blocking(|_| Reply::text(200, BODY));
    let url = server.url("/");

    let o = home.run(&["fetch", "--no-state", &url]);
    assert_exit(&o, 0);
    let o = home.run(&["check", "--no-state", "--agent", "MyBot", &url]);
    assert_exit(&o, 0);
    assert_eq!(server.hits(), 2, "nothing was kept between the runs");
    assert_eq!(home.files(), Vec::<PathBuf>::new());

    // Neither flag: $XDG_STATE_HOME/crawlgate/state.redb, which the next run reads.
    assert_exit(&home.run(&["fetch", &url]), 0);
    assert!(home.default_state().is_file(), "{:?}", home.files());
    assert_exit(&home.run(&["check", "--agent", "MyBot", &url]), 0);
    assert_eq!(server.hits(), 3);
    let o = home.run(&["history", &url]);
    assert_exit(&o, 0);
    assert!(text(&o.stdout).contains("  200  fetched  "));

    // CRAWLGATE_STATE names it too, and --no-state overrides it.
    let elsewhere = home.path("elsewhere.redb");
    let o = home
        .command(&["check", "--no-state", "--agent", "MyBot", &url])
        .env("CRAWLGATE_STATE", &elsewhere)
        .output()
        .expect("run crawlgate");
    assert_exit(&o, 0);
    assert!(!elsewhere.exists());
    let o = home
        .command(&["fetch", &url])
        .env("CRAWLGATE_STATE", &elsewhere)
        .output()
        .expect("run crawlgate");
    assert_exit(&o, 0);
    assert!(elsewhere.is_file());

    // Both flags: a usage error.
    let both = home.path("both.redb");
    let both = both.to_str().expect("UTF-8 path");
    let o = home.run(&["fetch", "--no-state", "--state", both, &url]);
    assert_exit(&o, 2);
    assert!(text(&o.stderr).contains("cannot be used with"));
    assert!(!Path::new(both).exists());

    // No home at all: a sentence, not a guess.
    let o = home
        .command(&["fetch", &url])
        .env_remove("HOME")
        .env_remove("XDG_STATE_HOME")
        .output()
        .expect("run crawlgate");
    assert_exit(&o, 2);
    assert_eq!(
        text(&o.stderr),
        "crawlgate: no home directory to keep the crawl state in: give --state PATH, or --no-state\n"
    );
}

#[test]
fn history_of_an_unknown_origin_says_so() {
    let home = Home::new();
    let (_rt, server) = support::serve_blocking(|_| Reply::text(200, BODY));
    let state = home.path("state.redb");
    let state = state.to_str().expect("UTF-8 path");

    // Nothing recorded anywhere: the file is not created just to be found empty.
    let o = home.run(&["history", "--state", state, "http://127.0.0.1:1/a"]);
    assert_exit(&o, 2);
    assert_eq!(
        text(&o.stderr),
        format!(
            "crawlgate: nothing recorded for http://127.0.0.1:1 in {state} (fetch it first: crawlgate fetch http://127.0.0.1:1/)\n"
        )
    );
    assert!(!Path::new(state).exists());

    // One known, one not: the known one is still shown.
    assert_exit(&home.run(&["fetch", "--state", state, &server.url("/")]), 0);
    let o = home.run(&[
        "history",
        "--state",
        state,
        "http://127.0.0.1:1/a",
        &server.url("/x"),
    ]);
    assert_exit(&o, 2);
    assert!(text(&o.stderr).starts_with("crawlgate: nothing recorded for http://127.0.0.1:1 "));
    assert!(text(&o.stdout).starts_with(&format!("{}\n", server.url("/robots.txt"))));
}

#[test]
fn two_processes_on_one_state_file() {
    let home = Home::new();
    // Slow enough that the two runs overlap.
    let (_rt, server) = support::serve_blocking(|_| {
        Reply::Delayed(Duration::from_millis(700), Box::new(Reply::text(200, BODY)))
    });
    let state = home.path("state.redb");
    let state = state.to_str().expect("UTF-8 path");
    let url = server.url("/");
    let children: Vec<_> = (0..2)
        .map(|_| {
            home.command(&["fetch", "--state", state, &url])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn crawlgate")
        })
        .collect();
    let mut succeeded = 0usize;
    for child in children {
        let o = child.wait_with_output().expect("wait for crawlgate");
        let err = text(&o.stderr);
        assert!(!err.contains("panicked"), "{err}");
        match o.status.code() {
            Some(0) => succeeded += 1,
            Some(2) => assert_eq!(
                err,
                format!("crawlgate: the state store {state} is in use by another process (use another --state, or --no-state)\n")
            ),
            _ => panic!("unexpected exit: {:?}\n{err}", o.status),
        }
    }
    assert!(succeeded >= 1);
    // The file is whole and holds every fetch that ran.
    let o = home.run(&["history", "--json", "--state", state, &url]);
    assert_exit(&o, 0);
    let v = json_lines(&o);
    assert_eq!(v[0]["count"], succeeded, "{v:?}");
    assert_eq!(server.hits(), succeeded);
}

#[test]
fn a_state_file_held_by_another_process_is_one_sentence() {
    let home = Home::new();
    let (_rt, server) = support::serve_blocking(|_| Reply::text(200, BODY));
    let path = home.path("state.redb");
    let state = path.to_str().expect("UTF-8 path");
    // This test process holds the file for longer than the CLI waits (5 s).
    let held = crawlgate::store::EmbeddedStore::open(&path).expect("open the state file");
    let o = home.run(&["fetch", "--state", state, &server.url("/")]);
    drop(held);
    assert_exit(&o, 2);
    assert_eq!(
        text(&o.stderr),
        format!("crawlgate: the state store {state} is in use by another process (use another --state, or --no-state)\n")
    );
    assert_eq!(
        server.hits(),
        0,
        "nothing is fetched without a state to record it in"
    );
}

#[test]
fn a_state_that_cannot_be_opened_is_one_sentence() {
    let home = Home::new();
    let (_rt, server) = support::serve_blocking(|_| Reply::text(200, BODY));
    let url = server.url("/");

    let o = home.run(&["fetch", "--state", "redis://127.0.0.1:1/", &url]);
    assert_exit(&o, 2);
    let err = text(&o.stderr);
    assert!(
        err.starts_with("crawlgate: cannot open the state store redis://127.0.0.1:1/: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");

    // A file that is not a state file is refused, and left as it was.
    let junk = home.path("junk.redb");
    std::fs::write(&junk, "not a database\n").expect("write junk");
    let junk_arg = junk.to_str().expect("UTF-8 path");
    for args in [
        vec!["check", "--agent", "MyBot", "--state", junk_arg, &url],
        vec!["history", "--state", junk_arg, &url],
    ] {
        let o = home.run(&args);
        assert_exit(&o, 2);
        let err = text(&o.stderr);
        assert!(
            err.starts_with(&format!(
                "crawlgate: cannot open the state store {junk_arg}: "
            )),
            "{err}"
        );
        assert_has(&err, "not a crawlgate state file");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert_eq!(
        std::fs::read_to_string(&junk).expect("read junk"),
        "not a database\n"
    );
    assert_eq!(server.hits(), 0);
}

#[test]
fn site_text_is_escaped_in_human_output() {
    let home = Home::new();
    let (_rt, server) =
        support::serve_blocking(|_| Reply::text(200, "User-agent: *\nDisallow: /p\x1b[2J\n"));
    let state = home.path("state.redb");
    let state = state.to_str().expect("UTF-8 path");
    let o = home.run(&[
        "check",
        "--state",
        state,
        "--agent",
        "MyBot",
        &server.url("/p%1B%5B2J"),
    ]);
    assert_exit(&o, 1);
    let out = text(&o.stdout);
    assert!(!out.contains('\x1b'), "{out:?}");
    assert!(out.ends_with("line 2: Disallow: /p\\u{1b}[2J\n"), "{out:?}");
}

#[cfg(feature = "redis")]
#[test]
fn a_redis_state_end_to_end() {
    let redis = redis_server::RedisServer::start();
    let rt = support::runtime(1);
    let home = Home::new();
    let (server, body) = changing_server(&rt, BODY);
    let state = redis.url();
    let url = server.url("/");

    assert_exit(&home.run(&["fetch", "--state", &state, &url]), 0);
    assert_eq!(server.hits(), 1);
    let o = home.run(&["history", "--json", "--state", &state, &url]);
    assert_exit(&o, 0);
    let v = json_lines(&o);
    assert_eq!(v[0]["digest"], full(BODY));
    assert_eq!(v[1]["verdict"], "rules");

    let o = home.run(&[
        "check",
        "--state",
        &state,
        "--agent",
        "MyBot",
        &server.url("/private"),
    ]);
    assert_exit(&o, 1);
    assert_eq!(
        server.hits(),
        1,
        "check fetched although the shared state is fresh"
    );

    let fixed = "User-agent: *\nAllow: /\n";
    *body.lock().expect("body lock") = fixed.to_owned();
    let o = home.run(&["recrawl", "--state", &state, &url]);
    assert_exit(&o, 0);
    assert_eq!(server.hits(), 2);
    assert!(text(&o.stdout).contains(&format!("  version:   new ({})\n", short(fixed))));
    let o = home.run(&["history", "--state", &state, &url]);
    assert_exit(&o, 0);
    assert_eq!(text(&o.stdout).matches("  200  fetched  ").count(), 2);
    // Nothing was written to the default state file.
    assert_eq!(home.files(), Vec::<PathBuf>::new());
}

/// The binary with `args` as [`Home::command`] runs it, but through `sh -c 'ulimit -f BLOCKS;
/// exec …'` (blocks of 512 bytes, as `sh` counts them), its output through pipes.
#[cfg(unix)]
fn under_file_size_limit(home: &Home, blocks: u32, args: &[&str]) -> Output {
    let cmd = home.command(args);
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(format!("ulimit -f {blocks}; exec \"$@\""))
        .arg("sh")
        .arg(cmd.get_program())
        .args(cmd.get_args());
    if let Some(dir) = cmd.get_current_dir() {
        sh.current_dir(dir);
    }
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => sh.env(k, v),
            None => sh.env_remove(k),
        };
    }
    sh.stdin(Stdio::null()).output().expect("run sh")
}

/// A state file that reaches the file-size limit: a clear error and exit 2, not a death by
/// SIGXFSZ (exit 153, no message); no 0-byte file left when even the first write failed; and
/// the file as it was before the write that failed still opens and is used.
#[cfg(unix)]
#[test]
fn a_state_file_that_cannot_grow_is_a_clear_error() {
    let home = Home::new();
    // A robots.txt of 470 KB: its write needs the file to grow past 1 MB.
    let big: String = std::iter::once("User-agent: *\n".to_owned())
        .chain((0..8000).map(|i| format!("Disallow: /p/{i}/{}\n", "x".repeat(40))))
        .collect();
    let (_rt, server) = support::serve_blocking(move |_| Reply::text(200, &big));
    let url = server.url("/");

    // No room even for the file's header: nothing is left behind.
    let state = home.path("zero.redb");
    let state_arg = state.to_str().expect("UTF-8 path");
    let o = under_file_size_limit(&home, 0, &["fetch", "--state", state_arg, &url]);
    assert_exit(&o, 2);
    let err = text(&o.stderr);
    assert_has(&err, "the state file cannot grow");
    assert!(
        !state.exists(),
        "a failed first write leaves no 0-byte state file"
    );

    // Room for the file, not for the body: the fetch is printed, the change is reported lost.
    let state = home.path("small.redb");
    let state_arg = state.to_str().expect("UTF-8 path");
    let o = under_file_size_limit(&home, 1000, &["fetch", "--state", state_arg, &url]);
    assert_exit(&o, 2);
    let err = text(&o.stderr);
    assert_has(&err, "could not be written to the state store");
    assert_has(&err, "the state file cannot grow");
    assert_eq!(server.hits(), 1);

    // With room again, the same file is used.
    let o = home.run(&["fetch", "--state", state_arg, &url]);
    assert_exit(&o, 0);
    let o = home.run(&["history", "--state", state_arg, &url]);
    assert_exit(&o, 0);
    assert_has(&text(&o.stdout), "200");
}

/// A 0-byte state file (left by a crash before its first write) is said to be one, not opened
/// as an empty store.
#[test]
fn an_empty_state_file_is_recognised() {
    let home = Home::new();
    let state = home.path("empty.redb");
    std::fs::write(&state, b"").expect("write");
    let state_arg = state.to_str().expect("UTF-8 path");
    let o = home.run(&["history", "--state", state_arg, "https://example.com/"]);
    assert_exit(&o, 2);
    assert_has(&text(&o.stderr), "the state file is empty (0 bytes)");
}
