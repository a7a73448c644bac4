//! The report as one self-contained HTML page: inline CSS and script (`html/report.css`,
//! `html/report.js`), no network, readable from `file://`.
//!
//! - A host table (one row per robots.txt: URL, status in Search Console's three kinds and
//!   colours, last fetch, size, errors, warnings, the rules in force), then per robots.txt its
//!   facts, the problem list linking to the lines, the source with line numbers and the problem
//!   lines highlighted (error over warning), the versions of the last 30 days (the one in force
//!   marked, each one's text and its diff to the file before), the verdict changes, RFC 9309 vs
//!   Google and the agent × URL matrix.
//! - The script shows times in the viewer's local time (the UTC text is the fallback) and moves
//!   between the problem lines with Down/Up and `j`/`k`, as Search Console does.
//! - Everything that comes from a site is escaped (`& < > " '`, in text and in attributes), and
//!   control and bidi characters are shown as `\u{…}`. The page's Content-Security-Policy allows
//!   no script or style but its own (by SHA-256 hash), so even an escaping bug would run nothing.
//!   The report's JSON is not embedded: `--json` gives it.

use std::borrow::Cow;
use std::fmt::Write as _;

use sha2::{Digest as _, Sha256};

use super::enabled::Report;
use crate::engine::report::{Cell, Diff, FileView, ProblemView, RobotsReport, VersionView};
use crate::output::{plural, problems};

mod ai;

const CSS: &str = include_str!("html/report.css");
const JS: &str = include_str!("html/report.js");

/// The page.
pub fn render(report: &Report) -> String {
    let mut h = String::with_capacity(16 * 1024);
    let csp = format!(
        "default-src 'none'; script-src '{}'; style-src '{}'; img-src 'none'; \
         base-uri 'none'; form-action 'none'",
        csp_hash(JS),
        csp_hash(CSS)
    );
    let _ = writeln!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"crawlgate {}\">\n\
         <title>robots.txt report</title>\n<style>{CSS}</style>\n</head>\n<body>",
        env!("CARGO_PKG_VERSION")
    );
    header(&mut h, report);
    host_table(&mut h, report);
    for (i, r) in report.robots_txts.iter().enumerate() {
        robots_txt(&mut h, r, i + 1, &report.agents);
    }
    if !report.dormant.is_empty() {
        let _ = write!(
            h,
            "<section class=\"dormant\" id=\"dormant\"><h3>Not shown</h3><p>{} not found for \
             over 30 days (still checked):</p><ul>",
            plural(report.dormant.len(), "robots.txt", "robots.txt files")
        );
        for d in &report.dormant {
            let _ = write!(h, "<li class=\"url\">{}</li>", text(d));
        }
        h.push_str("</ul></section>\n");
    }
    let _ = writeln!(h, "<script>{JS}</script>\n</body>\n</html>");
    h
}

fn header(h: &mut String, report: &Report) {
    let _ = write!(
        h,
        "<header>\n<h1>robots.txt report</h1>\n<p class=\"meta\">{} · generated {} ({}) · \
         mode {}",
        plural(report.robots_txts.len(), "robots.txt", "robots.txt files"),
        time(&report.generated_at),
        if report.fetched_now {
            "fetched now"
        } else {
            "from the state, nothing fetched"
        },
        text(report.mode),
    );
    if !report.agents.is_empty() {
        let agents: Vec<String> = report
            .agents
            .iter()
            .map(|a| format!("<code>{}</code>", text(a)))
            .collect();
        let _ = write!(h, " · agents {}", agents.join(", "));
    }
    h.push_str(
        "</p>\n<p class=\"hint\">Keys: <kbd>↓</kbd>/<kbd>↑</kbd> or <kbd>j</kbd>/<kbd>k</kbd> \
         move between problem lines. <span id=\"nav-status\" aria-live=\"polite\"></span></p>\n\
         </header>\n",
    );
}

fn status_badge(r: &RobotsReport) -> String {
    let shown = super::badge(r);
    format!(
        "<span class=\"badge st-{}\">{}</span>",
        attr(r.status),
        text(&shown)
    )
}

fn host_table(h: &mut String, report: &Report) {
    h.push_str(
        "<div class=\"scroll\"><table class=\"hosts\" id=\"hosts\">\n<thead><tr><th>robots.txt\
         </th><th>Status</th><th>Last fetch</th><th class=\"num\">Size</th><th class=\"num\">\
         Errors</th><th class=\"num\">Warnings</th><th>Rules in force</th></tr></thead>\n<tbody>\n",
    );
    for (i, r) in report.robots_txts.iter().enumerate() {
        let n = i + 1;
        let _ = writeln!(
            h,
            "<tr class=\"host\" data-status=\"{}\" data-url=\"{}\"><td class=\"url\">\
             <a href=\"#r{n}\">{}</a>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"in-force\">{}\
             </td></tr>",
            attr(r.status),
            attr(&r.robots_txt),
            text(&r.robots_txt),
            redirected(r),
            status_badge(r),
            r.last_fetch.as_deref().map_or(String::new(), time),
            r.size.map_or(String::new(), bytes),
            count(r.errors, "n-err"),
            count(r.warnings, "n-warn"),
            in_force(r),
        );
    }
    if report.robots_txts.is_empty() {
        h.push_str("<tr><td colspan=\"7\" class=\"empty\">No robots.txt to show.</td></tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
}

/// `redirected to URL` (`… in N redirects`) under a robots.txt reached through redirects.
fn redirected(r: &RobotsReport) -> String {
    match (&r.final_url, r.redirects) {
        (Some(to), n) if n > 0 => format!(
            "<span class=\"why\">redirected to <span class=\"url\">{}</span>{}</span>",
            text(to),
            if n == 1 {
                String::new()
            } else {
                format!(" in {n} redirects")
            }
        ),
        _ => String::new(),
    }
}

fn count(n: usize, class: &str) -> String {
    if n == 0 {
        "<span class=\"zero\">0</span>".to_owned()
    } else {
        format!("<span class=\"{class}\">{n}</span>")
    }
}

fn bytes(size: u64) -> String {
    plural(usize::try_from(size).unwrap_or(usize::MAX), "byte", "bytes")
}

fn in_force(r: &RobotsReport) -> String {
    let version = r
        .in_force
        .version
        .map_or(String::new(), |v| format!(" (version {v})"));
    format!(
        "<span class=\"mono\">{}</span>: {}{version}",
        text(r.in_force.verdict),
        with_times(&r.in_force.text)
    )
}

fn robots_txt(h: &mut String, r: &RobotsReport, n: usize, agents: &[String]) {
    let _ = write!(
        h,
        "<section class=\"robots\" id=\"r{n}\" data-status=\"{}\">\n<header><h2><a href=\"{}\" \
         rel=\"noreferrer noopener\">{}</a></h2>{}</header>\n<dl class=\"facts\">",
        attr(r.status),
        attr(&r.robots_txt),
        text(&r.robots_txt),
        status_badge(r)
    );
    if let Some(t) = &r.last_fetch {
        let _ = write!(h, "<dt>Last fetch</dt><dd>{}</dd>", time(t));
    }
    let _ = write!(
        h,
        "<dt>Size</dt><dd>{}</dd>",
        r.size.map_or("–".to_owned(), bytes)
    );
    if let Some(f) = &r.file {
        let _ = write!(
            h,
            "<dt>Problems</dt><dd>{}{}</dd>",
            problems(r.errors, r.warnings),
            if r.status == "fetched" {
                String::new()
            } else {
                format!(" (in version {}, the last file fetched)", f.version)
            }
        );
    }
    let _ = write!(h, "<dt>In force</dt><dd>{}</dd>", in_force(r));
    if let Some(t) = &r.in_force.failing_since {
        let _ = write!(h, "<dt>Failing since</dt><dd>{}</dd>", time(t));
    }
    if let Some(t) = &r.next_fetch {
        let _ = write!(h, "<dt>Next fetch</dt><dd>{}</dd>", time(t));
    }
    for p in &r.politeness {
        let _ = write!(
            h,
            "<dt>Politeness</dt><dd class=\"politeness\" data-reason=\"{}\"><code>{}</code>: {}</dd>",
            attr(p.reason),
            text(&p.agent),
            with_times(&p.text)
        );
    }
    if let Some(to) = &r.final_url {
        let _ = write!(
            h,
            "<dt>Redirected</dt><dd>{}, to <span class=\"url\">{}</span></dd>",
            plural(usize::from(r.redirects), "redirect", "redirects"),
            text(to)
        );
    }
    h.push_str("</dl>\n");

    if let Some(f) = &r.file {
        file(h, f, n, &r.robots_txt);
    }
    if let Some(f) = &r.file {
        ai::section(h, &f.ai, n);
    }
    versions(h, &r.versions, n, r.file.as_ref().map(|f| f.version));
    verdict_tables(h, r, agents);
    h.push_str("</section>\n");
}

/// The severity a line is shown in: error wins over warning.
fn line_severity(on: &[&ProblemView]) -> Option<&'static str> {
    if on.iter().any(|p| p.severity == "error") {
        Some("error")
    } else if on.is_empty() {
        None
    } else {
        Some("warning")
    }
}

/// The last file fetched: its problems, then its text with each problem under its line.
fn file(h: &mut String, f: &FileView, n: usize, url: &str) {
    problem_list(h, f, n);
    source(h, f, n, url);
}

/// The problems of the file, each linked to its line when it has one.
fn problem_list(h: &mut String, f: &FileView, n: usize) {
    let _ = writeln!(
        h,
        "<h3>Problems <span class=\"hint\">(version {})</span></h3>",
        f.version
    );
    if f.problems.is_empty() {
        h.push_str("<p class=\"empty\">No problems.</p>\n");
    } else {
        let _ = writeln!(h, "<ol class=\"problems\" id=\"r{n}-problems\">");
        for p in &f.problems {
            let on_line = p.line >= 1 && (p.line as usize) <= f.lines.len();
            let severity = if p.severity == "error" {
                "error"
            } else {
                "warning"
            };
            let body = format!(
                "<span class=\"sev sev-{severity}\">{severity}</span> <span class=\"where\">line \
                 {}, column {}</span> <span class=\"code\">[{}]</span> {}",
                p.line,
                p.column,
                text(p.code),
                text(&p.message)
            );
            if on_line {
                let _ = writeln!(
                    h,
                    "<li class=\"problem {severity}\" data-line=\"{}\"><a href=\"#r{n}-L{0}\" \
                     data-goto=\"r{n}-L{0}\">{body}</a></li>",
                    p.line
                );
            } else {
                let _ = writeln!(
                    h,
                    "<li class=\"problem {severity}\" data-line=\"{}\">{body}</li>",
                    p.line
                );
            }
        }
        h.push_str("</ol>\n");
    }
}

/// The text of the file, a problem's lines marked and its notes under them.
fn source(h: &mut String, f: &FileView, n: usize, url: &str) {
    let _ = writeln!(
        h,
        "<h3>File <span class=\"hint\">(version {}, {})</span></h3>",
        f.version,
        plural(f.lines.len(), "line", "lines")
    );
    if f.cut {
        h.push_str(
            "<p class=\"hint\">Lines past the parsing limit were not read (they are not \
             shown).</p>\n",
        );
    }
    let _ = writeln!(
        h,
        "<div class=\"src\" id=\"r{n}-src\" data-file=\"{}\">",
        attr(url)
    );
    // The problems of each line (line 0 and lines past the end are in the list only).
    let deciding = ai::deciding_lines(&f.ai);
    let mut by_line: Vec<Vec<&ProblemView>> = vec![Vec::new(); f.lines.len() + 1];
    for p in &f.problems {
        if let Some(on) = by_line.get_mut(p.line as usize) {
            on.push(p);
        }
    }
    for (i, line) in f.lines.iter().enumerate() {
        let number = i + 1;
        let on = by_line.get(number).map_or(&[][..], Vec::as_slice);
        // A line that decides for an AI crawler (the "AI crawlers" section links to it).
        let decides = if deciding.contains(&(number as u32)) {
            " ai-decides"
        } else {
            ""
        };
        match line_severity(on) {
            Some(severity) => {
                let _ = writeln!(
                    h,
                    "<div class=\"line {severity}{decides}\" id=\"r{n}-L{number}\" data-line=\"{number}\" \
                     tabindex=\"-1\"><span class=\"ln\" data-n=\"{number}\"></span><span \
                     class=\"tx\">{}</span></div>",
                    text(line)
                );
                for p in on {
                    let s = if p.severity == "error" {
                        "error"
                    } else {
                        "warning"
                    };
                    let _ = writeln!(
                        h,
                        "<div class=\"note {s}\"><span class=\"ln\"></span><span class=\"tx\">\
                         {s}[{}] column {}: {}</span></div>",
                        text(p.code),
                        p.column,
                        text(&p.message)
                    );
                }
            }
            None => {
                let _ = writeln!(
                    h,
                    "<div class=\"line{decides}\" id=\"r{n}-L{number}\" data-line=\"{number}\"><span \
                     class=\"ln\" data-n=\"{number}\"></span><span class=\"tx\">{}</span></div>",
                    text(line)
                );
            }
        }
    }
    if f.lines.is_empty() {
        h.push_str("<p class=\"empty\">(empty file)</p>\n");
    }
    h.push_str("</div>\n");
}

/// `shown`: the version whose text is the file above (not repeated).
/// The versions of the last 30 days: a table, then each one's diff and text (`shown`: the
/// version whose text is the file above, not repeated).
fn versions(h: &mut String, versions: &[VersionView], n: usize, shown: Option<usize>) {
    if versions.is_empty() {
        return;
    }
    h.push_str(
        "<h3>Versions <span class=\"hint\">(last 30 days; each differs from the fetch before \
         it)</span></h3>\n<div class=\"scroll\"><table class=\"versions\">\n<thead><tr><th>\
         </th><th class=\"num\">#</th><th>Fetched</th><th class=\"num\">HTTP</th><th>Outcome\
         </th><th class=\"num\">Size</th><th>Problems</th><th>Digest</th><th>Changes</th>\
         </tr></thead>\n<tbody>\n",
    );
    for v in versions {
        version_row(h, v, n);
    }
    h.push_str("</tbody></table></div>\n");

    // The newest version with a diff is open; the others are a click away.
    let open = versions.iter().rposition(|v| v.diff.is_some());
    for (i, v) in versions.iter().enumerate() {
        let Some(lines) = &v.lines else { continue };
        version_details(h, v, lines, n, open == Some(i), shown);
    }
}

/// One version's row of the table.
fn version_row(h: &mut String, v: &VersionView, n: usize) {
    let mut when = time(&v.first_fetch);
    if v.fetches > 1 {
        let _ = write!(when, " – {} ({} fetches)", time(&v.last_fetch), v.fetches);
    }
    if let Some(at) = &v.reconfirmed_at {
        let _ = write!(
            when,
            "<span class=\"why\">re-confirmed by a 304 {}</span>",
            time(at)
        );
    }
    let outcome = match &v.cause {
        Some(c) if v.digest.is_none() => format!("{} ({})", text(v.outcome), text(c)),
        _ => text(v.outcome).into_owned(),
    };
    let problems_cell = match (v.errors, v.warnings) {
        (Some(e), Some(w)) => problems(e as usize, w as usize),
        _ => String::new(),
    };
    let changes = match &v.diff {
        Some(d) => format!(
            "<a href=\"#r{n}-v{}\"><span class=\"plus\">+{}</span> <span class=\"minus\">\
             −{}</span> from {}</a>",
            v.number, d.added, d.removed, d.from
        ),
        None if v.lines.is_some() => format!("<a href=\"#r{n}-v{}\">text</a>", v.number),
        None => String::new(),
    };
    let _ = writeln!(
        h,
        "<tr class=\"version{}\" data-version=\"{}\"><td>{}</td><td class=\"num\">{}</td>\
         <td>{when}</td><td class=\"num\">{}</td><td>{outcome}</td><td class=\"num\">{}</td>\
         <td>{problems_cell}</td><td class=\"mono\">{}</td><td>{changes}</td></tr>",
        if v.in_force { " in-force" } else { "" },
        v.number,
        if v.in_force {
            "<span class=\"mark\" title=\"in force\">★ in force</span>"
        } else {
            ""
        },
        v.number,
        v.http_status.map_or("–".to_owned(), |s| s.to_string()),
        v.size.map_or(String::new(), bytes),
        v.digest
            .as_deref()
            .map_or(String::new(), |d| text(d.get(..12).unwrap_or(d))
                .into_owned()),
    );
}

/// One version's diff and text, folded (`open`: unfolded).
fn version_details(
    h: &mut String,
    v: &VersionView,
    lines: &[String],
    n: usize,
    open: bool,
    shown: Option<usize>,
) {
    let summary = match &v.diff {
        Some(d) => format!(
            " · <span class=\"plus\">+{}</span> <span class=\"minus\">−{}</span> from \
             version {}",
            d.added, d.removed, d.from
        ),
        None => String::new(),
    };
    let _ = writeln!(
        h,
        "<details class=\"version{}\" id=\"r{n}-v{}\" data-version=\"{1}\"{}><summary>Version \
         {1}{} · {}{summary}</summary><div class=\"body\">",
        if v.in_force { " in-force" } else { "" },
        v.number,
        if open { " open" } else { "" },
        if v.in_force { " (in force)" } else { "" },
        time(&v.first_fetch),
    );
    if let Some(d) = &v.diff {
        diff(h, d, v.number);
    }
    if shown == Some(v.number) {
        let _ = writeln!(
            h,
            "<p class=\"text\"><a href=\"#r{n}-src\">Text of version {} ({})</a>: the file \
             above.</p>\n</div></details>",
            v.number,
            plural(lines.len(), "line", "lines")
        );
        return;
    }
    let _ = writeln!(
        h,
        "<details class=\"text\"><summary>Text of version {} ({})</summary><div class=\"src \
         plain\">",
        v.number,
        plural(lines.len(), "line", "lines")
    );
    for (i, line) in lines.iter().enumerate() {
        let _ = writeln!(
            h,
            "<div class=\"line\"><span class=\"ln\" data-n=\"{}\"></span><span class=\"tx\">\
             {}</span></div>",
            i + 1,
            text(line)
        );
    }
    h.push_str("</div></details>\n</div></details>\n");
}

fn diff(h: &mut String, d: &Diff, to: usize) {
    let _ = writeln!(
        h,
        "<p>Changes from version {} to {to}: <span class=\"plus\">{}</span>, <span \
         class=\"minus\">{}</span></p>\n<div class=\"diff\" data-from=\"{0}\" data-to=\"{to}\">",
        d.from,
        plural(d.added, "line added", "lines added"),
        plural(d.removed, "line removed", "lines removed"),
    );
    if d.hunks.is_empty() {
        h.push_str("<div class=\"gap\">(same lines; only line endings or a BOM differ)</div>\n");
    }
    for (i, hunk) in d.hunks.iter().enumerate() {
        if i > 0 {
            h.push_str("<div class=\"gap\">⋯</div>\n");
        }
        for l in hunk {
            let (class, mark) = match l.op {
                "added" => ("added", "+"),
                "removed" => ("removed", "−"),
                _ => ("same", ""),
            };
            let _ = writeln!(
                h,
                "<div class=\"d {class}\"><span class=\"o\" data-n=\"{}\"></span><span class=\"n\" \
                 data-n=\"{}\"></span><span class=\"m\">{mark}</span><span class=\"tx\">{}</span>\
                 </div>",
                l.old_line.map_or(String::new(), |n| n.to_string()),
                l.new_line.map_or(String::new(), |n| n.to_string()),
                text(&l.text)
            );
        }
    }
    h.push_str("</div>\n");
}

fn verdict_tables(h: &mut String, r: &RobotsReport, agents: &[String]) {
    if !r.verdict_changes.is_empty() {
        h.push_str(
            "<h3>Verdict changes</h3>\n<div class=\"scroll\"><table class=\"verdict-changes\">\n\
             <thead><tr><th>Versions</th><th>Agent</th><th>URL</th><th>Before</th><th>After</th>\
             </tr></thead>\n<tbody>\n",
        );
        for c in &r.verdict_changes {
            let _ = writeln!(
                h,
                "<tr><td>{} → {}</td><td><code>{}</code></td><td class=\"url\">{}\
                 </td><td>{}</td><td>{}</td></tr>",
                c.from,
                c.to,
                text(&c.agent),
                text(&c.url),
                cell(&c.before),
                cell(&c.after)
            );
        }
        h.push_str("</tbody></table></div>\n");
    } else if r.versions.len() > 1 && !r.matrix.is_empty() {
        h.push_str(
            "<h3>Verdict changes</h3>\n<p class=\"empty\">None for these URLs between the \
             versions listed.</p>\n",
        );
    }
    if !r.mode_differences.is_empty() {
        h.push_str(
            "<h3>RFC 9309 vs Google</h3>\n<div class=\"scroll\"><table class=\"modes\">\n<thead>\
             <tr><th>Agent</th><th>URL</th><th>RFC 9309</th><th>Google</th></tr></thead>\n\
             <tbody>\n",
        );
        for d in &r.mode_differences {
            let _ = writeln!(
                h,
                "<tr><td><code>{}</code></td><td class=\"url\">{}</td><td>{}</td><td>{}</td>\
                 </tr>",
                text(&d.agent),
                text(&d.url),
                cell(&d.rfc),
                cell(&d.google)
            );
        }
        h.push_str("</tbody></table></div>\n");
    } else if !r.matrix.is_empty() {
        h.push_str(
            "<h3>RFC 9309 vs Google</h3>\n<p class=\"empty\">They agree on every URL for every \
             agent.</p>\n",
        );
    }
    if !r.matrix.is_empty() {
        h.push_str(
            "<h3>Verdicts now</h3>\n<div class=\"scroll\"><table class=\"matrix\">\n<thead><tr>\
             <th>URL</th>",
        );
        for a in agents {
            let _ = write!(h, "<th><code>{}</code></th>", text(a));
        }
        h.push_str("</tr></thead>\n<tbody>\n");
        for row in &r.matrix {
            let _ = write!(h, "<tr><td class=\"url\">{}</td>", text(&row.url));
            for (c, a) in row.cells.iter().zip(agents) {
                let _ = write!(h, "<td>{}", cell(c));
                for w in row.warnings.iter().filter(|w| &w.agent == a) {
                    let _ = write!(
                        h,
                        "<div class=\"trap\" data-code=\"{}\"><span class=\"w-code\">{}</span> \
                         {}",
                        attr(w.code),
                        text(w.code),
                        text(w.message)
                    );
                    for source in &w.sources {
                        let _ = write!(h, "<br>page says <code>{}</code>", text(source));
                    }
                    h.push_str("</div>");
                }
                h.push_str("</td>");
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody></table></div>\n");
    }
}

/// A verdict, and what decided it.
fn cell(c: &Cell) -> String {
    let verdict = if c.verdict == "disallowed" {
        "disallowed"
    } else {
        "allowed"
    };
    let why = match (&c.rule, c.why_text.as_ref().or(c.why.as_ref())) {
        (Some(rule), _) => format!("<span class=\"why\">{}</span>", text(rule)),
        (None, Some(why)) => format!("<span class=\"why\">{}</span>", text(why)),
        (None, None) => String::new(),
    };
    format!("<span class=\"v-{verdict}\">{verdict}</span>{why}")
}

/// An RFC 3339 UTC time: the UTC text, which the script replaces by the viewer's local time.
fn time(t: &str) -> String {
    let shown = match t.strip_suffix('Z') {
        Some(rest) if rest.len() == 19 && rest.as_bytes()[10] == b'T' => {
            format!("{} {} UTC", &rest[..10], &rest[11..])
        }
        _ => t.to_owned(),
    };
    format!("<time datetime=\"{}\">{}</time>", attr(t), text(&shown))
}

/// Whether `s` starts with `2026-11-22T10:00:00Z`.
fn starts_with_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 20
        && b[..20].iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            19 => c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// A sentence of the report, escaped, with its RFC 3339 times as [`time`] elements.
fn with_times(sentence: &str) -> String {
    let mut out = String::with_capacity(sentence.len() + 64);
    let mut plain = 0;
    let mut i = 0;
    while i < sentence.len() {
        if sentence.is_char_boundary(i) && starts_with_time(&sentence[i..]) {
            out.push_str(&text(&sentence[plain..i]));
            out.push_str(&time(&sentence[i..i + 20]));
            i += 20;
            plain = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&text(&sentence[plain..]));
    out
}

/// Control characters (tab aside) and the bidi controls that reorder text: shown as `\u{…}`.
fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Text from a site (or anything), for element content: `& < > " '` escaped, hidden
/// characters shown as a marked `\u{…}`.
fn text(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

/// Text for a double-quoted attribute value: `& < > " '` escaped, hidden characters as
/// `\u{…}`.
fn attr(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

fn escape(s: &str, marked: bool) -> Cow<'_, str> {
    if !s
        .chars()
        .any(|c| matches!(c, '&' | '<' | '>' | '"' | '\'') || is_hidden(c))
    {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if is_hidden(c) && marked => {
                let _ = write!(out, "<span class=\"ctl\">\\u{{{:x}}}</span>", u32::from(c));
            }
            c if is_hidden(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `'sha256-…'` of an inline script or style, for the Content-Security-Policy.
fn csp_hash(inline: &str) -> String {
    format!("sha256-{}", base64(&Sha256::digest(inline.as_bytes())))
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_hidden_characters() {
        assert_eq!(
            text("<script>a='x' && \"y\"</script>"),
            "&lt;script&gt;a=&#39;x&#39; &amp;&amp; &quot;y&quot;&lt;/script&gt;"
        );
        assert_eq!(attr("a\u{202e}b\x1b"), "a\\u{202e}b\\u{1b}");
        assert_eq!(text("\u{0}"), "<span class=\"ctl\">\\u{0}</span>");
        assert_eq!(text("tab\there"), "tab\there");
        assert!(matches!(text("plain – text"), Cow::Borrowed(_)));
    }

    #[test]
    fn error_wins_on_a_line() {
        let p = |severity| ProblemView {
            line: 1,
            column: 1,
            severity,
            code: "x",
            message: String::new(),
        };
        let (warning, error) = (p("warning"), p("error"));
        assert_eq!(line_severity(&[]), None);
        assert_eq!(line_severity(&[&warning]), Some("warning"));
        assert_eq!(line_severity(&[&warning, &error]), Some("error"));
        assert_eq!(line_severity(&[&error, &warning]), Some("error"));
    }

    #[test]
    fn base64_as_rfc_4648() {
        for (input, output) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), output);
        }
    }

    #[test]
    fn times_in_sentences() {
        assert_eq!(
            with_times("stopped until 2026-11-22T10:00:00Z <b>"),
            "stopped until <time datetime=\"2026-11-22T10:00:00Z\">2026-11-22 10:00:00 UTC\
             </time> &lt;b&gt;"
        );
        assert_eq!(with_times("2026-11-22T10:00:00"), "2026-11-22T10:00:00");
        assert_eq!(with_times("é 2026"), "é 2026");
    }
}
