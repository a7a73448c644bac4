//! What `check` and `explain` answered, counted for their summaries.

use crate::output::plural;

/// What `check` answered, for the JSON summary.
#[derive(Debug, Default)]
pub struct Tally {
    /// Crawlers (`--agent`s, or the one of `--agents`): each URL answered gets one answer per
    /// crawler.
    pub agents: usize,
    /// Answers (a URL for one agent).
    pub allowed: usize,
    pub disallowed: usize,
    /// URLs reported on standard error: not answered, or answered without a fetch.
    pub failed: usize,
}

impl Tally {
    /// Counts one answer.
    pub fn add(&mut self, allowed: bool) {
        if allowed {
            self.allowed += 1;
        } else {
            self.disallowed += 1;
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
        if self.failed > 0 {
            line.push_str(&format!(", {} not answered", self.failed));
        }
        line
    }
}
