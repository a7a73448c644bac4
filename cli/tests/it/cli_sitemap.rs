//! `crawlgate sitemap lint|urls|discover`, run for real: output formats, exit codes and error
//! sentences, with files, standard input, and real servers on 127.0.0.1 for URL inputs.
use crate::support;
use crate::support::assert_has;
use std::process::Output;

use crate::run::{assert_exit, both, code, objects, run, run_with, stderr, stdout, Dir};

use crate::support::gzip::gzip;
use crate::support::sitemap::{base, gz_file, index, urlset, xml, NS};
use crate::support::{Reply, TestServer};
use serde_json::Value;

const SEEDS: &str = "testdata/sitemap/seeds";
const DIAG: &str = "testdata/sitemap/diagnostics";

/// Each stdout line parsed as a JSON object, but the last, which must be the one summary
/// record and is left out.
fn json_lines(o: &Output) -> Vec<serde_json::Map<String, Value>> {
    let mut objs = objects(o);
    let summary = objs.pop().expect("a summary record");
    assert_eq!(summary["type"], "summary", "{summary:?}");
    assert!(
        objs.iter().all(|m| m["type"] != "summary"),
        "one summary: {objs:?}"
    );
    objs
}

/// The keys of the outermost object of a raw JSON line, in the order written (`serde_json`'s
/// own maps sort them, so the order is read from the text).
fn raw_keys(line: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut depth = 0usize;
    let mut chars = line.chars().peekable();
    let mut expect_key = false;
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                depth += 1;
                expect_key = depth == 1;
            }
            '[' => depth += 1,
            '}' | ']' => depth -= 1,
            ',' if depth == 1 => expect_key = true,
            '"' => {
                let mut s = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            s.push(c);
                            s.extend(chars.next());
                        }
                        '"' => break,
                        _ => s.push(c),
                    }
                }
                if expect_key {
                    keys.push(s);
                    expect_key = false;
                }
            }
            _ => {}
        }
    }
    keys
}

// ---- servers -----------------------------------------------------------------------------

// ---- sitemap lint: files -----------------------------------------------------------------

#[test]
fn lint_seeds_exit_0_with_exact_output() {
    let iv = format!("{SEEDS}/image-video.xml");
    let vf = format!("{SEEDS}/video-full.xml");
    let known: [(&str, String); 4] = [
        ("basic.xml", "1 sitemap, 1 entry: no problems\n".to_owned()),
        (
            "image-video.xml",
            format!(
                "{iv}:9:5: warning[retired-tag]: <image:caption> was retired by Google in 2022: \
                 it is ignored\n\
                 {iv}:15:4: warning[retired-tag]: <video:player_loc allow_embed> was retired by \
                 Google in 2022: it is ignored\n\
                 {iv}:15:4: warning[retired-tag]: <video:player_loc autoplay> was retired by \
                 Google in 2022: it is ignored\n\
                 1 sitemap, 1 entry: 3 warnings\n"
            ),
        ),
        ("mrss.xml", "1 sitemap, 1 entry: no problems\n".to_owned()),
        (
            "video-full.xml",
            format!(
                "{vf}:21:5: warning[retired-tag]: <video:price> was retired by Google in 2022: \
                 its syntax is checked, and it is ignored\n\
                 1 sitemap, 1 entry: 1 warning\n"
            ),
        ),
    ];
    for (name, want) in &known {
        let path = format!("{SEEDS}/{name}");
        let o = run(&["sitemap", "lint", &path]);
        assert_eq!(code(&o), 0, "{path}: {}", both(&o));
        assert_eq!(stdout(&o), *want, "{path}");
        assert_eq!(stderr(&o), "", "{path}");
    }
    // Any seed added later: no errors, one sitemap read.
    for entry in std::fs::read_dir(format!("{}/{SEEDS}", crate::ROOT)).expect("seeds dir") {
        let name = entry.expect("dir entry").file_name();
        let name = name.to_str().expect("UTF-8 name");
        if known.iter().any(|(k, _)| *k == name) {
            continue;
        }
        let path = format!("{SEEDS}/{name}");
        let o = run(&["sitemap", "lint", &path]);
        assert_eq!(code(&o), 0, "{path}: {}", both(&o));
        let out = stdout(&o);
        assert!(
            out.lines()
                .last()
                .is_some_and(|l| l.starts_with("1 sitemap, ")),
            "{path}: {out}"
        );
        assert!(!out.contains(": error["), "{path}: {out}");
    }
    // All seeds at once: one summary for all of them.
    let all: Vec<String> = known.iter().map(|(n, _)| format!("{SEEDS}/{n}")).collect();
    let mut args = vec!["sitemap", "lint"];
    args.extend(all.iter().map(String::as_str));
    let o = run(&args);
    assert_exit(&o, 0);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 5, "{out}");
    assert_eq!(
        out.lines().last(),
        Some("4 sitemaps, 4 entries: 4 warnings")
    );
}

#[test]
fn lint_errors_exit_1_in_path_line_col_form() {
    let path = format!("{DIAG}/invalid-url.txt");
    let o = run(&["sitemap", "lint", &path]);
    assert_exit(&o, 1);
    assert_eq!(
        stdout(&o),
        format!(
            "{path}:2:1: error[invalid-url]: `/relative/page` is not an absolute URL; sitemaps \
             need absolute http or https URLs\n\
             {path}:3:1: error[invalid-url]: `ftp://example.com/file` has scheme `ftp`; only \
             http and https URLs are allowed\n\
             1 sitemap, 1 entry: 2 errors\n"
        )
    );
    assert_eq!(stderr(&o), "");
}

#[test]
fn lint_json_lines_have_the_problem_fields_in_order_then_a_summary() {
    let path = format!("{DIAG}/invalid-url.txt");
    let o = run(&["sitemap", "lint", "--json", &path]);
    assert_exit(&o, 1);
    let out = stdout(&o);
    let raw: Vec<&str> = out.lines().collect();
    assert_eq!(raw.len(), 3, "two problems and the summary: {out}");
    for line in &raw[..2] {
        assert_eq!(
            raw_keys(line),
            ["type", "path", "line", "column", "severity", "code", "message"],
            "{line}"
        );
    }
    assert_eq!(
        raw[2],
        "{\"type\":\"summary\",\"command\":\"sitemap lint\",\"sitemaps\":1,\"entries\":1,\
         \"errors\":2,\"warnings\":0,\"failed\":0,\"exit\":1}"
    );
    let objs = json_lines(&o);
    for (m, (line, url)) in objs
        .iter()
        .zip([(2, "/relative/page"), (3, "ftp://example.com/file")])
    {
        assert_eq!(m.len(), 7);
        assert_eq!(m["type"], "problem");
        assert_eq!(m["path"], path.as_str());
        assert_eq!(m["line"], line);
        assert_eq!(m["column"], 1);
        assert_eq!(m["severity"], "error");
        assert_eq!(m["code"], "invalid-url");
        let message = m["message"].as_str().expect("message is a string");
        assert!(message.starts_with(&format!("`{url}` ")), "{message}");
    }
    // The same message as the human form.
    let human = stdout(&run(&["sitemap", "lint", &path]));
    assert_has(
        &human,
        &format!(
            "{path}:2:1: error[invalid-url]: {}\n",
            objs[0]["message"].as_str().unwrap_or_default()
        ),
    );
}

#[test]
fn lint_deny_warnings_turns_warnings_into_exit_1() {
    let path = format!("{DIAG}/retired-tag.xml");
    let want = format!(
        "{path}:7:1: warning[retired-tag]: <image:title> was retired by Google in 2022: it is \
         ignored\n1 sitemap, 1 entry: 1 warning\n"
    );
    let o = run(&["sitemap", "lint", &path]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), want);
    let o = run(&["sitemap", "lint", "--deny-warnings", &path]);
    assert_exit(&o, 1);
    assert_eq!(stdout(&o), want, "the same output, another exit status");
    // A clean file stays 0 with --deny-warnings.
    let o = run(&[
        "sitemap",
        "lint",
        "--deny-warnings",
        &format!("{SEEDS}/basic.xml"),
    ]);
    assert_exit(&o, 0);
    // --json too.
    let o = run(&["sitemap", "lint", "--json", "--deny-warnings", &path]);
    assert_exit(&o, 1);
    assert_eq!(json_lines(&o).len(), 1);
}

#[test]
fn lint_cross_checks_entries_against_a_robots_file_for_the_agent() {
    let path = format!("{DIAG}/blocked-by-robots.xml");
    let robots = format!("{DIAG}/blocked.robots.txt");
    let blocked = |line: usize| {
        format!(
            "{path}:3:1: warning[blocked-by-robots]: loc https://example.com/private/a is \
             blocked by robots.txt (line {line}: Disallow: /private/)\n\
             {path}:8:1: warning[blocked-by-robots]: image:loc https://example.com/private/i.jpg \
             is blocked by robots.txt (line {line}: Disallow: /private/)\n\
             1 sitemap, 2 entries: 2 warnings\n"
        )
    };
    let o = run(&[
        "sitemap",
        "lint",
        "--robots",
        &robots,
        "--agent",
        "googlebot",
        &path,
    ]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), blocked(2));
    assert_eq!(stderr(&o), "");

    // Without --robots a file is not cross-checked.
    let o = run(&["sitemap", "lint", &path]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), "1 sitemap, 2 entries: no problems\n");

    // A robots.txt with a group for googlebot that allows everything.
    let dir = Dir::new();
    let own = dir.file(
        "robots.txt",
        b"User-agent: googlebot\nAllow: /\n\nUser-agent: *\nDisallow: /private/\n",
    );
    let clean = "1 sitemap, 2 entries: no problems\n";
    let o = run(&[
        "sitemap",
        "lint",
        "--robots",
        &own,
        "--agent",
        "googlebot",
        &path,
    ]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), clean);
    // The default agent is Googlebot; CRAWLGATE_AGENT sets it too; a User-Agent header works.
    let o = run(&["sitemap", "lint", "--robots", &own, &path]);
    assert_eq!(stdout(&o), clean, "{}", both(&o));
    let o = run(&[
        "sitemap",
        "lint",
        "--robots",
        &own,
        "--agent",
        "Googlebot/2.1 (+http://www.google.com/bot.html)",
        &path,
    ]);
    assert_eq!(stdout(&o), clean, "{}", both(&o));
    // Another agent falls into the `*` group (line 5 of this file).
    let o = run(&[
        "sitemap", "lint", "--robots", &own, "--agent", "OtherBot", &path,
    ]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), blocked(5));
    let o = run_with(
        &["sitemap", "lint", "--robots", &own, &path],
        None,
        &[("CRAWLGATE_AGENT", "OtherBot")],
    );
    assert_eq!(stdout(&o), blocked(5), "{}", both(&o));
    // Blocked entries are warnings: --deny-warnings makes them fail.
    let o = run(&[
        "sitemap",
        "lint",
        "--deny-warnings",
        "--robots",
        &robots,
        &path,
    ]);
    assert_exit(&o, 1);
}

#[test]
fn lint_robots_file_problems_exit_2() {
    let dir = Dir::new();
    let missing = dir.join("no-robots.txt");
    let o = run(&[
        "sitemap",
        "lint",
        "--robots",
        &missing,
        &format!("{SEEDS}/basic.xml"),
    ]);
    assert_exit(&o, 2);
    assert!(
        stderr(&o).starts_with(&format!("crawlgate: cannot read {missing}: ")),
        "{}",
        stderr(&o)
    );
    assert_eq!(stdout(&o), "");
    // An agent without a product token.
    let o = run(&[
        "sitemap",
        "lint",
        "--agent",
        "/1.0",
        &format!("{SEEDS}/basic.xml"),
    ]);
    assert_exit(&o, 2);
    assert!(
        stderr(&o).starts_with("crawlgate: --agent \"/1.0\" has no product token"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn lint_missing_file_exits_2_and_lints_the_others() {
    let dir = Dir::new();
    let missing = dir.join("missing.xml");
    let retired = format!("{DIAG}/retired-tag.xml");
    let o = run(&[
        "sitemap",
        "lint",
        &format!("{SEEDS}/basic.xml"),
        &missing,
        &retired,
    ]);
    assert_exit(&o, 2);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("crawlgate: cannot read {missing}: ")),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // The others are still linted; the summary counts the sitemaps read.
    assert_eq!(
        stdout(&o),
        format!(
            "{retired}:7:1: warning[retired-tag]: <image:title> was retired by Google in 2022: \
             it is ignored\n2 sitemaps, 2 entries: 1 warning\n"
        )
    );
    // An unreadable input outranks errors in the others.
    let invalid = format!("{DIAG}/invalid-url.txt");
    let o = run(&["sitemap", "lint", &missing, &invalid]);
    assert_exit(&o, 2);
    assert!(
        stdout(&o).ends_with("1 sitemap, 1 entry: 2 errors\n"),
        "{}",
        both(&o)
    );
    // Nothing readable: no summary at all.
    let o = run(&["sitemap", "lint", &missing]);
    assert_exit(&o, 2);
    assert_eq!(stdout(&o), "");
}

#[test]
fn lint_reads_gzip_from_standard_input() {
    let seed = std::fs::read(format!("{}/{SEEDS}/image-video.xml", crate::ROOT)).expect("seed");
    let o = run_with(&["sitemap", "lint", "-"], Some(&gzip(&seed)), &[]);
    assert_exit(&o, 0);
    assert_eq!(
        stdout(&o),
        "<stdin>:9:5: warning[retired-tag]: <image:caption> was retired by Google in 2022: it \
         is ignored\n\
         <stdin>:15:4: warning[retired-tag]: <video:player_loc allow_embed> was retired by \
         Google in 2022: it is ignored\n\
         <stdin>:15:4: warning[retired-tag]: <video:player_loc autoplay> was retired by Google \
         in 2022: it is ignored\n\
         1 sitemap, 1 entry: 3 warnings\n"
    );
    // Plain bytes through standard input, next to a file, with --json.
    let invalid =
        std::fs::read(format!("{}/{DIAG}/invalid-url.txt", crate::ROOT)).expect("fixture");
    let o = run_with(
        &[
            "sitemap",
            "lint",
            "--json",
            &format!("{SEEDS}/basic.xml"),
            "-",
        ],
        Some(&invalid),
        &[],
    );
    assert_exit(&o, 1);
    let objs = json_lines(&o);
    assert_eq!(objs.len(), 2, "{}", both(&o));
    assert!(objs.iter().all(|m| m["path"] == "<stdin>"));
    // Standard input only once.
    let o = run_with(&["sitemap", "lint", "-", "-"], Some(b""), &[]);
    assert_exit(&o, 2);
    assert_eq!(
        stderr(&o),
        "crawlgate: standard input (`-`) can be read only once\n"
    );
}

// ---- sitemap urls: files -----------------------------------------------------------------

#[test]
fn urls_prints_url_tab_lastmod() {
    let dir = Dir::new();
    let file = dir.file(
        "lastmods.xml",
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"{NS}\">\n\
             <url><loc>https://example.com/a</loc><lastmod>2024-01-02</lastmod></url>\n\
             <url><loc>https://example.com/b</loc></url>\n\
             <url><loc>https://example.com/c</loc>\
             <lastmod>2024-03-04T05:06:07+00:00</lastmod></url>\n\
             </urlset>\n"
        )
        .as_bytes(),
    );
    let want = "https://example.com/a\t2024-01-02\n\
                https://example.com/b\t\n\
                https://example.com/c\t2024-03-04T05:06:07+00:00\n";
    let o = run(&["sitemap", "urls", &file]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), want);
    assert_eq!(stderr(&o), "");
    // Gzip-compressed, through a file: the same.
    let gz = dir.file(
        "lastmods.xml.gz",
        &gzip(&std::fs::read(&file).expect("read back")),
    );
    let o = run(&["sitemap", "urls", &gz]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), want);
    // Two inputs: their entries one after the other, no summary.
    let o = run(&["sitemap", "urls", &file, &format!("{SEEDS}/basic.xml")]);
    assert_exit(&o, 0);
    assert_eq!(
        stdout(&o),
        format!("{want}http://www.example.com/foo.html\t\n")
    );
    // A missing file: exit 2, the others printed.
    let missing = dir.join("missing.xml");
    let o = run(&["sitemap", "urls", &missing, &file]);
    assert_exit(&o, 2);
    assert_eq!(stdout(&o), want);
    assert!(
        stderr(&o).starts_with(&format!("crawlgate: cannot read {missing}: ")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn urls_json_has_everything_read_including_mrss_videos() {
    let path = format!("{SEEDS}/mrss.xml");
    let o = run(&["sitemap", "urls", "--json", &path]);
    assert_exit(&o, 0);
    assert_eq!(stderr(&o), "");
    let out = stdout(&o);
    let raw: Vec<&str> = out.lines().collect();
    assert_eq!(raw.len(), 2, "one entry and the summary: {out}");
    assert_eq!(
        raw_keys(raw[0]),
        [
            "type",
            "path",
            "line",
            "column",
            "loc",
            "lastmod",
            "changefreq",
            "priority",
            "images",
            "videos",
            "news",
            "alternates"
        ]
    );
    let m = &json_lines(&o)[0];
    assert_eq!(m["path"], path.as_str());
    assert_eq!(
        (&m["line"], &m["column"]),
        (&Value::from(7), &Value::from(2))
    );
    assert_eq!(
        m["loc"],
        "http://www.example.com/priklady/mrss/priklad.html"
    );
    assert_eq!(m["lastmod"], Value::Null);
    assert_eq!(m["images"], serde_json::json!([]));
    assert_eq!(m["news"], Value::Null);
    let videos = m["videos"].as_array().expect("videos array");
    assert_eq!(videos.len(), 1);
    let v = &videos[0];
    assert_eq!(v["title"], "Letní grilování steaků");
    assert_eq!(
        v["content_loc"],
        "http://www.example.com/priklady/mrss/priklad.flv"
    );
    assert_eq!(
        v["player_loc"],
        "http://www.example.com/shows/example/video.swf?flash_params"
    );
    assert_eq!(
        v["thumbnail_loc"],
        "http://www.example.com/priklady/mrss/priklad.png"
    );
    assert_eq!(v["duration"], 120);
    assert_eq!(v["live"], true);
    assert_eq!(v["expiration_date"], "2020-10-15T00:00+01:00");
    assert_eq!(
        v["restriction"],
        serde_json::json!({ "relationship": "allow", "countries": ["us", "ca"] })
    );

    // A full video sitemap: the fields Google's own tags give.
    let o = run(&[
        "sitemap",
        "urls",
        "--json",
        &format!("{SEEDS}/video-full.xml"),
    ]);
    assert_exit(&o, 0);
    let m = &json_lines(&o)[0];
    let v = &m["videos"][0];
    assert_eq!(v["duration"], 600);
    assert_eq!(v["live"], false);
    assert_eq!(v["view_count"], 12345);
    assert_eq!(v["family_friendly"], true);
    assert_eq!(v["requires_subscription"], true);
    assert_eq!(
        v["content_loc"],
        "http://streamserver.example.com/video123.mp4"
    );

    // Images, from the image-video seed.
    let o = run(&[
        "sitemap",
        "urls",
        "--json",
        &format!("{SEEDS}/image-video.xml"),
    ]);
    let m = &json_lines(&o)[0];
    assert_eq!(
        m["images"],
        serde_json::json!([{ "loc": "http://example.com/obrazek.jpg" }])
    );
}

#[test]
fn urls_with_errors_exit_1_and_still_print_the_valid_entries() {
    let path = format!("{DIAG}/invalid-url.txt");
    let note =
        format!("crawlgate: {path}: 2 errors (run `crawlgate sitemap lint` for the details)\n");
    let o = run(&["sitemap", "urls", &path]);
    assert_exit(&o, 1);
    assert_eq!(stdout(&o), "https://example.com/a\t\n");
    assert_eq!(stderr(&o), note);
    let o = run(&["sitemap", "urls", "--json", &path]);
    assert_exit(&o, 1);
    let objs = json_lines(&o);
    assert_eq!(objs.len(), 1, "{}", both(&o));
    assert_eq!(objs[0]["loc"], "https://example.com/a");
    assert_eq!(objs[0]["line"], 1);
    assert_eq!(stderr(&o), note);
    // Warnings alone do not change the exit status.
    let o = run(&["sitemap", "urls", &format!("{DIAG}/retired-tag.xml")]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), "https://example.com/a\t\n");
}

// ---- URL inputs --------------------------------------------------------------------------

#[test]
fn lint_url_input_is_cross_checked_against_its_own_robots_txt() {
    let (_rt, server) = support::serve_blocking(|req| match req.path.as_str() {
        "/robots.txt" => Reply::text(200, "User-agent: *\nDisallow: /private\n"),
        "/sitemap.xml" => xml(urlset(&[
            format!("{}/public", base(req)),
            format!("{}/private/x", base(req)),
            // Another origin: this robots.txt says nothing about it.
            "http://other.example/private/y".to_owned(),
        ])),
        _ => Reply::status(404),
    });
    let url = server.url("/sitemap.xml");
    // The other origin's URL is also outside what this sitemap may list (its own site).
    let not_allowed = format!(
        "{url}:5:3: error[url-not-allowed]: http://other.example/private/y is outside {}: a \
         sitemap lists URLs of its own site; this one is not used\n",
        server.url("/")
    );
    let o = run(&["sitemap", "lint", &url]);
    assert_exit(&o, 1);
    assert_eq!(
        stdout(&o),
        format!(
            "{url}:4:3: warning[blocked-by-robots]: loc {} is blocked by robots.txt (line 2: \
             Disallow: /private)\n{not_allowed}1 sitemap, 3 entries: 1 error, 1 warning\n",
            server.url("/private/x")
        )
    );
    assert_eq!(stderr(&o), "");
    assert_eq!(server.hits_on("/robots.txt"), 1);
    assert_eq!(server.hits_on("/sitemap.xml"), 1);

    // --json: the URL is the path.
    let o = run(&["sitemap", "lint", "--json", &url]);
    let objs = json_lines(&o);
    assert_eq!(objs.len(), 2, "{}", both(&o));
    assert_eq!(objs[0]["path"], url.as_str());
    assert_eq!(objs[0]["code"], "blocked-by-robots");
    assert_eq!(objs[1]["code"], "url-not-allowed");

    // --robots FILE replaces the origin's own robots.txt, which is then not fetched.
    let dir = Dir::new();
    let allow_all = dir.file("robots.txt", b"User-agent: *\nAllow: /\n");
    let before = server.hits_on("/robots.txt");
    let o = run(&["sitemap", "lint", "--robots", &allow_all, &url]);
    assert_exit(&o, 1);
    assert_eq!(
        stdout(&o),
        format!("{not_allowed}1 sitemap, 3 entries: 1 error\n")
    );
    assert_eq!(server.hits_on("/robots.txt"), before);
}

#[test]
fn lint_url_input_with_no_robots_txt_is_not_cross_checked() {
    let (_rt, server) = support::serve_blocking(|req| match req.path.as_str() {
        "/sitemap.xml" => xml(urlset(&[format!("{}/private/x", base(req))])),
        _ => Reply::status(404),
    });
    let o = run(&["sitemap", "lint", &server.url("/sitemap.xml")]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), "1 sitemap, 1 entry: no problems\n");
}

#[test]
fn a_sitemap_url_that_cannot_be_fetched_exits_2() {
    let (_rt, server) = support::serve_blocking(|req| match req.path.as_str() {
        "/sitemap.xml" => xml(urlset(&[format!("{}/a", base(req))])),
        "/broken.xml" => Reply::text(200, "https://example.com/a\n/relative\n"),
        _ => Reply::status(404),
    });
    let missing = server.url("/missing.xml");
    let o = run(&["sitemap", "lint", &missing, &server.url("/sitemap.xml")]);
    assert_exit(&o, 2);
    assert_eq!(
        stderr(&o),
        format!("crawlgate: cannot fetch {missing}: HTTP 404\n")
    );
    // The other input is still linted.
    assert_eq!(stdout(&o), "1 sitemap, 1 entry: no problems\n");

    // `sitemap urls` the same way.
    let o = run(&["sitemap", "urls", &missing, &server.url("/sitemap.xml")]);
    assert_exit(&o, 2);
    assert_eq!(
        stderr(&o),
        format!("crawlgate: cannot fetch {missing}: HTTP 404\n")
    );
    assert_eq!(stdout(&o), format!("{}\t\n", server.url("/a")));

    // A fetched sitemap with errors: exit 1 from `urls`, the note names the URL.
    let broken = server.url("/broken.xml");
    let o = run(&["sitemap", "urls", &broken]);
    assert_exit(&o, 1);
    assert_eq!(stdout(&o), "https://example.com/a\t\n");
    assert_eq!(
        stderr(&o),
        format!("crawlgate: {broken}: 1 error (run `crawlgate sitemap lint` for the details)\n")
    );
}

// ---- sitemap discover --------------------------------------------------------------------

/// robots.txt announces `/index.xml` and `/pages.xml` (twice) and disallows `/private`; the
/// index lists `/a.xml` (one blocked page) and `/b.xml.gz` (a raw gzip file, 3 pages).
fn discover_server(rt: &tokio::runtime::Runtime) -> TestServer {
    rt.block_on(TestServer::start(|req| {
        let b = base(req);
        match req.path.as_str() {
            "/robots.txt" => Reply::text(
                200,
                &format!(
                    "User-agent: *\nDisallow: /private\n\nSitemap: {b}/index.xml\n\
                     Sitemap: {b}/pages.xml\nSitemap: {b}/pages.xml\n"
                ),
            ),
            "/index.xml" => xml(index(&[format!("{b}/a.xml"), format!("{b}/b.xml.gz")])),
            "/pages.xml" => xml(urlset(&[format!("{b}/p1"), format!("{b}/p2")])),
            "/a.xml" => xml(urlset(&[format!("{b}/private/a1")])),
            "/b.xml.gz" => gz_file(gzip(&b_xml(&b))),
            _ => Reply::status(404),
        }
    }))
}

fn b_xml(base: &str) -> Vec<u8> {
    urlset(&[
        format!("{base}/b1"),
        format!("{base}/b2"),
        format!("{base}/b3"),
    ])
}

#[test]
fn discover_lists_announced_sitemaps_and_index_children() {
    let rt = support::runtime(1);
    let server = discover_server(&rt);
    let u = |p: &str| server.url(p);
    let o = run(&["sitemap", "discover", &u("/")]);
    assert_eq!(code(&o), 0, "warnings only: {}", both(&o));
    assert_eq!(stderr(&o), "");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    let want = [
        format!("{}\t200\tfetched\t3 sitemaps announced", u("/robots.txt")),
        format!(
            "{}\tsitemapindex\t2 entries\t0 errors\t0 warnings",
            u("/index.xml")
        ),
        // The index's children right under it, then the next announced sitemap.
        format!("  {}\turlset\t1 entry\t0 errors\t1 warning", u("/a.xml")),
        format!(
            "    {}:3:3: warning[blocked-by-robots]: loc {} is blocked by robots.txt (line 2: \
             Disallow: /private)",
            u("/a.xml"),
            u("/private/a1")
        ),
        format!(
            "  {}\turlset\t3 entries\t0 errors\t0 warnings",
            u("/b.xml.gz")
        ),
        format!(
            "{}\turlset\t2 entries\t0 errors\t1 warning",
            u("/pages.xml")
        ),
        format!(
            "  {}:6:1: warning[duplicate-sitemap]: {} is announced 2 times in robots.txt; it is \
             read once",
            u("/robots.txt"),
            u("/pages.xml")
        ),
    ];
    assert_eq!(lines, want, "{out}");
    // Each fetched once per run, pages.xml included.
    for path in [
        "/robots.txt",
        "/index.xml",
        "/pages.xml",
        "/a.xml",
        "/b.xml.gz",
    ] {
        assert_eq!(server.hits_on(path), 1, "{path}");
    }

    // --agent: an agent with its own group that allows everything sees no blocked entry.
    let rt2 = support::runtime(1);
    let open = rt2.block_on(TestServer::start(|req| {
        let b = base(req);
        match req.path.as_str() {
            "/robots.txt" => Reply::text(
                200,
                &format!(
                    "User-agent: googlebot\nAllow: /\n\nUser-agent: *\nDisallow: /private\n\n\
                     Sitemap: {b}/a.xml\n"
                ),
            ),
            "/a.xml" => xml(urlset(&[format!("{b}/private/a1")])),
            _ => Reply::status(404),
        }
    }));
    let o = run(&["sitemap", "discover", &open.url("/x/y?z")]);
    assert_exit(&o, 0);
    assert_eq!(
        stdout(&o),
        format!(
            "{}\t200\tfetched\t1 sitemap announced\n{}\turlset\t1 entry\t0 errors\t0 warnings\n",
            open.url("/robots.txt"),
            open.url("/a.xml")
        )
    );
    let o = run(&["sitemap", "discover", "--agent", "OtherBot", &open.url("/")]);
    assert_exit(&o, 0);
    assert!(
        stdout(&o).contains(&format!(
            "{}\turlset\t1 entry\t0 errors\t1 warning\n  {}:3:3: warning[blocked-by-robots]: ",
            open.url("/a.xml"),
            open.url("/a.xml")
        )),
        "{}",
        both(&o)
    );
}

#[test]
fn discover_json_has_the_robots_txt_then_one_object_per_sitemap() {
    let rt = support::runtime(1);
    let server = discover_server(&rt);
    let u = |p: &str| server.url(p);
    let o = run(&["sitemap", "discover", "--json", &u("/")]);
    assert_exit(&o, 0);
    assert_eq!(stderr(&o), "");
    let out = stdout(&o);
    let raw: Vec<&str> = out.lines().collect();
    assert_eq!(raw.len(), 6, "{out}");
    // The robots.txt record, exactly (its fields in order).
    assert_eq!(
        raw[0],
        format!(
            "{{\"type\":\"robots-txt\",\"robots_txt\":\"{0}\",\"final_url\":\"{0}\",\
             \"redirects\":0,\"status\":200,\"outcome\":\"fetched\",\"announced\":3,\
             \"skipped\":0}}",
            u("/robots.txt")
        )
    );
    // And the summary.
    assert_eq!(
        raw[5],
        "{\"type\":\"summary\",\"command\":\"sitemap discover\",\"sitemaps\":4,\"origins\":1,\
         \"entries\":8,\"errors\":0,\"warnings\":2,\"skipped\":0,\"failed\":0,\"exit\":0}"
    );
    for line in &raw[1..5] {
        assert_eq!(
            raw_keys(line),
            [
                "type",
                "url",
                "parent",
                "depth",
                "format",
                "size",
                "entries",
                "errors",
                "warnings",
                "fetch_error",
                "problems",
                "omitted"
            ],
            "{line}"
        );
    }
    let objs = json_lines(&o);
    let urls: Vec<&str> = objs[1..]
        .iter()
        .map(|m| m["url"].as_str().expect("url"))
        .collect();
    assert_eq!(
        urls,
        [
            u("/index.xml"),
            u("/a.xml"),
            u("/b.xml.gz"),
            u("/pages.xml")
        ]
    );
    let base = format!("http://{}", server.addr);

    let idx = &objs[1];
    assert_eq!(idx["parent"], Value::Null);
    assert_eq!(idx["depth"], 0);
    assert_eq!(idx["format"], "sitemapindex");
    let index_len = index(&[format!("{base}/a.xml"), format!("{base}/b.xml.gz")]).len();
    assert_eq!(idx["size"], index_len);
    assert_eq!(
        (&idx["entries"], &idx["errors"], &idx["warnings"]),
        (&Value::from(2), &Value::from(0), &Value::from(0))
    );
    assert_eq!(idx["fetch_error"], Value::Null);
    assert_eq!(idx["problems"], serde_json::json!([]));
    assert_eq!(idx["omitted"], 0);

    let pages = &objs[4];
    assert_eq!(pages["parent"], Value::Null);
    assert_eq!(pages["format"], "urlset");
    assert_eq!(pages["entries"], 2);
    assert_eq!(pages["warnings"], 1);
    let d = &pages["problems"][0];
    assert_eq!(d["code"], "duplicate-sitemap");
    assert_eq!(d["severity"], "warning");
    // A repeated announcement sits on its (second) Sitemap: line of robots.txt.
    assert_eq!(d["path"], server.url("/robots.txt"));
    assert_eq!(
        (&d["line"], &d["column"]),
        (&Value::from(6), &Value::from(1))
    );

    let a = &objs[2];
    assert_eq!(a["parent"], u("/index.xml").as_str());
    assert_eq!(a["depth"], 1);
    assert_eq!(a["entries"], 1);
    assert_eq!(a["warnings"], 1);
    assert_eq!(a["problems"].as_array().map(Vec::len), Some(1));
    let d = &a["problems"][0];
    assert_eq!(d["code"], "blocked-by-robots");
    assert_eq!(
        (&d["line"], &d["column"]),
        (&Value::from(3), &Value::from(3))
    );
    assert!(
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains("Disallow: /private")),
        "{d}"
    );

    let b = &objs[3];
    assert_eq!(b["parent"], u("/index.xml").as_str());
    assert_eq!(b["depth"], 1);
    assert_eq!(b["format"], "urlset");
    assert_eq!(b["entries"], 3);
    // The bytes fetched are the compressed ones.
    let gz_len = gzip(&b_xml(&base)).len();
    assert_ne!(gz_len, b_xml(&base).len());
    assert_eq!(b["size"], gz_len);
    assert_eq!(
        (&b["errors"], &b["warnings"]),
        (&Value::from(0), &Value::from(0))
    );
}

#[test]
fn discover_exits_1_when_a_sitemap_cannot_be_fetched() {
    let (_rt, server) = support::serve_blocking(|req| {
        let b = base(req);
        match req.path.as_str() {
            "/robots.txt" => Reply::text(
                200,
                &format!("Sitemap: {b}/missing.xml\nSitemap: {b}/index.xml\n"),
            ),
            "/index.xml" => xml(index(&[format!("{b}/a.xml"), format!("{b}/gone.xml")])),
            "/a.xml" => xml(urlset(&[format!("{b}/a1")])),
            _ => Reply::status(404),
        }
    });
    let u = |p: &str| server.url(p);
    let o = run(&["sitemap", "discover", &u("/")]);
    assert_exit(&o, 1);
    assert_eq!(stderr(&o), "");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    let want = [
        format!("{}\t200\tfetched\t2 sitemaps announced", u("/robots.txt")),
        format!("{}\t-\t0 entries\t1 error\t0 warnings", u("/missing.xml")),
        // An announced sitemap's fetch failure sits on its Sitemap: line in robots.txt.
        format!(
            "  {}:1:1: error[fetch-failed]: cannot fetch {}: HTTP 404",
            u("/robots.txt"),
            u("/missing.xml")
        ),
        format!(
            "{}\tsitemapindex\t2 entries\t0 errors\t0 warnings",
            u("/index.xml")
        ),
        format!("  {}\turlset\t1 entry\t0 errors\t0 warnings", u("/a.xml")),
        format!("  {}\t-\t0 entries\t1 error\t0 warnings", u("/gone.xml")),
        // A child's sits where its index lists it (line 4, column 3).
        format!(
            "    {}:4:3: error[fetch-failed]: cannot fetch {}: HTTP 404",
            u("/index.xml"),
            u("/gone.xml")
        ),
    ];
    assert_eq!(lines, want, "{out}");

    let o = run(&["sitemap", "discover", "--json", &u("/")]);
    assert_exit(&o, 1);
    let objs = json_lines(&o);
    assert_eq!(objs.len(), 5, "{}", both(&o));
    assert_eq!(objs[0]["announced"], 2);
    for (m, url) in [(&objs[1], u("/missing.xml")), (&objs[4], u("/gone.xml"))] {
        assert_eq!(m["url"], url.as_str());
        assert_eq!(m["format"], Value::Null);
        assert_eq!(m["size"], 0);
        assert_eq!(m["entries"], 0);
        assert_eq!(m["errors"], 1);
        assert_eq!(m["fetch_error"], "HTTP 404");
        assert_eq!(m["problems"][0]["code"], "fetch-failed");
    }
    assert_eq!(objs[4]["problems"][0]["line"], 4);
}

#[test]
fn discover_exits_2_when_robots_txt_is_unreachable() {
    let (_rt, server) = support::serve_blocking(|_| Reply::status(503));
    let o = run(&["sitemap", "discover", &server.url("/")]);
    assert_exit(&o, 2);
    assert_eq!(
        stdout(&o),
        format!(
            "{}\t503\tunreachable\t0 sitemaps announced\n",
            server.url("/robots.txt")
        )
    );
    let o = run(&["sitemap", "discover", "--json", &server.url("/")]);
    assert_exit(&o, 2);
    assert_eq!(
        stdout(&o),
        format!(
            "{{\"type\":\"robots-txt\",\"robots_txt\":\"{0}\",\"final_url\":\"{0}\",\
             \"redirects\":0,\"status\":503,\"outcome\":\"unreachable\",\"announced\":0,\
             \"skipped\":0}}\n\
             {{\"type\":\"summary\",\"command\":\"sitemap discover\",\"sitemaps\":0,\"origins\":1,\
             \"entries\":0,\"errors\":0,\"warnings\":0,\"skipped\":0,\"failed\":1,\"exit\":2}}\n",
            server.url("/robots.txt")
        )
    );
    // Only robots.txt was asked for.
    assert!(server.requests().iter().all(|r| r.path == "/robots.txt"));
}

#[test]
fn discover_without_robots_txt_announces_nothing_and_exits_0() {
    let (_rt, server) = support::serve_blocking(|_| Reply::status(404));
    let o = run(&["sitemap", "discover", &server.url("/")]);
    assert_exit(&o, 0);
    assert_eq!(
        stdout(&o),
        format!(
            "{}\t404\tunavailable\t0 sitemaps announced\n",
            server.url("/robots.txt")
        )
    );
    let o = run(&["sitemap", "discover", "--json", &server.url("/")]);
    assert_exit(&o, 0);
    assert_eq!(json_lines(&o)[0]["outcome"], "unavailable");
    assert_eq!(server.hits(), 2);
}

#[test]
fn discover_max_sitemaps_says_what_was_not_fetched() {
    let (_rt, server) = support::serve_blocking(|req| {
        let b = base(req);
        match req.path.as_str() {
            "/robots.txt" => Reply::text(200, &format!("Sitemap: {b}/index.xml\n")),
            "/index.xml" => xml(index(
                &(1..=4).map(|i| format!("{b}/s{i}.xml")).collect::<Vec<_>>(),
            )),
            _ => xml(urlset(&[format!("{b}/page")])),
        }
    });
    let o = run(&[
        "sitemap",
        "discover",
        "--max-sitemaps",
        "2",
        &server.url("/"),
    ]);
    assert_exit(&o, 0);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 4, "{out}");
    assert_eq!(
        out.lines().last(),
        Some("3 sitemaps not fetched (--max-sitemaps 2)")
    );
    let o = run(&[
        "sitemap",
        "discover",
        "--json",
        "--max-sitemaps",
        "2",
        &server.url("/"),
    ]);
    let objs = json_lines(&o);
    assert_eq!(objs.len(), 3, "{}", both(&o));
    assert_eq!(objs[0]["skipped"], 3);
}

// ---- usage -------------------------------------------------------------------------------

#[test]
fn usage_errors_exit_2() {
    let basic = format!("{SEEDS}/basic.xml");
    for args in [
        &["sitemap"][..],
        &["sitemap", "lint"],
        &["sitemap", "urls"],
        &["sitemap", "discover"],
        &["sitemap", "frobnicate"],
        &["sitemap", "lint", "--frobnicate", &basic],
        &["sitemap", "lint", "--timeout", "0", &basic],
        &["sitemap", "urls", "--timeout", "-1", &basic],
        &["sitemap", "discover", "not a url"],
        &["sitemap", "discover", "ftp://example.com/"],
    ] {
        let o = run(args);
        assert_eq!(code(&o), 2, "{args:?}: {}", both(&o));
        assert_eq!(stdout(&o), "", "{args:?}");
        let err = stderr(&o);
        assert!(!err.is_empty(), "{args:?}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let o = run(&["sitemap", "lint"]);
    assert!(
        stderr(&o).contains("required arguments were not provided"),
        "{}",
        stderr(&o)
    );
    let o = run(&["sitemap", "lint", "--timeout", "0", &basic]);
    assert_eq!(
        stderr(&o),
        "crawlgate: --timeout must be a positive number of seconds\n"
    );
    // --help is not an error.
    let o = run(&["sitemap", "lint", "--help"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("Exit status:"), "{}", stdout(&o));
}

/// Two indexes that list each other, laid out alike: the cycle is in the inner one's file and
/// is printed under its URL, the nesting under the outer one's (which lists the inner index),
/// although both sit at the same line and column.
#[test]
fn discover_names_the_file_each_problem_is_in() {
    let (_rt, server) = support::serve_blocking(|req| {
        let b = base(req);
        match req.path.as_str() {
            "/robots.txt" => Reply::text(200, &format!("Sitemap: {b}/outer.xml\n")),
            "/outer.xml" => xml(index(&[format!("{b}/inner.xml")])),
            "/inner.xml" => xml(index(&[format!("{b}/outer.xml")])),
            _ => Reply::status(404),
        }
    });
    let u = |p: &str| server.url(p);
    let o = run(&["sitemap", "discover", &u("/")]);
    let out = stdout(&o);
    let nested = out
        .lines()
        .find(|l| l.contains("error[nested-index]"))
        .unwrap_or_else(|| panic!("{}", both(&o)));
    assert!(
        nested
            .trim_start()
            .starts_with(&format!("{}:3:3:", u("/outer.xml"))),
        "{nested}"
    );
    let cycle = out
        .lines()
        .find(|l| l.contains("error[index-cycle]"))
        .unwrap_or_else(|| panic!("{}", both(&o)));
    assert!(
        cycle
            .trim_start()
            .starts_with(&format!("{}:3:3:", u("/inner.xml"))),
        "{cycle}"
    );
    assert_exit(&o, 1);
}

/// A sitemap URL lists URLs under its own directory; announced in robots.txt, the whole site.
#[test]
fn lint_url_input_lists_its_directory_or_its_site_when_announced() {
    let (_rt, server) = support::serve_blocking(|req| {
        let b = base(req);
        match req.path.as_str() {
            "/robots.txt" => Reply::text(200, &format!("Sitemap: {b}/blog/announced.xml\n")),
            "/blog/announced.xml" | "/blog/plain.xml" => {
                xml(urlset(&[format!("{b}/blog/a"), format!("{b}/shop/b")]))
            }
            _ => Reply::status(404),
        }
    });
    let o = run(&["sitemap", "lint", &server.url("/blog/announced.xml")]);
    assert_exit(&o, 0);
    assert_eq!(stdout(&o), "1 sitemap, 2 entries: no problems\n");
    let plain = server.url("/blog/plain.xml");
    let o = run(&["sitemap", "lint", &plain]);
    assert_exit(&o, 1);
    assert_eq!(
        stdout(&o),
        format!(
            "{plain}:4:3: error[url-not-allowed]: {} is outside {}: a sitemap lists URLs of its \
             own site under its own directory (or of the whole site when robots.txt announces \
             it); this one is not used\n1 sitemap, 2 entries: 1 error\n",
            server.url("/shop/b"),
            server.url("/blog/")
        )
    );
}
