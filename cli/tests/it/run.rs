//! Running the `crawlgate` binary from a test: a private state home, and reading what it
//! printed. Only this package's tests have the binary's path.
#![allow(dead_code)] // Each test module uses a different part.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// A directory for a test's files and its crawl state (never the user's).
pub struct Dir(tempfile::TempDir);

impl Dir {
    pub fn new() -> Dir {
        Dir(tempfile::tempdir().expect("temp dir"))
    }

    /// Writes `name` with `contents` and returns its path.
    pub fn file(&self, name: &str, contents: &[u8]) -> String {
        let path: PathBuf = self.0.path().join(name);
        std::fs::write(&path, contents).expect("write file");
        path.to_str().expect("UTF-8 temp path").to_owned()
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// Runs the binary with this directory as its state home.
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_env(args, &[])
    }

    /// Runs the binary with this directory as its state home, and `env` set.
    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_crawlgate"));
        cmd.args(args)
            .env_remove("CRAWLGATE_AGENT")
            .env_remove("CRAWLGATE_STATE")
            .env("XDG_STATE_HOME", self.path())
            .env("HOME", self.path())
            .stdin(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("run crawlgate")
    }
}

/// Output bytes as text (the CLI writes UTF-8 only).
pub fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).expect("UTF-8")
}

/// The exit code of a run that exited normally.
pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

/// The JSON Lines of a run and its summary (the last line, which must be one).
pub fn records(o: &Output) -> (Vec<Value>, Value) {
    let mut lines: Vec<Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let summary = lines.pop().expect("a summary record");
    assert_eq!(summary["type"], "summary", "{summary}");
    (lines, summary)
}
