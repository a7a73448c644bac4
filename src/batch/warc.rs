//! The WARC reader: `response` records of a WARC or WARC.gz stream as [`Capture`]s, one at a
//! time, in bounded memory ([WARC 1.1]).
//!
//! A `.warc.gz` is read one gzip member at a time (flate2's `bufread::GzDecoder`, the decoder
//! `MultiGzDecoder` runs once per member): Common Crawl writes one record per member, and
//! knowing where a member starts gives each capture its offset and lets the reader find its feet
//! after a broken member: it reports the member as an [`Unreadable`] and goes on at the next
//! gzip header after the member's first byte (the bytes its inflater took are kept to read
//! again: a member cut short has its inflater read on into the members after it). A response
//! is given out once its member is seen to go on or to end whole, never from a member that
//! breaks after it. A file gzipped whole (one member) is read as a stream too. A plain WARC that
//! goes wrong goes on at the next line that starts with `WARC/`.
//!
//! `request`, `metadata`, `revisit` and other records are skipped; `warcinfo`'s `isPartOf` names
//! the crawl. A response's block is its HTTP status line and headers (at most
//! [`MAX_HEAD_BYTES`]), then the body, of which at most the parsing limit plus one byte is kept
//! (the rest is counted and skipped, so a huge record costs no memory).
//!
//! [WARC 1.1]: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/

use std::io::{self, BufRead, BufReader, Read};
use std::sync::Arc;

use flate2::bufread::GzDecoder;

use super::{Capture, Place, Unreadable};
use crate::policy::challenge_marker;

/// The most bytes of a WARC record's header, or of a response's HTTP head, that are read.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// The input, buffered here rather than by `BufReader` so that a search can look at a needle
/// that straddles two reads ([`Input::fill_at_least`]); it counts the bytes taken (the offset of
/// each gzip member).
struct Input<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    at: u64,
    /// While a gzip member is read: the bytes taken since its start, so that a broken member
    /// can be read again from its second byte for the next gzip header (its inflater may have
    /// read on into the members after it). `None` when not kept, or past [`MAX_REPLAY`].
    taken: Option<Vec<u8>>,
}

/// The most bytes of one gzip member kept to read again after it breaks: Common Crawl's
/// members are a record each (kilobytes); past this (a file gzipped whole), the reading goes
/// on from where the inflater stopped.
const MAX_REPLAY: usize = 8 << 20;

const BUF_BYTES: usize = 64 * 1024;

impl<R: Read> Input<R> {
    fn new(inner: R) -> Input<R> {
        Input {
            inner,
            buf: vec![0; BUF_BYTES],
            pos: 0,
            end: 0,
            at: 0,
            taken: None,
        }
    }

    /// A member starts at the next byte: keep what is taken from here.
    fn keep_taken(&mut self) {
        self.taken = Some(Vec::new());
    }

    /// The member ended: nothing to read again.
    fn drop_taken(&mut self) {
        self.taken = None;
    }

    /// Puts back what was taken since the member's start but its first byte, so that the
    /// next read is at the member's second byte; false when too much was taken to keep.
    fn back_to_after_start(&mut self) -> bool {
        let Some(taken) = self.taken.take() else {
            return false;
        };
        let Some(again) = taken.get(1..) else {
            return false;
        };
        let mut buf = Vec::with_capacity((again.len() + self.end - self.pos).max(BUF_BYTES));
        buf.extend_from_slice(again);
        buf.extend_from_slice(&self.buf[self.pos..self.end]);
        self.end = buf.len();
        self.pos = 0;
        buf.resize(self.end.max(BUF_BYTES), 0);
        self.buf = buf;
        self.at -= again.len() as u64;
        true
    }

    /// At least `n` unread bytes (fewer only at the end of the input).
    fn fill_at_least(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.end - self.pos < n {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
            while self.end < n.min(self.buf.len()) {
                match self.inner.read(&mut self.buf[self.end..]) {
                    Ok(0) => break,
                    Ok(k) => self.end += k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(&self.buf[self.pos..self.end])
    }
}

impl<R: Read> Read for Input<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let buf = self.fill_buf()?;
            let n = buf.len().min(out.len());
            out[..n].copy_from_slice(&buf[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Input<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.fill_at_least(1)
    }
    fn consume(&mut self, amt: usize) {
        let amt = amt.min(self.end - self.pos);
        if let Some(taken) = &mut self.taken {
            if taken.len() + amt <= MAX_REPLAY {
                taken.extend_from_slice(&self.buf[self.pos..self.pos + amt]);
            } else {
                self.taken = None;
            }
        }
        self.pos += amt;
        self.at += amt as u64;
    }
}

/// Where the reader is.
enum State<R> {
    /// Between gzip members.
    Between(Input<R>),
    /// Inside a member that starts at the offset, with the response last read from it, held
    /// until the member is seen to go on or to end whole: a member cut short can still give
    /// a record (its inflater reads on into the next members as if they were its own data),
    /// whose bytes are then not the capture's.
    /// (Boxed: the decoder's state is large, and between members there is none.)
    Member(Box<BufReader<GzDecoder<Input<R>>>>, u64, Option<Capture>),
    /// A plain WARC.
    Plain(Input<R>),
    /// Done, or lost (a read error of the input itself).
    Done,
}

/// The `response` records of one WARC or WARC.gz input, each a `Result<Capture, Unreadable>`.
///
/// ```
/// use crawlgate::batch::WarcReader;
/// let warc = b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://example.com/robots.txt\r\n\
/// Content-Length: 45\r\n\r\nHTTP/1.1 200 OK\r\n\r\nUser-agent: *\nDisallow: /\n\r\n\r\n";
/// let captures: Vec<_> = WarcReader::new(&warc[..], "example.warc", 512_000).collect();
/// let capture = captures[0].as_ref().unwrap();
/// assert_eq!(capture.url, "https://example.com/robots.txt");
/// assert_eq!(capture.status, Some(200));
/// assert_eq!(capture.body, b"User-agent: *\nDisallow: /\n");
/// ```
pub struct WarcReader<R> {
    state: State<R>,
    input: Arc<str>,
    crawl: Option<Arc<str>>,
    record: u64,
    max_body: usize,
    /// After an error: the failures of candidate members or lines are not reported again until
    /// a record has been read.
    lost: bool,
}

impl<R: Read> WarcReader<R> {
    /// Reads `input` (gzip or not, told from its first bytes), named `name` in the rows; keeps
    /// at most `max_body + 1` bytes of each body.
    pub fn new(input: R, name: &str, max_body: usize) -> WarcReader<R> {
        let mut counting = Input::new(input);
        let gzip = counting
            .fill_at_least(2)
            .map(|b| b.starts_with(&GZIP_MAGIC[..2]))
            .unwrap_or(false);
        WarcReader {
            state: if gzip {
                State::Between(counting)
            } else {
                State::Plain(counting)
            },
            input: Arc::from(name),
            crawl: None,
            record: 0,
            max_body,
            lost: false,
        }
    }

    fn place(&self, offset: Option<u64>) -> Place {
        Place {
            input: self.input.clone(),
            record: self.record,
            offset,
            crawl: self.crawl.clone(),
        }
    }

    fn unreadable(&mut self, offset: Option<u64>, reason: String) -> Option<Unreadable> {
        if self.lost {
            return None;
        }
        self.lost = true;
        self.record += 1;
        Some(Unreadable {
            place: self.place(offset),
            reason,
        })
    }

    /// The next item, or `None` at the end.
    fn step(&mut self) -> Option<Result<Capture, Unreadable>> {
        loop {
            match std::mem::replace(&mut self.state, State::Done) {
                State::Done => return None,
                State::Between(mut input) => {
                    let at = input.at;
                    match input.fill_at_least(GZIP_MAGIC.len()) {
                        Ok([]) => return None,
                        Ok(b) if b.starts_with(&GZIP_MAGIC) => {
                            input.keep_taken();
                            let decoder = GzDecoder::new(input);
                            self.state = State::Member(
                                Box::new(BufReader::with_capacity(32 * 1024, decoder)),
                                at,
                                None,
                            );
                        }
                        Ok(_) => {
                            let why = format!("no gzip member starts at byte {at}");
                            let skipped = skip_to(&mut input, &GZIP_MAGIC, false);
                            self.state = State::Between(input);
                            if let Err(e) = skipped {
                                self.state = State::Done;
                                if let Some(u) = self.unreadable(Some(at), e.to_string()) {
                                    return Some(Err(u));
                                }
                            } else if let Some(u) = self.unreadable(Some(at), why) {
                                return Some(Err(u));
                            }
                        }
                        Err(e) => {
                            return self.unreadable(Some(at), e.to_string()).map(Err);
                        }
                    }
                }
                State::Member(mut member, start, held) => {
                    match self.read_record(&mut member, Some(start)) {
                        Ok(Some(item)) => {
                            // The member goes on: what was held before is out of doubt.
                            self.state = State::Member(member, start, item);
                            if let Some(held) = held {
                                self.lost = false;
                                return Some(Ok(held));
                            }
                        }
                        Ok(None) => {
                            // The member ended whole (its length and CRC checked): the input
                            // sits at the next one.
                            let mut input = (*member).into_inner().into_inner();
                            input.drop_taken();
                            self.state = State::Between(input);
                            if let Some(held) = held {
                                self.lost = false;
                                return Some(Ok(held));
                            }
                        }
                        Err(why) => {
                            if held.is_some() {
                                // Read from a broken member: not the capture. Its row is the
                                // damage's, under its number, however the reading had gone.
                                self.record -= 1;
                                self.lost = false;
                            }
                            let mut input = (*member).into_inner().into_inner();
                            let at = input.at;
                            // The next member may start anywhere after this one's first byte,
                            // in what its inflater took too.
                            input.back_to_after_start();
                            let skipped = skip_to(&mut input, &GZIP_MAGIC, false);
                            self.state = match skipped {
                                Ok(()) => State::Between(input),
                                Err(_) => State::Done,
                            };
                            let reason =
                                format!("gzip member at byte {start}: {why} (read to byte {at})");
                            if let Some(u) = self.unreadable(Some(start), reason) {
                                return Some(Err(u));
                            }
                        }
                    }
                }
                State::Plain(mut input) => {
                    let at = input.at;
                    match self.read_record(&mut input, None) {
                        Ok(Some(item)) => {
                            self.state = State::Plain(input);
                            if let Some(mut item) = item {
                                item.place.offset = Some(at);
                                self.lost = false;
                                return Some(Ok(item));
                            }
                        }
                        Ok(None) => return None,
                        Err(why) => {
                            if skip_to(&mut input, b"\nWARC/", true).is_ok() {
                                self.state = State::Plain(input);
                            }
                            if let Some(u) =
                                self.unreadable(Some(at), format!("record at byte {at}: {why}"))
                            {
                                return Some(Err(u));
                            }
                        }
                    }
                }
            }
        }
    }

    /// One record from `r`: `Ok(None)` at the end of `r`, `Ok(Some(None))` for a record that
    /// is not a response, `Ok(Some(Some(capture)))` for a response.
    fn read_record(
        &mut self,
        r: &mut impl BufRead,
        member: Option<u64>,
    ) -> io::Result<Option<Option<Capture>>> {
        let mut line = Vec::new();
        // Records are separated by blank lines.
        loop {
            line.clear();
            if read_line(r, &mut line)? == 0 {
                return Ok(None);
            }
            if !trim_eol(&line).is_empty() {
                break;
            }
        }
        if !line.starts_with(b"WARC/") {
            return Err(bad("a record does not start with a WARC/ version line"));
        }
        let mut kind = Vec::new();
        let mut url = None;
        let mut date = None;
        let mut truncated = None;
        let mut length: Option<u64> = None;
        let mut head = line.len();
        loop {
            line.clear();
            let n = read_line(r, &mut line)?;
            head += n;
            if n == 0 {
                return Err(bad("the input ends inside a record header"));
            }
            if head > MAX_HEAD_BYTES {
                return Err(bad("a record header over 64 KiB"));
            }
            let l = trim_eol(&line);
            if l.is_empty() {
                break;
            }
            let Some((name, value)) = split_field(l) else {
                return Err(bad("a record header line without a colon"));
            };
            let text = || String::from_utf8_lossy(value).into_owned();
            if name.eq_ignore_ascii_case(b"WARC-Type") {
                kind = value.to_ascii_lowercase();
            } else if name.eq_ignore_ascii_case(b"WARC-Target-URI") {
                let v = text();
                url = Some(v.trim_start_matches('<').trim_end_matches('>').to_owned());
            } else if name.eq_ignore_ascii_case(b"WARC-Date") {
                date = Some(text());
            } else if name.eq_ignore_ascii_case(b"WARC-Truncated") {
                truncated = Some(text());
            } else if name.eq_ignore_ascii_case(b"Content-Length") {
                let v = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
                length = Some(v.ok_or_else(|| bad("a Content-Length that is not a number"))?);
            }
        }
        let length = length.ok_or_else(|| bad("a record without Content-Length"))?;
        let mut block = r.take(length);
        let capture = match kind.as_slice() {
            b"response" => {
                let url = url.ok_or_else(|| bad("a response without WARC-Target-URI"))?;
                self.record += 1;
                let place = self.place(member);
                Some(self.response(&mut block, url, date, truncated, place)?)
            }
            b"warcinfo" => {
                let mut info = Vec::new();
                (&mut block)
                    .take(MAX_HEAD_BYTES as u64)
                    .read_to_end(&mut info)?;
                if let Some(crawl) = info
                    .split(|&b| b == b'\n')
                    .filter_map(|l| split_field(trim_eol(l)))
                    .find(|(n, _)| n.eq_ignore_ascii_case(b"isPartOf"))
                {
                    self.crawl = Some(Arc::from(String::from_utf8_lossy(crawl.1).as_ref()));
                }
                None
            }
            _ => None,
        };
        io::copy(&mut block, &mut io::sink())?;
        if block.limit() > 0 {
            return Err(bad(&format!(
                "the record declares {length} bytes; the input ends {} bytes short",
                block.limit()
            )));
        }
        Ok(Some(capture))
    }

    /// A response record's block: the HTTP head, then the body (kept up to the limit).
    fn response(
        &self,
        block: &mut io::Take<&mut impl BufRead>,
        url: String,
        fetch_time: Option<String>,
        truncated: Option<String>,
        place: Place,
    ) -> io::Result<Capture> {
        let mut line = Vec::new();
        read_line(block, &mut line)?;
        let status = http_status(trim_eol(&line));
        let mut capture = Capture {
            url,
            status,
            content_type: None,
            location: None,
            challenge: None,
            fetch_time,
            truncated,
            body: Vec::new(),
            body_length: 0,
            place,
        };
        if status.is_none() {
            return Err(bad("a response whose block has no HTTP status line"));
        }
        let mut head = line.len();
        loop {
            line.clear();
            let n = read_line(block, &mut line)?;
            head += n;
            if head > MAX_HEAD_BYTES {
                return Err(bad("an HTTP head over 64 KiB"));
            }
            let l = trim_eol(&line);
            if n == 0 || l.is_empty() {
                break;
            }
            let Some((name, value)) = split_field(l) else {
                continue; // A malformed header line is dropped, as the fetcher drops it.
            };
            let text = || String::from_utf8_lossy(value).into_owned();
            if name.eq_ignore_ascii_case(b"Content-Type") {
                capture.content_type = Some(text());
            } else if name.eq_ignore_ascii_case(b"Location") {
                capture.location = Some(text());
            } else if capture.challenge.is_none() {
                if let Some(m) = std::str::from_utf8(name)
                    .ok()
                    .and_then(|n| challenge_marker(n, value))
                {
                    capture.challenge = Some(format!("{}: {}", m.header, m.value));
                }
            }
        }
        (&mut *block)
            .take(self.max_body as u64 + 1)
            .read_to_end(&mut capture.body)?;
        let rest = io::copy(block, &mut io::sink())?;
        capture.body_length = capture.body.len() as u64 + rest;
        Ok(capture)
    }
}

impl<R: Read> Iterator for WarcReader<R> {
    type Item = Result<Capture, Unreadable>;

    fn next(&mut self) -> Option<Self::Item> {
        self.step()
    }
}

fn bad(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_owned())
}

/// A line with its end, at most [`MAX_HEAD_BYTES`] + 1 bytes of it.
fn read_line(r: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<usize> {
    r.take(MAX_HEAD_BYTES as u64 + 1).read_until(b'\n', line)
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn split_field(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = memchr::memchr(b':', line)?;
    Some((line[..colon].trim_ascii(), line[colon + 1..].trim_ascii()))
}

/// `HTTP/1.1 200 OK` → 200.
fn http_status(line: &[u8]) -> Option<u16> {
    let rest = line.strip_prefix(b"HTTP/")?;
    let space = memchr::memchr(b' ', rest)?;
    let code = rest[space + 1..].trim_ascii_start();
    let digits = code.get(..3)?;
    if !digits.iter().all(u8::is_ascii_digit) || code.get(3).is_some_and(|b| *b != b' ') {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// Skips to the next `needle` (or, with `after_newline`, to the byte after its leading
/// newline), leaving it unread; to the end when there is none. A reader at a needle stays:
/// a member that broke in its record (a declared length past its end) left the input at the
/// next one.
fn skip_to<R: Read>(r: &mut Input<R>, needle: &[u8], after_newline: bool) -> io::Result<()> {
    loop {
        let buf = r.fill_at_least(needle.len())?;
        if buf.len() < needle.len() {
            let n = buf.len();
            r.consume(n);
            return Ok(());
        }
        match memchr::memmem::find(buf, needle) {
            Some(i) => {
                r.consume(i + usize::from(after_newline));
                return Ok(());
            }
            // Keep a needle's length less one: it may start at the end of this buffer.
            None => {
                let n = buf.len() - (needle.len() - 1);
                r.consume(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines() {
        assert_eq!(http_status(b"HTTP/1.1 200 OK"), Some(200));
        assert_eq!(http_status(b"HTTP/1.0 404"), Some(404));
        assert_eq!(http_status(b"HTTP/2 301 Moved"), Some(301));
        assert_eq!(http_status(b"HTTP/1.1 20 OK"), None);
        assert_eq!(http_status(b"HTTP/1.1 2000 OK"), None);
        assert_eq!(http_status(b"ICY 200 OK"), None);
    }

    #[test]
    fn skipping_finds_a_needle_across_buffers() {
        let data = b"xxxxxxxx\x1f\x8b\x08rest";
        let mut r = Input::new(&data[..]);
        r.buf = vec![0; 4];
        skip_to(&mut r, &GZIP_MAGIC, false).unwrap();
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"\x1f\x8b\x08rest");
    }
}
