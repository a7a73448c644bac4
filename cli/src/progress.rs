//! What a person at a terminal sees while origins are fetched: a progress line on standard
//! error (`fetched 37/100 origins`), and a summary line at the end. Both are shown only when
//! standard error is a terminal: a script that captures it gets the `crawlgate: …` sentences
//! and nothing else, so "standard error is empty" still means "nothing went wrong".
// Without the `fetch` feature nothing waits on the network.
#![cfg_attr(not(feature = "fetch"), allow(dead_code))]

use std::fmt::Display;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressState, ProgressStyle};

use crate::output::Out;
use crate::status::Status;

/// The progress line, or nothing. Cheap to clone (the bar is shared); cleared when the last
/// clone is dropped, however the command ends.
#[derive(Clone)]
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Nothing shown.
    pub fn hidden() -> Progress {
        Progress { bar: None }
    }

    /// `fetched 3/20 origins (12s)` for a run of more than one item, on a terminal.
    pub fn counted(total: usize, verb: &str, what: &str) -> Progress {
        if total < 2 {
            return Progress::hidden();
        }
        Progress::start(
            Some(total as u64),
            &format!("{{spinner}} {verb} {{pos}}/{{len}} {what} ({{elapsed}})"),
        )
    }

    /// `checked 37 URLs (12s)`, when how many will come is not known (a stream).
    pub fn open_ended(verb: &str, what: &str) -> Progress {
        Progress::start(
            None,
            &format!("{{spinner}} {verb} {{pos}} {what} ({{elapsed}})"),
        )
    }

    /// `judged 120345 captures (2410/s) [=====>    ] 1.2 GiB/4.0 GiB (ETA 12m)`: a run over
    /// inputs of `total` bytes, the bar moved by [`Progress::read`], the count beside it read
    /// from `count` when the line is drawn (so that counting costs an atomic add, not a
    /// redraw).
    pub fn bytes(total: u64, verb: &str, what: &str, count: Arc<AtomicU64>) -> Progress {
        let rate = count.clone();
        Progress::styled(
            Some(total),
            &format!(
                "{{spinner}} {verb} {{count}} {what} ({{count_rate}}/s) {{wide_bar}} \
                 {{bytes}}/{{total_bytes}} (ETA {{eta}})"
            ),
            |style| {
                style
                    .with_key(
                        "count",
                        move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                            let _ = write!(w, "{}", count.load(Ordering::Relaxed));
                        },
                    )
                    .with_key(
                        "count_rate",
                        move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                            let seconds = state.elapsed().as_secs_f64().max(1e-3);
                            let _ =
                                write!(w, "{:.0}", rate.load(Ordering::Relaxed) as f64 / seconds);
                        },
                    )
                    .progress_chars("=> ")
            },
        )
    }

    fn start(total: Option<u64>, template: &str) -> Progress {
        Progress::styled(total, template, |style| style)
    }

    fn styled(
        total: Option<u64>,
        template: &str,
        keys: impl FnOnce(ProgressStyle) -> ProgressStyle,
    ) -> Progress {
        // Checked here as well as by indicatif (its stderr target hides itself off a
        // terminal), so that no escape sequence can reach a captured standard error.
        if !std::io::stderr().is_terminal() {
            return Progress::hidden();
        }
        // The template is ours and valid; a failure would only lose the spinner.
        let style = keys(
            ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr())
            .with_style(style)
            .with_finish(ProgressFinish::AndClear);
        // Ticks on its own, so that a run waiting on dead hosts still shows it is alive.
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar: Some(bar) }
    }

    /// One more item done.
    pub fn inc(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// `n` more bytes read (a [`Progress::bytes`] line).
    pub fn read(&self, n: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(n);
        }
    }

    /// Whether the line is on screen (standard error is a terminal).
    pub fn is_visible(&self) -> bool {
        self.bar.is_some()
    }

    /// Runs `f` with the line taken off the screen, so that what `f` prints (on standard
    /// output or error, when they share the terminal) does not run into it.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Writes out what `out` holds, around the line.
    pub fn flush(&self, out: &mut Out) -> std::io::Result<()> {
        self.suspend(|| out.flush())
    }

    /// `crawlgate: <message>` on standard error, around the line.
    pub fn error(&self, out: &mut Out, message: impl Display) {
        self.suspend(|| out.error(message));
    }

    /// Takes the line off the screen for good.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The human summary of a run and what its exit status says (`3 URLs: 2 allowed, 1
/// disallowed; exit 1: a URL is disallowed`), on standard error when it is a terminal: a
/// person sees it, while a script reading standard output (`| cut -f2`) or checking that
/// standard error is empty does not. `findings` says what exit 1 means for the command.
pub fn summary(out: &mut Out, line: impl Display, status: Status, findings: &str) {
    if out.is_quiet() || !std::io::stderr().is_terminal() {
        return;
    }
    // After what standard output holds, so that the two stay in order on the terminal.
    let _ = out.flush();
    let _ = writeln!(
        std::io::stderr().lock(),
        "{line}; {}",
        status.meaning(findings)
    );
}
