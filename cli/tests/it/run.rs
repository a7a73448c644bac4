//! Running the `crawlgate` binary from a test: a private state home, standard input, and
//! reading what it printed. Only this package's tests have the binary's path. Every module
//! runs the binary through here.
#![allow(dead_code)] // Each test module uses a different part.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Map, Value};

/// The binary run from the repository root (so `testdata/…` paths print as given), with
/// `CRAWLGATE_AGENT` and `CRAWLGATE_STATE` unset and `home` as its `HOME` and
/// `XDG_STATE_HOME` (never the user's), standard input closed unless the caller pipes it.
pub fn command(home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_crawlgate"));
    cmd.args(args)
        .current_dir(crate::ROOT)
        .env_remove("CRAWLGATE_AGENT")
        .env_remove("CRAWLGATE_STATE")
        .env("XDG_STATE_HOME", home)
        .env("HOME", home)
        .stdin(Stdio::null());
    cmd
}

/// Runs `cmd` to the end, feeding `stdin` if given, and returns what it printed.
pub fn output(cmd: &mut Command, stdin: Option<&[u8]>) -> Output {
    let Some(bytes) = stdin else {
        return cmd.output().expect("run crawlgate");
    };
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("crawlgate runs");
    let mut pipe = child.stdin.take().expect("stdin pipe");
    // A command that refuses its input may exit before reading it: a broken pipe is then the
    // expected outcome, and the exit status says what happened.
    if let Err(e) = pipe.write_all(bytes) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    drop(pipe);
    child.wait_with_output().expect("crawlgate finishes")
}

/// The binary on a terminal: a pseudo-terminal from util-linux `script` (`-e`: its exit status
/// passed on), standard error joined to standard output, with `home` as in [`command`]; what
/// the terminal showed is the output's `stdout`. `script` comes with util-linux (Debian's
/// essential `bsdutils`): missing, the test fails rather than skip.
pub fn on_a_terminal(home: &Path, args: &[&str]) -> Output {
    let has_script = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        has_script,
        "`script` (util-linux) is needed to run the binary on a terminal"
    );
    let quote = |a: &str| format!("'{}'", a.replace('\'', "'\\''"));
    let line = std::iter::once(env!("CARGO_BIN_EXE_crawlgate"))
        .chain(args.iter().copied())
        .map(quote)
        .collect::<Vec<_>>()
        .join(" ");
    Command::new("script")
        .args(["-qec", &format!("{line} 2>&1"), "/dev/null"])
        .current_dir(crate::ROOT)
        .env_remove("CRAWLGATE_AGENT")
        .env_remove("CRAWLGATE_STATE")
        .env("XDG_STATE_HOME", home)
        .env("HOME", home)
        .stdin(Stdio::null())
        .output()
        .expect("run script")
}

/// Runs the binary with a state home of its own (see [`command`]).
pub fn run(args: &[&str]) -> Output {
    Dir::new().run(args)
}

/// [`run`], feeding `stdin` if given and with `env` set.
pub fn run_with(args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Output {
    Dir::new().run_with(args, stdin, env)
}

/// `crawlgate check --agent AGENT --robots ROBOTS REST…`, with a state home of its own.
pub fn check(agent: &str, robots: &str, rest: &[&str]) -> Output {
    Dir::new().check(agent, robots, rest)
}

/// A directory for a test's files and its crawl state (never the user's).
pub struct Dir(tempfile::TempDir);

impl Dir {
    pub fn new() -> Dir {
        Dir(tempfile::tempdir().expect("temp dir"))
    }

    /// Writes `name` with `contents` and returns its path.
    pub fn file(&self, name: &str, contents: &[u8]) -> String {
        let path = self.join(name);
        std::fs::write(&path, contents).expect("write file");
        path
    }

    /// The path of `name` in the directory (which need not exist).
    pub fn join(&self, name: &str) -> String {
        let path: PathBuf = self.0.path().join(name);
        path.to_str().expect("UTF-8 temp path").to_owned()
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }

    /// The binary with this directory as its state home (see [`command`]).
    pub fn command(&self, args: &[&str]) -> Command {
        command(self.path(), args)
    }

    /// Runs the binary with this directory as its state home.
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, None, &[])
    }

    /// `crawlgate check --agent AGENT --robots ROBOTS REST…` with this directory as its state
    /// home.
    pub fn check(&self, agent: &str, robots: &str, rest: &[&str]) -> Output {
        let mut args = vec!["check", "--agent", agent, "--robots", robots];
        args.extend_from_slice(rest);
        self.run(&args)
    }

    /// Runs the binary with this directory as its state home, and `env` set.
    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.run_with(args, None, env)
    }

    /// Runs the binary with this directory as its state home, feeding `stdin` if given and
    /// with `env` set.
    pub fn run_with(&self, args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Output {
        output(self.command(args).envs(env.iter().copied()), stdin)
    }
}

/// A file in a directory of its own (removed when dropped), and its path.
pub struct TempFile(Dir, String);

impl TempFile {
    /// `name` (a file name) with `contents`.
    pub fn new(name: &str, contents: &[u8]) -> TempFile {
        let dir = Dir::new();
        let path = dir.file(name, contents);
        TempFile(dir, path)
    }

    pub fn path(&self) -> &str {
        &self.1
    }
}

/// Output bytes as text (the CLI writes UTF-8 only).
pub fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).expect("UTF-8")
}

pub fn stdout(o: &Output) -> String {
    text(&o.stdout)
}

pub fn stderr(o: &Output) -> String {
    text(&o.stderr)
}

/// Both streams, for assertion messages.
pub fn both(o: &Output) -> String {
    format!("stdout:\n{}\nstderr:\n{}", stdout(o), stderr(o))
}

/// The exit code of a run that exited normally.
pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally, not by a signal")
}

/// Asserts an exit status, showing both streams when it is not.
#[track_caller]
pub fn assert_exit(o: &Output, code: i32) {
    assert_eq!(o.status.code(), Some(code), "{}", both(o));
}

/// Asserts exit `code` and a standard error that starts with `start`.
#[track_caller]
pub fn assert_error_starts(o: &Output, code: i32, start: &str) {
    assert_exit(o, code);
    assert!(stderr(o).starts_with(start), "{}", stderr(o));
}

/// Asserts exit `code` and a standard error that says `part`.
#[track_caller]
pub fn assert_error_says(o: &Output, code: i32, part: &str) {
    assert_exit(o, code);
    assert!(stderr(o).contains(part), "{}", stderr(o));
}

/// Every line of standard output as JSON.
pub fn values(o: &Output) -> Vec<Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// The JSON Lines of a run and its summary (the last line, which must be one).
pub fn records(o: &Output) -> (Vec<Value>, Value) {
    let mut lines = values(o);
    let summary = lines.pop().expect("a summary record");
    assert_eq!(summary["type"], "summary", "{summary}");
    (lines, summary)
}

/// The JSON Lines of a run without its summary (the last line, which must be one).
pub fn lines(o: &Output) -> Vec<Value> {
    records(o).0
}

/// Every line of standard output as a JSON object, the summary included.
pub fn objects(o: &Output) -> Vec<Map<String, Value>> {
    stdout(o)
        .lines()
        .map(|l| match serde_json::from_str(l) {
            Ok(Value::Object(m)) => m,
            other => panic!("not a JSON object line: {l:?} ({other:?})"),
        })
        .collect()
}
