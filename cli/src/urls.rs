//! URL inputs: the `--urls` lists (read a line at a time, or all at once for the commands that
//! work per origin) and the URLs a `--robots` check takes.

use std::io::{BufRead, BufReader, Read, Take};

use anyhow::{bail, Context};
use crawlgate::{Mode, Origin};

use crate::input::{Source, MAX_INPUT};
use crate::output::{escape, Out};

/// One line of a `--urls` input that is not blank or a comment.
#[derive(Debug)]
pub enum UrlLine {
    Url(String),
    /// A line that is not UTF-8: the sentence that says so. The lines after it are still read.
    Bad(String),
}

/// The URLs of a `--urls` input (a file, or `-` for standard input), read a line at a time:
/// one per line, trimmed; blank lines, `#` lines and a UTF-8 byte order mark at the start
/// skipped. The input as a whole is bounded by [`MAX_INPUT`], as every input is.
pub struct UrlLines {
    reader: BufReader<Take<Box<dyn Read + Send>>>,
    name: String,
    /// Lines read so far.
    line: usize,
    /// Bytes read so far.
    read: u64,
    buf: Vec<u8>,
    done: bool,
}

impl UrlLines {
    /// Opens the input. The error reads `cannot read NAME: <why>`.
    pub fn open(src: &Source) -> anyhow::Result<UrlLines> {
        let name = src.name().into_owned();
        let input: Box<dyn Read + Send> = match src {
            Source::Stdin => Box::new(std::io::stdin()),
            Source::File(p) => {
                Box::new(std::fs::File::open(p).with_context(|| format!("cannot read {name}"))?)
            }
        };
        Ok(UrlLines {
            reader: BufReader::new(input.take(MAX_INPUT + 1)),
            name,
            line: 0,
            read: 0,
            buf: Vec::new(),
            done: false,
        })
    }

    /// The input as named: the path, or `<stdin>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether a whole line is already buffered, so that reading it cannot wait on the input
    /// (a pipe that has nothing more yet). Before a read that may wait, the answers so far are
    /// written out.
    pub fn line_ready(&self) -> bool {
        self.reader.buffer().contains(&b'\n')
    }

    fn read_line(&mut self) -> anyhow::Result<Option<UrlLine>> {
        loop {
            self.buf.clear();
            let n = self
                .reader
                .read_until(b'\n', &mut self.buf)
                .with_context(|| format!("cannot read {}", self.name))?;
            self.read += n as u64;
            if self.read > MAX_INPUT {
                bail!(
                    "cannot read {}: it is larger than {} MiB",
                    self.name,
                    MAX_INPUT >> 20
                );
            }
            if n == 0 {
                return Ok(None);
            }
            self.line += 1;
            let mut bytes = &self.buf[..];
            if self.line == 1 {
                bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            }
            let text = match std::str::from_utf8(bytes) {
                Ok(text) => text.trim(),
                Err(e) => {
                    return Ok(Some(UrlLine::Bad(format!(
                        "{} line {}: not UTF-8 (invalid byte at column {}); skipped",
                        self.name,
                        self.line,
                        e.valid_up_to() + 1
                    ))))
                }
            };
            if !text.is_empty() && !text.starts_with('#') {
                return Ok(Some(UrlLine::Url(text.to_owned())));
            }
        }
    }
}

impl Iterator for UrlLines {
    /// A line, or the error that ended the input (nothing follows it).
    type Item = anyhow::Result<UrlLine>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.read_line().transpose();
        self.done = !matches!(item, Some(Ok(_)));
        item
    }
}

/// The URL of a `--urls` line, or why there is none (to be reported, and counted as failed).
pub fn url_of(item: anyhow::Result<UrlLine>) -> Result<String, Stop> {
    match item {
        Ok(UrlLine::Url(url)) => Ok(url),
        Ok(UrlLine::Bad(why)) => Err(Stop::Skip(why)),
        Err(e) => Err(Stop::End(format!("{e:#}"))),
    }
}

/// The URLs given as arguments, then those of a `--urls` input, all read (for the commands
/// that work per origin and show how many there are); a line that is not UTF-8 is reported and
/// counted in the second number. `what` names the command's work in the error for none at all.
// Without the `fetch` feature no command reads URLs for origins.
#[cfg_attr(not(feature = "fetch"), allow(dead_code))]
pub fn read_urls(
    given: &[String],
    file: Option<&std::path::Path>,
    what: &str,
    out: &mut Out,
) -> anyhow::Result<(Vec<String>, usize)> {
    let mut urls = given.to_vec();
    let mut bad = 0;
    let Some(file) = file else {
        return Ok((urls, bad));
    };
    let lines = UrlLines::open(&Source::new(file))?;
    let name = lines.name().to_owned();
    for item in lines {
        match item? {
            UrlLine::Url(url) => urls.push(url),
            UrlLine::Bad(why) => {
                out.error(why);
                bad += 1;
            }
        }
    }
    if urls.is_empty() && bad == 0 {
        bail!("no URLs to {what}: {name} has no URL lines");
    }
    Ok((urls, bad))
}

/// Why a `--urls` line gives no URL: the sentence to print, and whether the input goes on.
pub enum Stop {
    Skip(String),
    End(String),
}

impl Stop {
    /// The sentence to print.
    pub fn message(&self) -> &str {
        match self {
            Stop::Skip(m) | Stop::End(m) => m,
        }
    }
}

/// What `check --robots` takes in RFC mode: an absolute http(s) URL with a host, or a path
/// starting with `/` (or `*`, a pattern-like path). Anything else would get a verdict that
/// means nothing (`private/x` is not under `/private`), so it is an input error. Google mode
/// takes every string as google/robotstxt's API does.
pub fn local_target(url: &str, mode: Mode) -> Result<(), String> {
    if mode == Mode::Google || url.starts_with('/') || url.starts_with('*') {
        return Ok(());
    }
    match Origin::from_url(url) {
        Ok(_) => Ok(()),
        Err(e) if url.contains("://") => Err(format!("{:?}: {e}", escape(url))),
        Err(_) => Err(format!(
            "{:?} is neither an http(s) URL nor a path starting with `/` or `*`{}",
            escape(url),
            if url.contains('.') && !url.contains(' ') {
                format!(" (did you mean `https://{}`?)", escape(url))
            } else {
                String::new()
            }
        )),
    }
}
