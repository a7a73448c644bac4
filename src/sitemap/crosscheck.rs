//! Checks every URL a sitemap entry makes a crawler fetch against robots.txt.

use crate::origin::Origin;
use crate::robots::{AgentRules, ProductToken, Robots};

use super::{Code, Diagnostic, Entry};

/// The robots.txt rules of one agent, applied to sitemap entries: the page `<loc>`, image
/// locations, and video content, player and thumbnail URLs. A blocked URL is a
/// `blocked-by-robots` warning naming the rule (the entry stays: the sitemap is still valid, but
/// the crawler will not fetch that URL).
#[derive(Debug, Clone)]
pub struct CrossCheck<'a> {
    rules: AgentRules<'a>,
    scope: Option<Origin>,
}

impl<'a> CrossCheck<'a> {
    /// Checks every URL against `robots`, whatever its host: for a robots.txt the caller chose.
    pub fn new(robots: &'a Robots, agent: &ProductToken) -> Self {
        CrossCheck {
            rules: robots.rules_for(agent),
            scope: None,
        }
    }

    /// Checks only URLs of `origin` (the robots.txt's own): a robots.txt says nothing about other
    /// hosts, so their URLs are skipped.
    pub fn scoped(robots: &'a Robots, agent: &ProductToken, origin: Origin) -> Self {
        CrossCheck {
            rules: robots.rules_for(agent),
            scope: Some(origin),
        }
    }

    /// The `blocked-by-robots` warnings for `entry`, in the order of [`Entry::urls`].
    pub fn check(&self, entry: &Entry) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for (tag, url, position) in entry.urls() {
            if let Some(scope) = &self.scope {
                match Origin::from_url(url) {
                    Ok(o) if &o == scope => {}
                    _ => continue,
                }
            }
            let decision = self.rules.check(url);
            if decision.allowed {
                continue;
            }
            let why = match decision.rule() {
                Some(rule) => format!("line {}: {}", rule.line, rule.text),
                None => "no rule".to_owned(),
            };
            out.push(Diagnostic::new(
                Code::BlockedByRobots,
                position,
                format!("{tag} {url} is blocked by robots.txt ({why})"),
            ));
        }
        out
    }
}
