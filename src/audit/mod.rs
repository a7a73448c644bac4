//! Feature `audit`: which AI crawlers a robots.txt lets read what, against a catalogue of
//! crawlers (ai.robots.txt's, embedded, or one of the same shape).
//!
//! [`audit`] gives, per catalogued crawler: the group it follows (its own or `*`), whether it
//! may crawl the site root and each path asked about (allowed, partly, blocked) with the lines
//! that decide, the `Content-Usage` preferences and `Content-Signal`s in force for it, and
//! whether its operator says it obeys robots.txt. [`lint`] adds the checks that need the
//! catalogue (`near-miss-agent`, `allowed-but-refused`); those that need none are in the
//! parser's own diagnostics.
//!
//! ```
//! use crawlgate::audit::{audit, Access, Catalogue};
//! use crawlgate::Robots;
//!
//! let robots = Robots::parse(b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n").robots;
//! let catalogue = Catalogue::builtin();
//! let report = audit(&robots, &catalogue, &["/blog/"]);
//! let gptbot = report.iter().find(|a| a.crawler.name == "GPTBot").unwrap();
//! assert_eq!(gptbot.root.access, Access::Blocked);
//! assert_eq!(gptbot.root.decision.rule().map(|r| r.line), Some(2));
//! let ccbot = report.iter().find(|a| a.crawler.name == "CCBot").unwrap();
//! assert_eq!(ccbot.paths[0].access, Access::Allowed);
//! ```

mod catalogue;
mod lint;
mod purpose;

pub use catalogue::{Catalogue, CatalogueError, Crawler, Respect, BUILTIN_DATE, BUILTIN_VERSION};
pub use lint::lint;
pub use purpose::{Purpose, PurposeSource, OVERRIDES};

use crate::robots::{
    AgentRules, ContentSignals, Decision, GroupMatch, Reason, Robots, RuleKind, RuleRef,
    UsagePreferences,
};

/// May a crawler read a path and what lies under it?
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Access {
    /// The path and, as far as the rules tell, everything under it.
    Allowed,
    /// The path or some of what lies under it, not all.
    Partly,
    /// The path and everything under it.
    Blocked,
}

impl Access {
    /// `"allowed"`, `"partly"` or `"blocked"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Allowed => "allowed",
            Access::Partly => "partly",
            Access::Blocked => "blocked",
        }
    }
}

/// One path, for one crawler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathAudit<'r> {
    /// The path asked about.
    pub path: String,
    /// The path and what lies under it.
    pub access: Access,
    /// The decision for the path itself, with the rule that decided.
    pub decision: Decision<'r>,
    /// When [`PathAudit::access`] is [`Access::Partly`]: a rule of the other kind that
    /// decides for some path under it (the first in precedence order); `None` when what
    /// allows some path under a disallowed one is that no rule matches there
    /// (`Disallow: /$`).
    pub other: Option<RuleRef<'r>>,
}

/// One crawler's standing in a file.
#[derive(Debug, Clone, PartialEq)]
pub struct CrawlerAudit<'r, 'c> {
    /// The catalogue entry.
    pub crawler: &'c Crawler,
    /// Its own groups, the `*` groups, or none.
    pub group: GroupMatch,
    /// The first line of each group that applies, in file order.
    pub group_lines: Vec<u32>,
    /// The site root, `/`.
    pub root: PathAudit<'r>,
    /// The paths asked about, in order.
    pub paths: Vec<PathAudit<'r>>,
    /// The `Content-Usage` preferences in force at `/` (unknown when `/` may not be crawled).
    pub usage: UsagePreferences,
    /// The lines of those `Content-Usage` rules.
    pub usage_lines: Vec<u32>,
    /// The `Content-Signal`s of its groups, combined.
    pub signals: ContentSignals,
    /// The lines of those `Content-Signal`s.
    pub signal_lines: Vec<u32>,
}

/// Every catalogued crawler's standing in `robots`, in catalogue order, for the site root and
/// each of `paths` (paths from the root, `/blog/`; a URL is read as its path). A crawler whose
/// key has no product token in front gets no group (everything allowed).
pub fn audit<'r, 'c>(
    robots: &'r Robots,
    catalogue: &'c Catalogue,
    paths: &[&str],
) -> Vec<CrawlerAudit<'r, 'c>> {
    // Most crawlers follow the same groups (`*`): each distinct rule list is audited once.
    let mut seen: std::collections::HashMap<Vec<usize>, (PathAudit<'r>, Vec<PathAudit<'r>>)> =
        std::collections::HashMap::new();
    catalogue
        .crawlers()
        .iter()
        .map(|crawler| {
            let rules = match &crawler.token {
                Some(t) => robots.rules_for(t),
                None => robots.rules_for_any(&[]),
            };
            let groups: Vec<usize> = rules.group_indexes().collect();
            let (root, audited) = seen
                .entry(groups.clone())
                .or_insert_with(|| {
                    (
                        path_audit(&rules, "/"),
                        paths.iter().map(|p| path_audit(&rules, p)).collect(),
                    )
                })
                .clone();
            let usage = rules.usage_path("/");
            let signals = rules.content_signals();
            CrawlerAudit {
                crawler,
                group: rules.group(),
                group_lines: groups
                    .iter()
                    .filter_map(|&g| robots.group(g).map(|g| g.line()))
                    .collect(),
                root,
                paths: audited,
                usage: usage.preferences,
                usage_lines: usage.rules.iter().map(|r| r.line).collect(),
                signals: signals.signals,
                signal_lines: signals.lines.iter().map(|l| l.line).collect(),
            }
        })
        .collect()
}

/// The literal start of a pattern (up to its first `*` or `$`); whether it has a `*`; whether
/// it ends in `$` without one (it matches only its literal start).
fn literal(pattern: &str) -> (&str, bool, bool) {
    let end = pattern.find(['*', '$']).unwrap_or(pattern.len());
    let star = pattern.contains('*');
    (&pattern[..end], star, !star && end < pattern.len())
}

/// Whether a pattern matches every path that starts with its literal start: no `$`, and no
/// `*` but trailing ones (`/a`, `/a*`).
fn covers_under(pattern: &str) -> bool {
    !pattern.trim_end_matches('*').contains(['*', '$'])
}

/// `path` and what lies under it, for `rules`.
///
/// A rule of the other kind than the decision's changes the verdict for some path under `path`
/// when its literal start lies under `path` (`Disallow: /blog/drafts/` under `/blog/`), or when
/// it covers `path` from above with a wildcard or `$` (`Disallow: /*.pdf`), or when the rule
/// that decided for `path` may not match all of what lies under it (`Allow: /$`). Patterns are
/// compared as written, so the answer is `partly` whenever it may be; never `allowed` or
/// `blocked` when some path under `path` has the other verdict.
fn path_audit<'r>(rules: &AgentRules<'r>, path: &str) -> PathAudit<'r> {
    let target = crate::robots::request_target(path);
    let decision = rules.check_path(&target);
    let winner = decision.rule();
    let winner_partial = winner.is_some_and(|w| {
        let (_, star, anchored) = literal(w.pattern);
        star || anchored
    });
    let opposite = if decision.allowed {
        RuleKind::Disallow
    } else {
        RuleKind::Allow
    };
    let other = if matches!(decision.reason, Reason::RobotsTxt) {
        None
    } else {
        rules.rules().find(|r| {
            if r.kind != opposite || r.pattern.is_empty() {
                return false;
            }
            let (lit, star, anchored) = literal(r.pattern);
            if lit.starts_with(&*target) {
                // At or under the path: a deeper rule, or one that may match deeper.
                lit.len() > target.len() || star || (winner_partial && !anchored)
            } else if target.starts_with(lit) && !anchored {
                // Covers the path from above and lost there: it decides under the path when
                // the winner may not match there, or when its `*` may make it the longer match.
                winner_partial || star && winner.is_none_or(|w| r.pattern.len() >= w.pattern.len())
            } else {
                false
            }
        })
    };
    // A disallow that matches the path matches all under it, unless it ends in `$`
    // (`Disallow: /$`): the rest is then left to the default, allowed, unless a disallow that
    // matches all under the path covers it.
    let default_under = !decision.allowed
        && !matches!(decision.reason, Reason::RobotsTxt)
        && winner.is_some_and(|w| w.pattern.ends_with('$'))
        && !rules.rules().any(|r| {
            r.kind == RuleKind::Disallow
                && covers_under(r.pattern)
                && target.starts_with(literal(r.pattern).0)
        });
    let access = match (decision.allowed, other) {
        (_, Some(_)) => Access::Partly,
        (false, None) if default_under => Access::Partly,
        (true, None) => Access::Allowed,
        (false, None) => Access::Blocked,
    };
    PathAudit {
        path: path.to_owned(),
        access,
        decision,
        other,
    }
}
