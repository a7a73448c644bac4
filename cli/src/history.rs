//! `crawlgate history` (what the crawl state holds for an origin: its versions and the one in
//! force) and `crawlgate recrawl` (fetch now, after a fix). Without the `fetch` feature they
//! say so.

use crate::args::{HistoryArgs, RecrawlArgs};
use crate::output::Out;
use crate::status::Status;

#[cfg(not(feature = "fetch"))]
pub fn history(_: &HistoryArgs, _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("this build has no crawl state (feature `fetch`)")
}

#[cfg(not(feature = "fetch"))]
pub fn recrawl(_: &RecrawlArgs, _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("this build cannot fetch robots.txt (feature `fetch`)")
}

#[cfg(feature = "fetch")]
pub use enabled::{history, in_force, recrawl, rfc3339};

#[cfg(feature = "fetch")]
mod enabled {
    use std::fmt::Write as _;
    use std::time::{SystemTime, UNIX_EPOCH};

    use crawlgate::policy::{
        Content, GoodVersion, Judgement, OriginState, PolicyOptions, Verdict, VerdictReason,
        Version,
    };
    use crawlgate::Origin;

    use super::*;
    use crate::output::{escape, problems};
    use crate::remote::{cause, fetch_each, file_facts, origins, runtime, FetchEach, Fetched};
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

    /// Which listed version the verdict comes from: the last good one while it applies, else
    /// the failure that overrides it. `None` when nothing listed is (never fetched, or the good
    /// version is older than the listing).
    pub fn in_force(state: &OriginState, versions: &[&Version], j: &Judgement) -> Option<usize> {
        if j.reason == VerdictReason::NotFetched {
            return None;
        }
        let uses_good = matches!(j.reason, VerdictReason::LastGoodVersion { .. })
            || state.failing_since().is_none();
        if uses_good {
            let (_, good) = state.last_good()?;
            versions.iter().rposition(|v| match (good, &v.content) {
                (GoodVersion::Rules(g), Content::Rules(f)) => g.digest == f.digest,
                (GoodVersion::NoRobotsTxt(g), Content::NoRobotsTxt(w)) => g == w,
                _ => false,
            })
        } else {
            let last = versions.len().checked_sub(1)?;
            matches!(versions[last].content, Content::Unreachable(_)).then_some(last)
        }
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

    /// `2026-11-22T18:45:00Z`: UTC, whole seconds (times before 1970 count back from it).
    pub fn rfc3339(t: SystemTime) -> String {
        let secs: i64 = match t.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            // Floor: 0.5 s before the epoch is 1969-12-31T23:59:59Z.
            Err(e) => {
                let d = e.duration();
                let whole = d.as_secs() + u64::from(d.subsec_nanos() > 0);
                -i64::try_from(whole).unwrap_or(i64::MAX)
            }
        };
        let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
        let s = secs.rem_euclid(86_400);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            s / 3600,
            s % 3600 / 60,
            s % 60
        )
    }

    /// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to (year, month, day) in the
    /// proleptic Gregorian calendar.
    fn civil_from_days(days: i64) -> (i64, i64, i64) {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = yoe + era * 400 + i64::from(m <= 2);
        (y, m, d)
    }

    #[cfg(test)]
    mod tests {
        use std::time::Duration;

        use super::*;

        fn at(secs: u64) -> SystemTime {
            UNIX_EPOCH + Duration::from_secs(secs)
        }

        #[test]
        fn rfc3339_dates() {
            assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
            assert_eq!(rfc3339(at(1_795_373_100)), "2026-11-22T18:45:00Z");
            // A leap day, and the last second of a century year that is not a leap year.
            assert_eq!(rfc3339(at(951_782_400)), "2000-02-29T00:00:00Z");
            assert_eq!(rfc3339(at(4_107_542_399)), "2100-02-28T23:59:59Z");
            assert_eq!(
                rfc3339(UNIX_EPOCH - Duration::from_millis(500)),
                "1969-12-31T23:59:59Z"
            );
            assert_eq!(
                rfc3339(at(1_795_373_100) + Duration::from_millis(999)),
                "2026-11-22T18:45:00Z"
            );
        }
    }
}
