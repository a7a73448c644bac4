//! Where results go: buffered standard output (plain lines, or JSON Lines of `schema::Record`)
//! and `crawlgate: …` sentences on standard error.

use std::borrow::Cow;
use std::fmt::{self, Display, Write as _};
use std::io::{self, BufWriter, StdoutLock, Write};

use crate::schema::{Problem, Record};

/// Buffered standard output. Write errors keep their [`io::ErrorKind`] (so a closed pipe can be
/// told apart) and say that standard output was being written.
pub struct Out {
    w: BufWriter<StdoutLock<'static>>,
    /// `-q`: nothing on standard output (errors still on standard error; the exit status says
    /// the rest).
    quiet: bool,
}

impl Out {
    pub fn stdout(quiet: bool) -> Out {
        Out {
            w: BufWriter::new(io::stdout().lock()),
            quiet,
        }
    }

    pub fn is_quiet(&self) -> bool {
        self.quiet
    }

    /// Writes one line.
    pub fn line(&mut self, args: fmt::Arguments<'_>) -> io::Result<()> {
        if self.quiet {
            return Ok(());
        }
        self.w
            .write_fmt(args)
            .and_then(|()| self.w.write_all(b"\n"))
            .map_err(write_error)
    }

    /// Writes one record as one line (JSON Lines): `"type"` first, then its fields in
    /// declaration order (see `schema`).
    pub fn json(&mut self, record: &Record<'_>) -> io::Result<()> {
        if self.quiet {
            return Ok(());
        }
        let mut line = Vec::with_capacity(256);
        serde_json::to_writer(&mut line, record)?;
        line.push(b'\n');
        self.w.write_all(&line).map_err(write_error)
    }

    /// Says why the answers from a robots.txt (named `robots_txt`) may not mean what its
    /// author meant ([`crate::input::read_warnings`]): a `crawlgate: warning: NAME: MESSAGE
    /// (CODE)` line on standard error each, and with `--json` a `warning` record each.
    pub fn read_warnings(
        &mut self,
        json: bool,
        robots_txt: &str,
        warnings: &[crate::input::ReadWarning],
    ) -> io::Result<()> {
        for w in warnings {
            self.error(format_args!(
                "warning: {}: {} ({})",
                escape(robots_txt),
                w.message,
                w.code
            ));
            if json {
                self.json(&Record::Warning(crate::schema::Warning {
                    robots_txt,
                    code: w.code,
                    line: w.line,
                    message: &w.message,
                }))?;
            }
        }
        Ok(())
    }

    /// Writes one problem, robots.txt's or a sitemap's: a `problem` record, or
    /// `{indent}PATH:LINE:COLUMN: SEVERITY[CODE]: MESSAGE`. Paths and messages may quote a
    /// site (rules, sitemap URLs), so they are escaped: a file cannot drive the terminal.
    pub fn problem(&mut self, json: bool, indent: &str, p: &Problem<'_>) -> io::Result<()> {
        if json {
            return self.json(&Record::Problem(p.clone()));
        }
        self.line(format_args!(
            "{indent}{}:{}:{}: {}[{}]: {}",
            escape(p.path),
            p.line,
            p.column,
            p.severity,
            p.code,
            escape(p.message)
        ))
    }

    /// Writes bytes as they are (a generated completion script or manual page).
    pub fn raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.quiet {
            return Ok(());
        }
        self.w.write_all(bytes).map_err(write_error)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush().map_err(write_error)
    }

    /// Prints `crawlgate: <message>` on standard error, after what is already on standard
    /// output, so that the two stay in order on a terminal. A failure to write either is
    /// ignored: there is nowhere left to report it.
    pub fn error(&mut self, message: impl Display) {
        let _ = self.w.flush();
        error(message);
    }
}

/// Prints `crawlgate: <message>` on standard error.
pub fn error(message: impl Display) {
    let _ = writeln!(io::stderr().lock(), "crawlgate: {message}");
}

fn write_error(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("cannot write to standard output: {e}"))
}

/// Whether `e` comes from writing to a closed pipe (`crawlgate … | head -1`).
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// `1 file`, `2 files`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `3 errors, 1 warning`, `1 error`, or `no problems`: the tail of every linter summary.
pub fn problems(errors: usize, warnings: usize) -> String {
    let mut parts = Vec::new();
    if errors > 0 {
        parts.push(plural(errors, "error", "errors"));
    }
    if warnings > 0 {
        parts.push(plural(warnings, "warning", "warnings"));
    }
    if parts.is_empty() {
        parts.push("no problems".to_owned());
    }
    parts.join(", ")
}

/// `--max-problems N`: at most N problems of one code shown per file; the rest are counted (in
/// the summary, and on a `… more` line per code) but not printed.
#[derive(Debug, Default)]
pub struct ProblemCap {
    max: Option<usize>,
    /// Per code, in this file: how many were seen.
    seen: std::collections::BTreeMap<&'static str, usize>,
    /// Not printed, over every file.
    pub omitted: usize,
}

impl ProblemCap {
    /// `max` 0 or none: no cap.
    pub fn new(max: Option<usize>) -> ProblemCap {
        ProblemCap {
            max: max.filter(|&m| m > 0),
            ..ProblemCap::default()
        }
    }

    pub fn is_set(&self) -> bool {
        self.max.is_some()
    }

    /// Whether a problem of `code` is printed.
    pub fn admit(&mut self, code: &'static str) -> bool {
        let n = self.seen.entry(code).or_default();
        *n += 1;
        let shown = self.max.is_none_or(|m| *n <= m);
        if !shown {
            self.omitted += 1;
        }
        shown
    }

    /// The end of a file: per code, how many were not printed (and a fresh count for the next
    /// file).
    pub fn end_file(&mut self) -> Vec<(&'static str, usize)> {
        let max = self.max;
        let seen = std::mem::take(&mut self.seen);
        match max {
            Some(m) => seen
                .into_iter()
                .filter(|&(_, n)| n > m)
                .map(|(c, n)| (c, n - m))
                .collect(),
            None => Vec::new(),
        }
    }
}

/// A site-provided string made safe for a terminal: control characters (and the bidi
/// overrides that reorder text) become visible escapes, so that a robots.txt cannot
/// rewrite the screen or hide what it says.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_controls() {
        assert!(matches!(escape("plain – text"), Cow::Borrowed(_)));
        assert_eq!(
            escape("a\tb\x1b[2J\u{7f}\u{202e}c\n"),
            "a\\tb\\u{1b}[2J\\u{7f}\\u{202e}c\\n"
        );
    }
}
