//! The commands that go to the network: `crawlgate fetch`, and `crawlgate check` without
//! `--robots`. Without the `fetch` feature they say so.

use crate::output::Out;
use crate::{CheckArgs, FetchArgs, Status};
#[cfg(not(feature = "fetch"))]
use crawlgate::ProductToken;

#[cfg(not(feature = "fetch"))]
pub fn check(_: &CheckArgs, _: &ProductToken, _: &[String], _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("--robots FILE is required: this build cannot fetch robots.txt (feature `fetch`)")
}

#[cfg(not(feature = "fetch"))]
pub fn fetch(_: &FetchArgs, _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("this build cannot fetch robots.txt (feature `fetch`)")
}

#[cfg(feature = "fetch")]
pub use enabled::{check, fetch};

#[cfg(feature = "fetch")]
mod enabled {
    use std::time::{Duration, SystemTime};

    use anyhow::Context;
    use crawlgate::fetch::{Answer, CacheOptions, FetchOptions, Fetcher, RobotsCache};
    use crawlgate::policy::{FetchOutcome, OriginState, PolicyOptions};
    use crawlgate::{Origin, ProductToken, Severity};
    use serde_json::json;

    use super::*;
    use crate::HttpArgs;

    fn fetch_options(
        http: &HttpArgs,
        user_agent: String,
        mode: crawlgate::Mode,
    ) -> anyhow::Result<FetchOptions> {
        if !(http.timeout.is_finite() && http.timeout > 0.0) {
            anyhow::bail!("--timeout must be a positive number of seconds");
        }
        let timeout = Duration::from_secs_f64(http.timeout.min(3600.0));
        Ok(FetchOptions {
            user_agent,
            timeout,
            connect_timeout: timeout.min(FetchOptions::default().connect_timeout),
            mode,
            ..FetchOptions::default()
        })
    }

    fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime")
    }

    /// `crawlgate check` without `--robots`: one fetch per origin, through the engine.
    pub fn check(
        args: &CheckArgs,
        token: &ProductToken,
        urls: &[String],
        out: &mut Out,
    ) -> anyhow::Result<Status> {
        let user_agent = args
            .http
            .user_agent
            .clone()
            .unwrap_or_else(|| args.agent.clone());
        let options = CacheOptions {
            fetch: fetch_options(&args.http, user_agent, args.mode.into())?,
            ..CacheOptions::default()
        };
        let cache = RobotsCache::new(options)?;
        runtime()?.block_on(async {
            let mut status = Status::Clean;
            for url in urls {
                match cache.check(token, url).await {
                    Ok(answer) => {
                        if !answer.allowed && status == Status::Clean {
                            status = Status::Findings;
                        }
                        report(out, args.json, url, &answer)?;
                    }
                    Err(e) => {
                        out.error(format_args!("{e}"));
                        status = Status::Failed;
                    }
                }
            }
            Ok(status)
        })
    }

    fn report(out: &mut Out, json: bool, url: &str, a: &Answer) -> std::io::Result<()> {
        if json {
            return out.json(&[
                ("url", json!(url)),
                ("allowed", json!(a.allowed)),
                ("verdict", json!(a.reason.as_str())),
                ("line", json!(a.rule.as_ref().map(|r| r.line))),
                ("rule", json!(a.rule.as_ref().map(|r| r.text.as_str()))),
                ("robots_txt", json!(a.origin.robots_txt_url())),
            ]);
        }
        match (a.allowed, &a.rule) {
            (true, _) => out.line(format_args!("allowed\t{url}")),
            (false, Some(r)) => out.line(format_args!(
                "disallowed\t{url}\tline {}: {}",
                r.line, r.text
            )),
            (false, None) => out.line(format_args!("disallowed\t{url}\t{}", a.reason)),
        }
    }

    /// `crawlgate fetch`: each origin's robots.txt, what came back, and what it leads to.
    pub fn fetch(args: &FetchArgs, out: &mut Out) -> anyhow::Result<Status> {
        let user_agent = args
            .http
            .user_agent
            .clone()
            .unwrap_or_else(|| FetchOptions::default().user_agent);
        let fetcher = Fetcher::new(fetch_options(&args.http, user_agent, args.mode.into())?)?;
        let mut origins: Vec<Origin> = Vec::new();
        let mut status = Status::Clean;
        for url in &args.urls {
            match Origin::from_url(url) {
                Ok(o) if !origins.contains(&o) => origins.push(o),
                Ok(_) => {}
                Err(e) => {
                    out.error(format_args!("{e}"));
                    status = Status::Failed;
                }
            }
        }
        runtime()?.block_on(async {
            for origin in &origins {
                let fetch = fetcher.fetch(origin).await;
                let mut state = OriginState::new();
                state.record(SystemTime::now(), fetch.clone());
                let judgement = state.verdict_at(SystemTime::now(), &PolicyOptions::default());
                let (errors, warnings) = match &fetch.outcome {
                    FetchOutcome::Rules { parsed, .. } => {
                        let e = parsed
                            .diagnostics
                            .iter()
                            .filter(|d| d.severity == Severity::Error)
                            .count();
                        (e, parsed.diagnostics.len() - e)
                    }
                    _ => (0, 0),
                };
                let outcome = fetch.outcome.as_str();
                let cause = match &fetch.outcome {
                    FetchOutcome::Rules { .. } => None,
                    FetchOutcome::Unavailable(why) => Some(why.to_string()),
                    FetchOutcome::Unreachable(why) => {
                        if status == Status::Clean {
                            status = Status::Findings;
                        }
                        Some(why.to_string())
                    }
                };
                let verdict = judgement.verdict.as_str();
                if args.json {
                    out.json(&[
                        ("robots_txt", json!(fetch.url)),
                        ("status", json!(fetch.status)),
                        ("outcome", json!(outcome)),
                        ("cause", json!(cause)),
                        ("final_url", json!(fetch.final_url)),
                        ("redirects", json!(fetch.redirects)),
                        ("size", json!(fetch.size())),
                        ("errors", json!(errors)),
                        ("warnings", json!(warnings)),
                        ("verdict", json!(verdict)),
                        ("reason", json!(judgement.reason.to_string())),
                    ])?;
                } else {
                    let status_text = fetch.status.map_or("-".to_owned(), |s| s.to_string());
                    out.line(format_args!("{}", fetch.url))?;
                    out.line(format_args!("  status:    {status_text}"))?;
                    match &cause {
                        Some(c) => out.line(format_args!("  outcome:   {outcome} ({c})"))?,
                        None => out.line(format_args!("  outcome:   {outcome}"))?,
                    }
                    if fetch.redirects > 0 {
                        out.line(format_args!(
                            "  final url: {} ({} redirect{})",
                            fetch.final_url,
                            fetch.redirects,
                            if fetch.redirects == 1 { "" } else { "s" }
                        ))?;
                    }
                    out.line(format_args!("  size:      {} bytes", fetch.size()))?;
                    let plural = |n: usize| if n == 1 { "" } else { "s" };
                    out.line(format_args!(
                        "  problems:  {errors} error{}, {warnings} warning{}",
                        plural(errors),
                        plural(warnings)
                    ))?;
                    out.line(format_args!(
                        "  verdict:   {verdict} ({})",
                        judgement.reason
                    ))?;
                }
            }
            Ok(status)
        })
    }
}
