//! [`Reader`]: tells the format from the first bytes, then reads text sitemaps line by line and
//! XML ones through [`super::xml`], yielding entries and diagnostics as it goes.

use std::io::{BufRead, Read};

use super::input::{Input, Stop};
use super::sink::Sink;
use super::xml::Xml;
use super::{Code, Entry, Format, Item, Options, Position};

/// The longest text line kept whole; longer lines are counted, not stored (any URL that long is
/// already an error).
const MAX_LINE_KEPT: usize = 16 * 1024;

/// Reads a sitemap from any [`Read`] — gzip-compressed or not — and yields [`Item`]s in file
/// order: each entry once its element (or line) ends, each problem where it is found.
///
/// The reader never fails and never panics: a broken file gives diagnostics, and whatever was
/// read before the break is kept. It stops reading at [`Options::max_bytes`] uncompressed bytes,
/// so a gzip bomb costs at most that much work.
///
/// ```
/// use crawlgate::sitemap::{Item, Reader};
///
/// let text = "https://example.com/a\nhttps://example.com/b\n";
/// let urls: Vec<String> = Reader::new(text.as_bytes())
///     .filter_map(Item::into_entry)
///     .map(|e| e.loc)
///     .collect();
/// assert_eq!(urls, ["https://example.com/a", "https://example.com/b"]);
/// ```
pub struct Reader<R: Read> {
    state: State<R>,
    sink: Sink,
}

enum State<R: Read> {
    Start(Input<R>),
    Text(Input<R>),
    Xml(Box<Xml<R>>),
    /// The input is dropped; what it read is kept for [`Reader::bytes_read`] and
    /// [`Reader::is_gzip`].
    Done {
        bytes: u64,
        gzip: bool,
    },
}

impl<R: Read> State<R> {
    /// The end state after `input`.
    fn done(input: &Input<R>) -> State<R> {
        State::Done {
            bytes: input.consumed(),
            gzip: input.is_gzip(),
        }
    }
}

impl<R: Read> std::fmt::Debug for Reader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("format", &self.sink.format)
            .field("entries", &self.sink.entries)
            .finish_non_exhaustive()
    }
}

impl<R: Read> Reader<R> {
    /// A reader with the protocol's limits.
    pub fn new(input: R) -> Self {
        Reader::with_options(input, Options::default())
    }

    /// A reader with other limits.
    pub fn with_options(input: R, options: Options) -> Self {
        let limit = options.max_bytes;
        Reader {
            state: State::Start(Input::new(input, limit)),
            sink: Sink::new(options),
        }
    }

    /// The format, once the first bytes are read (`None` before, or when it is not a sitemap).
    pub fn format(&self) -> Option<Format> {
        self.sink.format
    }

    /// Uncompressed bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        match &self.state {
            State::Start(i) | State::Text(i) => i.consumed(),
            State::Xml(x) => x.consumed(),
            State::Done { bytes, .. } => *bytes,
        }
    }

    /// Whether the input is gzip-compressed (known once the first item is asked for).
    pub fn is_gzip(&self) -> bool {
        match &self.state {
            State::Start(i) | State::Text(i) => i.is_gzip(),
            State::Xml(x) => x.is_gzip(),
            State::Done { gzip, .. } => *gzip,
        }
    }

    /// Entry elements (or text lines) seen so far, including those past the limit and those
    /// dropped for errors.
    pub fn entries_seen(&self) -> usize {
        self.sink.entries
    }

    /// Entries yielded so far.
    pub fn entries_yielded(&self) -> usize {
        self.sink.yielded
    }

    /// Errors reported so far.
    pub fn errors(&self) -> usize {
        self.sink.errors
    }

    /// Warnings reported so far.
    pub fn warnings(&self) -> usize {
        self.sink.warnings
    }

    /// Reads until at least one item is queued or the input is done.
    fn advance(&mut self) {
        if let State::Xml(xml) = &mut self.state {
            // Most events queue nothing: stepping here, in place, spares moving the state out and
            // back for each of them.
            while self.sink.out.is_empty() {
                if !xml.step(&mut self.sink) {
                    let (stop, at) = xml.stop();
                    self.state = State::Done {
                        bytes: xml.consumed(),
                        gzip: xml.is_gzip(),
                    };
                    self.finish(stop, at);
                    return;
                }
            }
            return;
        }
        let placeholder = State::Done {
            bytes: 0,
            gzip: false,
        };
        let state = std::mem::replace(&mut self.state, placeholder);
        self.state = match state {
            State::Start(input) => self.sniff(input),
            State::Text(mut input) => {
                if self.text_line(&mut input) {
                    State::Text(input)
                } else {
                    self.finish(input.stop().cloned(), input.position());
                    State::done(&input)
                }
            }
            // Stepped above.
            xml @ State::Xml(_) => xml,
            done @ State::Done { .. } => done,
        };
    }

    /// Tells the format from the first bytes: `<` (after a BOM and whitespace) is XML, anything
    /// else a text sitemap.
    fn sniff(&mut self, mut input: Input<R>) -> State<R> {
        let head: Vec<u8> = input.peek(4096).to_vec();
        if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
            let at = input.position();
            self.sink.report(
                Code::Encoding,
                at,
                "a UTF-16 file: sitemaps must be UTF-8; nothing is read",
            );
            return State::done(&input);
        }
        let mut skip = 0;
        if head.starts_with(b"\xEF\xBB\xBF") {
            skip = 3;
        }
        let ws = head[skip..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        let rest = &head[skip + ws..];
        if rest.first() == Some(&b'<') {
            if ws > 0 && rest.starts_with(b"<?xml") {
                let at = input.position();
                self.sink.report(
                    Code::LeadingContent,
                    at,
                    "whitespace before <?xml: the XML declaration must be the very first thing",
                );
                input.consume(skip + ws);
            } else if skip > 0 {
                input.consume(skip);
            }
            input.limit_runs(self.sink.options.max_text_bytes);
            return State::Xml(Box::new(Xml::new(input)));
        }
        if let Some(decl) = memchr::memmem::find(rest, b"<?xml") {
            let at = input.position();
            self.sink.report(
                Code::LeadingContent,
                at,
                format!(
                    "{} bytes before <?xml: the XML declaration must be the very first thing",
                    skip + ws + decl
                ),
            );
            input.consume(skip + ws + decl);
            input.limit_runs(self.sink.options.max_text_bytes);
            return State::Xml(Box::new(Xml::new(input)));
        }
        if rest.is_empty() {
            // Nothing but whitespace (or nothing at all).
            self.sink.format = Some(Format::Text);
            let at = input.position();
            self.finish(input.stop().cloned(), at);
            return State::done(&input);
        }
        let first_line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
        // A sequence cut by the end of `head` is not evidence; a bad one is.
        let binary = first_line.contains(&0)
            || std::str::from_utf8(first_line).is_err_and(|e| e.error_len().is_some());
        if binary {
            let at = input.position();
            self.sink.report(
                Code::UnsupportedFormat,
                at,
                "neither XML nor a text sitemap (the first line is not UTF-8 text)",
            );
            return State::done(&input);
        }
        input.consume(skip);
        self.sink.format = Some(Format::Text);
        State::Text(input)
    }

    /// Reads one line of a text sitemap; false at the end.
    fn text_line(&mut self, input: &mut Input<R>) -> bool {
        let at = input.position();
        let mut line = Vec::new();
        let mut cut = false;
        let mut any = false;
        loop {
            let (done, used) = match input.fill_buf() {
                Ok([]) | Err(_) => break,
                Ok(buf) => {
                    any = true;
                    let (done, used) = match memchr::memchr(b'\n', buf) {
                        Some(i) => (true, i + 1),
                        None => (false, buf.len()),
                    };
                    let room = MAX_LINE_KEPT.saturating_sub(line.len());
                    if room < used {
                        cut = true;
                    }
                    line.extend_from_slice(&buf[..used.min(room)]);
                    (done, used)
                }
            };
            input.consume(used);
            if done {
                break;
            }
        }
        if !any {
            return false;
        }
        let text = match std::str::from_utf8(&line) {
            Ok(t) => t,
            Err(_) => {
                self.sink
                    .report(Code::Encoding, at, "this line is not UTF-8: it is not used");
                return true;
            }
        };
        let url = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        if url.is_empty() {
            return true;
        }
        if !self.sink.start_entry(at) {
            return true;
        }
        if cut {
            self.sink.report(
                Code::UrlTooLong,
                at,
                format!("a line longer than {MAX_LINE_KEPT} bytes: it is not used"),
            );
            return true;
        }
        if self.sink.check_url(url, at) {
            self.sink.finish_entry(Entry {
                loc: url.to_owned(),
                position: at,
                ..Entry::default()
            });
        }
        true
    }

    /// End-of-input diagnostics: why it stopped early, and an empty sitemap.
    fn finish(&mut self, stop: Option<Stop>, at: Position) {
        match stop.clone() {
            Some(Stop::TooLarge) => self.sink.report(
                Code::TooLarge,
                at,
                format!(
                    "more than {} bytes uncompressed: reading stopped here",
                    self.sink.options.max_bytes
                ),
            ),
            Some(Stop::Compression(why)) => self.sink.report(
                Code::CompressionError,
                at,
                format!("the gzip stream is broken here ({why}): reading stopped"),
            ),
            Some(Stop::LongText) => self.sink.report(
                Code::OversizedText,
                at,
                format!(
                    "an XML text, tag, comment or CDATA section of more than {} bytes: reading stopped here",
                    self.sink.options.max_text_bytes
                ),
            ),
            Some(Stop::Read(why)) => self.sink.report(
                Code::ReadError,
                at,
                format!("the input could not be read to its end ({why})"),
            ),
            None => {}
        }
        if stop.is_none()
            && !self.sink.broken
            && self.sink.format.is_some()
            && self.sink.entries == 0
        {
            self.sink
                .report(Code::EmptySitemap, at, "the sitemap lists nothing");
        }
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        loop {
            if let Some(item) = self.sink.out.pop_front() {
                return Some(item);
            }
            if matches!(self.state, State::Done { .. }) {
                return None;
            }
            self.advance();
        }
    }
}
