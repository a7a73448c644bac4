//! `crawlgate audit`: which AI crawlers of a catalogue (ai.robots.txt's, built in, or
//! `--catalogue FILE`) each robots.txt lets read `/` and the paths asked about, grouped by
//! purpose; or, with `--suggest block=PURPOSE`, the groups to add to block a purpose.

use std::collections::{BTreeMap, BTreeSet};

use crawlgate::audit::{audit, Access, Catalogue, CrawlerAudit, PathAudit, Purpose, PurposeSource};
use crawlgate::{Diagnostic, GroupMatch, Options, Preference, Robots, Severity};

use crate::args::AuditArgs;
use crate::input::Source;
use crate::live;
use crate::output::{escape, plural, problems, Out};
use crate::schema::{Audit, AuditPath, Problem, Record, Summary};
use crate::status::Status;
use crate::verdicts::{catalogue, catalogue_name, crawlers_named};

#[derive(Debug, Default)]
struct Tally {
    files: usize,
    errors: usize,
    warnings: usize,
    unreadable: usize,
    crawlers: usize,
    blocked: usize,
    partly: usize,
    allowed: usize,
}

/// `--path` and the lines of `--paths FILE` (blank and `#` lines skipped).
fn paths(args: &AuditArgs) -> anyhow::Result<Vec<String>> {
    let mut paths = args.path.clone();
    if let Some(file) = &args.paths {
        let bytes = Source::new(file).read()?;
        for line in String::from_utf8_lossy(&bytes).lines() {
            let line = line.trim();
            if !line.is_empty() && !line.starts_with('#') {
                paths.push(line.to_owned());
            }
        }
    }
    Ok(paths)
}

pub fn run(args: &AuditArgs, out: &mut Out) -> anyhow::Result<Status> {
    let catalogue = catalogue(args.catalogue.as_deref())?;
    let named = crawlers_named(&catalogue, &args.crawler)?;
    let paths = paths(args)?;
    let path_refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let inputs = live::inputs(&args.files, "audited")?;
    let options = Options::mode(args.mode.into());
    let mut tally = Tally::default();
    let mut net = live::Net::new(&args.http, args.mode.into(), ("audit", "audited"));
    for input in &inputs {
        let Some((name, bytes)) =
            live::read(&mut net, input, out, args.json, &mut tally.unreadable)?
        else {
            continue;
        };
        tally.files += 1;
        let parsed = Robots::parse_with(&bytes, &options);
        let mut diagnostics = parsed.diagnostics.clone();
        diagnostics.extend(crawlgate::audit::lint(&parsed.robots, &bytes, &catalogue));
        diagnostics.sort_by_key(|d| (d.line, d.span.start));
        if args.suggest.is_none() {
            for d in &diagnostics {
                report(out, args.json, &name, &bytes, d)?;
            }
        }
        for d in &diagnostics {
            match d.severity {
                Severity::Error => tally.errors += 1,
                Severity::Warning => tally.warnings += 1,
            }
        }
        let audits: Vec<CrawlerAudit> = audit(&parsed.robots, &catalogue, &path_refs)
            .into_iter()
            .filter(|a| args.purpose.is_empty() || args.purpose.contains(&a.crawler.purpose))
            .filter(|a| named.is_empty() || named.contains(&a.crawler.name.as_str()))
            .collect();
        if let Some(purpose) = args.suggest {
            suggest(out, &name, &catalogue, &audits, purpose, inputs.len() > 1)?;
            continue;
        }
        for a in &audits {
            tally.crawlers += 1;
            match a.root.access {
                Access::Blocked => tally.blocked += 1,
                Access::Partly => tally.partly += 1,
                Access::Allowed => tally.allowed += 1,
            }
        }
        if args.json {
            for a in &audits {
                out.json(&Record::Audit(record(&name, a)))?;
            }
        } else {
            table(out, &name, &catalogue, &parsed.robots, &audits, &paths)?;
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
            command: "audit",
            files: Some(tally.files),
            crawlers: Some(tally.crawlers),
            blocked: Some(tally.blocked),
            partly: Some(tally.partly),
            allowed: Some(tally.allowed),
            errors: Some(tally.errors),
            warnings: Some(tally.warnings),
            failed: tally.unreadable,
            exit: status.code(),
            ..Summary::default()
        }))?;
    } else if tally.files > 0 && args.suggest.is_none() {
        out.line(format_args!(
            "{}: {}; {} audited: {} blocked, {} partly, {} allowed",
            plural(tally.files, "file", "files"),
            problems(tally.errors, tally.warnings),
            plural(tally.crawlers, "crawler", "crawlers"),
            tally.blocked,
            tally.partly,
            tally.allowed
        ))?;
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
    let problem = Problem {
        path: name,
        line: d.line,
        column: d.column(bytes) as u64,
        severity: d.severity.as_str(),
        code: d.code.as_str(),
        message: &d.message,
    };
    out.problem(json, "", &problem)
}

fn preference(p: Preference) -> &'static str {
    p.as_str()
}

fn path_record<'a>(p: &'a PathAudit<'_>) -> AuditPath<'a> {
    let rule = p.decision.rule();
    AuditPath {
        path: &p.path,
        access: p.access.as_str(),
        allowed: p.decision.allowed,
        line: rule.map(|r| r.line),
        rule: rule.map(|r| r.text.to_string()),
        other_line: p.other.map(|r| r.line),
    }
}

fn record<'a>(name: &'a str, a: &'a CrawlerAudit<'_, 'a>) -> Audit<'a> {
    let c = a.crawler;
    Audit {
        path: name,
        crawler: &c.name,
        token: c.token.as_ref().map(|t| t.as_str()),
        valid_token: c.valid_token,
        purpose: c.purpose.as_str(),
        purpose_override: match c.purpose_source {
            PurposeSource::Override(why) => Some(why),
            _ => None,
        },
        operator: &c.operator,
        respects_robots_txt: c.respect.as_str(),
        group: a.group.as_str(),
        group_lines: a.group_lines.clone(),
        paths: std::iter::once(&a.root)
            .chain(&a.paths)
            .map(path_record)
            .collect(),
        usage: BTreeMap::from([
            ("search", preference(a.usage.search)),
            ("train_ai", preference(a.usage.train_ai)),
        ]),
        usage_lines: a.usage_lines.clone(),
        signals: BTreeMap::from([
            ("ai_input", preference(a.signals.ai_input)),
            ("ai_train", preference(a.signals.ai_train)),
            ("search", preference(a.signals.search)),
        ]),
        signal_lines: a.signal_lines.clone(),
    }
}

/// `blocked (6)`, `partly (3)`, `allowed`: the access and the line that decided for the path
/// (for `partly` without one, the line of a rule that decides under it).
fn cell(p: &PathAudit<'_>) -> String {
    match p.decision.rule().or(p.other) {
        Some(r) => format!("{} ({})", p.access.as_str(), r.line),
        None => p.access.as_str().to_owned(),
    }
}

fn group_cell(a: &CrawlerAudit<'_, '_>) -> String {
    let lines = a
        .group_lines
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    match a.group {
        GroupMatch::Token => format!("own ({lines})"),
        GroupMatch::Star => format!("* ({lines})"),
        _ => "none".to_owned(),
    }
}

fn table(
    out: &mut Out,
    name: &str,
    catalogue: &Catalogue,
    robots: &Robots,
    audits: &[CrawlerAudit<'_, '_>],
    paths: &[String],
) -> std::io::Result<()> {
    out.line(format_args!(
        "{}: {} of {}",
        escape(name),
        plural(audits.len(), "crawler", "crawlers"),
        catalogue_name(catalogue)
    ))?;
    let mut deciding = BTreeSet::new();
    for purpose in Purpose::ALL {
        let mut rows: Vec<&CrawlerAudit> = audits
            .iter()
            .filter(|a| a.crawler.purpose == purpose)
            .collect();
        if rows.is_empty() {
            continue;
        }
        rows.sort_by_key(|a| std::cmp::Reverse(a.root.access));
        let count = |x: Access| rows.iter().filter(|a| a.root.access == x).count();
        out.line(format_args!(
            "{}: {} blocked, {} partly, {} allowed",
            purpose.as_str(),
            count(Access::Blocked),
            count(Access::Partly),
            count(Access::Allowed)
        ))?;
        let mut header = vec!["CRAWLER".to_owned(), "GROUP".to_owned(), "/".to_owned()];
        header.extend(paths.iter().map(|p| escape(p).into_owned()));
        header.push("RESPECTS".to_owned());
        let mut grid = vec![header];
        for a in &rows {
            let mut row = vec![escape(&a.crawler.name).into_owned(), group_cell(a)];
            for p in std::iter::once(&a.root).chain(&a.paths) {
                row.push(cell(p));
                deciding.extend(p.decision.rule().map(|r| r.line));
                deciding.extend(p.other.map(|r| r.line));
            }
            row.push(a.crawler.respect.as_str().to_owned());
            grid.push(row);
        }
        let widths: Vec<usize> = (0..grid[0].len())
            .map(|i| {
                grid.iter()
                    .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in &grid {
            let mut line = String::from("  ");
            for (i, c) in row.iter().enumerate() {
                line.push_str(c);
                if i + 1 < row.len() {
                    let pad = widths[i] - c.chars().count() + 2;
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.line(format_args!("{line}"))?;
        }
    }
    if !deciding.is_empty() {
        out.line(format_args!("deciding lines:"))?;
        for n in deciding {
            if let Some(r) = (0..robots.rule_count())
                .filter_map(|i| robots.rule(i))
                .find(|r| r.line == n)
            {
                out.line(format_args!("  {n}: {}", escape(&r.text.to_string())))?;
            }
        }
    }
    let invalid: Vec<String> = audits
        .iter()
        .filter(|a| !a.crawler.valid_token)
        .map(|a| match &a.crawler.token {
            Some(t) => format!("`{}` (read as `{t}`)", escape(&a.crawler.name)),
            None => format!("`{}` (no token)", escape(&a.crawler.name)),
        })
        .collect();
    if !invalid.is_empty() {
        out.line(format_args!(
            "{} not a product token: {}",
            plural(invalid.len(), "catalogue name is", "catalogue names are"),
            invalid.join(", ")
        ))?;
    }
    Ok(())
}

/// The name to write in `User-agent:` for a crawler: its catalogue name when that is a token,
/// else the token a group with the name is read as, in the name's own case.
fn agent_name(a: &CrawlerAudit<'_, '_>) -> Option<String> {
    let token = a.crawler.token.as_ref()?;
    Some(if a.crawler.valid_token {
        a.crawler.name.clone()
    } else {
        a.crawler.name.get(..token.as_str().len())?.to_owned()
    })
}

/// The groups to add so that every crawler of `purpose` is blocked from `/`: one group with a
/// `User-agent` line for each that follows `*` or nothing today, and a comment for each whose own
/// group lets it in (a second group for it would be merged with the first: `duplicate-group`).
fn suggest(
    out: &mut Out,
    name: &str,
    catalogue: &Catalogue,
    audits: &[CrawlerAudit<'_, '_>],
    purpose: Purpose,
    several: bool,
) -> std::io::Result<()> {
    if several {
        out.line(format_args!("# {}", escape(name)))?;
    }
    out.line(format_args!(
        "# Blocks the {} crawlers of {} that may read / now (crawlgate audit --suggest block={}).",
        purpose.as_str(),
        catalogue_name(catalogue),
        purpose.as_str()
    ))?;
    let mut seen = BTreeSet::new();
    let mut agents = Vec::new();
    for a in audits
        .iter()
        .filter(|a| a.crawler.purpose == purpose && a.root.access != Access::Blocked)
    {
        let Some(agent) = agent_name(a) else { continue };
        if !seen.insert(agent.to_ascii_lowercase()) {
            continue;
        }
        if a.group == GroupMatch::Token {
            out.line(format_args!(
                "# {}: its own group (line {}) lets it in; add `Disallow: /` there",
                escape(&agent),
                a.group_lines.first().copied().unwrap_or_default()
            ))?;
        } else {
            agents.push(agent);
        }
    }
    if agents.is_empty() {
        return out.line(format_args!("# Nothing to add."));
    }
    out.line(format_args!(""))?;
    for agent in &agents {
        out.line(format_args!("User-agent: {}", escape(agent)))?;
    }
    out.line(format_args!("Disallow: /"))
}
