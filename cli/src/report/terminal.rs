//! The report on the terminal: per robots.txt, its status block, the problems by line, the
//! versions with their diffs, and the verdict tables. Times are shown in the local time zone;
//! everything from a site goes through [`escape`].

use std::fmt::Write as _;

use super::enabled::Report;
use crate::engine::report::{Cell, RobotsReport, VersionView};
use crate::output::{escape, plural, problems, Out};

pub fn render(out: &mut Out, report: &Report) -> std::io::Result<()> {
    out.line(format_args!(
        "robots.txt report, {}: {}",
        local(&report.generated_at),
        super::source(report)
    ))?;
    for r in &report.robots_txts {
        out.line(format_args!(""))?;
        robots_txt(out, r, &report.agents)?;
    }
    if !report.dormant.is_empty() {
        out.line(format_args!(""))?;
        out.line(format_args!(
            "not shown: {} not found for over 30 days (still checked): {}",
            plural(report.dormant.len(), "robots.txt", "robots.txt files"),
            report.dormant.join(", ")
        ))?;
    }
    Ok(())
}

/// One robots.txt's section: its facts, its problems by line, its versions with their diffs,
/// then the verdicts it changes and the verdicts now.
fn robots_txt(out: &mut Out, r: &RobotsReport, agents: &[String]) -> std::io::Result<()> {
    facts(out, r)?;
    problems_by_line(out, r)?;
    versions(out, r)?;
    verdicts(out, r)?;
    verdicts_now(out, r, agents)
}

/// Status, last fetch, size, problems, the rules in force, the next fetch and redirects.
fn facts(out: &mut Out, r: &RobotsReport) -> std::io::Result<()> {
    out.line(format_args!("{}", r.robots_txt))?;
    out.line(format_args!("  status:      {}", escape(&super::badge(r))))?;
    if let Some(t) = &r.last_fetch {
        out.line(format_args!("  last fetch:  {}", local(t)))?;
    }
    if let Some(size) = r.size {
        out.line(format_args!(
            "  size:        {}",
            plural(size as usize, "byte", "bytes")
        ))?;
    }
    if let Some(f) = &r.file {
        out.line(format_args!(
            "  problems:    {}{}",
            problems(r.errors, r.warnings),
            if r.status == "fetched" {
                String::new()
            } else {
                format!(" (in version {}, the last file fetched)", f.version)
            }
        ))?;
    }
    let version = r
        .in_force
        .version
        .map_or(String::new(), |v| format!(" (version {v})"));
    out.line(format_args!(
        "  in force:    {}: {}{version}",
        r.in_force.verdict,
        escape(&localize(&r.in_force.text))
    ))?;
    if let Some(t) = &r.next_fetch {
        out.line(format_args!("  next fetch:  {}", local(t)))?;
    }
    for p in &r.politeness {
        out.line(format_args!(
            "  politeness:  {}: {}",
            escape(&p.agent),
            escape(&localize(&p.text))
        ))?;
    }
    if let Some(to) = &r.final_url {
        out.line(format_args!(
            "  redirected:  {}, to {}",
            plural(usize::from(r.redirects), "redirect", "redirects"),
            escape(to)
        ))?;
    }
    Ok(())
}

/// The last file fetched, each of its lines that has problems followed by them.
fn problems_by_line(out: &mut Out, r: &RobotsReport) -> std::io::Result<()> {
    if let Some(f) = &r.file {
        if !f.problems.is_empty() {
            out.line(format_args!("  problems by line (version {}):", f.version))?;
            let mut shown_line = 0;
            for p in &f.problems {
                if p.line != shown_line {
                    let text = f.lines.get(p.line as usize - 1).map_or("", String::as_str);
                    out.line(format_args!("    {:>5} | {}", p.line, escape(text)))?;
                    shown_line = p.line;
                }
                out.line(format_args!(
                    "          {}[{}] column {}: {}",
                    p.severity,
                    p.code,
                    p.column,
                    escape(&p.message)
                ))?;
            }
        }
    }
    Ok(())
}

/// The versions of the last 30 days, one line each, then each one's diff to the one before.
fn versions(out: &mut Out, r: &RobotsReport) -> std::io::Result<()> {
    if !r.versions.is_empty() {
        out.line(format_args!("  versions (last 30 days):"))?;
        for v in &r.versions {
            let mut line = format!(
                "    {} {:>2}  {}",
                if v.in_force { '*' } else { ' ' },
                v.number,
                local(&v.first_fetch)
            );
            if v.fetches > 1 {
                let _ = write!(line, " – {} ({} fetches)", local(&v.last_fetch), v.fetches);
            }
            let status = v.http_status.map_or("-".to_owned(), |s| s.to_string());
            let _ = write!(line, "  {status}  {}", v.outcome);
            if let Some(at) = &v.reconfirmed_at {
                let _ = write!(line, " (re-confirmed by a 304 {})", local(at));
            }
            match (&v.digest, v.size) {
                (Some(d), Some(size)) => {
                    let _ = write!(
                        line,
                        "  {}  {}  {}",
                        plural(size as usize, "byte", "bytes"),
                        problems(
                            v.errors.unwrap_or(0) as usize,
                            v.warnings.unwrap_or(0) as usize
                        ),
                        &d[..12]
                    );
                }
                _ => {
                    if let Some(c) = &v.cause {
                        let _ = write!(line, " ({})", escape(c));
                    }
                }
            }
            out.line(format_args!("{line}"))?;
        }
        if r.versions.iter().any(|v| v.in_force) {
            out.line(format_args!("    (* in force)"))?;
        }
    }
    for v in &r.versions {
        diff(out, v)?;
    }
    Ok(())
}

/// The changes from the version before `v`, in hunks (nothing when `v` has no diff).
fn diff(out: &mut Out, v: &VersionView) -> std::io::Result<()> {
    let Some(d) = &v.diff else { return Ok(()) };
    out.line(format_args!(
        "  changes from version {} to {} (+{} −{}):",
        d.from, v.number, d.added, d.removed
    ))?;
    if d.hunks.is_empty() {
        out.line(format_args!(
            "    (same lines; only line endings or a BOM differ)"
        ))?;
    }
    for (i, hunk) in d.hunks.iter().enumerate() {
        if i > 0 {
            out.line(format_args!("    …"))?;
        }
        for l in hunk {
            let (mark, n) = match l.op {
                "added" => ('+', l.new_line),
                "removed" => ('-', l.old_line),
                _ => (' ', l.new_line),
            };
            out.line(format_args!(
                "    {mark} {:>5} | {}",
                n.unwrap_or(0),
                escape(&l.text)
            ))?;
        }
    }
    Ok(())
}

/// The verdicts that change between versions, and the URLs on which the two modes disagree.
fn verdicts(out: &mut Out, r: &RobotsReport) -> std::io::Result<()> {
    if !r.verdict_changes.is_empty() {
        out.line(format_args!("  verdict changes:"))?;
        for c in &r.verdict_changes {
            out.line(format_args!(
                "    {} → {}  {}  {}  {} → {}",
                c.from,
                c.to,
                escape(&c.agent),
                escape(&c.url),
                cell(&c.before),
                cell(&c.after)
            ))?;
        }
    } else if r.versions.len() > 1 && !r.matrix.is_empty() {
        out.line(format_args!(
            "  verdict changes: none for these URLs between the versions listed"
        ))?;
    }
    if !r.mode_differences.is_empty() {
        out.line(format_args!("  RFC 9309 and Google disagree:"))?;
        for d in &r.mode_differences {
            out.line(format_args!(
                "    {}  {}  rfc: {}  google: {}",
                escape(&d.agent),
                escape(&d.url),
                cell(&d.rfc),
                cell(&d.google)
            ))?;
        }
    }
    Ok(())
}

/// Each agent's verdict now, as a URL × agent table.
fn verdicts_now(out: &mut Out, r: &RobotsReport, agents: &[String]) -> std::io::Result<()> {
    if !r.matrix.is_empty() {
        out.line(format_args!("  verdicts now:"))?;
        let names: Vec<String> = agents.iter().map(|a| escape(a).into_owned()).collect();
        let urls: Vec<String> = r
            .matrix
            .iter()
            .map(|m| escape(&m.url).into_owned())
            .collect();
        let url_width = urls
            .iter()
            .map(|u| u.chars().count())
            .max()
            .unwrap_or(0)
            .max(3);
        let widths: Vec<usize> = names
            .iter()
            .map(|n| n.chars().count().max("disallowed".len()))
            .collect();
        let mut head = format!("    {:<url_width$}", "URL");
        for (n, w) in names.iter().zip(&widths) {
            let _ = write!(head, "  {n:<w$}");
        }
        out.line(format_args!("{}", head.trim_end()))?;
        for (row, url) in r.matrix.iter().zip(&urls) {
            let mut line = format!("    {url:<url_width$}");
            for (c, w) in row.cells.iter().zip(&widths) {
                let _ = write!(line, "  {:<w$}", c.verdict);
            }
            out.line(format_args!("{}", line.trim_end()))?;
            for w in &row.warnings {
                out.line(format_args!(
                    "      warning[{}] for {}: {}",
                    w.code,
                    escape(&w.agent),
                    w.message
                ))?;
                for source in &w.sources {
                    out.line(format_args!("        page says {}", escape(source)))?;
                }
            }
        }
    }
    Ok(())
}

/// `disallowed (line 2: Disallow: /a)`, `allowed (no rule matches the path)`.
fn cell(c: &Cell) -> String {
    match (&c.rule, c.why_text.as_ref().or(c.why.as_ref())) {
        (Some(rule), _) => format!("{} ({})", c.verdict, escape(rule)),
        (None, Some(why)) => format!("{} ({})", c.verdict, escape(why)),
        (None, None) => c.verdict.to_owned(),
    }
}

/// An RFC 3339 time of the report in the local time zone: `2026-11-22 11:00:00 +01:00`.
fn local(rfc3339: &str) -> String {
    match rfc3339.parse::<jiff::Timestamp>() {
        Ok(t) => t
            .to_zoned(jiff::tz::TimeZone::system())
            .strftime("%Y-%m-%d %H:%M:%S %:z")
            .to_string(),
        Err(_) => rfc3339.to_owned(),
    }
}

/// The RFC 3339 times in a sentence of the report, in local time.
fn localize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // `2026-11-22T10:00:00Z` is 20 characters; a sentence holds at most a few.
    while let Some(at) = rest.find(|c: char| c.is_ascii_digit()) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        match from
            .get(..20)
            .filter(|t| t.ends_with('Z') && t.as_bytes()[10] == b'T')
        {
            Some(t) if t.parse::<jiff::Timestamp>().is_ok() => {
                out.push_str(&local(t));
                rest = &from[20..];
            }
            _ => {
                let n = from.chars().next().map_or(1, char::len_utf8);
                out.push_str(&from[..n]);
                rest = &from[n..];
            }
        }
    }
    out.push_str(rest);
    out
}
