//! `crawlgate lint`: every diagnostic of every file (or robots.txt fetched from a URL), then a
//! summary.

use std::borrow::Cow;

use crawlgate::{Code, Diagnostic, Options, Robots, Severity};

use crate::args::LintArgs;
use crate::input::Source;
use crate::output::{escape, plural, problems, Out, ProblemCap};
use crate::schema::{Problem, Record, Summary};
use crate::status::Status;

/// Counts over all files read.
#[derive(Debug, Default)]
struct Tally {
    files: usize,
    errors: usize,
    warnings: usize,
    unreadable: usize,
}

/// One argument: a file (or `-`), or an http(s) URL whose origin's robots.txt is fetched.
enum Input<'a> {
    File(Source),
    Url(&'a str),
}

/// Whether an argument is meant as a URL (`scheme://…`) rather than a path. A file whose path
/// looks like one can be given as `./https:/…`.
fn is_url(arg: &str) -> bool {
    arg.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    })
}

pub fn run(args: &LintArgs, out: &mut Out) -> anyhow::Result<Status> {
    let inputs: Vec<Input> = args
        .files
        .iter()
        .map(|p| match p.to_str() {
            Some(s) if is_url(s) => Input::Url(s),
            _ => Input::File(Source::new(p)),
        })
        .collect();
    let stdin = inputs
        .iter()
        .filter(|i| matches!(i, Input::File(s) if s.is_stdin()))
        .count();
    if stdin > 1 {
        anyhow::bail!("standard input (`-`) can be linted only once");
    }
    let options = Options::mode(args.mode.into());
    let mut tally = Tally::default();
    let mut cap = ProblemCap::new(args.max_problems);
    let mut net = live::Net::new(&args.http, args.mode.into());
    for input in &inputs {
        // The real size, where it is known: only the limit and one more byte are read.
        let size = match input {
            Input::File(source) => source.size(),
            Input::Url(_) => None,
        };
        let (name, bytes) = match input {
            Input::File(source) => match source.read_robots() {
                Ok(bytes) => (source.name().into_owned(), bytes),
                Err(e) => {
                    out.error(format_args!("{e:#}"));
                    tally.unreadable += 1;
                    continue;
                }
            },
            Input::Url(url) => match net.fetch(url, out, args.json)? {
                Some(fetched) => fetched,
                None => {
                    if net.failed() {
                        tally.unreadable += 1;
                    }
                    continue;
                }
            },
        };
        tally.files += 1;
        let parsed = Robots::parse_with(&bytes, &options);
        for d in &parsed.diagnostics {
            match d.severity {
                Severity::Error => tally.errors += 1,
                Severity::Warning => tally.warnings += 1,
            }
            if cap.admit(d.code.as_str()) {
                report(out, args.json, &name, &bytes, size, d)?;
            }
        }
        for (code, n) in cap.end_file() {
            if !args.json {
                out.line(format_args!(
                    "{}: {n} more {code} {} not shown (--max-problems)",
                    escape(&name),
                    if n == 1 { "problem" } else { "problems" }
                ))?;
            }
        }
    }
    let status = if tally.unreadable > 0 {
        Status::Failed
    } else if tally.errors > 0 || (args.deny_warnings && tally.warnings > 0) {
        Status::Findings
    } else {
        Status::Clean
    };
    if args.json {
        out.json(&Record::Summary(Summary {
            command: "lint",
            files: Some(tally.files),
            errors: Some(tally.errors),
            warnings: Some(tally.warnings),
            omitted: cap.is_set().then_some(cap.omitted),
            failed: tally.unreadable,
            exit: status.code(),
            ..Summary::default()
        }))?;
    } else if tally.files > 0 {
        out.line(format_args!("{}", summary(&tally)))?;
    }
    Ok(status)
}

fn report(
    out: &mut Out,
    json: bool,
    name: &str,
    bytes: &[u8],
    size: Option<u64>,
    d: &Diagnostic,
) -> std::io::Result<()> {
    // The parser saw only what was read (the limit and one more byte): the size it gives is
    // that of the buffer. Say the real one, or that it is more than the limit.
    let message = match d.message.split_once("; ") {
        Some((_, rest)) if d.code == Code::ContentAfterLimit => {
            Cow::Owned(format!("{}; {rest}", crate::input::cut_size(size)))
        }
        _ => Cow::Borrowed(&*d.message),
    };
    let problem = Problem {
        path: name,
        line: d.line,
        column: d.column(bytes) as u64,
        severity: d.severity.as_str(),
        code: d.code.as_str(),
        message: &message,
    };
    out.problem(json, "", &problem)
}

/// `1 file: no problems`, `2 files: 3 errors, 1 warning`.
fn summary(t: &Tally) -> String {
    format!(
        "{}: {}",
        plural(t.files, "file", "files"),
        problems(t.errors, t.warnings)
    )
}

/// `lint URL` without the `fetch` feature: every URL is an input that cannot be read.
#[cfg(not(feature = "fetch"))]
mod live {
    use crate::args::HttpArgs;
    use crate::output::{escape, Out};

    pub struct Net {
        failed: bool,
    }

    impl Net {
        pub fn new(_: &HttpArgs, _: crawlgate::Mode) -> Net {
            Net { failed: false }
        }

        pub fn failed(&self) -> bool {
            self.failed
        }

        pub fn fetch(
            &mut self,
            url: &str,
            out: &mut Out,
            _: bool,
        ) -> std::io::Result<Option<(String, Vec<u8>)>> {
            out.error(format_args!(
                "cannot fetch {}: this build cannot fetch robots.txt (feature `fetch`)",
                escape(url)
            ));
            self.failed = true;
            Ok(None)
        }
    }
}

/// `lint URL`: the origin's robots.txt fetched now with the engine's client, not recorded in
/// the crawl state (linting is a look at the file, not a crawl).
#[cfg(feature = "fetch")]
mod live {
    use crawlgate::http::{FetchOptions, Fetcher};
    use crawlgate::policy::FetchOutcome;
    use crawlgate::Origin;

    use crate::args::HttpArgs;
    use crate::output::{escape, Out};
    use crate::schema::{LintFetch, Record};

    /// The client and its runtime, made on the first URL (a run over files starts neither).
    pub struct Net<'a> {
        http: &'a HttpArgs,
        mode: crawlgate::Mode,
        live: Option<(tokio::runtime::Runtime, Fetcher)>,
        /// The last URL was reported on standard error (counted as failed).
        failed: bool,
    }

    impl<'a> Net<'a> {
        pub fn new(http: &'a HttpArgs, mode: crawlgate::Mode) -> Net<'a> {
            Net {
                http,
                mode,
                live: None,
                failed: false,
            }
        }

        pub fn failed(&self) -> bool {
            self.failed
        }

        fn live(&mut self) -> anyhow::Result<&(tokio::runtime::Runtime, Fetcher)> {
            if self.live.is_none() {
                let user_agent = self
                    .http
                    .user_agent
                    .clone()
                    .unwrap_or_else(|| FetchOptions::default().user_agent);
                let options = crate::engine::fetch_options(self.http, user_agent, self.mode)?;
                let fetcher = Fetcher::new(options)
                    .map_err(|e| anyhow::anyhow!("cannot set up the HTTP client: {e}"))?;
                self.live = Some((crate::engine::runtime()?, fetcher));
            }
            self.live
                .as_ref()
                .ok_or_else(|| anyhow::anyhow!("cannot set up the HTTP client"))
        }

        /// The robots.txt of `url`'s origin: its name (the robots.txt URL) and body; `None`
        /// when there is nothing to lint (a note says so) or it could not be fetched (reported
        /// on standard error, and [`Net::failed`] says so). An error is one that ends the run
        /// (standard output closed, no HTTP client).
        pub fn fetch(
            &mut self,
            url: &str,
            out: &mut Out,
            json: bool,
        ) -> anyhow::Result<Option<(String, Vec<u8>)>> {
            self.failed = false;
            let origin = match Origin::from_url(url) {
                Ok(o) => o,
                Err(e) => {
                    // The error names the URL: say it once.
                    out.error(format_args!("cannot lint: {e}"));
                    self.failed = true;
                    return Ok(None);
                }
            };
            let name = origin.robots_txt_url();
            let (rt, fetcher) = self.live()?;
            let fetched = match rt.block_on(fetcher.fetch(&origin)) {
                Ok(f) => f,
                Err(e) => {
                    out.error(format_args!("{name}: not fetched: {e}"));
                    self.failed = true;
                    return Ok(None);
                }
            };
            let (outcome, cause) = match &fetched.outcome {
                FetchOutcome::Rules { .. } => ("fetched", None),
                FetchOutcome::Unavailable(why) => ("unavailable", Some(why.to_string())),
                FetchOutcome::Unreachable(why) => ("unreachable", Some(why.to_string())),
                FetchOutcome::PaymentRequired(p) => ("payment-required", Some(p.to_string())),
                // Unconditional: a 304 cannot be an answer to it.
                FetchOutcome::NotModified { .. } => (
                    "unreachable",
                    Some("HTTP 304 to an unconditional request".to_owned()),
                ),
                // An outcome added to the library later: its own word, no cause.
                other => (other.as_str(), None),
            };
            if json {
                out.json(&Record::LintFetch(LintFetch {
                    url,
                    robots_txt: &name,
                    status: fetched.status,
                    outcome,
                    cause: cause.clone(),
                    final_url: &fetched.final_url,
                    redirects: fetched.redirects,
                }))?;
            }
            match fetched.outcome {
                FetchOutcome::Rules { body, .. } => {
                    if !json && fetched.html {
                        let served = match &fetched.content_type {
                            Some(t) => format!("Content-Type {}", escape(t)),
                            None => "no Content-Type".to_owned(),
                        };
                        out.line(format_args!(
                            "{name}: an HTML page, not a robots.txt ({served}): a soft 404 or a bot wall"
                        ))?;
                    }
                    if !json && fetched.redirects > 0 {
                        // The line numbers that follow are those of the file served there.
                        out.line(format_args!(
                            "{name}: served by {} after {} redirect{}",
                            escape(&fetched.final_url),
                            fetched.redirects,
                            if fetched.redirects == 1 { "" } else { "s" }
                        ))?;
                    }
                    Ok(Some((name, body.to_vec())))
                }
                FetchOutcome::Unavailable(_) => {
                    if !json {
                        out.line(format_args!(
                            "{name}: no robots.txt ({}): nothing to lint",
                            escape(cause.as_deref().unwrap_or_default())
                        ))?;
                    }
                    Ok(None)
                }
                _ => {
                    out.error(format_args!(
                        "{name}: robots.txt unreachable ({}): nothing linted",
                        escape(cause.as_deref().unwrap_or_default())
                    ));
                    self.failed = true;
                    Ok(None)
                }
            }
        }
    }
}
