//! `crawlgate fetch`: each origin's robots.txt now, what came back, and the verdict the state
//! holds after it. Without the `fetch` feature it says so.

use crate::args::FetchArgs;
use crate::output::Out;
use crate::status::Status;

#[cfg(not(feature = "fetch"))]
pub fn fetch(_: &FetchArgs, _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("this build cannot fetch robots.txt (feature `fetch`)")
}

#[cfg(feature = "fetch")]
pub use enabled::fetch;

#[cfg(feature = "fetch")]
mod enabled {

    use super::*;
    use crate::clock::rfc3339;
    use crate::engine::fetch_now::{fetch_each, FetchEach, Fetched};
    use crate::output::escape;
    use crate::schema::Record;

    /// One origin's result as `fetch` prints it: a block of lines, or its record.
    fn report_fetch(out: &mut Out, json: bool, f: &Fetched) -> std::io::Result<()> {
        if json {
            return out.json(&Record::Fetch(f.record()));
        }
        let v = f.version.as_ref();
        let file = f.file();
        let status_text = v
            .and_then(|v| v.status)
            .map_or("-".to_owned(), |s| s.to_string());
        out.line(format_args!("{}", f.origin.robots_txt_url()))?;
        out.line(format_args!("  status:    {status_text}"))?;
        match f.cause() {
            Some(c) => out.line(format_args!(
                "  outcome:   {} ({})",
                f.outcome(),
                escape(&c)
            ))?,
            None => out.line(format_args!("  outcome:   {}", f.outcome()))?,
        }
        if let Some(v) = v.filter(|v| v.redirects > 0) {
            out.line(format_args!(
                "  final url: {} ({} redirect{})",
                escape(&v.final_url),
                v.redirects,
                if v.redirects == 1 { "" } else { "s" }
            ))?;
        }
        let (errors, warnings) = file.map_or((0, 0), |f| (f.errors, f.warnings));
        out.line(format_args!("  size:      {}", f.size_text()))?;
        if file.is_some_and(|f| f.html) {
            out.line(format_args!(
                "  html:      an HTML page, not a robots.txt (a soft 404 or a bot wall); parsed as one"
            ))?;
        }
        let plural = |n: u32| if n == 1 { "" } else { "s" };
        let codes = if f.codes.is_empty() {
            String::new()
        } else {
            format!(" ({})", f.codes.join(", "))
        };
        out.line(format_args!(
            "  problems:  {errors} error{}, {warnings} warning{}{codes}",
            plural(errors),
            plural(warnings)
        ))?;
        out.line(format_args!("  version:   {}", f.version_text()))?;
        let reason = f.judgement.reason.to_string();
        out.line(format_args!(
            "  verdict:   {} ({})",
            f.judgement.verdict.as_str(),
            escape(&reason)
        ))?;
        match f.next_due {
            Some(due) => out.line(format_args!("  next:      {}", rfc3339(due))),
            None => Ok(()),
        }
    }

    /// `crawlgate fetch`: each origin's robots.txt now, what came back, and the verdict the
    /// state holds after it.
    pub fn fetch(args: &FetchArgs, out: &mut Out) -> anyhow::Result<Status> {
        let request = FetchEach {
            http: &args.http,
            mode: args.mode,
            state: &args.state,
            urls: &args.urls,
            urls_file: args.urls_file.as_deref(),
            concurrency: args.concurrency.concurrency,
            json: args.json,
            command: "fetch",
        };
        fetch_each(&request, out, report_fetch)
    }
}
