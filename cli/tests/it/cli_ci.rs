//! robots.txt in a site's CI: `crawlgate test` (an expectations file with passing and failing
//! lines, against a file and against a site on 127.0.0.1; its JUnit XML read back as a CI server
//! reads it), `crawlgate diff` on a real pair of files, an HTML robots.txt through `check`, and
//! the commands of docs/cli.md's "robots.txt in CI" section and of `.pre-commit-hooks.yaml`, run
//! as written.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use quick_xml::events::Event;
use serde_json::Value;

use crate::run::{assert_exit, records, stderr, stdout, Dir};

/// Passing and failing lines, against `testdata/ci/deployed.txt`: 6 expectations, 2 fail (the
/// `*` group lets Googlebot read /products/shoes and Bingbot everything).
const EXPECT: &str = "\
# expectations with passing and failing lines
Googlebot: allowed / /products/shoes
Googlebot: disallowed /admin/ /products/shoes

Bingbot: disallowed /
mode: google
Googlebot: allowed /admin/help/
";

/// What `crawlgate test` prints for [`EXPECT`] against the deployed file, named `robots_txt`.
fn expected_lines(expect: &str, robots_txt: &str) -> String {
    format!(
        "ok\t{expect}:2\tGooglebot: allowed /\tallowed: no rule matched\n\
         ok\t{expect}:2\tGooglebot: allowed /products/shoes\tallowed: no rule matched\n\
         ok\t{expect}:3\tGooglebot: disallowed /admin/\tdisallowed by line 3: Disallow: /admin/\n\
         FAIL\t{expect}:3\tGooglebot: disallowed /products/shoes\tallowed: no rule matched\n\
         FAIL\t{expect}:5\tBingbot: disallowed /\tallowed: no rule matched\n\
         ok\t{expect}:7\tGooglebot: allowed /admin/help/\tallowed by line 4: Allow: /admin/help/\n\
         {robots_txt}: 6 expectations: 4 hold, 2 fail\n"
    )
}

#[test]
fn expectations_against_a_file() {
    let dir = Dir::new();
    let expect = dir.file("robots.expect", EXPECT.as_bytes());
    let o = dir.run(&["test", "--expect", &expect, "testdata/ci/deployed.txt"]);
    assert_exit(&o, 1);
    assert_eq!(
        stdout(&o),
        expected_lines(&expect, "testdata/ci/deployed.txt")
    );
    assert_eq!(stderr(&o), "");
    // Every line holds against the candidate; -q leaves only the status.
    let fixed = dir.file(
        "fixed.expect",
        b"Googlebot: allowed / /admin/help/\nGooglebot: disallowed /admin/ /cart?step=2\n",
    );
    let o = dir.run(&["test", "--expect", &fixed, "testdata/ci/robots.txt"]);
    assert_exit(&o, 0);
    assert!(
        stdout(&o).ends_with("4 expectations: 4 hold, 0 fail\n"),
        "{}",
        stdout(&o)
    );
    let o = dir.run(&["-q", "test", "--expect", &fixed, "testdata/ci/robots.txt"]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), "");
}

#[test]
fn expectations_as_json() {
    let dir = Dir::new();
    let expect = dir.file("robots.expect", EXPECT.as_bytes());
    let o = dir.run(&[
        "test",
        "--json",
        "--expect",
        &expect,
        "testdata/ci/deployed.txt",
    ]);
    assert_exit(&o, 1);
    let (lines, summary) = records(&o);
    assert_eq!(lines.len(), 6);
    assert!(lines.iter().all(|l| l["type"] == "expectation"));
    let failing: Vec<&Value> = lines.iter().filter(|l| l["holds"] == false).collect();
    assert_eq!(failing.len(), 2);
    assert_eq!(failing[1]["agent"], "bingbot");
    assert_eq!(failing[1]["expectation_line"], 5);
    assert_eq!(failing[1]["expected"], "disallowed");
    assert_eq!(failing[1]["actual"], "allowed");
    assert_eq!(failing[1]["line"], Value::Null);
    let google = &lines[5];
    assert_eq!(google["mode"], "google");
    assert_eq!(google["line"], 4);
    assert_eq!(google["rule"], "Allow: /admin/help/");
    assert_eq!(
        summary,
        serde_json::json!({"type": "summary", "command": "test", "files": 1,
            "expectations": 6, "passed": 4, "failures": 2, "failed": 0, "exit": 1})
    );
}

#[test]
fn bad_expectations_are_named_by_line_and_exit_2() {
    let dir = Dir::new();
    let bad = dir.file(
        "bad.expect",
        b"Googlebot allowed /\n\
          Googlebot: maybe /\n\
          Googlebot: allowed\n\
          Googlebot: allowed private/\n\
          robot crawlers: disallowed /\n\
          mode: fast\n\
          Googlebot: allowed /fine\n",
    );
    let o = dir.run(&["test", "--expect", &bad, "testdata/ci/robots.txt"]);
    assert_exit(&o, 2);
    assert_eq!(stdout(&o), "");
    let err = stderr(&o);
    for line in 1..=6 {
        assert!(
            err.contains(&format!("{bad}:{line}: ")),
            "line {line}: {err}"
        );
    }
    assert!(!err.contains(&format!("{bad}:7:")), "{err}");
    assert!(err.contains("`maybe` is not a verdict"), "{err}");
    assert!(err.contains("`robot` is not a purpose"), "{err}");
    // No expectations at all, or no expectations file: bad input too.
    let empty = dir.file("empty.expect", b"# nothing\n");
    assert_exit(
        &dir.run(&["test", "--expect", &empty, "testdata/ci/robots.txt"]),
        2,
    );
    let missing = dir.join("missing.expect");
    assert_exit(
        &dir.run(&["test", "--expect", &missing, "testdata/ci/robots.txt"]),
        2,
    );
    let expect = dir.file("ok.expect", b"Googlebot: allowed /\n");
    let o = dir.run(&["test", "--expect", &expect, &dir.join("missing.txt")]);
    assert_exit(&o, 2);
}

/// A purpose line: every training crawler of the built-in catalogue must be blocked. The
/// deployed file names two of them; the candidate blocks them all.
#[test]
fn purpose_lines_use_the_catalogue() {
    let dir = Dir::new();
    let expect = dir.file("purpose.expect", b"training crawlers: disallowed /\n");
    let o = dir.run(&["test", "--expect", &expect, "testdata/ci/robots.txt"]);
    assert_exit(&o, 0);
    let out = stdout(&o);
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!(
            "ok\t{expect}:1\ttraining crawlers: disallowed /\t"
        )),
        "{out}"
    );
    let o = dir.run(&[
        "test",
        "--json",
        "--expect",
        &expect,
        "testdata/ci/deployed.txt",
    ]);
    assert_exit(&o, 1);
    let (lines, summary) = records(&o);
    let held: Vec<&str> = lines
        .iter()
        .filter(|l| l["holds"] == true)
        .filter_map(|l| l["crawler"].as_str())
        .collect();
    assert_eq!(held, ["CCBot", "GPTBot"]);
    assert!(lines.iter().all(|l| l["purpose"] == "training"));
    assert_eq!(summary["expectations"], lines.len());
    assert_eq!(summary["failures"], lines.len() - 2);
    // Each crawler that is let in is a FAIL line of its own.
    let o = dir.run(&["test", "--expect", &expect, "testdata/ci/deployed.txt"]);
    let fails = stdout(&o)
        .lines()
        .filter(|l| l.starts_with("FAIL\t"))
        .count();
    assert_eq!(fails, lines.len() - 2);
}

#[cfg(feature = "fetch")]
mod site {
    use super::*;
    use crate::support::{self, Reply, TestServer};

    fn deployed_site(rt: &tokio::runtime::Runtime) -> TestServer {
        rt.block_on(TestServer::start(|r| {
            if r.path == "/robots.txt" {
                Reply::text(
                    200,
                    &String::from_utf8_lossy(&support::testdata("ci/deployed.txt")),
                )
            } else {
                Reply::status(404)
            }
        }))
    }

    /// The same expectations against the same file served on 127.0.0.1: the same verdicts,
    /// the robots.txt named by its URL.
    #[test]
    fn expectations_against_a_loopback_site() {
        let rt = support::runtime(1);
        let server = deployed_site(&rt);
        let dir = Dir::new();
        let expect = dir.file("robots.expect", EXPECT.as_bytes());
        let o = dir.run(&["test", "--expect", &expect, &server.url("/")]);
        assert_exit(&o, 1);
        assert_eq!(
            stdout(&o),
            expected_lines(&expect, &server.url("/robots.txt"))
        );
        assert_eq!(server.hits_on("/robots.txt"), 1);
        // A URL of the site holds as its path does; a URL of another site is bad input.
        let urls = dir.file(
            "urls.expect",
            format!("Googlebot: disallowed {}\n", server.url("/admin/x")).as_bytes(),
        );
        assert_exit(&dir.run(&["test", "--expect", &urls, &server.url("/")]), 0);
        let other = dir.file(
            "other.expect",
            b"Googlebot: disallowed https://elsewhere.example/admin/\n",
        );
        let o = dir.run(&["test", "--expect", &other, &server.url("/")]);
        assert_exit(&o, 2);
        assert!(
            stderr(&o).contains("is not on the site tested"),
            "{}",
            stderr(&o)
        );
    }

    /// No robots.txt (404) is everything allowed; one that cannot be read (503) is no answer.
    #[test]
    fn absent_and_unreachable_sites() {
        let rt = support::runtime(1);
        let absent = rt.block_on(TestServer::start(|_| Reply::status(404)));
        let down = rt.block_on(TestServer::start(|_| Reply::status(503)));
        let dir = Dir::new();
        let expect = dir.file("e.expect", b"Googlebot: allowed /admin/\n");
        let o = dir.run(&["test", "--expect", &expect, &absent.url("/")]);
        assert_exit(&o, 0);
        assert!(
            stdout(&o).starts_with(&format!(
                "{}: no robots.txt (HTTP 404): everything is allowed\n",
                absent.url("/robots.txt")
            )),
            "{}",
            stdout(&o)
        );
        let o = dir.run(&[
            "test",
            "--expect",
            &expect,
            "--timeout",
            "5",
            &down.url("/"),
        ]);
        assert_exit(&o, 2);
        assert!(stderr(&o).contains("unreachable"), "{}", stderr(&o));
    }

    /// The commands of docs/cli.md's "robots.txt in CI" section, as its GitHub Actions and
    /// GitLab CI snippets write them, run in a site's checkout (`robots.txt`, `robots.expect`,
    /// `important-urls.txt`) with `$SITE` a server on 127.0.0.1 that serves the deployed file.
    #[test]
    fn ci_snippets_of_the_manual_run() {
        let rt = support::runtime(1);
        let server = deployed_site(&rt);
        let manual = std::fs::read_to_string(Path::new(crate::ROOT).join("docs/cli.md"))
            .expect("docs/cli.md");
        let section = section(&manual, "## robots.txt in CI");
        let mut runs = 0;
        let snippets: Vec<(String, &str)> = blocks(section, "yaml")
            .into_iter()
            .filter(|(_, b)| b.starts_with("# .github/") || b.starts_with("# .gitlab-ci"))
            .collect();
        assert_eq!(
            snippets.len(),
            2,
            "a GitHub Actions and a GitLab CI snippet"
        );
        for (name, block) in snippets {
            let commands: Vec<String> = block
                .lines()
                .filter_map(|l| {
                    let l = l.trim_start();
                    let l = l.strip_prefix("- run: ").or(l.strip_prefix("- "))?;
                    l.starts_with("crawlgate ").then(|| l.to_owned())
                })
                .collect();
            assert!(commands.len() >= 3, "{name}: {commands:?}");
            let site = checkout();
            for c in &commands {
                let o = shell(c, site.path(), &[("SITE", &server.url("/"))]);
                assert_eq!(o.status.code(), Some(0), "{name}: {c}\n{}", both(&o));
                runs += 1;
            }
            let junit = std::fs::read_to_string(site.path().join("robots-junit.xml"))
                .expect("the snippet writes its JUnit report");
            let counts = junit_counts(&junit);
            assert_eq!(counts.failures, 0, "{junit}");
            assert!(counts.testcases > 5, "{junit}");
        }
        assert!(runs >= 6, "two snippets of three commands or more");
    }
}

/// A site's checkout: its robots.txt (the candidate), expectations and important URLs.
fn checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (from, to) in [
        ("robots.txt", "robots.txt"),
        ("robots.expect", "robots.expect"),
        ("important-urls.txt", "important-urls.txt"),
    ] {
        std::fs::copy(
            Path::new(crate::ROOT).join("testdata/ci").join(from),
            dir.path().join(to),
        )
        .expect("copy testdata");
    }
    dir
}

/// `bash -c COMMAND` in `dir`, the binary first on `PATH`, a state home of its own.
fn shell(command: &str, dir: &Path, env: &[(&str, &str)]) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_crawlgate"))
        .parent()
        .expect("the binary's directory")
        .to_owned();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .args(["-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("CRAWLGATE_AGENT")
        .env_remove("CRAWLGATE_STATE")
        .env("XDG_STATE_HOME", dir)
        .env("HOME", dir)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("run bash")
}

fn both(o: &Output) -> String {
    crate::run::both(o)
}

/// The text of `heading`'s section: up to the next heading of the same level.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("no section {heading:?}"));
    let body = &text[start + heading.len() + 2..];
    let end = body.find("\n## ").unwrap_or(body.len());
    &body[..end]
}

/// The fenced blocks of `lang` in `text`, each with the line before it (its name).
fn blocks<'a>(text: &'a str, lang: &str) -> Vec<(String, &'a str)> {
    let fence = format!("```{lang}\n");
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(&fence) {
        let before = rest[..at]
            .trim_end()
            .lines()
            .last()
            .unwrap_or("")
            .to_owned();
        let body = &rest[at + fence.len()..];
        let end = body.find("```").expect("a closed block");
        found.push((before, &body[..end]));
        rest = &body[end + 3..];
    }
    found
}

/// The manual's `text` examples in the section: each `$ crawlgate …` line (with its `\`
/// continuation lines) run from the repository root, its standard output compared with the
/// lines under it; `$ echo $?` compares the exit status.
#[test]
fn examples_of_the_manual_print_what_they_say() {
    let manual =
        std::fs::read_to_string(Path::new(crate::ROOT).join("docs/cli.md")).expect("docs/cli.md");
    let section = section(&manual, "## robots.txt in CI");
    let mut ran = 0;
    for (_, block) in blocks(section, "text") {
        let mut lines = block.lines().peekable();
        let mut last: Option<(String, Output)> = None;
        while let Some(line) = lines.next() {
            let Some(mut command) = line.strip_prefix("$ ").map(str::to_owned) else {
                panic!("expected a `$ ` line, got {line:?}");
            };
            while command.ends_with('\\') {
                command.pop();
                command.push_str(lines.next().expect("a continued line").trim_start());
            }
            let mut expected = String::new();
            while let Some(l) = lines.next_if(|l| !l.starts_with("$ ")) {
                expected.push_str(l);
                expected.push('\n');
            }
            if command == "echo $?" {
                let (c, o) = last.as_ref().expect("a command before `echo $?`");
                assert_eq!(
                    format!("{}\n", o.status.code().unwrap_or(-1)),
                    expected,
                    "{c}"
                );
                continue;
            }
            let o = shell(&command, Path::new(crate::ROOT), &[]);
            assert_eq!(stdout(&o), expected, "{command}\n{}", stderr(&o));
            ran += 1;
            last = Some((command, o));
        }
    }
    assert!(ran >= 3, "the section's examples");
}

/// `.pre-commit-hooks.yaml`: each hook's `entry` and `args`, run as pre-commit runs them (the
/// staged robots.txt appended unless `pass_filenames: false`), in a site's checkout.
#[test]
fn pre_commit_hooks_run() {
    let hooks = std::fs::read_to_string(Path::new(crate::ROOT).join(".pre-commit-hooks.yaml"))
        .expect(".pre-commit-hooks.yaml");
    let mut seen: Vec<BTreeMap<&str, &str>> = Vec::new();
    for line in hooks.lines().filter(|l| !l.starts_with('#')) {
        if let Some(id) = line.strip_prefix("- id: ") {
            seen.push(BTreeMap::from([("id", id)]));
        } else if let (Some(hook), Some((k, v))) = (seen.last_mut(), line.trim().split_once(": ")) {
            hook.insert(k, v);
        }
    }
    let ids: Vec<&str> = seen.iter().map(|h| h["id"]).collect();
    assert_eq!(ids, ["crawlgate-lint", "crawlgate-test"]);
    let site = checkout();
    let mut commands = Vec::new();
    for hook in &seen {
        assert_eq!(hook["language"], "system");
        let args = hook
            .get("args")
            .map(|a| {
                a.trim_matches(['[', ']'])
                    .split(", ")
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        let files = if hook.get("pass_filenames") == Some(&"false") {
            ""
        } else {
            "robots.txt"
        };
        commands.push(format!("{} {args} {files}", hook["entry"]));
    }
    for command in &commands {
        let o = shell(command, site.path(), &[]);
        assert_eq!(o.status.code(), Some(0), "{command}\n{}", both(&o));
    }
    // A robots.txt with a broken line that shuts everyone out fails both hooks.
    std::fs::write(
        site.path().join("robots.txt"),
        "User-agent: *\nDisallow /admin/\nDisallow: /\n",
    )
    .expect("write");
    for command in &commands {
        let o = shell(command, site.path(), &[]);
        assert_eq!(o.status.code(), Some(1), "{command}\n{}", both(&o));
    }
}

/// What a JUnit reader counts.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    testsuites: usize,
    testcases: usize,
    failures: usize,
    /// The `tests` and `failures` attributes of `<testsuites>` and `<testsuite>`.
    declared: Vec<(String, String)>,
    /// The `message` of each `<failure>`, unescaped.
    messages: Vec<String>,
    /// The `name` of each `<testcase>`, unescaped.
    names: Vec<String>,
}

/// Reads JUnit XML as a CI server does (quick-xml; a syntax error fails the test).
fn junit_counts(xml: &str) -> Counts {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut counts = Counts::default();
    let attr = |e: &quick_xml::events::BytesStart<'_>, name: &str| -> Option<String> {
        e.attributes()
            .map(|a| a.expect("a well-formed attribute"))
            .find(|a| a.key.as_ref() == name)
            .map(|a| {
                a.normalized_value(quick_xml::XmlVersion::Explicit1_0)
                    .expect("a well-formed value")
                    .into_owned()
            })
    };
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => match e.name().as_ref() {
                "testsuites" | "testsuite" => {
                    counts.testsuites += usize::from(e.name().as_ref() == "testsuite");
                    counts.declared.push((
                        attr(&e, "tests").expect("tests"),
                        attr(&e, "failures").expect("failures"),
                    ));
                }
                "testcase" => {
                    counts.testcases += 1;
                    counts.names.push(attr(&e, "name").expect("name"));
                }
                "failure" => {
                    counts.failures += 1;
                    counts.messages.push(attr(&e, "message").expect("message"));
                }
                _ => {}
            },
            _ => {}
        }
    }
    counts
}

#[test]
fn junit_xml_reads_back_with_its_counts() {
    let dir = Dir::new();
    let expect = dir.file("robots.expect", EXPECT.as_bytes());
    let junit = dir.join("junit.xml");
    let o = dir.run(&[
        "test",
        "--expect",
        &expect,
        "--junit",
        &junit,
        "testdata/ci/deployed.txt",
    ]);
    assert_exit(&o, 1);
    let xml = std::fs::read_to_string(&junit).expect("the report");
    let c = junit_counts(&xml);
    assert_eq!(c.testsuites, 1);
    assert_eq!(c.testcases, 6);
    assert_eq!(c.failures, 2);
    assert_eq!(
        c.declared,
        [("6".into(), "2".into()), ("6".into(), "2".into())]
    );
    assert_eq!(
        c.messages,
        ["allowed: no rule matched", "allowed: no rule matched"]
    );
    assert_eq!(c.names[2], "Googlebot: disallowed /admin/");
}

/// Markup, quotes and control characters from the site and the expectations file cannot break
/// the XML or reach it raw: a reader gets back the text as the terminal shows it.
#[test]
fn junit_escapes_what_comes_from_the_site() {
    let dir = Dir::new();
    let robots = dir.file(
        "robots.txt",
        "User-agent: *\nDisallow: /a<b>&\"c'\u{1b}[31m]]>\u{fffe}\n".as_bytes(),
    );
    let expect = dir.file(
        "x.expect",
        "Googlebot: allowed /a<b>&\"c'\u{1b}[31m]]>\u{fffe}\n".as_bytes(),
    );
    let junit = dir.join("junit.xml");
    let o = dir.run(&["test", "--expect", &expect, "--junit", &junit, &robots]);
    assert_exit(&o, 1);
    let xml = std::fs::read_to_string(&junit).expect("the report");
    assert!(
        !xml.contains('\u{1b}') && !xml.contains('\u{fffe}'),
        "{xml}"
    );
    let c = junit_counts(&xml);
    assert_eq!((c.testcases, c.failures), (1, 1));
    assert_eq!(
        c.messages,
        ["disallowed by line 2: Disallow: /a<b>&\"c'\\u{1b}[31m]]>\\u{fffe}"]
    );
    assert_eq!(
        c.names,
        ["Googlebot: allowed /a<b>&\"c'\\u{1b}[31m]]>\\u{fffe}"]
    );
}

/// A real pair: the University of Edinburgh's robots.txt (2019) and Cambridge's, which is the
/// same Drupal file with six `Disallow` lines added, as deployed and candidate. Of Cambridge's
/// 51 real links none changes; two URLs under the added lines do, with both deciding lines; no
/// catalogued crawler's verdict at `/` changes.
#[test]
fn diff_on_a_real_pair() {
    let dir = Dir::new();
    let args = [
        "diff",
        "testdata/ci/pair/www.ed.ac.uk.txt",
        "testdata/ci/pair/www.cam.ac.uk.txt",
        "--agent",
        "Googlebot",
        "--urls",
        "testdata/ci/pair/www.cam.ac.uk.urls",
        "https://www.cam.ac.uk/people/staff",
        "https://www.cam.ac.uk/news-feed-generator?x=1",
        "https://www.cam.ac.uk/research",
    ];
    let o = dir.run(&args);
    assert_exit(&o, 1);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "googlebot\thttps://www.cam.ac.uk/people/staff\tallowed -> disallowed\twas no rule matched\tnow line 95: Disallow: /people/",
            "googlebot\thttps://www.cam.ac.uk/news-feed-generator?x=1\tallowed -> disallowed\twas no rule matched\tnow line 98: Disallow: /news-feed-generator",
        ]
    );
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[2].starts_with(
            "testdata/ci/pair/www.ed.ac.uk.txt -> testdata/ci/pair/www.cam.ac.uk.txt: 2 of "
        ),
        "{out}"
    );
    assert!(lines[2].contains("(54 URLs × 1 agent, "), "{out}");
    let mut json = args.to_vec();
    json.insert(1, "--json");
    let o = dir.run(&json);
    assert_exit(&o, 1);
    let (flips, summary) = records(&o);
    assert_eq!(flips.len(), 2);
    assert_eq!(flips[0]["type"], "flip");
    assert_eq!(flips[0]["before"]["verdict"], "allowed");
    assert_eq!(flips[0]["before"]["line"], Value::Null);
    assert_eq!(flips[0]["after"]["line"], 95);
    assert_eq!(flips[0]["after"]["rule"], "Disallow: /people/");
    assert_eq!(summary["changed"], 2);
    assert_eq!(summary["urls"], 54);
    // The same file twice: nothing changes, exit 0.
    let o = dir.run(&[
        "diff",
        "testdata/ci/pair/www.ed.ac.uk.txt",
        "testdata/ci/pair/www.ed.ac.uk.txt",
    ]);
    assert_exit(&o, 0);
}

/// The change a training block makes: each catalogued crawler it shuts out, at `/`, with the
/// line before (none) and after; the URLs of the agent asked about do not change.
#[test]
fn diff_names_the_catalogued_crawlers_a_change_blocks() {
    let dir = Dir::new();
    let o = dir.run(&[
        "diff",
        "--json",
        "testdata/ci/deployed.txt",
        "testdata/ci/robots.txt",
        "--agent",
        "Googlebot",
        "--urls",
        "testdata/ci/important-urls.txt",
    ]);
    assert_exit(&o, 1);
    let (flips, summary) = records(&o);
    let urls: Vec<&Value> = flips.iter().filter(|f| f["crawler"].is_null()).collect();
    assert_eq!(urls.len(), 1, "{urls:?}");
    assert_eq!(urls[0]["url"], "/search?q=shoes");
    let crawlers: Vec<&Value> = flips.iter().filter(|f| !f["crawler"].is_null()).collect();
    assert!(!crawlers.is_empty());
    for f in &crawlers {
        assert_eq!(f["url"], "/");
        assert_eq!(f["purpose"], "training", "{f}");
        assert_eq!(f["before"]["verdict"], "allowed");
        assert_eq!(f["after"]["verdict"], "disallowed");
    }
    assert!(!crawlers.iter().any(|f| f["crawler"] == "GPTBot"));
    assert_eq!(summary["changed"], flips.len());
    // URLs but no agent: a usage error.
    let o = dir.run(&[
        "diff",
        "testdata/ci/deployed.txt",
        "testdata/ci/robots.txt",
        "/x",
    ]);
    assert_exit(&o, 2);
}

/// An HTML page saved as robots.txt: `check` answers (nearly everything allowed) but says so, on
/// standard error and in the JSON, with the code `lint` reports.
#[test]
fn html_robots_txt_through_check() {
    let dir = Dir::new();
    let html = dir.file(
        "robots.txt",
        b"<!DOCTYPE html>\n<html><head><title>Not found</title></head>\n<body>Oops</body></html>\n",
    );
    let o = dir.run(&[
        "check",
        "--agent",
        "Googlebot",
        "--robots",
        &html,
        "/admin/",
    ]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), "allowed\t/admin/\n");
    assert_eq!(
        stderr(&o),
        format!(
            "crawlgate: warning: {html}: an HTML page, not a robots.txt (from line 1): only its \
             valid lines are read, so nearly everything is allowed (html-body)\n"
        )
    );
    let o = dir.run(&[
        "check",
        "--json",
        "--agent",
        "Googlebot",
        "--robots",
        &html,
        "/admin/",
    ]);
    let (lines, _) = records(&o);
    assert_eq!(lines[0]["type"], "warning");
    assert_eq!(lines[0]["code"], "html-body");
    assert_eq!(lines[0]["line"], 1);
    let lint = dir.run(&["lint", "--json", &html]);
    let (problems, _) = records(&lint);
    assert!(
        problems.iter().any(|p| p["code"] == "html-body"),
        "{problems:?}"
    );
}
