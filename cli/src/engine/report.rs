//! What the robots.txt report says about one robots.txt, worked out from the crawl state with
//! no I/O: the status as Search Console shows it (Fetched; Not fetched – Not found (404); Not
//! fetched – any other reason), the ladder state in force, the last fetched file with its
//! problems on their lines, the versions of the last 30 days with a line diff to the file before,
//! and what no tester offers: the URLs whose verdict changes between versions, the URLs on which
//! RFC 9309 and Google disagree, and an agent × URL matrix.
//!
//! The types serialize as the `report` record of `--json` (documented in the README); the
//! terminal and HTML renderings read the same values, so the three always agree.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crawlgate::policy::{
    Content, Digest, GateState, Judgement, OriginState, PolicyOptions, Verdict, VerdictReason,
    Version,
};
use crawlgate::{Decision, Mode, Options, Origin, ProductToken, Robots};

use crate::clock::rfc3339;

/// Lines of context around each change in a diff.
const DIFF_CONTEXT: usize = 3;
/// A diff of two huge files stops refining after this long (still correct, less minimal).
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// An agent as the report checks it: the name given, and its token in each mode.
#[derive(Debug, Clone)]
pub struct AgentSpec {
    /// As given on the command line.
    pub name: String,
    /// Its product token in [`Mode::Rfc`] (from a User-Agent header if one was given).
    pub rfc: ProductToken,
    /// The agent as google/robotstxt takes it: the string, whole.
    pub google: ProductToken,
}

impl AgentSpec {
    /// Its token in `mode`.
    pub fn token(&self, mode: Mode) -> &ProductToken {
        match mode {
            Mode::Rfc => &self.rfc,
            Mode::Google => &self.google,
        }
    }
}

/// What the report of one robots.txt is made from.
pub struct Inputs<'a> {
    pub origin: &'a Origin,
    pub state: &'a OriginState,
    /// The stored bodies, by digest (those the store could give back).
    pub bodies: &'a HashMap<Digest, Arc<[u8]>>,
    pub now: SystemTime,
    pub agents: &'a [AgentSpec],
    /// URLs to check, on this origin (absolute, or paths).
    pub urls: &'a [String],
    /// The mode the verdicts are worked out in (the other one is compared with it).
    pub mode: Mode,
}

pub use crate::schema::report::{
    AiCrawlerView, AiView, Cell, Diff, DiffLine, FileView, InForce, MatrixRow, ModeDifference,
    ProblemView, RobotsReport, VerdictChange, VersionView,
};

/// The rules a version stands for, for working out verdicts.
enum Rules {
    File(Box<Robots>),
    /// No robots.txt: everything allowed.
    None,
}

/// Builds the report of one robots.txt. `None` if nothing was ever fetched.
pub fn build(inputs: &Inputs<'_>) -> Option<RobotsReport> {
    let state = inputs.state;
    let last = state.last_fetch()?;
    let versions = state.history_at(inputs.now);
    let policy = PolicyOptions::default();
    let judgement = state.verdict_at(inputs.now, &policy);
    let in_force_index = crate::engine::in_force(state, &versions, &judgement);

    let (status, status_text) = status_of(last);
    let file_version = versions
        .iter()
        .rposition(|v| matches!(v.content, Content::Rules(_)));
    let file = file_version.and_then(|i| file_view(inputs, versions[i], i + 1));
    let (errors, warnings) = file.as_ref().map_or((0, 0), |f| {
        let errors = f.problems.iter().filter(|p| p.severity == "error").count();
        (errors, f.problems.len() - errors)
    });

    let rules = version_rules(inputs, &versions);
    let views = version_views(inputs, &versions, in_force_index);

    let verdict_changes = verdict_changes(inputs, &rules);
    let in_force_rules = in_force_rules(inputs, &judgement);
    let mode_differences = match &in_force_rules {
        Some(body) => mode_differences(inputs, body),
        None => Vec::new(),
    };
    let matrix = matrix(inputs, &judgement, in_force_rules.as_deref());

    Some(RobotsReport {
        origin: inputs.origin.to_string(),
        robots_txt: inputs.origin.robots_txt_url(),
        status,
        status_text,
        http_status: last.status,
        cause: crate::engine::cause(&last.content),
        last_fetch: Some(rfc3339(last.last_at)),
        size: match &last.content {
            Content::Rules(f) => Some(f.size),
            _ => None,
        },
        final_url: (last.redirects > 0).then(|| last.final_url.clone()),
        redirects: last.redirects,
        errors,
        warnings,
        in_force: in_force(state, &judgement, in_force_index),
        next_fetch: state.next_due().map(rfc3339),
        not_before: stop(&judgement).map(|(until, _)| rfc3339(until)),
        next_attempt: stop(&judgement).map(|(_, next)| rfc3339(next.unwrap_or(inputs.now))),
        // Filled in by [`politeness`], from the stored schedule.
        politeness: Vec::new(),
        file,
        versions: views,
        verdict_changes,
        mode_differences,
        matrix,
    })
}

/// How the gate paces each of `agents` on the report's origin, whose politeness key is `key`
/// and request schedule `schedule` (as stored, if one is): from the file in force (none: no
/// crawl-delay), at the report's time.
pub fn politeness(
    inputs: &Inputs<'_>,
    agents: &[AgentSpec],
    key: &str,
    schedule: Option<&GateState>,
) -> Vec<super::politeness::Politeness> {
    let judgement = inputs
        .state
        .verdict_at(inputs.now, &PolicyOptions::default());
    let body = in_force_rules(inputs, &judgement);
    let robots = body.map(|b| Robots::parse_with(&b, &Options::mode(inputs.mode)).robots);
    agents
        .iter()
        .map(|agent| {
            let pacing = super::politeness::pacing(
                robots.as_ref(),
                agent.token(inputs.mode),
                schedule,
                inputs.now,
            );
            super::politeness::view(&agent.name, key.to_owned(), &pacing, inputs.now)
        })
        .collect()
}

/// Each version's rules in the report's mode, for verdict changes.
fn version_rules(inputs: &Inputs<'_>, versions: &[&Version]) -> Vec<Option<Rules>> {
    // Each version's rules in the report's mode, for verdict changes (files whose body is gone
    // and failures stand for no rules of their own: the ladder decides over them).
    let options = Options::mode(inputs.mode);
    versions
        .iter()
        .map(|v| match &v.content {
            Content::Rules(f) => inputs
                .bodies
                .get(&f.digest)
                .map(|body| Rules::File(Box::new(Robots::parse_with(body, &options).robots))),
            Content::NoRobotsTxt(_) => Some(Rules::None),
            Content::Unreachable(_) | Content::PaymentRequired(_) => None,
        })
        .collect()
}

/// The versions as the report lists them, each with its text and its diff to the file before.
fn version_views(
    inputs: &Inputs<'_>,
    versions: &[&Version],
    in_force_index: Option<usize>,
) -> Vec<VersionView> {
    let mut views = Vec::with_capacity(versions.len());
    let mut previous_file: Option<(usize, Vec<String>)> = None;
    for (i, v) in versions.iter().enumerate() {
        let number = i + 1;
        let body = v.content.digest().and_then(|d| inputs.bodies.get(&d));
        let lines = body.map(|b| split_lines(b));
        let diff = match (&previous_file, &lines) {
            (Some((from, old)), Some(new)) => Some(diff(*from, old, new)),
            _ => None,
        };
        if let Some(l) = &lines {
            previous_file = Some((number, l.clone()));
        }
        let file = match &v.content {
            Content::Rules(f) => Some(f),
            _ => None,
        };
        views.push(VersionView {
            number,
            first_fetch: rfc3339(v.first_at),
            last_fetch: rfc3339(v.last_at),
            fetches: v.count,
            http_status: v.first_status.or(v.status),
            reconfirmed_at: (v.count > 1 && v.status == Some(304) && v.first_status != Some(304))
                .then(|| rfc3339(v.last_at)),
            outcome: v.content.as_str(),
            cause: crate::engine::cause(&v.content),
            digest: file.map(|f| f.digest.to_string()),
            size: file.map(|f| f.size),
            errors: file.map(|f| f.errors),
            warnings: file.map(|f| f.warnings),
            in_force: in_force_index == Some(i),
            lines,
            diff,
        });
    }
    views
}

/// Search Console's three kinds: Fetched; Not fetched – Not found (404); Not fetched – any
/// other reason, with that reason.
fn status_of(last: &Version) -> (&'static str, String) {
    match (&last.content, last.status) {
        (Content::Rules(f), _) if f.html => (
            "fetched",
            "Fetched – an HTML page, not a robots.txt (a soft 404 or a bot wall)".to_owned(),
        ),
        (Content::Rules(_), Some(304)) => ("fetched", "Fetched (304: not modified)".to_owned()),
        (Content::Rules(_), _) => ("fetched", "Fetched".to_owned()),
        (Content::NoRobotsTxt(_), Some(s)) => {
            ("not-found", format!("Not fetched – Not found ({s})"))
        }
        (Content::NoRobotsTxt(why), None) => {
            ("not-found", format!("Not fetched – Not found ({why})"))
        }
        (Content::Unreachable(why), _) => ("not-fetched", format!("Not fetched – {why}")),
        (Content::PaymentRequired(p), _) => ("payment-required", format!("Not fetched – {p}")),
    }
}

/// The stop the failure rules hold while the robots.txt cannot be read: its end and the next
/// fetch (`None`: at once), as the library's reason gives them.
fn stop(j: &Judgement) -> Option<(SystemTime, Option<SystemTime>)> {
    match &j.reason {
        VerdictReason::Unreachable {
            until,
            next_attempt,
            ..
        } if j.verdict == Verdict::DisallowAll => Some((*until, *next_attempt)),
        _ => None,
    }
}

fn in_force(state: &OriginState, j: &Judgement, version: Option<usize>) -> InForce {
    let until = match &j.reason {
        VerdictReason::Unreachable { until, .. } | VerdictReason::LastGoodVersion { until, .. } => {
            Some(*until)
        }
        _ => None,
    };
    // The library's text, times and all: the same words as `check`, `fetch` and a refusal.
    let text = j.reason.to_string();
    InForce {
        verdict: j.verdict.as_str(),
        reason: j.reason.as_str(),
        text,
        until: until.map(rfc3339),
        version: version.map(|i| i + 1),
        failing_since: state.failing_since().map(rfc3339),
    }
}

fn file_view(inputs: &Inputs<'_>, v: &Version, number: usize) -> Option<FileView> {
    let Content::Rules(f) = &v.content else {
        return None;
    };
    let body = inputs.bodies.get(&f.digest)?;
    let parsed = Robots::parse_with(body, &Options::mode(inputs.mode));
    let problems = parsed
        .diagnostics
        .iter()
        .map(|d| ProblemView {
            line: d.line,
            column: d.column(body),
            severity: d.severity.as_str(),
            code: d.code.as_str(),
            message: d.message.to_string(),
        })
        .collect();
    Some(FileView {
        version: number,
        digest: f.digest.to_string(),
        lines: split_lines(body),
        problems,
        cut: f.cut,
        ai: ai_view(&parsed.robots, &crawlgate::audit::Catalogue::builtin()),
    })
}

/// The AI crawlers of `catalogue` against a file, for `/`.
pub fn ai_view(robots: &Robots, catalogue: &crawlgate::audit::Catalogue) -> AiView {
    let crawlers = crawlgate::audit::audit(robots, catalogue, &[])
        .into_iter()
        .map(|a| {
            let rule = a.root.decision.rule();
            AiCrawlerView {
                crawler: a.crawler.name.clone(),
                purpose: a.crawler.purpose.as_str(),
                access: a.root.access.as_str(),
                group: a.group.as_str(),
                group_lines: a.group_lines.clone(),
                line: rule.map(|r| r.line),
                rule: rule.map(|r| r.text.to_string()),
                other_line: a.root.other.map(|r| r.line),
                respects: a.crawler.respect.as_str(),
                operator: a.crawler.operator.clone(),
                valid_token: a.crawler.valid_token,
            }
        })
        .collect();
    let catalogue = match catalogue.date() {
        Some(date) => format!(
            "ai.robots.txt {} ({date})",
            catalogue.version().get(..7).unwrap_or(catalogue.version())
        ),
        None => "a custom catalogue".to_owned(),
    };
    AiView {
        catalogue,
        crawlers,
    }
}

/// The lines of a body as the parser numbers them: `\n`, `\r\n` and `\r` each end one (RFC 9309
/// §2.2's EOL); a BOM at the start is not shown. A final line ending starts no new line.
pub fn split_lines(body: &[u8]) -> Vec<String> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'\n' => {
                lines.push(String::from_utf8_lossy(&body[start..i]).into_owned());
                i += 1;
                start = i;
            }
            b'\r' => {
                lines.push(String::from_utf8_lossy(&body[start..i]).into_owned());
                i += if body.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < body.len() {
        lines.push(String::from_utf8_lossy(&body[start..]).into_owned());
    }
    lines
}

/// The line diff from `old` (version `from`) to `new`, in hunks with a few lines of context.
fn diff(from: usize, old: &[String], new: &[String]) -> Diff {
    let deadline = Instant::now() + DIFF_DEADLINE;
    let ops =
        similar::capture_diff_slices_deadline(similar::Algorithm::Myers, old, new, Some(deadline));
    let (mut added, mut removed) = (0, 0);
    let mut hunks = Vec::new();
    for group in similar::group_diff_ops(ops, DIFF_CONTEXT) {
        let mut hunk = Vec::new();
        for op in group {
            let (tag, olds, news) = op.as_tag_tuple();
            match tag {
                similar::DiffTag::Equal => {
                    for (o, n) in olds.zip(news) {
                        hunk.push(DiffLine {
                            op: "same",
                            old_line: Some(o + 1),
                            new_line: Some(n + 1),
                            text: new[n].clone(),
                        });
                    }
                }
                similar::DiffTag::Delete | similar::DiffTag::Insert | similar::DiffTag::Replace => {
                    for o in olds {
                        removed += 1;
                        hunk.push(DiffLine {
                            op: "removed",
                            old_line: Some(o + 1),
                            new_line: None,
                            text: old[o].clone(),
                        });
                    }
                    for n in news {
                        added += 1;
                        hunk.push(DiffLine {
                            op: "added",
                            old_line: None,
                            new_line: Some(n + 1),
                            text: new[n].clone(),
                        });
                    }
                }
            }
        }
        hunks.push(hunk);
    }
    Diff {
        from,
        added,
        removed,
        hunks,
    }
}

/// A verdict under `rules` (no rules: everything allowed).
fn cell(rules: &Rules, token: &ProductToken, url: &str) -> Cell {
    match rules {
        Rules::None => Cell {
            verdict: "allowed",
            rule: None,
            line: None,
            why: Some("no robots.txt".to_owned()),
            why_text: Some("no robots.txt: everything allowed".to_owned()),
        },
        Rules::File(robots) => decided(&robots.check(token, url)),
    }
}

fn decided(d: &Decision<'_>) -> Cell {
    Cell {
        verdict: if d.allowed { "allowed" } else { "disallowed" },
        rule: d
            .rule()
            .map(|r| format!("line {}: {}", r.line, crate::records::rule_text(&r))),
        line: d.rule().map(|r| r.line),
        why: d.rule().is_none().then(|| d.reason.as_str().to_owned()),
        why_text: d.rule().is_none().then(|| d.reason.text().to_owned()),
    }
}

/// From each version that stands for rules to the next one: the URLs whose verdict changes.
fn verdict_changes(inputs: &Inputs<'_>, rules: &[Option<Rules>]) -> Vec<VerdictChange> {
    let mut changes = Vec::new();
    let mut before: Option<(usize, &Rules)> = None;
    for (i, r) in rules.iter().enumerate() {
        let Some(after) = r else { continue };
        if let Some((from, old)) = before {
            for url in inputs.urls {
                for agent in inputs.agents {
                    let token = agent.token(inputs.mode);
                    let (b, a) = (cell(old, token, url), cell(after, token, url));
                    if b.verdict != a.verdict {
                        changes.push(VerdictChange {
                            from: from + 1,
                            to: i + 1,
                            agent: agent.name.clone(),
                            url: url.clone(),
                            before: b,
                            after: a,
                        });
                    }
                }
            }
        }
        before = Some((i, after));
    }
    changes
}

/// The body of the file in force, if the verdicts come from one.
fn in_force_rules(inputs: &Inputs<'_>, j: &Judgement) -> Option<Arc<[u8]>> {
    match j.verdict {
        Verdict::Rules => inputs
            .state
            .good_file()
            .and_then(|f| inputs.bodies.get(&f.digest))
            .cloned(),
        Verdict::AllowAll | Verdict::DisallowAll => None,
    }
}

fn mode_differences(inputs: &Inputs<'_>, body: &[u8]) -> Vec<ModeDifference> {
    if inputs.urls.is_empty() {
        return Vec::new();
    }
    let rfc = Robots::parse_with(body, &Options::mode(Mode::Rfc)).robots;
    let google = Robots::parse_with(body, &Options::mode(Mode::Google)).robots;
    let mut out = Vec::new();
    for url in inputs.urls {
        for agent in inputs.agents {
            let r = decided(&rfc.check(&agent.rfc, url));
            let g = decided(&google.check(&agent.google, url));
            if r.verdict != g.verdict {
                out.push(ModeDifference {
                    agent: agent.name.clone(),
                    url: url.clone(),
                    rfc: r,
                    google: g,
                });
            }
        }
    }
    out
}

fn matrix(inputs: &Inputs<'_>, j: &Judgement, body: Option<&[u8]>) -> Vec<MatrixRow> {
    let rules = match (j.verdict, body) {
        (Verdict::Rules, Some(b)) => Some(Rules::File(Box::new(
            Robots::parse_with(b, &Options::mode(inputs.mode)).robots,
        ))),
        (Verdict::AllowAll, _) => Some(Rules::None),
        // Disallowed whatever the URL, or a file whose body is gone: no per-URL verdict.
        _ => None,
    };
    inputs
        .urls
        .iter()
        .map(|url| MatrixRow {
            url: url.clone(),
            warnings: Vec::new(),
            cells: inputs
                .agents
                .iter()
                .map(|agent| match &rules {
                    Some(Rules::None) => Cell {
                        verdict: "allowed",
                        rule: None,
                        line: None,
                        why: Some(j.reason.to_string()),
                        why_text: Some(j.reason.to_string()),
                    },
                    Some(r) => cell(r, agent.token(inputs.mode), url),
                    None => Cell {
                        verdict: "disallowed",
                        rule: None,
                        line: None,
                        why: Some(j.reason.to_string()),
                        why_text: Some(j.reason.to_string()),
                    },
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report shows each problem under the line the parser numbered: both must end lines
    /// at `\n`, `\r\n` and a lone `\r`, and skip a BOM.
    #[test]
    fn lines_are_numbered_as_the_parser_numbers_them() {
        let body = b"\xEF\xBB\xBFUser-agent: *\rDisalow: /a\r\nFoo: 1\n\nSitemap: /x\rAllow /b";
        let lines = split_lines(body);
        assert_eq!(
            lines,
            [
                "User-agent: *",
                "Disalow: /a",
                "Foo: 1",
                "",
                "Sitemap: /x",
                "Allow /b"
            ]
        );
        let parsed = Robots::parse(body);
        assert!(parsed.diagnostics.len() >= 3, "{:?}", parsed.diagnostics);
        for d in &parsed.diagnostics {
            let text = String::from_utf8_lossy(&body[d.span.clone()]);
            let line = &lines[d.line as usize - 1];
            assert!(
                line.contains(text.trim_end_matches(['\r', '\n'])),
                "{d:?}: {text:?} not in line {} {line:?}",
                d.line
            );
        }
    }
}
