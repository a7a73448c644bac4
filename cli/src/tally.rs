//! What `check` and `explain` answered, counted for their summaries and exit status.

use crate::output::plural;
use crate::schema::{Check, Summary};
use crate::status::Status;

/// What `check` answered, for the JSON summary.
#[derive(Debug, Default)]
pub struct Tally {
    /// Crawlers (`--agent`s, or the one of `--agents`): each URL answered gets one answer per
    /// crawler.
    pub agents: usize,
    /// Answers (a URL for one agent).
    pub allowed: usize,
    pub disallowed: usize,
    /// Of the disallowed answers, those the failure rules decided (robots.txt unreadable).
    pub unreachable: usize,
    /// URLs reported on standard error: not answered, or answered without a fetch.
    pub failed: usize,
}

impl Tally {
    /// Counts one answer.
    pub fn add(&mut self, c: &Check<'_>) {
        if c.allowed {
            self.allowed += 1;
        } else {
            self.disallowed += 1;
            if c.unreachable() {
                self.unreachable += 1;
            }
        }
    }

    /// The exit status of what was answered: 2 if an input was reported on standard error,
    /// else 3 if a robots.txt could not be read (those answers say nothing of the site's
    /// rules), else 1 if a URL was disallowed, else 0.
    pub fn status(&self) -> Status {
        if self.failed > 0 {
            Status::Failed
        } else if self.unreachable > 0 {
            Status::Unreachable
        } else if self.disallowed > 0 {
            Status::Findings
        } else {
            Status::Clean
        }
    }

    /// The `summary` record of `command` (`check`, `explain`) that ends with `status`.
    pub fn record(&self, command: &'static str, status: Status) -> Summary {
        Summary {
            command,
            urls: Some(self.urls()),
            allowed: Some(self.allowed),
            disallowed: Some(self.disallowed),
            failed: self.failed,
            exit: status.code(),
            ..Summary::default()
        }
    }

    /// URLs answered (for every agent).
    pub fn urls(&self) -> usize {
        (self.allowed + self.disallowed) / self.agents.max(1)
    }

    /// `3 URLs: 2 allowed, 1 disallowed`, `, 1 not answered` when some were not; with several
    /// agents, `3 URLs × 2 agents: …` (the counts are answers).
    pub fn summary(&self) -> String {
        let agents = if self.agents > 1 {
            format!(" × {} agents", self.agents)
        } else {
            String::new()
        };
        let mut line = format!(
            "{}{agents}: {} allowed, {} disallowed",
            plural(self.urls() + self.failed, "URL", "URLs"),
            self.allowed,
            self.disallowed
        );
        if self.unreachable > 0 {
            line.push_str(&format!(
                " ({} because a robots.txt could not be read)",
                self.unreachable
            ));
        }
        if self.failed > 0 {
            line.push_str(&format!(", {} not answered", self.failed));
        }
        line
    }
}
