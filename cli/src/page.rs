//! `crawlgate page`: what a page says crawlers may do with it, for one agent, with the source
//! of every directive: fetched once (`page URL…`) or read from a file (`page --html FILE
//! --header 'K: V'…`).

use anyhow::Context;
use crawlgate::page::{evaluate, Options, PageDirectives};
use crawlgate::ProductToken;

use crate::args::PageArgs;
use crate::input;
use crate::output::{escape, Out};
use crate::schema::{Page, Record, Summary};
use crate::status::Status;

/// What the page's response said, besides its directives.
struct Fetched<'a> {
    final_url: Option<&'a str>,
    status: Option<u16>,
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn show(
    out: &mut Out,
    json: bool,
    name: &str,
    agent: &ProductToken,
    fetched: &Fetched<'_>,
    page: &PageDirectives,
) -> std::io::Result<()> {
    let r = &page.rules;
    if json {
        return out.json(&Record::Page(Page {
            url: name,
            final_url: fetched.final_url,
            status: fetched.status,
            agent: agent.as_str(),
            directives: page.json().with_problems(),
        }));
    }
    out.line(format_args!("{}", escape(name)))?;
    if let Some(status) = fetched.status {
        out.line(format_args!("  status:      {status}"))?;
    }
    if let Some(u) = fetched.final_url.filter(|u| *u != name) {
        out.line(format_args!("  final url:   {}", escape(u)))?;
    }
    out.line(format_args!("  agent:       {}", agent.as_str()))?;
    out.line(format_args!(
        "  index: {}  follow: {}  archive: {}  snippet: {}  image index: {}  translate: {}",
        yes_no(r.index),
        yes_no(r.follow),
        yes_no(r.archive),
        yes_no(r.snippet),
        yes_no(r.image_index),
        yes_no(r.translate)
    ))?;
    let mut limits = Vec::new();
    if let Some(n) = r.max_snippet {
        limits.push(format!("max-snippet {n}"));
    }
    if let Some(p) = r.max_image_preview {
        limits.push(format!("max-image-preview {}", p.as_str()));
    }
    if let Some(n) = r.max_video_preview {
        limits.push(format!("max-video-preview {n}"));
    }
    if let Some(t) = r.unavailable_after {
        limits.push(format!("unavailable_after {t} (Unix seconds)"));
    }
    if r.index_if_embedded {
        limits.push("indexifembedded".to_owned());
    }
    if !limits.is_empty() {
        out.line(format_args!("  limits:      {}", limits.join(", ")))?;
    }
    out.line(format_args!(
        "  AI:          noai: {}  noimageai: {}  noml: {}  tdm-reservation: {}{}  train-ai: {}  search: {}",
        yes_no(r.noai),
        yes_no(r.noimageai),
        yes_no(r.noml),
        r.tdm_reservation.map_or("-", |b| if b { "1" } else { "0" }),
        r.tdm_policy
            .as_deref()
            .map_or(String::new(), |p| format!(" (policy {})", escape(p))),
        r.content_usage.train_ai.as_str(),
        r.content_usage.search.as_str()
    ))?;
    for f in &page.found {
        let s = &f.source;
        // A TDMRep or Content-Usage field is its own directive: show its name with the value.
        let said = if s.name.starts_with("tdm-") || s.name == "content-usage" {
            format!("{}: {}", s.name, s.raw)
        } else {
            s.raw.clone()
        };
        out.line(format_args!(
            "  {:<20} {}{}",
            escape(&said),
            f.source.place(),
            f.source
                .agent
                .as_deref()
                .map_or(String::new(), |a| format!(" (for {a})"))
        ))?;
    }
    for u in &page.unknown {
        out.line(format_args!(
            "  unknown: {} ({})",
            escape(&u.raw),
            escape(&u.place())
        ))?;
    }
    for d in &page.diagnostics {
        out.line(format_args!(
            "  {}[{}]: {}: {}",
            d.severity,
            d.code,
            escape(&d.source.place()),
            escape(&d.message)
        ))?;
    }
    Ok(())
}

fn summary(out: &mut Out, json: bool, pages: usize, failed: usize) -> anyhow::Result<Status> {
    let status = if failed > 0 {
        Status::Failed
    } else {
        Status::Clean
    };
    if json {
        out.json(&Record::Summary(Summary {
            command: "page",
            urls: Some(pages),
            failed,
            exit: status.code(),
            ..Summary::default()
        }))?;
    }
    Ok(status)
}

/// A `--header 'Name: value'`.
fn header(arg: &str) -> anyhow::Result<(String, String)> {
    let (name, value) = arg
        .split_once(':')
        .with_context(|| format!("--header {arg:?}: expected `Name: value`"))?;
    Ok((name.trim().to_owned(), value.trim().to_owned()))
}

pub fn run(args: &PageArgs, out: &mut Out) -> anyhow::Result<Status> {
    let agent = ProductToken::new(&args.agent)
        .with_context(|| format!("--agent {:?} is not a product token", args.agent))?;
    let options = Options::default();
    if let Some(path) = &args.html {
        let headers = args
            .headers
            .iter()
            .map(|h| header(h))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let source = input::Source::new(path);
        let body = source.read()?;
        let page = evaluate(headers, Some(&body), &agent, &options);
        let none = Fetched {
            final_url: None,
            status: None,
        };
        show(out, args.json, &source.name(), &agent, &none, &page)?;
        return summary(out, args.json, 1, 0);
    }
    remote(args, &agent, &options, out)
}

#[cfg(not(feature = "fetch"))]
fn remote(_: &PageArgs, _: &ProductToken, _: &Options, _: &mut Out) -> anyhow::Result<Status> {
    anyhow::bail!("this build cannot fetch pages (feature `fetch`); use --html FILE")
}

#[cfg(feature = "fetch")]
fn remote(
    args: &PageArgs,
    agent: &ProductToken,
    options: &Options,
    out: &mut Out,
) -> anyhow::Result<Status> {
    use crawlgate::http::Fetcher;
    let fetch = crate::engine::agent_fetch_options(&args.http, &args.agent)?;
    let fetcher = Fetcher::new(fetch).context("cannot set up the HTTP client")?;
    let rt = crate::engine::runtime()?;
    let mut failed = 0;
    for url in &args.urls {
        match rt.block_on(fetcher.fetch_page(url, options.html_budget)) {
            Ok(response) => {
                let html = response.is_html().then_some(response.body.as_slice());
                let page = evaluate(
                    response
                        .headers
                        .iter()
                        .map(|(k, v)| (k.as_str(), v.as_slice())),
                    html,
                    agent,
                    options,
                );
                let fetched = Fetched {
                    final_url: Some(&response.final_url),
                    status: Some(response.status),
                };
                show(out, args.json, url, agent, &fetched, &page)?;
            }
            Err(e) => {
                out.error(format_args!("{}: {}", escape(url), escape(&e.to_string())));
                failed += 1;
            }
        }
    }
    summary(out, args.json, args.urls.len() - failed, failed)
}
