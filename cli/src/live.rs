//! A robots.txt named by URL (`lint URL`, `audit URL`): the origin's robots.txt fetched now with
//! the engine's client, not recorded in the crawl state (a look at the file, not a crawl).
//! Without the `fetch` feature every URL is an input that cannot be read.

use std::path::PathBuf;

pub use imp::Net;

use crate::input::Source;
use crate::output::Out;

/// One argument: a file (or `-`), or an http(s) URL whose origin's robots.txt is fetched.
pub enum Input<'a> {
    File(Source),
    Url(&'a str),
}

/// Whether an argument is meant as a URL (`scheme://…`) rather than a path. A file whose path
/// looks like one can be given as `./https:/…`.
fn is_url(arg: &str) -> bool {
    arg.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    })
}

/// The command's arguments as inputs; standard input (`-`) at most once, as it can be read
/// only once. `verb` is the command's past participle (`"linted"`), for the error.
pub fn inputs<'a>(files: &'a [PathBuf], verb: &str) -> anyhow::Result<Vec<Input<'a>>> {
    let inputs: Vec<Input> = files
        .iter()
        .map(|p| match p.to_str() {
            Some(s) if is_url(s) => Input::Url(s),
            _ => Input::File(Source::new(p)),
        })
        .collect();
    let stdin = inputs
        .iter()
        .filter(|i| matches!(i, Input::File(s) if s.is_stdin()))
        .count();
    if stdin > 1 {
        anyhow::bail!("standard input (`-`) can be {verb} only once");
    }
    Ok(inputs)
}

/// The name and bytes of one input (a file, or the robots.txt of a URL's origin). `None` when
/// there is nothing to read: the reason is on standard error, and `unreadable` counts the
/// input when it could not be read (a note that there is nothing to look at does not count).
/// An error ends the run (standard output closed, no HTTP client).
pub fn read(
    net: &mut Net,
    input: &Input,
    out: &mut Out,
    json: bool,
    unreadable: &mut usize,
) -> anyhow::Result<Option<(String, Vec<u8>)>> {
    match input {
        Input::File(source) => match source.read_robots() {
            Ok(bytes) => Ok(Some((source.name().into_owned(), bytes))),
            Err(e) => {
                out.error(format_args!("{e:#}"));
                *unreadable += 1;
                Ok(None)
            }
        },
        Input::Url(url) => {
            let fetched = net.fetch(url, out, json)?;
            if fetched.is_none() && net.failed() {
                *unreadable += 1;
            }
            Ok(fetched)
        }
    }
}

#[cfg(not(feature = "fetch"))]
mod imp {
    use crate::args::HttpArgs;
    use crate::output::{escape, Out};

    pub struct Net {
        failed: bool,
    }

    /// What the command does to a file, and did (`("lint", "linted")`).
    pub type Verb = (&'static str, &'static str);

    impl Net {
        pub fn new(_: &HttpArgs, _: crawlgate::Mode, _: Verb) -> Net {
            Net { failed: false }
        }

        pub fn failed(&self) -> bool {
            self.failed
        }

        /// Nothing is fetched in this build.
        pub fn absent_is_empty(&mut self) {}

        pub fn fetch(
            &mut self,
            url: &str,
            out: &mut Out,
            _: bool,
        ) -> std::io::Result<Option<(String, Vec<u8>)>> {
            out.error(format_args!(
                "cannot fetch {}: this build cannot fetch robots.txt (feature `fetch`)",
                escape(url)
            ));
            self.failed = true;
            Ok(None)
        }
    }
}

#[cfg(feature = "fetch")]
mod imp {
    use crawlgate::http::{FetchOptions, Fetcher};
    use crawlgate::policy::FetchOutcome;
    use crawlgate::Origin;

    use crate::args::HttpArgs;
    use crate::output::{escape, Out};
    use crate::schema::{LintFetch, Record};

    /// What the command does to a file, and did (`("lint", "linted")`).
    pub type Verb = (&'static str, &'static str);

    /// The client and its runtime, made on the first URL (a run over files starts neither).
    pub struct Net<'a> {
        http: &'a HttpArgs,
        mode: crawlgate::Mode,
        verb: Verb,
        live: Option<(tokio::runtime::Runtime, Fetcher)>,
        /// The last URL was reported on standard error (counted as failed).
        failed: bool,
        /// A robots.txt that is not there (4xx) is read as the empty file it stands for.
        absent_is_empty: bool,
    }

    impl<'a> Net<'a> {
        pub fn new(http: &'a HttpArgs, mode: crawlgate::Mode, verb: Verb) -> Net<'a> {
            Net {
                http,
                mode,
                verb,
                live: None,
                failed: false,
                absent_is_empty: false,
            }
        }

        /// For the commands that answer URLs (`test`, `diff`): a robots.txt that is not there
        /// (any 4xx but 429) is the empty file RFC 9309 reads it as (everything allowed), not
        /// nothing to look at.
        pub fn absent_is_empty(&mut self) {
            self.absent_is_empty = true;
        }

        pub fn failed(&self) -> bool {
            self.failed
        }

        fn live(&mut self) -> anyhow::Result<&(tokio::runtime::Runtime, Fetcher)> {
            if self.live.is_none() {
                let user_agent = self
                    .http
                    .user_agent
                    .clone()
                    .unwrap_or_else(|| FetchOptions::default().user_agent);
                let options = crate::engine::fetch_options(self.http, user_agent, self.mode)?;
                let fetcher = Fetcher::new(options)
                    .map_err(|e| anyhow::anyhow!("cannot set up the HTTP client: {e}"))?;
                self.live = Some((crate::engine::runtime()?, fetcher));
            }
            self.live
                .as_ref()
                .ok_or_else(|| anyhow::anyhow!("cannot set up the HTTP client"))
        }

        /// The robots.txt of `url`'s origin: its name (the robots.txt URL) and body; `None`
        /// when there is nothing to lint (a note says so) or it could not be fetched (reported
        /// on standard error, and [`Net::failed`] says so). An error is one that ends the run
        /// (standard output closed, no HTTP client).
        pub fn fetch(
            &mut self,
            url: &str,
            out: &mut Out,
            json: bool,
        ) -> anyhow::Result<Option<(String, Vec<u8>)>> {
            self.failed = false;
            let origin = match Origin::from_url(url) {
                Ok(o) => o,
                Err(e) => {
                    // The error names the URL: say it once.
                    out.error(format_args!("cannot {}: {e}", self.verb.0));
                    self.failed = true;
                    return Ok(None);
                }
            };
            let name = origin.robots_txt_url();
            let (rt, fetcher) = self.live()?;
            let fetched = match rt.block_on(fetcher.fetch(&origin)) {
                Ok(f) => f,
                Err(e) => {
                    out.error(format_args!("{name}: not fetched: {e}"));
                    self.failed = true;
                    return Ok(None);
                }
            };
            let (outcome, cause) = match &fetched.outcome {
                FetchOutcome::Rules { .. } => ("fetched", None),
                FetchOutcome::Unavailable(why) => ("unavailable", Some(why.to_string())),
                FetchOutcome::Unreachable(why) => ("unreachable", Some(why.to_string())),
                FetchOutcome::PaymentRequired(p) => ("payment-required", Some(p.to_string())),
                // Unconditional: a 304 cannot be an answer to it.
                FetchOutcome::NotModified { .. } => (
                    "unreachable",
                    Some("HTTP 304 to an unconditional request".to_owned()),
                ),
                // An outcome added to the library later: its own word, no cause.
                other => (other.as_str(), None),
            };
            if json {
                out.json(&Record::LintFetch(LintFetch {
                    url,
                    robots_txt: &name,
                    status: fetched.status,
                    outcome,
                    cause: cause.clone(),
                    final_url: &fetched.final_url,
                    redirects: fetched.redirects,
                }))?;
            }
            match fetched.outcome {
                FetchOutcome::Rules { body, .. } => {
                    if !json && fetched.redirects > 0 {
                        // The line numbers that follow are those of the file served there.
                        out.line(format_args!(
                            "{name}: served by {} after {} redirect{}",
                            escape(&fetched.final_url),
                            fetched.redirects,
                            if fetched.redirects == 1 { "" } else { "s" }
                        ))?;
                    }
                    if !json && fetched.html {
                        let served = match &fetched.content_type {
                            Some(t) => format!("Content-Type {}", escape(t)),
                            None => "no Content-Type".to_owned(),
                        };
                        out.line(format_args!(
                            "{name}: an HTML page, not a robots.txt ({served}): a soft 404 or a bot wall"
                        ))?;
                    }
                    Ok(Some((name, body.to_vec())))
                }
                FetchOutcome::Unavailable(_) if self.absent_is_empty => {
                    if !json {
                        out.line(format_args!(
                            "{name}: no robots.txt ({}): everything is allowed",
                            escape(cause.as_deref().unwrap_or_default()),
                        ))?;
                    }
                    Ok(Some((name, Vec::new())))
                }
                FetchOutcome::Unavailable(_) => {
                    if !json {
                        out.line(format_args!(
                            "{name}: no robots.txt ({}): nothing to {}",
                            escape(cause.as_deref().unwrap_or_default()),
                            self.verb.0
                        ))?;
                    }
                    Ok(None)
                }
                _ => {
                    out.error(format_args!(
                        "{name}: robots.txt unreachable ({}): nothing {}",
                        escape(cause.as_deref().unwrap_or_default()),
                        self.verb.1
                    ));
                    self.failed = true;
                    Ok(None)
                }
            }
        }
    }
}
