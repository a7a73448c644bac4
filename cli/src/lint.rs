//! `crawlgate lint`: every diagnostic of every file (or robots.txt fetched from a URL), then a
//! summary.

use std::borrow::Cow;

use crawlgate::{Code, Diagnostic, Options, Robots, Severity};

use crate::args::LintArgs;
use crate::live::{self, Input};
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

pub fn run(args: &LintArgs, out: &mut Out) -> anyhow::Result<Status> {
    let inputs = live::inputs(&args.files, "linted")?;
    let options = Options::mode(args.mode.into());
    let mut tally = Tally::default();
    let mut cap = ProblemCap::new(args.max_problems);
    let mut net = live::Net::new(&args.http, args.mode.into(), ("lint", "linted"));
    for input in &inputs {
        // The real size, where it is known: only the limit and one more byte are read.
        let size = match input {
            Input::File(source) => source.size(),
            Input::Url(_) => None,
        };
        let Some((name, bytes)) =
            live::read(&mut net, input, out, args.json, &mut tally.unreadable)?
        else {
            continue;
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
