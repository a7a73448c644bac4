//! A robots.txt's verdict for one agent at one URL, with the line that decides it, for the
//! commands that compare verdicts with something (`test`: with what is expected; `diff`: with
//! another version of the file); and the crawler catalogue (`audit`, `test`, `diff`).

use std::path::Path;

use crawlgate::audit::Catalogue;
use crawlgate::{ProductToken, Robots};

use crate::input::Source;
use crate::output::escape;
use crate::records::{rule_text, Target};

/// What a robots.txt says of one agent at one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub allowed: bool,
    /// The line of the rule that decided; `None` when no rule matched (allowed).
    pub line: Option<u32>,
    /// That rule as written (`Disallow: /admin/`).
    pub rule: Option<String>,
}

impl Verdict {
    /// `robots`'s verdict for `token` at `target` (a URL or a path), judged as `check` judges
    /// it (the request target a client sends).
    pub fn of(robots: &Robots, token: &ProductToken, target: &str) -> Verdict {
        let rules = robots.rules_for(token);
        let usage = Target::of(target).usage(&rules);
        let rule = usage.decision.rule();
        Verdict {
            allowed: usage.decision.allowed,
            line: rule.map(|r| r.line),
            rule: rule.map(|r| rule_text(&r)),
        }
    }

    /// `allowed` or `disallowed`.
    pub fn word(&self) -> &'static str {
        word(self.allowed)
    }

    /// The deciding line in words, escaped: `line 4: Disallow: /admin/`, or `no rule matched`.
    pub fn cause(&self) -> String {
        match (self.line, &self.rule) {
            (Some(line), Some(rule)) => format!("line {line}: {}", escape(rule)),
            _ => "no rule matched".to_owned(),
        }
    }
}

/// `allowed` or `disallowed`, the word every record and line uses.
pub fn word(allowed: bool) -> &'static str {
    if allowed {
        "allowed"
    } else {
        "disallowed"
    }
}

/// The catalogue: `file` (of the shape of ai.robots.txt's `robots.json`), or the built-in one.
pub fn catalogue(file: Option<&Path>) -> anyhow::Result<Catalogue> {
    let Some(file) = file else {
        return Ok(Catalogue::builtin());
    };
    let source = Source::new(file);
    let bytes = source.read()?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{}: the catalogue is not UTF-8", source.name()))?;
    Catalogue::from_json(&text).map_err(|e| anyhow::anyhow!("{}: {e}", source.name()))
}

/// The catalogue's names of the crawlers of `--crawler` (matched case-insensitively, on the
/// name or its product token); an error naming those the catalogue does not have.
pub fn crawlers_named<'c>(
    catalogue: &'c Catalogue,
    wanted: &[String],
) -> anyhow::Result<Vec<&'c str>> {
    let mut names = Vec::new();
    let mut unknown = Vec::new();
    for w in wanted.iter().map(|w| w.trim()).filter(|w| !w.is_empty()) {
        match catalogue.find(w) {
            Some(c) => names.push(c.name.as_str()),
            None => unknown.push(format!("`{}`", escape(w))),
        }
    }
    if !unknown.is_empty() {
        anyhow::bail!(
            "--crawler: not in the catalogue: {} (`crawlgate audit --json` lists its names)",
            unknown.join(", ")
        );
    }
    Ok(names)
}

/// `ai.robots.txt 738c80d (2026-08-22)`, or `custom catalogue`.
pub fn catalogue_name(c: &Catalogue) -> String {
    match c.date() {
        Some(date) => format!(
            "ai.robots.txt {} ({date})",
            c.version().get(..7).unwrap_or(c.version())
        ),
        None => "custom catalogue".to_owned(),
    }
}
