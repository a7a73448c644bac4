//! How a command ended: the exit status every command returns.

use std::process::ExitCode;

/// How a command ended, when it did not fail outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Exit 0.
    Clean,
    /// Exit 1: lint problems or a disallowed URL.
    Findings,
    /// Exit 2: an input could not be used; already reported on standard error.
    Failed,
    /// Exit 3 (`check`, `explain`): a URL disallowed because its robots.txt could not be read
    /// (the failure rules decided: unreachable, no good version), not because of a rule.
    Unreachable,
}

impl Status {
    /// The process's exit status, also printed in the JSON summary record.
    pub fn code(self) -> u8 {
        match self {
            Status::Clean => 0,
            Status::Findings => 1,
            Status::Failed => 2,
            Status::Unreachable => 3,
        }
    }

    /// What the exit status says, for a person (`exit 1: a URL is disallowed`); `findings`
    /// is what exit 1 means for the command.
    pub fn meaning(self, findings: &str) -> String {
        match self {
            Status::Clean => "exit 0".to_owned(),
            Status::Findings => format!("exit 1: {findings}"),
            Status::Failed => "exit 2: an input could not be used (said above)".to_owned(),
            Status::Unreachable => "exit 3: a robots.txt could not be read".to_owned(),
        }
    }
}

impl From<Status> for ExitCode {
    fn from(s: Status) -> ExitCode {
        ExitCode::from(s.code())
    }
}
