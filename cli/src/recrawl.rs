//! `crawlgate recrawl`: fetch each origin's robots.txt now and record it, whatever the state
//! says (after a fix). Without the `fetch` feature it says so.

use crate::args::RecrawlArgs;
use crate::output::Out;
use crate::status::Status;

#[cfg(not(feature = "fetch"))]
pub fn recrawl(_: &RecrawlArgs, _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("this build cannot fetch robots.txt (feature `fetch`)")
}

#[cfg(feature = "fetch")]
pub use enabled::recrawl;

#[cfg(feature = "fetch")]
mod enabled {
    use super::*;
    use crate::engine::fetch_now::{fetch_each, FetchEach, Fetched};
    use crate::output::escape;
    use crate::schema::Record;

    /// One origin's result as `recrawl` prints it: a few lines, or its record.
    fn report_recrawl(out: &mut Out, json: bool, f: &Fetched) -> std::io::Result<()> {
        if json {
            return out.json(&Record::Fetch(f.record()));
        }
        let status = f
            .version
            .as_ref()
            .and_then(|v| v.status)
            .map_or("-".to_owned(), |s| s.to_string());
        out.line(format_args!("{}", f.origin))?;
        match f.cause() {
            Some(c) => out.line(format_args!(
                "  result:    {status} {} ({})",
                f.outcome(),
                escape(&c)
            ))?,
            None => out.line(format_args!("  result:    {status} {}", f.outcome()))?,
        }
        out.line(format_args!("  version:   {}", f.version_text()))?;
        out.line(format_args!(
            "  verdict:   {} ({})",
            f.judgement.verdict.as_str(),
            escape(&f.judgement.reason.to_string())
        ))
    }

    /// `crawlgate recrawl`: fetch now and record, whatever the state says.
    pub fn recrawl(args: &RecrawlArgs, out: &mut Out) -> anyhow::Result<Status> {
        let request = FetchEach {
            http: &args.http,
            mode: args.mode,
            state: &args.state,
            urls: &args.urls,
            urls_file: None,
            concurrency: args.concurrency.concurrency,
            json: args.json,
            command: "recrawl",
        };
        fetch_each(&request, out, report_recrawl)
    }
}
