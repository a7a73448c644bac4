//! `crawlgate history`: what the crawl state holds for an origin, its versions and the one in
//! force. Nothing is fetched. Without the `fetch` feature it says so.

use crate::args::HistoryArgs;
use crate::output::Out;
use crate::status::Status;

#[cfg(not(feature = "fetch"))]
pub fn history(_: &HistoryArgs, _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("this build has no crawl state (feature `fetch`)")
}

#[cfg(feature = "fetch")]
pub use enabled::history;

#[cfg(feature = "fetch")]
mod enabled {
    use std::fmt::Write as _;
    use std::time::SystemTime;

    use crawlgate::policy::{Content, OriginState, PolicyOptions, Verdict, Version};
    use crawlgate::Origin;

    use super::*;
    use crate::clock::rfc3339;
    use crate::engine::fetch_now::file_facts;
    use crate::engine::{cause, in_force, origins, runtime};
    use crate::output::{escape, problems};
    use crate::schema::{self, Record};
    use crate::state;

    /// `crawlgate history`: reads the state only; never fetches.
    pub fn history(args: &HistoryArgs, out: &mut Out) -> anyhow::Result<Status> {
        let (origins, mut failed) = origins(&args.urls, out);
        let mut shown = 0;
        // Every URL bad (and reported): no state to open.
        if !origins.is_empty() {
            runtime()?.block_on(async {
                // A state file that does not exist yet is not created just to be found empty.
                let state = state::open(&args.state, false).await?;
                let now = crate::clock::now()?;
                for origin in &origins {
                    match state.store.load(origin).await {
                        Ok(Some(s)) if s.last_fetch().is_some() => {
                            show(out, args.json, origin, &s, now)?;
                            shown += 1;
                        }
                        Ok(_) => {
                            out.error(format_args!(
                                "nothing recorded for {origin} in {} (fetch it first: crawlgate fetch {origin}/)",
                                state.name
                            ));
                            failed += 1;
                        }
                        Err(e) => {
                            out.error(e);
                            failed += 1;
                        }
                    }
                }
                anyhow::Ok(())
            })?;
        }
        let status = if failed > 0 {
            Status::Failed
        } else {
            Status::Clean
        };
        if args.json {
            out.json(&Record::Summary(schema::Summary {
                command: "history",
                origins: Some(shown),
                failed,
                exit: status.code(),
                ..schema::Summary::default()
            }))?;
        }
        Ok(status)
    }

    fn show(
        out: &mut Out,
        json: bool,
        origin: &Origin,
        state: &OriginState,
        now: SystemTime,
    ) -> std::io::Result<()> {
        let versions = state.history_at(now);
        let judgement = state.verdict_at(now, &PolicyOptions::default());
        let marked = in_force(state, &versions, &judgement);
        let in_force_digest = match judgement.verdict {
            Verdict::Rules => state.good_file().map(|f| f.digest.to_string()),
            Verdict::AllowAll | Verdict::DisallowAll => None,
        };
        if json {
            for (i, v) in versions.iter().enumerate() {
                let file = match &v.content {
                    Content::Rules(f) => Some(f),
                    _ => None,
                };
                out.json(&Record::Version(schema::Version {
                    origin: origin.to_string(),
                    robots_txt: origin.robots_txt_url(),
                    first_at: rfc3339(v.first_at),
                    last_at: rfc3339(v.last_at),
                    count: v.count,
                    status: v.status,
                    outcome: v.content.as_str(),
                    cause: cause(&v.content),
                    final_url: v.final_url.clone(),
                    redirects: v.redirects,
                    file: file_facts(file),
                    in_force: marked == Some(i),
                }))?;
            }
            return out.json(&Record::Origin(schema::Origin {
                origin: origin.to_string(),
                robots_txt: origin.robots_txt_url(),
                verdict: judgement.verdict.as_str(),
                reason: judgement.reason.as_str(),
                reason_text: judgement.reason.to_string(),
                digest: in_force_digest,
                failing_since: state.failing_since().map(rfc3339),
                next_due: state.next_due().map(rfc3339),
                dormant: state.is_dormant(now),
            }));
        }
        out.line(format_args!("{}", origin.robots_txt_url()))?;
        for (i, v) in versions.iter().enumerate() {
            out.line(format_args!("  {}", version_line(v)))?;
            if marked == Some(i) {
                out.line(format_args!(
                    "    in force: {}",
                    escape(&judgement.reason.to_string())
                ))?;
            }
        }
        match marked {
            Some(_) => out.line(format_args!(
                "  verdict:       {}",
                judgement.verdict.as_str()
            ))?,
            None => out.line(format_args!(
                "  verdict:       {} ({})",
                judgement.verdict.as_str(),
                escape(&judgement.reason.to_string())
            ))?,
        }
        if let Some(since) = state.failing_since() {
            out.line(format_args!("  failing since: {}", rfc3339(since)))?;
        }
        if state.is_dormant(now) {
            out.line(format_args!(
                "  dormant:       no robots.txt for over 30 days (still checked)"
            ))?;
        }
        if let Some(due) = state.next_due() {
            let when = if due <= now { " (due)" } else { "" };
            out.line(format_args!("  next fetch:    {}{when}", rfc3339(due)))?;
        }
        Ok(())
    }

    /// `TIME[–LAST ×N]  STATUS  OUTCOME[ (CAUSE)][  SIZE bytes  PROBLEMS  DIGEST]`.
    fn version_line(v: &Version) -> String {
        let mut line = rfc3339(v.first_at);
        if v.count > 1 {
            let _ = write!(line, "–{} ×{}", rfc3339(v.last_at), v.count);
        }
        let status = v.status.map_or("-".to_owned(), |s| s.to_string());
        let _ = write!(line, "  {status}  {}", v.content.as_str());
        match &v.content {
            Content::Rules(f) => {
                let _ = write!(
                    line,
                    "  {} bytes  {}  {}",
                    f.size,
                    problems(f.errors as usize, f.warnings as usize),
                    f.digest.short()
                );
            }
            other => {
                if let Some(c) = cause(other) {
                    let _ = write!(line, " ({})", escape(&c));
                }
            }
        }
        line
    }
}
