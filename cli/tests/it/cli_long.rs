//! Long runs through the real binary: origins fetched `--concurrency` at a time with the output
//! still in input order, `check --urls -` answering each line as it comes, `--urls` files with a
//! byte order mark, and nothing but `crawlgate: …` sentences on a captured standard error.
//!
//! Nothing here is timed: concurrency shows as requests in flight at the same time on the
//! servers' side, streaming as an answer read before the next line is written.
use crate::support;
use std::io::Write;
use std::process::{Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use crate::run::{check, on_a_terminal, run, text, values as records, Dir, TempFile};
use crate::support::{Reply, TestServer};

/// Requests being served at the same moment, across servers, and the most seen at once.
#[derive(Default)]
struct InFlight {
    now: AtomicUsize,
    max: AtomicUsize,
}

/// `n` servers (distinct origins: one port each) whose robots.txt (`Disallow: /<i>`) comes
/// after `delay(i)`. A request counts as in flight from its arrival until shortly before its
/// answer is sent, so that one fetch after another never overlaps.
fn slow_servers(
    rt: &tokio::runtime::Runtime,
    n: usize,
    delay: impl Fn(usize) -> Duration,
) -> (Vec<TestServer>, Arc<InFlight>) {
    let flight = Arc::new(InFlight::default());
    let servers = (0..n)
        .map(|i| {
            let flight = flight.clone();
            let wait = delay(i);
            rt.block_on(TestServer::start(move |_| {
                let now = flight.now.fetch_add(1, Ordering::SeqCst) + 1;
                flight.max.fetch_max(now, Ordering::SeqCst);
                let flight = flight.clone();
                // The handler runs on the server's runtime.
                tokio::spawn(async move {
                    tokio::time::sleep(wait.saturating_sub(Duration::from_millis(50))).await;
                    flight.now.fetch_sub(1, Ordering::SeqCst);
                });
                Reply::Delayed(
                    wait,
                    Box::new(Reply::text(
                        200,
                        &format!("User-agent: *\nDisallow: /{i}\n"),
                    )),
                )
            }))
        })
        .collect();
    (servers, flight)
}

#[test]
fn fetch_runs_origins_at_once_and_prints_them_in_input_order() {
    let rt = support::runtime(2);
    // The first origins answer last: finishing order is the reverse of input order.
    let (servers, flight) = slow_servers(&rt, 20, |i| {
        Duration::from_millis(300 + 20 * (20 - i as u64))
    });
    // A --urls file with a byte order mark, a comment and a blank line.
    let mut file = b"\xEF\xBB\xBF# origins\n\n".to_vec();
    for s in &servers {
        file.extend_from_slice(format!("{}\n", s.url("/page")).as_bytes());
    }
    let urls = TempFile::new("urls.txt", &file);
    let o = run(&[
        "fetch",
        "--no-state",
        "--json",
        "--concurrency",
        "10",
        "--urls",
        urls.path(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stderr), "");
    let recs = records(&o);
    let origins: Vec<String> = recs
        .iter()
        .filter(|r| r["type"] == "fetch")
        .map(|r| r["robots_txt"].as_str().expect("robots_txt").to_owned())
        .collect();
    let want: Vec<String> = servers.iter().map(|s| s.url("/robots.txt")).collect();
    assert_eq!(origins, want);
    let summary = recs.last().expect("summary");
    assert_eq!(
        (&summary["type"], &summary["origins"]),
        (&"summary".into(), &20.into())
    );
    assert!(servers.iter().all(|s| s.hits() == 1));
    let max = flight.max.load(Ordering::SeqCst);
    assert!((2..=10).contains(&max), "{max} fetches in flight at most");
}

#[test]
fn fetch_with_concurrency_1_fetches_one_origin_after_another() {
    let rt = support::runtime(2);
    let (servers, flight) = slow_servers(&rt, 4, |_| Duration::from_millis(150));
    let urls: Vec<String> = servers.iter().map(|s| s.url("/")).collect();
    let mut args = vec!["fetch", "--no-state", "--concurrency", "1"];
    args.extend(urls.iter().map(String::as_str));
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let shown: Vec<String> = text(&o.stdout)
        .lines()
        .filter(|l| l.starts_with("http"))
        .map(str::to_owned)
        .collect();
    let want: Vec<String> = servers.iter().map(|s| s.url("/robots.txt")).collect();
    assert_eq!(shown, want);
    assert_eq!(flight.max.load(Ordering::SeqCst), 1);
}

#[test]
fn check_without_robots_answers_in_input_order_with_origins_at_once() {
    let rt = support::runtime(2);
    let (servers, flight) =
        slow_servers(&rt, 6, |i| Duration::from_millis(200 + 40 * (6 - i as u64)));
    // Two URLs per origin, interleaved: the second of each waits for its origin's first.
    let mut urls = Vec::new();
    for round in 0..2 {
        for (i, s) in servers.iter().enumerate() {
            urls.push(s.url(&format!("/{}", if round == 0 { i } else { 99 })));
        }
    }
    let mut args = vec![
        "check",
        "--agent",
        "bot",
        "--no-state",
        "--concurrency",
        "4",
    ];
    args.extend(urls.iter().map(String::as_str));
    let o = run(&args);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(text(&o.stderr), "");
    let lines: Vec<String> = text(&o.stdout).lines().map(str::to_owned).collect();
    let want: Vec<String> = urls
        .iter()
        .enumerate()
        .map(|(n, u)| {
            if n < servers.len() {
                format!("disallowed\t{u}\tline 2: Disallow: /{n}")
            } else {
                format!("allowed\t{u}")
            }
        })
        .collect();
    assert_eq!(lines, want);
    assert!(servers.iter().all(|s| s.hits() == 1));
    assert!(flight.max.load(Ordering::SeqCst) >= 2);
}

/// Spawns `args` with piped standard input and output; answers come back line by line.
struct Piped {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
    _home: Dir,
}

impl Piped {
    fn start(args: &[&str]) -> Piped {
        let home = Dir::new();
        let mut child = home
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn crawlgate");
        let stdout = child.stdout.take().expect("stdout");
        let lines = crate::support::process::lines(stdout);
        Piped {
            child,
            lines,
            _home: home,
        }
    }

    /// Writes one line and returns the answer, which must come while standard input stays
    /// open. The wait is generous: it only keeps a failure from hanging the test.
    fn ask(&mut self, line: &str) -> String {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{line}").expect("write a URL");
        stdin.flush().expect("flush");
        self.lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no answer to {line:?} while standard input is open"))
    }

    fn close(mut self) -> Output {
        drop(self.child.stdin.take());
        let mut rest = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(60)) {
            rest.push(line);
        }
        let mut o = self.child.wait_with_output().expect("wait");
        o.stdout = rest.join("\n").into_bytes();
        o
    }
}

#[test]
fn check_urls_stdin_answers_each_line_as_it_comes() {
    let rt = support::runtime(2);
    let server = rt.block_on(TestServer::start(|_| {
        Reply::text(
            200,
            "User-agent: *\nDisallow: /private\nAllow: /private/ok\n",
        )
    }));
    let other = rt.block_on(TestServer::start(|_| Reply::status(404)));

    // Through the engine.
    let mut p = Piped::start(&["check", "--agent", "bot", "--no-state", "--urls", "-"]);
    assert_eq!(
        p.ask(&server.url("/private/a")),
        format!(
            "disallowed\t{}\tline 2: Disallow: /private",
            server.url("/private/a")
        )
    );
    // Blank and comment lines are not answered: the next answer is the next URL's.
    p.ask_silently("# a comment\n");
    assert_eq!(
        p.ask(&server.url("/private/ok")),
        format!(
            "allowed\t{}\tline 3: Allow: /private/ok",
            server.url("/private/ok")
        )
    );
    assert_eq!(
        p.ask(&other.url("/x")),
        format!("allowed\t{}", other.url("/x"))
    );
    let o = p.close();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "", "nothing left after the last answer");
    assert_eq!(text(&o.stderr), "");
    assert_eq!(server.hits(), 1);

    // Against a file given with --robots.
    let robots = TempFile::new("robots.txt", b"User-agent: *\nDisallow: /private\n");
    let mut p = Piped::start(&[
        "check",
        "--agent",
        "bot",
        "--robots",
        robots.path(),
        "--urls",
        "-",
    ]);
    assert_eq!(p.ask("/a"), "allowed\t/a");
    assert_eq!(
        p.ask("/private/b"),
        "disallowed\t/private/b\tline 2: Disallow: /private"
    );
    let o = p.close();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
}

impl Piped {
    /// Writes lines that get no answer.
    fn ask_silently(&mut self, lines: &str) {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        stdin.write_all(lines.as_bytes()).expect("write");
        stdin.flush().expect("flush");
    }
}

#[test]
fn urls_file_with_a_byte_order_mark_and_a_line_that_is_not_utf8() {
    let robots = TempFile::new("robots.txt", b"User-agent: *\nDisallow: /private\n");
    let urls = TempFile::new("urls.txt", b"\xEF\xBB\xBF/private/a\n/b\xff\n/c\n");
    let o = check("bot", robots.path(), &["--urls", urls.path()]);
    // The bad line is reported with its number; the others are answered.
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stdout),
        "disallowed\t/private/a\tline 2: Disallow: /private\nallowed\t/c\n"
    );
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("crawlgate: {} line 2: not UTF-8", urls.path())),
        "{err}"
    );
}

#[test]
fn a_captured_standard_error_gets_only_sentences() {
    // No progress line and no summary line: standard error is not a terminal.
    let rt = support::runtime(2);
    let (servers, _) = slow_servers(&rt, 3, |_| Duration::from_millis(10));
    let down = rt.block_on(support::refused_addr());
    let mut urls: Vec<String> = servers.iter().map(|s| s.url("/")).collect();
    urls.push(format!("http://{down}/"));
    urls.push("not a url".to_owned());
    let mut args = vec!["fetch", "--no-state", "--timeout", "5"];
    args.extend(urls.iter().map(String::as_str));
    let o = run(&args);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(!err.is_empty());
    assert!(err.lines().all(|l| l.starts_with("crawlgate: ")), "{err:?}");
    assert!(!err.contains('\r') && !err.contains('\x1b'), "{err:?}");

    let mut args = vec!["check", "--agent", "bot", "--no-state"];
    args.extend(urls[..3].iter().map(String::as_str));
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stderr), "");
}

/// On a terminal (a pseudo-terminal from util-linux `script`), the summary line shows on
/// standard error, with what the exit status means.
#[test]
fn a_terminal_gets_a_summary_line() {
    let robots = TempFile::new("robots.txt", b"User-agent: *\nDisallow: /private\n");
    let home = tempfile::tempdir().expect("temp dir");
    let o = on_a_terminal(
        home.path(),
        &[
            "check",
            "--agent",
            "bot",
            "--robots",
            robots.path(),
            "/a",
            "/private/b",
            "/c",
        ],
    );
    let screen = text(&o.stdout).replace("\r\n", "\n");
    // The line says what the exit status (`script -e` passes it on) means.
    assert!(
        screen.ends_with("3 URLs: 2 allowed, 1 disallowed; exit 1: a URL is disallowed\n"),
        "{screen:?}"
    );
    assert_eq!(o.status.code(), Some(1), "{screen:?}");
}

#[test]
fn discover_walks_several_origins_in_input_order() {
    let rt = support::runtime(2);
    let (servers, flight) = slow_servers(&rt, 3, |i| {
        Duration::from_millis(100 + 100 * (3 - i as u64))
    });
    let mut args = vec!["sitemap", "discover", "--json", "--concurrency", "3"];
    let urls: Vec<String> = servers.iter().map(|s| s.url("/x")).collect();
    args.extend(urls.iter().map(String::as_str));
    // Each origin once.
    args.push(&urls[0]);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let recs = records(&o);
    let robots: Vec<&str> = recs
        .iter()
        .filter(|r| r["type"] == "robots-txt")
        .map(|r| r["robots_txt"].as_str().expect("robots_txt"))
        .collect();
    let want: Vec<String> = servers.iter().map(|s| s.url("/robots.txt")).collect();
    assert_eq!(robots, want);
    let summary = recs.last().expect("summary");
    assert_eq!(summary["origins"], 3, "{summary}");
    assert!(flight.max.load(Ordering::SeqCst) >= 2);
}

#[test]
fn concurrency_0_is_a_usage_error() {
    for args in [
        &["fetch", "--concurrency", "0", "https://example.com/"][..],
        &[
            "sitemap",
            "discover",
            "--concurrency",
            "0",
            "https://example.com/",
        ],
        &[
            "check",
            "--agent",
            "bot",
            "--concurrency",
            "0",
            "https://example.com/",
        ],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(text(&o.stderr).contains("--concurrency"), "{args:?}");
        assert_eq!(text(&o.stdout), "");
    }
}
