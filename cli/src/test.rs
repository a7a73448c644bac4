//! `crawlgate test`: does a robots.txt (a file, or a site's live one) give the verdicts an
//! expectations file asks for? For a site's CI: exit 0 when every expectation holds, 1 when one
//! does not, 2 on bad input; a line per expectation (or JSON Lines), and JUnit XML for the CI
//! server to show.
//!
//! The expectations file, a line each (blank lines and `#` lines skipped):
//!
//! ```text
//! Googlebot: allowed /
//! Googlebot: disallowed /admin/ /cart?step=2
//! training crawlers: disallowed /
//! mode: google
//! Googlebot: allowed /index.html
//! ```
//!
//! `WHO: VERDICT TARGET…`: `WHO` a product token, or `PURPOSE crawlers` (every crawler of that
//! purpose in the catalogue); `VERDICT` `allowed` or `disallowed`; each `TARGET` a path or a URL,
//! as `check --robots` takes them. `mode: rfc|google` sets the mode of the lines below it.

use std::borrow::Cow;
use std::fmt::Write as _;

use crawlgate::audit::{Catalogue, Purpose};
use crawlgate::{Mode, Options, Origin, ProductToken, Robots};

use crate::args::TestArgs;
use crate::input::Source;
use crate::live::{self, Input};
use crate::output::{escape, plural, Out};
use crate::schema::{self, Record, Summary};
use crate::status::Status;
use crate::verdicts::{catalogue, word, Verdict};

/// Who an expectation is about.
#[derive(Debug)]
enum Who {
    /// A product token, and the agent as written.
    Agent(ProductToken, String),
    /// Every crawler of a purpose in the catalogue.
    Purpose(Purpose),
}

/// One line of the expectations file: one verdict expected at each of its targets.
#[derive(Debug)]
struct Expectation {
    line: u32,
    mode: Mode,
    who: Who,
    allowed: bool,
    targets: Vec<String>,
}

impl Expectation {
    /// `Googlebot: disallowed`, `training crawlers: disallowed`, as the line reads (escaped).
    fn head(&self) -> String {
        let who = match &self.who {
            Who::Agent(_, written) => escape(written).into_owned(),
            Who::Purpose(p) => format!("{} crawlers", p.as_str()),
        };
        format!("{who}: {}", word(self.allowed))
    }
}

/// One expectation at one target for one agent, and what the robots.txt says.
struct Outcome<'e> {
    exp: &'e Expectation,
    target: &'e str,
    token: Cow<'e, ProductToken>,
    /// The catalogue's name, for a purpose line.
    crawler: Option<String>,
    verdict: Verdict,
}

impl Outcome<'_> {
    fn holds(&self) -> bool {
        self.verdict.allowed == self.exp.allowed
    }

    /// `Googlebot: disallowed /admin/`, or `training crawlers: disallowed / (GPTBot)`.
    fn name(&self) -> String {
        let mut s = format!("{} {}", self.exp.head(), escape(self.target));
        if let Some(c) = &self.crawler {
            let _ = write!(s, " ({})", escape(c));
        }
        s
    }

    /// What the robots.txt says and why: `disallowed by line 4: Disallow: /admin/`,
    /// `allowed: no rule matched`.
    fn why(&self) -> String {
        match self.verdict.line {
            Some(_) => format!("{} by {}", self.verdict.word(), self.verdict.cause()),
            None => format!("{}: {}", self.verdict.word(), self.verdict.cause()),
        }
    }
}

/// A line of the expectations file that cannot be read: `FILE:LINE: message`.
struct BadLine {
    line: u32,
    message: String,
}

fn mode_word(m: Mode) -> &'static str {
    match m {
        Mode::Google => "google",
        _ => "rfc",
    }
}

/// Reads the expectations file: every line, each bad line reported (not only the first).
fn parse(text: &str, mut mode: Mode) -> Result<Vec<Expectation>, Vec<BadLine>> {
    let mut exps = Vec::new();
    let mut bad = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let text = raw.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let mut fail = |message: String| bad.push(BadLine { line, message });
        let Some((who, rest)) = text.split_once(':') else {
            fail("expected `AGENT: allowed|disallowed PATH…` (or `mode: rfc|google`)".into());
            continue;
        };
        let who = who.trim();
        let mut words = rest.split_whitespace();
        if who.eq_ignore_ascii_case("mode") {
            match (words.next(), words.next()) {
                (Some(m), None) if m.eq_ignore_ascii_case("rfc") => mode = Mode::Rfc,
                (Some(m), None) if m.eq_ignore_ascii_case("google") => mode = Mode::Google,
                _ => fail("expected `mode: rfc` or `mode: google`".into()),
            }
            continue;
        }
        let allowed = match words.next() {
            Some("allowed") => true,
            Some("disallowed") => false,
            Some(other) => {
                fail(format!(
                    "`{}` is not a verdict: allowed or disallowed",
                    escape(other)
                ));
                continue;
            }
            None => {
                fail("no verdict: expected `allowed` or `disallowed`, then paths".into());
                continue;
            }
        };
        let targets: Vec<String> = words.map(str::to_owned).collect();
        if targets.is_empty() {
            fail("no path: give one or more paths or URLs after the verdict".into());
            continue;
        }
        if let Some(why) = targets
            .iter()
            .find_map(|t| crate::urls::local_target(t, mode).err())
        {
            fail(why);
            continue;
        }
        let who = match who.strip_suffix(" crawlers") {
            Some(p) => match Purpose::from_name(p.trim()) {
                Some(p) => Who::Purpose(p),
                None => {
                    fail(format!(
                        "`{}` is not a purpose: training, search, agent or other",
                        escape(p.trim())
                    ));
                    continue;
                }
            },
            None => match crate::crawler::tokens(&[who.to_owned()], mode) {
                Ok(mut t) if t.len() == 1 && !who.is_empty() => {
                    Who::Agent(t.remove(0), who.to_owned())
                }
                Ok(_) => {
                    fail("no agent before the `:`".into());
                    continue;
                }
                Err(e) => {
                    fail(format!("{e:#}"));
                    continue;
                }
            },
        };
        exps.push(Expectation {
            line,
            mode,
            who,
            allowed,
            targets,
        });
    }
    if bad.is_empty() {
        Ok(exps)
    } else {
        Err(bad)
    }
}

/// The targets that are URLs of another origin than the live robots.txt's: its rules do not
/// apply to them.
fn foreign<'e>(exps: &'e [Expectation], site: &str) -> Option<(u32, &'e str)> {
    let origin = Origin::from_url(site).ok()?;
    exps.iter().find_map(|e| {
        e.targets
            .iter()
            .find(|t| Origin::from_url(t).is_ok_and(|o| o != origin))
            .map(|t| (e.line, t.as_str()))
    })
}

pub fn run(args: &TestArgs, out: &mut Out) -> anyhow::Result<Status> {
    let expect = Source::new(&args.expect);
    let expect_name = expect.name().into_owned();
    let inputs = live::inputs(std::slice::from_ref(&args.robots), "tested")?;
    if expect.is_stdin() && matches!(&inputs[..], [Input::File(s)] if s.is_stdin()) {
        anyhow::bail!("--expect and the robots.txt cannot both read standard input (`-`)");
    }
    let bytes = expect.read()?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{expect_name}: the expectations file is not UTF-8"))?;
    let exps = match parse(&text, args.mode.into()) {
        Ok(e) if e.is_empty() => anyhow::bail!("{expect_name}: no expectations in the file"),
        Ok(e) => e,
        Err(bad) => {
            for b in &bad {
                out.error(format_args!(
                    "{}:{}: {}",
                    escape(&expect_name),
                    b.line,
                    b.message
                ));
            }
            return Ok(Status::Failed);
        }
    };
    if let [Input::Url(site)] = &inputs[..] {
        if let Some((line, t)) = foreign(&exps, site) {
            anyhow::bail!(
                "{}:{line}: {} is not on the site tested ({}): its robots.txt does not apply",
                escape(&expect_name),
                escape(t),
                escape(site)
            );
        }
    }
    let catalogue = exps
        .iter()
        .any(|e| matches!(e.who, Who::Purpose(_)))
        .then(|| catalogue(args.catalogue.as_deref()))
        .transpose()?;
    let mut net = live::Net::new(&args.http, args.mode.into(), ("test", "tested"));
    net.absent_is_empty();
    let mut unreadable = 0;
    let Some((name, body)) = live::read(&mut net, &inputs[0], out, args.json, &mut unreadable)?
    else {
        if args.json {
            out.json(&Record::Summary(Summary {
                command: "test",
                failed: unreadable.max(1),
                exit: Status::Failed.code(),
                ..Summary::default()
            }))?;
        }
        return Ok(Status::Failed);
    };
    // The file as each mode reads it (one parse per mode used); its read warnings once.
    let parse_in = |m: Mode| Robots::parse_with(&body, &Options::mode(m));
    let first = parse_in(exps[0].mode);
    let fetched_absent = body.is_empty() && matches!(inputs[0], Input::Url(_));
    if !fetched_absent {
        let size = match &inputs[0] {
            Input::File(s) => s.size(),
            Input::Url(_) => None,
        };
        let warnings = crate::input::read_warnings(&body, size, &first.diagnostics);
        out.read_warnings(args.json, &name, &warnings)?;
    }
    let other_mode = exps.iter().any(|e| e.mode != exps[0].mode).then(|| {
        parse_in(if exps[0].mode == Mode::Rfc {
            Mode::Google
        } else {
            Mode::Rfc
        })
    });
    let robots_in = |m: Mode| match &other_mode {
        Some(p) if m != exps[0].mode => &p.robots,
        _ => &first.robots,
    };
    let outcomes = evaluate(&exps, catalogue.as_ref(), robots_in)?;
    let failures = outcomes.iter().filter(|o| !o.holds()).count();
    let status = if failures > 0 {
        Status::Findings
    } else {
        Status::Clean
    };
    if let Some(path) = &args.junit {
        let xml = junit(&expect_name, &name, &outcomes);
        std::fs::write(path, xml)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    if args.json {
        for o in &outcomes {
            out.json(&Record::Expectation(record(&expect_name, &name, o)))?;
        }
        out.json(&Record::Summary(Summary {
            command: "test",
            files: Some(1),
            expectations: Some(outcomes.len()),
            passed: Some(outcomes.len() - failures),
            failures: Some(failures),
            exit: status.code(),
            ..Summary::default()
        }))?;
    } else {
        human(out, &expect_name, &outcomes)?;
        out.line(format_args!(
            "{}: {}: {} hold, {} {}",
            escape(&name),
            plural(outcomes.len(), "expectation", "expectations"),
            outcomes.len() - failures,
            failures,
            if failures == 1 { "fails" } else { "fail" }
        ))?;
    }
    Ok(status)
}

/// Every expectation at every target, purpose lines once per catalogued crawler of the purpose
/// (with a product token).
fn evaluate<'e, 'r>(
    exps: &'e [Expectation],
    catalogue: Option<&Catalogue>,
    robots_in: impl Fn(Mode) -> &'r Robots,
) -> anyhow::Result<Vec<Outcome<'e>>> {
    let mut outcomes = Vec::new();
    for e in exps {
        let robots = robots_in(e.mode);
        let agents: Vec<(Cow<'e, ProductToken>, Option<String>)> = match &e.who {
            Who::Agent(t, _) => vec![(Cow::Borrowed(t), None)],
            Who::Purpose(p) => {
                let crawlers: Vec<_> = catalogue
                    .map(Catalogue::crawlers)
                    .unwrap_or_default()
                    .iter()
                    .filter(|c| c.purpose == *p)
                    .filter_map(|c| Some((Cow::Owned(c.token.clone()?), Some(c.name.clone()))))
                    .collect();
                if crawlers.is_empty() {
                    anyhow::bail!(
                        "line {}: the catalogue has no {} crawlers",
                        e.line,
                        p.as_str()
                    );
                }
                crawlers
            }
        };
        for target in &e.targets {
            for (token, crawler) in &agents {
                outcomes.push(Outcome {
                    exp: e,
                    target,
                    verdict: Verdict::of(robots, token, target),
                    token: token.clone(),
                    crawler: crawler.clone(),
                });
            }
        }
    }
    Ok(outcomes)
}

/// `ok<TAB>FILE:LINE<TAB>NAME<TAB>WHY` per expectation (`FAIL` when it does not hold); a purpose
/// line whose crawlers all hold is one `ok` line, with their count.
fn human(out: &mut Out, expect: &str, outcomes: &[Outcome<'_>]) -> std::io::Result<()> {
    let expect = escape(expect);
    let mut i = 0;
    while i < outcomes.len() {
        let o = &outcomes[i];
        // The run of outcomes of one purpose line at one target.
        let run = outcomes[i..]
            .iter()
            .take_while(|p| {
                std::ptr::eq(p.exp, o.exp) && p.target == o.target && o.crawler.is_some()
            })
            .count()
            .max(1);
        let group = &outcomes[i..i + run];
        if o.crawler.is_some() && group.iter().all(Outcome::holds) {
            out.line(format_args!(
                "ok\t{expect}:{}\t{} {}\t{} crawlers",
                o.exp.line,
                o.exp.head(),
                escape(o.target),
                group.len()
            ))?;
        } else {
            for g in group {
                if g.holds() {
                    if g.crawler.is_none() {
                        out.line(format_args!(
                            "ok\t{expect}:{}\t{}\t{}",
                            g.exp.line,
                            g.name(),
                            g.why()
                        ))?;
                    }
                } else {
                    out.line(format_args!(
                        "FAIL\t{expect}:{}\t{}\t{}",
                        g.exp.line,
                        g.name(),
                        g.why()
                    ))?;
                }
            }
        }
        i += run;
    }
    Ok(())
}

fn record<'a>(expect: &'a str, robots_txt: &'a str, o: &'a Outcome<'_>) -> schema::Expectation<'a> {
    schema::Expectation {
        expectations: expect,
        expectation_line: o.exp.line,
        robots_txt,
        mode: mode_word(o.exp.mode),
        agent: o.token.as_str(),
        purpose: match o.exp.who {
            Who::Purpose(p) => Some(p.as_str()),
            Who::Agent(..) => None,
        },
        crawler: o.crawler.as_deref(),
        url: o.target,
        expected: word(o.exp.allowed),
        actual: o.verdict.word(),
        holds: o.holds(),
        line: o.verdict.line,
        rule: o.verdict.rule.clone(),
    }
}

/// Text for XML (an attribute or element content): control characters shown escaped (XML 1.0
/// cannot carry most of them at all), then the five markup characters as entities. Everything
/// from the site and the expectations file goes through here.
fn xml(s: &str) -> String {
    let mut x = String::with_capacity(s.len());
    for c in escape(s).chars() {
        match c {
            '&' => x.push_str("&amp;"),
            '<' => x.push_str("&lt;"),
            '>' => x.push_str("&gt;"),
            '"' => x.push_str("&quot;"),
            '\'' => x.push_str("&apos;"),
            // Not XML 1.0 characters either.
            '\u{fffe}' | '\u{ffff}' => {
                let _ = write!(x, "\\u{{{:x}}}", u32::from(c));
            }
            c => x.push(c),
        }
    }
    x
}

/// JUnit XML as GitHub (test reporters), GitLab (`artifacts:reports:junit`) and Jenkins read it:
/// one `testsuite` (the robots.txt), one `testcase` per expectation at each target (and
/// crawler), a `failure` naming the deciding line.
fn junit(expect: &str, robots_txt: &str, outcomes: &[Outcome<'_>]) -> String {
    let failures = outcomes.iter().filter(|o| !o.holds()).count();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites name=\"crawlgate test\" tests=\"{}\" failures=\"{failures}\" errors=\"0\">",
        outcomes.len()
    );
    let _ = writeln!(
        x,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">",
        xml(robots_txt),
        outcomes.len()
    );
    for o in outcomes {
        let _ = write!(
            x,
            "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{}\"",
            xml(expect),
            xml(&o.name()),
            xml(expect),
            o.exp.line
        );
        if o.holds() {
            x.push_str("/>\n");
        } else {
            let _ = writeln!(
                x,
                ">\n      <failure type=\"verdict\" message=\"{}\">{} (mode {}), expected {}</failure>\n    </testcase>",
                xml(&o.why()),
                xml(&o.why()),
                mode_word(o.exp.mode),
                word(o.exp.allowed)
            );
        }
    }
    x.push_str("  </testsuite>\n</testsuites>\n");
    x
}
