//! `check` without `--robots`: URLs answered by the engine from the crawl state, up to
//! `--concurrency` origins at once, in input order.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use crawlgate::engine::{Answer, CheckError, RobotsCache, TdmAnswer};

use crawlgate::http::LocalError;
use crawlgate::policy::{Judgement, VerdictReason};
use crawlgate::{Origin, Parsed, ProductToken};
use futures_util::stream::{self, StreamExt};
use tokio::sync::OnceCell;

use crate::args::CheckArgs;
use crate::crawler::Crawlers;
use crate::engine::{
    answer_crawlers, crawler_user_agent, engine, fetch_options, next_flushing, runtime,
};
use crate::output::{escape, Out};
use crate::progress::Progress;
use crate::records::{self, agent_column, url_column, usage_column};
use crate::schema::{self, Record};
use crate::state;
use crate::tally::Tally;
use crate::urls::{url_of, Stop, UrlLine, UrlLines};

/// A `--urls` input read on a thread of its own (reading standard input blocks, and the
/// engine's fetches run on this thread meanwhile), handed over a few lines at a time: a
/// bounded channel, so memory stays flat however long the input.
fn read_in_background(
    lines: UrlLines,
    ahead: usize,
) -> tokio::sync::mpsc::Receiver<anyhow::Result<UrlLine>> {
    let (tx, rx) = tokio::sync::mpsc::channel(ahead.max(1));
    // Detached: if the answers stop early (a closed pipe), the process exits without
    // waiting for a read that may never end.
    std::thread::spawn(move || {
        for item in lines {
            if tx.blocking_send(item).is_err() {
                break;
            }
        }
    });
    rx
}

/// Per origin, whether it is ready to answer from: loaded, and refreshed if it was due.
/// Shared by the URLs of an origin being answered at the same time, so that the second
/// waits for the first one's refresh rather than answering from the stale copy.
#[derive(Default)]
struct Ready {
    origins: RefCell<HashMap<Origin, Rc<OnceCell<()>>>>,
}

impl Ready {
    /// Loads the origin (reading the state, fetching if it has nothing) and, if its state
    /// is due, waits for its refresh (`RobotsCache::current`), so that the answer comes
    /// from a current state rather than the stale copy; the other origins' fetches are not
    /// waited for.
    async fn wait(&self, cache: &RobotsCache, origin: &Origin) {
        let cell = self
            .origins
            .borrow_mut()
            .entry(origin.clone())
            .or_default()
            .clone();
        cell.get_or_init(|| async {
            cache.current(origin).await;
        })
        .await;
    }
}

/// One URL answered by the engine, per crawler, with what its record needs (read once
/// per URL: every crawler's answer comes from the same state).
struct Answered {
    /// One per crawler, in order: the token it was answered for, and the answer.
    answers: Vec<(ProductToken, Answer)>,
    /// The origin was not fetched because of a failure on this machine.
    local: Option<LocalError>,
    /// The origin's verdict and rules (for the JSON record, and the usage preferences).
    detail: (Judgement, Option<Arc<Parsed>>),
    /// With `--tdm`: the URL's TDMRep answer, or why there is none.
    tdm: Option<Result<schema::Tdm, String>>,
}

/// One URL's answers, once its origin is ready, with what its records need.
async fn answer_one(
    cache: &RobotsCache,
    ready: &Ready,
    crawlers: &Crawlers,
    url: &str,
    tdm: bool,
) -> Result<Answered, CheckError> {
    let origin = Origin::from_url(url)?;
    ready.wait(cache, &origin).await;
    let answers = answer_crawlers(cache, crawlers, &origin, url).await?;
    // Once loaded (and refreshed), only a fetch that failed on this machine leaves an
    // origin unfetched: not an answer about the site.
    let not_fetched = answers
        .first()
        .is_some_and(|(_, a)| a.reason == VerdictReason::NotFetched);
    let local = if not_fetched {
        cache.local_failure(&origin).await
    } else {
        None
    };
    // From memory: the origin was just loaded.
    let detail = (cache.judgement(&origin).await, cache.rules(&origin).await);
    let tdm = if tdm {
        Some(
            cache
                .tdm(url)
                .await
                .map(|t| tdm_record(&t))
                .map_err(|e| e.to_string()),
        )
    } else {
        None
    };
    Ok(Answered {
        answers,
        local,
        detail,
        tdm,
    })
}

/// The `tdm` part of a check record.
fn tdm_record(t: &TdmAnswer) -> schema::Tdm {
    schema::Tdm {
        reservation: t.reservation.as_str(),
        policy: t.policy.clone(),
        rule: t.rule.as_ref().map(|r| r.number),
        location: t.rule.as_ref().map(|r| r.location.clone()),
        file: t.file_url.clone(),
        reason: t.reason.as_str(),
    }
}

/// The TDMRep column of a human answer line: `<TAB>tdm: reserved (policy URL; rule 2)`.
fn tdm_column(tdm: Option<&schema::Tdm>) -> String {
    let Some(t) = tdm else {
        return String::new();
    };
    let mut parts = Vec::new();
    if let Some(p) = &t.policy {
        parts.push(format!("policy {}", escape(p)));
    }
    if let (Some(n), Some(l)) = (t.rule, &t.location) {
        parts.push(format!("rule {n}: {}", escape(l)));
    }
    if t.reservation == "unknown" {
        parts.push(format!("{} not read: {}", escape(&t.file), t.reason));
    }
    if parts.is_empty() {
        format!("\ttdm: {}", t.reservation)
    } else {
        format!("\ttdm: {} ({})", t.reservation, parts.join("; "))
    }
}

/// What became of one input line, in input order.
enum Done {
    // Boxed: a stopped line is small, an answer is not.
    Answered(String, Box<Result<Answered, CheckError>>),
    Stopped(Stop),
}

/// One answer as a line; `c` is its record, for the usage preferences.
fn report(
    out: &mut Out,
    agent: Option<&str>,
    url: &str,
    a: &Answer,
    c: &schema::Check<'_>,
) -> std::io::Result<()> {
    let url = url_column(url, a.judged_url.as_deref());
    let agent = agent_column(agent);
    // `unreachable` rather than `disallowed` when the failure rules decided: the site's rules
    // were not read.
    let word = c.word();
    let usage = usage_column(c.usage.as_ref(), a.rule.is_some());
    let tdm = tdm_column(c.tdm.as_ref());
    match (a.allowed, &a.rule) {
        // The deciding rule, for an allowed URL too (as with --robots).
        (_, Some(r)) => out.line(format_args!(
            "{agent}{word}\t{url}\tline {}: {}{usage}{tdm}",
            r.line,
            escape(&r.text)
        )),
        // No rule decided: nothing after an allowed URL (no rule matched, no robots.txt)
        // but its usage preferences, the reason after a disallowed one (the failure rules).
        (true, None) => out.line(format_args!("{agent}{word}\t{url}{usage}{tdm}")),
        (false, None) => out.line(format_args!(
            "{agent}{word}\t{url}\t{}{tdm}",
            escape(&a.reason.to_string())
        )),
    }
}

/// `crawlgate check` without `--robots`: answers from the crawl state, fetching an origin
/// only when the state has nothing for it or it is due; up to `--concurrency` origins at
/// once, the answers in input order, each written as soon as the ones before it are.
pub fn check(
    args: &CheckArgs,
    crawlers: &Crawlers,
    lines: Option<UrlLines>,
    out: &mut Out,
    tally: &mut Tally,
) -> anyhow::Result<()> {
    let user_agent = crawler_user_agent(&args.http, &args.crawlers);
    let fetch = fetch_options(&args.http, user_agent, args.mode.into())?;
    let window = args.concurrency;
    runtime()?.block_on(async {
        let state = state::open(&args.state, true).await?;
        let cache = engine(fetch, &state)?;
        let progress = if lines.is_some() || args.url.len() > 1 {
            Progress::open_ended("checked", "URLs")
        } else {
            Progress::hidden()
        };
        let given = stream::iter(args.url.iter().cloned().map(|u| Ok(UrlLine::Url(u))));
        let read = stream::unfold(
            lines.map(|l| read_in_background(l, window * 4)),
            |rx| async {
                let mut rx = rx?;
                let item = rx.recv().await?;
                Some((item, Some(rx)))
            },
        );
        let ready = Ready::default();
        let json = args.json;
        let tdm = args.tdm;
        let results = given.chain(read).map(|item| {
            let (cache, ready, progress) = (&cache, &ready, &progress);
            let url = url_of(item);
            async move {
                let done = match url {
                    Ok(url) => {
                        let answered = answer_one(cache, ready, crawlers, &url, tdm).await;
                        Done::Answered(url, Box::new(answered))
                    }
                    Err(stop) => Done::Stopped(stop),
                };
                progress.inc();
                done
            }
        });
        let mut results = Box::pin(results.buffered(window));
        let result = async {
            while let Some(done) = next_flushing(&mut results, out, &progress).await? {
                print(out, &progress, crawlers, json, done, tally)?;
                if progress.is_visible() {
                    progress.flush(out)?;
                }
            }
            anyhow::Ok(())
        }
        .await;
        drop(results);
        progress.finish();
        let finished = state::finish(&cache, &state, out).await;
        result.and_then(|status| finished.map(|()| status))
    })
}

/// Writes out one input line's outcome: its answers (a line or a record per crawler), or why
/// it has none (on standard error, counted as failed): the exit status follows the tally.
fn print(
    out: &mut Out,
    progress: &Progress,
    crawlers: &Crawlers,
    json: bool,
    done: Done,
    tally: &mut Tally,
) -> std::io::Result<()> {
    let several = crawlers.count() > 1;
    let (url, answered) = match done {
        Done::Answered(url, answered) => (url, answered),
        Done::Stopped(stop) => {
            progress.error(out, stop.message());
            if json {
                out.json(&Record::Error(schema::InputError {
                    url: None,
                    message: stop.message(),
                }))?;
            }
            tally.failed += 1;
            return Ok(());
        }
    };
    let a = match *answered {
        Ok(a) => a,
        Err(e) => {
            progress.error(out, &e);
            if json {
                out.json(&Record::Error(schema::InputError {
                    url: Some(&url),
                    message: &e.to_string(),
                }))?;
            }
            tally.failed += 1;
            return Ok(());
        }
    };
    if let Some(e) = &a.local {
        progress.error(
            out,
            format_args!(
                "{}: not fetched: {e}; nothing was recorded",
                a.answers
                    .first()
                    .map_or_else(|| url.clone(), |(_, x)| x.origin.robots_txt_url())
            ),
        );
        tally.failed += 1;
    }
    let (verdict, rules) = (Some(a.detail.0.verdict), a.detail.1.as_ref());
    let tdm = match a.tdm {
        Some(Err(e)) => {
            progress.error(out, format_args!("{url}: tdmrep.json not fetched: {e}"));
            tally.failed += 1;
            None
        }
        Some(Ok(t)) => Some(t),
        None => None,
    };
    for (crawler, (token, answer)) in crawlers.each().zip(&a.answers) {
        let robots_txt = answer.origin.robots_txt_url();
        let mut r =
            records::state_record(&url, token, crawler, answer, verdict, rules, &robots_txt);
        r.tdm = tdm.clone();
        tally.add(&r);
        if json {
            out.json(&Record::Check(r))?;
        } else {
            report(out, several.then(|| token.as_str()), &url, answer, &r)?;
        }
    }
    Ok(())
}
