//! `crawlgate lint`: every diagnostic of every file, then a summary.

use crawlgate::{Diagnostic, Options, Robots, Severity};

use crate::input::Source;
use crate::output::{escape, plural, problems, Out, ProblemCap};
use crate::schema::{Problem, Record, Summary};
use crate::{LintArgs, Status};

/// Counts over all files read.
#[derive(Debug, Default)]
struct Tally {
    files: usize,
    errors: usize,
    warnings: usize,
    unreadable: usize,
}

pub fn run(args: &LintArgs, out: &mut Out) -> anyhow::Result<Status> {
    let sources: Vec<Source> = args.files.iter().map(|p| Source::new(p)).collect();
    if sources.iter().filter(|s| s.is_stdin()).count() > 1 {
        anyhow::bail!("standard input (`-`) can be linted only once");
    }
    let options = Options::mode(args.mode.into());
    let mut tally = Tally::default();
    let mut cap = ProblemCap::new(args.max_problems);
    for source in &sources {
        let bytes = match source.read_robots() {
            Ok(bytes) => bytes,
            Err(e) => {
                out.error(format_args!("{e:#}"));
                tally.unreadable += 1;
                continue;
            }
        };
        tally.files += 1;
        let parsed = Robots::parse_with(&bytes, &options);
        for d in &parsed.diagnostics {
            match d.severity {
                Severity::Error => tally.errors += 1,
                Severity::Warning => tally.warnings += 1,
            }
            if cap.admit(d.code.as_str()) {
                report(out, args.json, &source.name(), &bytes, d)?;
            }
        }
        for (code, n) in cap.end_file() {
            if !args.json {
                out.line(format_args!(
                    "{}: {n} more {code} {} not shown (--max-problems)",
                    escape(&source.name()),
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
    d: &Diagnostic,
) -> std::io::Result<()> {
    let column = d.column(bytes);
    if json {
        out.json(&Record::Problem(Problem {
            path: name,
            line: d.line,
            column: column as u64,
            severity: d.severity.as_str(),
            code: d.code.as_str(),
            message: &d.message,
        }))
    } else {
        // Messages quote the file: escaped, so that a robots.txt cannot drive the terminal.
        out.line(format_args!(
            "{}:{}:{column}: {}[{}]: {}",
            escape(name),
            d.line,
            d.severity.as_str(),
            d.code.as_str(),
            escape(&d.message)
        ))
    }
}

/// `1 file: no problems`, `2 files: 3 errors, 1 warning`.
fn summary(t: &Tally) -> String {
    format!(
        "{}: {}",
        plural(t.files, "file", "files"),
        problems(t.errors, t.warnings)
    )
}
