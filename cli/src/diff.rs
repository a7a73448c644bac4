//! `crawlgate diff`: what a new robots.txt would change, as crawlers read it. The verdicts under
//! the file in force (a file, or a site's live robots.txt) and under the candidate, for the URLs
//! given and each `--agent`, and for every catalogued crawler at `/`: the ones that differ, with
//! the deciding line on each side. Exit 1 when one does, as `diff` does.

use crawlgate::{Mode, Options, Origin, ProductToken, Robots};

use crate::args::DiffArgs;
use crate::input::Source;
use crate::live::{self, Input};
use crate::output::{escape, plural, Out};
use crate::schema::{Flip, FlipSide, Record, Summary};
use crate::status::Status;
use crate::verdicts::{catalogue, catalogue_name, Verdict};

/// One robots.txt read (from a file or a site), its name, and the rules in `mode`.
struct Side {
    name: String,
    robots: Robots,
}

/// Reads one input; `None` when it could not be (said on standard error).
fn side(
    net: &mut live::Net,
    input: &Input,
    mode: Mode,
    out: &mut Out,
    json: bool,
) -> anyhow::Result<Option<Side>> {
    let mut unreadable = 0;
    let Some((name, body)) = live::read(net, input, out, json, &mut unreadable)? else {
        return Ok(None);
    };
    let parsed = Robots::parse_with(&body, &Options::mode(mode));
    // A 4xx stands for an empty file: nothing to warn about.
    if !(body.is_empty() && matches!(input, Input::Url(_))) {
        let size = match input {
            Input::File(s) => s.size(),
            Input::Url(_) => None,
        };
        let warnings = crate::input::read_warnings(&body, size, &parsed.diagnostics);
        out.read_warnings(json, &name, &warnings)?;
    }
    Ok(Some(Side {
        name,
        robots: parsed.robots,
    }))
}

/// The URLs: the arguments, then the lines of `--urls` (blank and `#` lines skipped), each
/// checked as `check --robots` checks them.
fn urls(args: &DiffArgs, mode: Mode) -> anyhow::Result<Vec<String>> {
    let mut urls = args.url.clone();
    if let Some(file) = &args.urls {
        let bytes = Source::new(file).read()?;
        for line in String::from_utf8_lossy(&bytes).lines() {
            let line = line.trim();
            if !line.is_empty() && !line.starts_with('#') {
                urls.push(line.to_owned());
            }
        }
    }
    for u in &urls {
        crate::urls::local_target(u, mode).map_err(anyhow::Error::msg)?;
    }
    Ok(urls)
}

/// One verdict compared: who, where, and the two answers.
struct Compared<'a> {
    agent: &'a ProductToken,
    crawler: Option<&'a crawlgate::audit::Crawler>,
    url: &'a str,
    before: Verdict,
    after: Verdict,
}

fn flip_side(v: &Verdict) -> FlipSide {
    FlipSide {
        verdict: v.word(),
        line: v.line,
        rule: v.rule.clone(),
    }
}

pub fn run(args: &DiffArgs, out: &mut Out) -> anyhow::Result<Status> {
    let mode: Mode = args.mode.into();
    let paths = [args.deployed.clone(), args.candidate.clone()];
    let inputs = live::inputs(&paths, "compared")?;
    if matches!(inputs[1], Input::Url(_)) {
        anyhow::bail!(
            "the candidate is a file (or `-`), not a URL: `curl -s URL > new.txt` fetches one"
        );
    }
    let urls = urls(args, mode)?;
    if let Input::Url(site) = &inputs[0] {
        if let Ok(origin) = Origin::from_url(site) {
            if let Some(u) = urls
                .iter()
                .find(|u| Origin::from_url(u).is_ok_and(|o| o != origin))
            {
                anyhow::bail!(
                    "{} is not on {}: its robots.txt does not apply",
                    escape(u),
                    escape(site)
                );
            }
        }
    }
    let agents = crate::crawler::tokens(&args.agent, mode)?;
    if !urls.is_empty() && agents.is_empty() {
        anyhow::bail!("URLs but no agent: give --agent TOKEN (or several: --agent A,B)");
    }
    let catalogue = catalogue(args.catalogue.as_deref())?;
    let mut net = live::Net::new(&args.http, mode, ("compare", "compared"));
    net.absent_is_empty();
    let Some(before) = side(&mut net, &inputs[0], mode, out, args.json)? else {
        return failed(out, args.json);
    };
    let Some(after) = side(&mut net, &inputs[1], mode, out, args.json)? else {
        return failed(out, args.json);
    };
    let mut compared = Vec::new();
    for url in &urls {
        for agent in &agents {
            compared.push(Compared {
                agent,
                crawler: None,
                url,
                before: Verdict::of(&before.robots, agent, url),
                after: Verdict::of(&after.robots, agent, url),
            });
        }
    }
    for c in catalogue.crawlers() {
        let Some(token) = &c.token else { continue };
        compared.push(Compared {
            agent: token,
            crawler: Some(c),
            url: "/",
            before: Verdict::of(&before.robots, token, "/"),
            after: Verdict::of(&after.robots, token, "/"),
        });
    }
    let flips: Vec<&Compared> = compared
        .iter()
        .filter(|c| c.before.allowed != c.after.allowed)
        .collect();
    let status = if flips.is_empty() {
        Status::Clean
    } else {
        Status::Findings
    };
    if args.json {
        for f in &flips {
            out.json(&Record::Flip(Flip {
                deployed: &before.name,
                candidate: &after.name,
                agent: f.agent.as_str(),
                crawler: f.crawler.map(|c| c.name.as_str()),
                purpose: f.crawler.map(|c| c.purpose.as_str()),
                url: f.url,
                before: flip_side(&f.before),
                after: flip_side(&f.after),
            }))?;
        }
        out.json(&Record::Summary(Summary {
            command: "diff",
            files: Some(2),
            urls: Some(urls.len()),
            crawlers: Some(compared.len() - urls.len() * agents.len()),
            verdicts: Some(compared.len()),
            changed: Some(flips.len()),
            exit: status.code(),
            ..Summary::default()
        }))?;
        return Ok(status);
    }
    for f in &flips {
        let who = match f.crawler {
            Some(c) => format!("{} ({})", escape(&c.name), c.purpose.as_str()),
            None => escape(f.agent.as_str()).into_owned(),
        };
        out.line(format_args!(
            "{who}\t{}\t{} -> {}\twas {}\tnow {}",
            escape(f.url),
            f.before.word(),
            f.after.word(),
            f.before.cause(),
            f.after.cause()
        ))?;
    }
    out.line(format_args!(
        "{} -> {}: {} of {} {} ({} × {}, {} of {} at /)",
        escape(&before.name),
        escape(&after.name),
        flips.len(),
        compared.len(),
        if flips.len() == 1 {
            "verdict changes"
        } else {
            "verdicts change"
        },
        plural(urls.len(), "URL", "URLs"),
        plural(agents.len(), "agent", "agents"),
        plural(
            compared.len() - urls.len() * agents.len(),
            "crawler",
            "crawlers"
        ),
        catalogue_name(&catalogue)
    ))?;
    Ok(status)
}

/// An input could not be read (said on standard error): exit 2, and a summary with --json.
fn failed(out: &mut Out, json: bool) -> anyhow::Result<Status> {
    if json {
        out.json(&Record::Summary(Summary {
            command: "diff",
            failed: 1,
            exit: Status::Failed.code(),
            ..Summary::default()
        }))?;
    }
    Ok(Status::Failed)
}
