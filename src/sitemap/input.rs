//! The byte layer under the reader: gzip told from the magic bytes, the uncompressed-size limit,
//! and line/column bookkeeping, as one [`BufRead`] that quick-xml reads through.
//!
//! Positions are counted lazily: the line and column are brought up to date only when a position
//! is asked for, or before the buffer's bytes are dropped, so the reader can ask "where am I?" at
//! any time without keeping what was read (memory stays flat however long the file) and without
//! paying for a count on each of quick-xml's many small `consume` calls.

use std::io::{self, BufRead, Chain, Cursor, Read};

use flate2::read::MultiGzDecoder;

use super::Position;

/// How much is read from the source at a time.
const CHUNK: usize = 64 * 1024;

/// The source behind the two bytes read to tell gzip apart.
type Rejoined<R> = Chain<Cursor<Vec<u8>>, R>;

/// The source, decompressed if it starts with gzip's magic bytes.
enum Source<R> {
    Plain(Rejoined<R>),
    Gzip(Box<MultiGzDecoder<Filled<Rejoined<R>>>>),
}

/// Reads that fill the buffer unless the source ends (or fails): the gzip decoder then sees the
/// same chunks however the source splits its bytes, so what it yields before a corrupt spot, and
/// hence what the reader reports, does not depend on the source's read sizes.
struct Filled<R> {
    inner: R,
    /// An error met after some bytes were already read, returned on the next call.
    pending: Option<io::Error>,
}

impl<R: Read> Read for Filled<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let mut n = 0;
        while n < buf.len() {
            match self.inner.read(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if n == 0 => return Err(e),
                Err(e) => {
                    self.pending = Some(e);
                    break;
                }
            }
        }
        Ok(n)
    }
}

impl<R: Read> Read for Source<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Source::Plain(r) => r.read(buf),
            Source::Gzip(r) => r.read(buf),
        }
    }
}

/// Why the input ended before its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    /// More than the byte limit (uncompressed).
    TooLarge,
    /// The gzip stream is broken.
    Compression(String),
    /// The source failed.
    Read(String),
    /// An XML event longer than the event limit.
    LongText,
}

/// A [`BufRead`] over the (decompressed) source that stops at the byte limit and knows the line
/// and column of everything consumed.
pub(crate) struct Input<R> {
    source: Source<R>,
    gzip: bool,
    buf: Box<[u8]>,
    pos: usize,
    filled: usize,
    /// Where [`BufRead::fill_buf`] may hand out bytes up to without a check: `filled`, or
    /// before it where the current event reaches the event limit. Below `pos` (0, say), the
    /// next call takes the slow path, which works it out again.
    end: usize,
    /// Bytes taken from the source so far (uncompressed).
    read: u64,
    limit: u64,
    /// The offset (uncompressed) of `buf[0]`: `base + pos` bytes were consumed by the reader
    /// above.
    base: u64,
    /// The line of `buf[counted]`.
    line: u32,
    /// Characters from the start of the line to `buf[counted]`.
    column: u32,
    /// How far into `buf` the line and column are counted (at most `pos`).
    counted: usize,
    /// Where the line ends in `buf[..scanned]` not yet counted are (and some counted ones).
    line_ends: Vec<usize>,
    /// How far into `buf` line ends were looked for.
    scanned: usize,
    /// The first of `line_ends` at or after `counted`.
    next_line_end: usize,
    /// Where in `buf` the current event began, until its position is counted.
    mark: Option<usize>,
    /// The position of the current event's start, once counted.
    mark_at: Position,
    stop: Option<Stop>,
    eof: bool,
    /// The most bytes one XML event may span (`usize::MAX`: no limit).
    max_run: usize,
    /// The offset where the current event began ([`Input::start_event`]).
    run_start: u64,
}

impl<R: Read> Input<R> {
    /// Wraps `source`, reading at most `limit` uncompressed bytes.
    pub(crate) fn new(mut source: R, limit: u64) -> Input<R> {
        // Two bytes tell gzip apart; a source that fails here fails again on the first read.
        let mut head = Vec::with_capacity(2);
        let mut stop = None;
        while head.len() < 2 {
            let mut b = [0u8; 2];
            let want = 2 - head.len();
            match source.read(&mut b[..want]) {
                Ok(0) => break,
                Ok(n) => head.extend_from_slice(&b[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    stop = Some(Stop::Read(e.to_string()));
                    break;
                }
            }
        }
        let gzip = head == [0x1f, 0x8b];
        let chained = Cursor::new(head).chain(source);
        let source = if gzip {
            Source::Gzip(Box::new(MultiGzDecoder::new(Filled {
                inner: chained,
                pending: None,
            })))
        } else {
            Source::Plain(chained)
        };
        Input {
            source,
            gzip,
            buf: vec![0; CHUNK].into_boxed_slice(),
            pos: 0,
            filled: 0,
            end: 0,
            read: 0,
            limit,
            base: 0,
            line: 1,
            column: 0,
            counted: 0,
            line_ends: Vec::new(),
            scanned: 0,
            next_line_end: 0,
            mark: None,
            mark_at: Position::default(),
            eof: stop.is_some(),
            stop,
            max_run: usize::MAX,
            run_start: 0,
        }
    }

    /// Bounds each XML event (a text node, a tag, a comment, a CDATA section) to `max` bytes:
    /// quick-xml holds a whole event in memory, so this is what keeps memory flat on hostile
    /// input. The reader calls [`Input::start_event`] before each event.
    pub(crate) fn limit_runs(&mut self, max: usize) {
        self.max_run = max;
        self.end = 0;
    }

    /// A new event begins here: [`Input::event_position`] tells where.
    pub(crate) fn start_event(&mut self) {
        self.run_start = self.consumed();
        self.mark = Some(self.pos);
        // Nothing of the event is consumed yet: its whole limit is left.
        self.end = self.filled.min(self.pos.saturating_add(self.max_run));
    }

    /// Bytes the current event may still consume before the event limit.
    fn room(&self) -> u64 {
        let run = self.consumed().saturating_sub(self.run_start);
        u64::try_from(self.max_run)
            .unwrap_or(u64::MAX)
            .saturating_sub(run)
    }

    /// Where the current event began (the position at the last [`Input::start_event`]).
    pub(crate) fn event_position(&mut self) -> Position {
        self.count_mark();
        self.mark_at
    }

    /// Counts the line and column up to the event's start, if not yet done.
    fn count_mark(&mut self) {
        if let Some(mark) = self.mark.take() {
            self.count_to(mark);
            self.mark_at = Position {
                line: self.line,
                column: self.column.saturating_add(1),
                offset: self.base + mark as u64,
            };
        }
    }

    /// Counts everything consumed: the buffer's bytes before `pos` may then be dropped.
    fn count_all(&mut self) {
        self.count_mark();
        self.count_to(self.pos);
    }

    /// Brings the line and column from `buf[counted]` to `buf[end]`.
    fn count_to(&mut self, end: usize) {
        if end <= self.counted {
            return;
        }
        if end > self.scanned {
            // Line ends are found a window at a time, many start tags' worth: a search per start
            // tag was most of this function's cost. Those already passed are dropped first, so
            // the list holds at most one window's.
            if self.next_line_end == self.line_ends.len() {
                self.line_ends.clear();
                self.next_line_end = 0;
            }
            let from = self.scanned;
            let to = end.max(from + SCAN_WINDOW).min(self.filled);
            self.line_ends
                .extend(memchr::memchr_iter(b'\n', &self.buf[from..to]).map(|i| from + i));
            self.scanned = to;
        }
        let first = self.next_line_end;
        let mut next = first;
        while self.line_ends.get(next).is_some_and(|&i| i < end) {
            next += 1;
        }
        self.next_line_end = next;
        let lines = next - first;
        match next
            .checked_sub(1)
            .filter(|_| lines > 0)
            .and_then(|i| self.line_ends.get(i))
        {
            Some(&last) => {
                self.line = self
                    .line
                    .saturating_add(u32::try_from(lines).unwrap_or(u32::MAX));
                self.column = chars(&self.buf[last + 1..end]);
            }
            None => {
                self.column = self
                    .column
                    .saturating_add(chars(&self.buf[self.counted..end]));
            }
        }
        self.counted = end;
    }

    /// The buffer's bytes are about to move or be replaced: nothing counted in it holds.
    fn forget_buffer(&mut self) {
        self.counted = 0;
        self.line_ends.clear();
        self.scanned = 0;
        self.next_line_end = 0;
    }

    /// Whether the source was gzip-compressed.
    pub(crate) fn is_gzip(&self) -> bool {
        self.gzip
    }

    /// Why reading stopped early, if it did.
    pub(crate) fn stop(&self) -> Option<&Stop> {
        self.stop.as_ref()
    }

    /// Uncompressed bytes consumed.
    pub(crate) fn consumed(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Where the next unconsumed byte is.
    pub(crate) fn position(&mut self) -> Position {
        self.count_all();
        Position {
            line: self.line,
            column: self.column.saturating_add(1),
            offset: self.consumed(),
        }
    }

    /// At least `n` unconsumed bytes (fewer only at the end of the input), without consuming
    /// them: for telling the format apart.
    pub(crate) fn peek(&mut self, n: usize) -> &[u8] {
        let n = n.min(self.buf.len());
        while self.filled - self.pos < n && !self.eof {
            // Move what is left to the front and read more behind it.
            self.count_all();
            self.buf.copy_within(self.pos..self.filled, 0);
            self.filled -= self.pos;
            self.base += self.pos as u64;
            self.pos = 0;
            self.end = 0;
            self.forget_buffer();
            let room = self.limit.saturating_sub(self.read);
            if room == 0 {
                break;
            }
            let end = self
                .buf
                .len()
                .min(self.filled + usize::try_from(room).unwrap_or(usize::MAX));
            let mut chunk = std::mem::take(&mut self.buf);
            let result = self.read_source(&mut chunk[self.filled..end]);
            self.buf = chunk;
            match result {
                Ok(0) => self.eof = true,
                Ok(k) => {
                    self.filled += k;
                    self.read += k as u64;
                }
                Err(e) => {
                    self.fail(e);
                    self.eof = true;
                }
            }
        }
        &self.buf[self.pos..self.filled]
    }

    fn refill(&mut self) -> io::Result<()> {
        if self.eof {
            return Ok(());
        }
        let room = self.limit.saturating_sub(self.read);
        if room == 0 {
            // At the limit: one more byte says whether the file goes on.
            let mut probe = [0u8; 1];
            match self.read_source(&mut probe) {
                Ok(0) => {}
                Ok(_) => self.stop = Some(Stop::TooLarge),
                Err(e) => self.fail(e),
            }
            self.eof = true;
            return Ok(());
        }
        let want = self
            .buf
            .len()
            .min(usize::try_from(room).unwrap_or(usize::MAX));
        let mut chunk = std::mem::take(&mut self.buf);
        let result = self.read_source(&mut chunk[..want]);
        self.buf = chunk;
        match result {
            Ok(0) => self.eof = true,
            Ok(n) => {
                self.pos = 0;
                self.filled = n;
                self.read += n as u64;
            }
            Err(e) => {
                self.fail(e);
                self.eof = true;
            }
        }
        Ok(())
    }

    fn read_source(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.source.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }

    fn fail(&mut self, e: io::Error) {
        // flate2 reports a corrupt stream as InvalidInput/InvalidData, a cut one as
        // UnexpectedEof; both are the file's fault, not the source's.
        let gzip_fault = self.gzip
            && matches!(
                e.kind(),
                io::ErrorKind::InvalidInput
                    | io::ErrorKind::InvalidData
                    | io::ErrorKind::UnexpectedEof
            );
        self.stop = Some(if gzip_fault {
            Stop::Compression(e.to_string())
        } else {
            Stop::Read(e.to_string())
        });
    }
}

impl<R: Read> Read for Input<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Input<R> {
    #[inline]
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        // quick-xml calls this several times per event: the common case is one comparison,
        // inlined into quick-xml's loops; the rest is out of line.
        if self.pos < self.end {
            return Ok(self.buf.get(self.pos..self.end).unwrap_or(&[]));
        }
        self.fill_buf_slow()
    }

    #[inline]
    fn consume(&mut self, amt: usize) {
        // The line and column are counted later, in bulk (`count_to`); the bytes consumed and
        // the event's run follow from `pos`.
        self.pos = self.pos.saturating_add(amt).min(self.filled);
    }
}

impl<R: Read> Input<R> {
    /// [`BufRead::fill_buf`] at the end of the buffer or of the event's run: refills, and works
    /// out how far the next calls may hand out bytes.
    #[cold]
    #[inline(never)]
    fn fill_buf_slow(&mut self) -> io::Result<&[u8]> {
        if self.pos >= self.filled {
            self.count_all();
            self.base += self.pos as u64;
            self.pos = 0;
            self.filled = 0;
            self.forget_buffer();
            self.refill()?;
        }
        let available = self.filled - self.pos;
        let room = usize::try_from(self.room()).unwrap_or(usize::MAX);
        self.end = self.pos + available.min(room);
        if available > room {
            // Never more of one event than the limit; at the limit, the input ends here.
            if room == 0 {
                self.stop.get_or_insert(Stop::LongText);
                self.eof = true;
                return Ok(&[]);
            }
        }
        Ok(&self.buf[self.pos..self.end])
    }
}

/// Bytes searched for line ends at a time (beyond the position asked for).
const SCAN_WINDOW: usize = 2048;

/// UTF-8 characters in `bytes` (every byte that is not a continuation byte starts one; invalid
/// bytes count one each).
fn chars(bytes: &[u8]) -> u32 {
    // Sitemaps are mostly ASCII, which the standard library checks many bytes at a time.
    let n = if bytes.is_ascii() {
        bytes.len()
    } else {
        bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
    };
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The position after `prefix`, counted byte by byte.
    fn reference(prefix: &[u8]) -> Position {
        let mut line = 1u32;
        let mut column = 0u32;
        for &b in prefix {
            if b == b'\n' {
                line += 1;
                column = 0;
            } else if b & 0xC0 != 0x80 {
                column += 1;
            }
        }
        Position {
            line,
            column: column + 1,
            offset: prefix.len() as u64,
        }
    }

    /// A source that returns a few bytes at a time, in varying amounts.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.step = self.step * 7 % 5003 + 1;
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// The event limit: however the reads and consumes fall, no event gets more than `max`
    /// bytes, the input ends (`LongText`) exactly when an event reaches `max` with bytes left,
    /// and the bytes handed out are the data's, in order.
    #[test]
    fn events_never_pass_the_limit() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        for (max, trickle) in [(1usize, false), (7, true), (1000, false), (70_000, true)] {
            for seed in 1..4usize {
                let source: Box<dyn Read> = if trickle {
                    Box::new(Trickle {
                        data: &data,
                        step: seed,
                    })
                } else {
                    Box::new(&data[..])
                };
                let mut input = Input::new(source, u64::MAX);
                input.limit_runs(max);
                let mut done = 0usize;
                let mut k = seed;
                'events: loop {
                    input.start_event();
                    let mut run = 0usize;
                    // One event: consumes of varying sizes, until the event is "over".
                    let parts = k % 5 + 1;
                    for _ in 0..parts {
                        k = k * 31 % 10_007 + 1;
                        let buf = match input.fill_buf() {
                            Ok(b) => b,
                            Err(e) => panic!("{e}"),
                        };
                        assert!(
                            buf.len() <= max - run,
                            "max {max}: {} > {}",
                            buf.len(),
                            max - run
                        );
                        if buf.is_empty() {
                            let stopped = input.stop() == Some(&Stop::LongText);
                            assert_eq!(stopped, done < data.len(), "max {max} at {done}");
                            assert!(!stopped || run == max, "max {max}: run {run}");
                            break 'events;
                        }
                        assert_eq!(buf, &data[done..done + buf.len()]);
                        let n = buf.len().min(k % (2 * max + 3));
                        input.consume(n);
                        run += n;
                        done += n;
                        assert_eq!(input.consumed(), done as u64);
                    }
                }
            }
        }
    }

    /// Lazy counting gives the positions a byte-by-byte count gives, however the source and the
    /// consumer split the bytes, across refills, for event starts asked for late.
    #[test]
    fn lazy_positions_match_a_byte_count() {
        let mut data = Vec::new();
        for i in 0..20_000u32 {
            data.extend_from_slice(b"<a>\xc3\xa9t\xc3\xa9");
            if i.is_multiple_of(3) {
                data.push(b'\n');
            }
            if i.is_multiple_of(7) {
                data.extend_from_slice("\u{1F600}\r\n\n".as_bytes());
            }
        }
        for trickle in [false, true] {
            let source: Box<dyn Read> = if trickle {
                Box::new(Trickle {
                    data: &data,
                    step: 1,
                })
            } else {
                Box::new(&data[..])
            };
            let mut input = Input::new(source, u64::MAX);
            assert_eq!(&input.peek(10)[..10], &data[..10]);
            let mut done = 0usize;
            let mut k = 0usize;
            while done < data.len() {
                input.start_event();
                let start = done;
                // One event: a few consumes of varying sizes, some spanning a refill.
                for _ in 0..(k % 4 + 1) {
                    k += 1;
                    let want = (k * 13) % 97 + if k.is_multiple_of(50) { 70_000 } else { 0 };
                    let mut left = want;
                    while left > 0 {
                        let n = match input.fill_buf() {
                            Ok([]) => break,
                            Ok(buf) => buf.len().min(left),
                            Err(e) => panic!("{e}"),
                        };
                        input.consume(n);
                        left -= n;
                        done += n;
                    }
                }
                if k.is_multiple_of(3) {
                    assert_eq!(input.position(), reference(&data[..done]), "at {done}");
                }
                assert_eq!(input.event_position(), reference(&data[..start]));
                // Asked again: the same answer.
                assert_eq!(input.event_position(), reference(&data[..start]));
            }
            assert_eq!(input.position(), reference(&data));
            assert_eq!(input.consumed(), data.len() as u64);
        }
    }
}
