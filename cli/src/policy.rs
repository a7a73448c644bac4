//! `crawlgate policy`: the whole crawl policy of URLs for one agent, each part with its source
//! (robots.txt, the edge, TDMRep, the page's directives), and the trap of a disallowed page
//! that says `noindex`.

use anyhow::Context;
use crawlgate::engine::{CacheOptions, CrawlPolicy, Edge, PagePart, RobotsCache};
use crawlgate::http::Fetcher;
use crawlgate::ProductToken;

use crate::args::PolicyArgs;
use crate::output::{escape, Out};
use crate::schema::{Record, Summary};
use crate::status::Status;

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// The page fetched once (even when robots.txt disallows it: the point is to see what it says),
/// or why it could not be.
async fn page(
    cache: &RobotsCache,
    fetcher: &Fetcher,
    agent: &ProductToken,
    url: &str,
) -> Result<PagePart, String> {
    let r = crate::engine::pages::fetch(cache, fetcher, url).await?;
    Ok(crate::engine::pages::part(cache, agent, url, &r))
}

fn show(out: &mut Out, p: &CrawlPolicy, page_error: Option<&str>) -> std::io::Result<()> {
    out.line(format_args!("{}", escape(&p.url)))?;
    out.line(format_args!("  agent:       {}", p.agent))?;
    let r = &p.robots;
    let rule = r.rule.as_ref().map_or(String::new(), |d| {
        format!(" by line {}: {}", d.line, escape(&d.text))
    });
    out.line(format_args!(
        "  robots.txt:  {}{rule} ({}: {})",
        if r.allowed { "allowed" } else { "disallowed" },
        p.verdict.as_str(),
        escape(&r.reason.to_string())
    ))?;
    if let Some(edge) = &p.edge {
        let detail = match edge {
            Edge::Challenge { status, marker } => format!("HTTP {status}, {}", escape(marker)),
            Edge::PaymentRequired(pay) => pay
                .headers
                .iter()
                .map(|(n, v)| format!("{}: {}", escape(n), escape(v)))
                .collect::<Vec<_>>()
                .join("; "),
            Edge::Unreachable(cause) => escape(&cause.to_string()).into_owned(),
            _ => String::new(),
        };
        out.line(format_args!("  edge:        {} ({detail})", edge.as_str()))?;
    }
    let t = &p.tdm;
    let mut tdm = format!("{} (from {}", t.reservation.as_str(), t.source.as_str());
    if let Some(policy) = &t.policy {
        tdm.push_str(&format!("; policy {}", escape(policy)));
    }
    if let Some(file) = &t.file {
        tdm.push_str(&format!("; file: {}", file.reservation.as_str()));
        if let Some(rule) = &file.rule {
            tdm.push_str(&format!(
                " by rule {} {}",
                rule.number,
                escape(&rule.location)
            ));
        }
    }
    if let Some(e) = &t.file_error {
        tdm.push_str(&format!("; file not read: {}", escape(e)));
    }
    tdm.push(')');
    out.line(format_args!("  tdm:         {tdm}"))?;
    match (&p.page, page_error) {
        (Some(page), _) => {
            let rules = &page.directives.rules;
            out.line(format_args!(
                "  page:        HTTP {}{}  index: {}  follow: {}  archive: {}  snippet: {}  noai: {}  noimageai: {}",
                page.status,
                page.final_url
                    .as_deref()
                    .map_or(String::new(), |u| format!(" (from {})", escape(u))),
                yes_no(rules.index),
                yes_no(rules.follow),
                yes_no(rules.archive),
                yes_no(rules.snippet),
                yes_no(rules.noai),
                yes_no(rules.noimageai)
            ))?;
            for f in &page.directives.found {
                out.line(format_args!(
                    "    {:<18} {}",
                    escape(&f.source.raw),
                    escape(&f.source.place())
                ))?;
            }
        }
        (None, Some(e)) => out.line(format_args!("  page:        not read: {}", escape(e)))?,
        (None, None) => {}
    }
    for w in &p.warnings {
        out.line(format_args!("  warning[{}]: {}", w.code(), w.message()))?;
    }
    Ok(())
}

pub fn run(args: &PolicyArgs, out: &mut Out) -> anyhow::Result<Status> {
    let agent = ProductToken::new(&args.agent)
        .with_context(|| format!("--agent {:?} is not a product token", args.agent))?;
    let fetch = crate::engine::agent_fetch_options(&args.http, &args.agent)?;
    let fetcher = Fetcher::new(fetch.clone()).context("cannot set up the HTTP client")?;
    let mut options = CacheOptions::default();
    options.fetch = fetch;
    let cache = RobotsCache::with_clock(options, crate::clock::clock()?)
        .context("cannot set up the engine")?;
    let rt = crate::engine::runtime()?;
    let (mut failed, mut warned, mut answered) = (0, 0, 0);
    for url in &args.urls {
        let result = rt.block_on(async {
            let page = if args.no_page {
                None
            } else {
                Some(page(&cache, &fetcher, &agent, url).await)
            };
            let (page, page_error) = match page {
                Some(Ok(p)) => (Some(p), None),
                Some(Err(e)) => (None, Some(e)),
                None => (None, None),
            };
            cache
                .crawl_policy(&agent, url, page)
                .await
                .map(|p| (p, page_error))
        });
        match result {
            Ok((policy, page_error)) => {
                answered += 1;
                if !policy.warnings.is_empty() {
                    warned += 1;
                }
                if args.json {
                    out.json(&Record::Policy(&policy))?;
                } else {
                    show(out, &policy, page_error.as_deref())?;
                }
            }
            Err(e) => {
                out.error(format_args!("{}: {}", escape(url), escape(&e.to_string())));
                failed += 1;
            }
        }
    }
    let status = if failed > 0 {
        Status::Failed
    } else if warned > 0 {
        Status::Findings
    } else {
        Status::Clean
    };
    if args.json {
        out.json(&Record::Summary(Summary {
            command: "policy",
            urls: Some(answered),
            warnings: Some(warned),
            failed,
            exit: status.code(),
            ..Summary::default()
        }))?;
    }
    Ok(status)
}
