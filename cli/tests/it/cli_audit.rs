//! `crawlgate audit`: exit statuses as `lint`'s, the built-in catalogue on real files, and
//! `--suggest block=PURPOSE`, whose groups, added to the file, block every crawler of the
//! purpose and leave the lint clean.

use serde_json::Value;

use crate::run::{assert_exit, run, stdout, Dir};

fn records(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn exit_statuses_are_lints() {
    let dir = Dir::new();
    let clean = dir.file("clean.txt", b"User-agent: *\nDisallow: /private/\n");
    let warned = dir.file("warned.txt", b"User-agent: GPT-Bot\nDisallow: /\n");
    let broken = dir.file("broken.txt", b"User-agent: *\nDisallow private\n");
    assert_exit(&dir.run(&["audit", &clean]), 0);
    assert_exit(&dir.run(&["audit", &warned]), 0);
    assert_exit(&dir.run(&["audit", "--deny-warnings", &warned]), 1);
    assert_exit(&dir.run(&["audit", &broken]), 1);
    assert_exit(&dir.run(&["audit", &clean, &dir.join("missing.txt")]), 2);
    let bad = dir.file("bad.json", b"[\"not a catalogue\"]");
    let o = dir.run(&["audit", "--catalogue", &bad, &clean]);
    assert_exit(&o, 2);
    assert!(crate::run::stderr(&o).contains("not a crawler catalogue"));
    assert_exit(&dir.run(&["audit", "--purpose", "everything", &clean]), 2);
    assert_exit(
        &dir.run(&["audit", "--suggest", "allow=training", &clean]),
        2,
    );
}

/// The question of a site owner, in one command: which training crawlers may read /blog/ on
/// foursquare.com (2019)? All but none: CCBot's own group blocks only `/v/*`.
#[test]
fn which_training_crawlers_can_read_a_path() {
    let o = run(&[
        "audit",
        "--json",
        "--purpose",
        "training",
        "--path",
        "/blog/",
        "--path",
        "/v/venue",
        "testdata/audit/real/foursquare.com.txt",
    ]);
    assert_exit(&o, 0);
    let records = records(&stdout(&o));
    let audits: Vec<&Value> = records.iter().filter(|r| r["type"] == "audit").collect();
    assert_eq!(audits.len(), 69);
    assert!(audits.iter().all(|a| a["purpose"] == "training"));
    let access = |name: &str, i: usize| {
        let a = audits
            .iter()
            .find(|a| a["crawler"] == name)
            .unwrap_or_else(|| panic!("{name}"));
        (
            a["paths"][i]["access"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            a["paths"][i]["line"].as_u64(),
        )
    };
    assert_eq!(access("CCBot", 1), ("allowed".to_owned(), None));
    assert_eq!(access("CCBot", 2), ("blocked".to_owned(), Some(53)));
    assert_eq!(access("GPTBot", 1), ("partly".to_owned(), None));
    let summary = records.last().expect("a summary");
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["command"], "audit");
    assert_eq!(summary["crawlers"], 69);
    assert_eq!(summary["blocked"], 0);
}

/// `--suggest block=training` on real files: the groups added to each file block every
/// training crawler from `/`, and the result lints as the file did (no new problem, with the
/// catalogue's checks too).
#[test]
fn suggested_groups_block_and_lint_clean() {
    let dir = Dir::new();
    for name in [
        "www.nytimes.com.txt",
        "www.reuters.com.txt",
        "www.blu-ray.com.txt",
        "foursquare.com.txt",
    ] {
        let path = format!("testdata/audit/real/{name}");
        let o = run(&["audit", "--suggest", "block=training", &path]);
        assert_exit(&o, 0);
        let suggestion = stdout(&o);
        let original = std::fs::read(format!("{}/{path}", crate::ROOT)).expect("read");
        let mut merged = original.clone();
        merged.extend_from_slice(b"\n");
        merged.extend_from_slice(suggestion.as_bytes());
        let merged_path = dir.file(name, &merged);
        // Lint: the same problems as before, no more.
        let problems = |file: &str| -> Vec<(String, String)> {
            let o = run(&["audit", "--json", "--purpose", "training", file]);
            records(&stdout(&o))
                .into_iter()
                .filter(|r| r["type"] == "problem")
                .map(|r| (r["code"].to_string(), r["message"].to_string()))
                .collect()
        };
        assert_eq!(
            problems(&merged_path),
            problems(&path),
            "{name}:\n{suggestion}"
        );
        // Every training crawler that the file lets in through `*` is now blocked; those with a
        // group of their own are named in a comment.
        let o = run(&["audit", "--json", "--purpose", "training", &merged_path]);
        for r in records(&stdout(&o)).iter().filter(|r| r["type"] == "audit") {
            let blocked = r["paths"][0]["access"] == "blocked";
            let named =
                suggestion.contains(&format!("# {}:", r["crawler"].as_str().unwrap_or_default()));
            assert!(blocked || named, "{name}: {r}\n{suggestion}");
        }
    }
}

/// A clean file with the suggestion added is still clean: no problem at all.
#[test]
fn suggestion_on_a_clean_file_is_clean() {
    let dir = Dir::new();
    let clean = dir.file("clean.txt", b"User-agent: *\nDisallow: /private/\n");
    let o = run(&["audit", "--suggest", "block=training", &clean]);
    assert_exit(&o, 0);
    let mut merged = std::fs::read(&clean).expect("read");
    merged.extend_from_slice(b"\n");
    merged.extend_from_slice(&o.stdout);
    let merged = dir.file("merged.txt", &merged);
    let o = run(&["audit", "--json", "--deny-warnings", &merged]);
    assert_exit(&o, 0);
    let out = stdout(&o);
    assert!(!out.contains("\"type\":\"problem\""), "{out}");
    let o = run(&["lint", "--deny-warnings", &merged]);
    assert_exit(&o, 0);
}

/// `audit URL`: the origin's robots.txt fetched now from a real local server (as `lint URL`
/// does), then audited.
#[cfg(feature = "fetch")]
#[test]
fn audits_a_live_robots_txt() {
    use crate::support::{self, Reply, TestServer};
    let rt = support::runtime(1);
    let server = rt.block_on(TestServer::start(|_| {
        Reply::text(200, "User-agent: GPTBot\nDisallow: /\n")
    }));
    let url = server.url("/some/page");
    let o = run(&["audit", "--json", "--purpose", "training", &url]);
    assert_exit(&o, 0);
    let records = records(&stdout(&o));
    assert_eq!(records[0]["type"], "lint-fetch", "{}", records[0]);
    assert_eq!(records[0]["outcome"], "fetched");
    let gptbot = records
        .iter()
        .find(|r| r["type"] == "audit" && r["crawler"] == "GPTBot")
        .expect("GPTBot");
    assert_eq!(gptbot["path"], server.url("/robots.txt"));
    assert_eq!(gptbot["paths"][0]["access"], "blocked");
    assert_eq!(gptbot["paths"][0]["line"], 2);
    // A server that answers 503: nothing audited, exit 2.
    let down = rt.block_on(TestServer::start(|_| Reply::status(503)));
    let o = run(&["audit", &down.url("/")]);
    assert_exit(&o, 2);
    assert!(
        crate::run::stderr(&o).contains("nothing audited"),
        "{}",
        crate::run::both(&o)
    );
}

/// `--crawler`: a few crawlers by name or token, in any case, without a catalogue file; a
/// name the catalogue does not have is a usage error that names it.
#[test]
fn named_crawlers_only() {
    let dir = Dir::new();
    let o = dir.run(&[
        "audit",
        "--json",
        "--crawler",
        "gptbot,ClaudeBot",
        "--crawler",
        "CCBOT",
        "testdata/audit/real/www.nytimes.com.txt",
    ]);
    assert_exit(&o, 0);
    let crawlers: Vec<String> = records(&stdout(&o))
        .iter()
        .filter(|r| r["type"] == "audit")
        .map(|r| r["crawler"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(crawlers, ["CCBot", "ClaudeBot", "GPTBot"]);
    let o = dir.run(&[
        "audit",
        "--crawler",
        "GPTBot,NoSuchBot",
        "testdata/audit/real/www.nytimes.com.txt",
    ]);
    assert_exit(&o, 2);
    assert_eq!(
        crate::run::stderr(&o),
        "crawlgate: --crawler: not in the catalogue: `NoSuchBot` (`crawlgate audit --json` \
         lists its names)\n"
    );
}
