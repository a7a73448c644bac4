//! Content codings of a response body ([RFC 9110 §8.4]): `gzip` and `deflate` are decoded as
//! the body arrives, into at most a cap of bytes, in memory bounded whatever the input; a body
//! in any other coding cannot be read.
//!
//! **Why not `br`.** A brotli stream may ask for a 16 MiB window, which the decoder allocates
//! before the first byte comes out: an 811-byte response cost 17 MB of memory, and 50 at once
//! 112 MB. gzip and deflate need a 32 KiB window. A server that offers brotli offers gzip too,
//! and a robots.txt is small, so the fetcher asks for `gzip, deflate` only
//! ([`ACCEPT_ENCODING`]); a `br` body sent anyway is unusable like any other coding it cannot
//! decode.
//!
//! **Decoded:** `gzip` and `x-gzip` (every member of a multi-member stream, each CRC and length
//! checked), `deflate` (zlib-wrapped as RFC 9110 says, or raw deflate as some servers send
//! it), `identity`, and up to [`MAX_CODINGS`] codings applied one over another
//! (`Content-Encoding: gzip, gzip`). A stream cut short, corrupt, or followed by other bytes is
//! an error: half a file is not a file.
//!
//! [RFC 9110 §8.4]: https://www.rfc-editor.org/rfc/rfc9110.html#section-8.4

use std::io::{self, Write};

use flate2::write::MultiGzDecoder;
use flate2::{Decompress, FlushDecompress, Status};
use reqwest::header::{HeaderMap, CONTENT_ENCODING};

/// The `Accept-Encoding` every request sends.
pub(crate) const ACCEPT_ENCODING: &str = "gzip, deflate";

/// The most content codings decoded one over another; more is unusable.
pub(crate) const MAX_CODINGS: usize = 3;

/// The output buffer of a deflate layer.
const INFLATE_BUF: usize = 32 * 1024;

/// A content coding the fetcher decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coding {
    /// `gzip`, `x-gzip`.
    Gzip,
    /// `deflate`: zlib, or raw deflate.
    Deflate,
}

/// The codings of the response's `Content-Encoding` headers in the order they were applied
/// (`identity` left out), or why the body cannot be decoded.
pub(crate) fn codings(headers: &HeaderMap) -> Result<Vec<Coding>, String> {
    let mut out = Vec::new();
    for value in headers.get_all(CONTENT_ENCODING) {
        let text = String::from_utf8_lossy(value.as_bytes());
        for name in text.split(',').map(str::trim) {
            match name.to_ascii_lowercase().as_str() {
                "" | "identity" => {}
                "gzip" | "x-gzip" => out.push(Coding::Gzip),
                "deflate" => out.push(Coding::Deflate),
                _ => {
                    let shown: String = name.chars().take(40).collect();
                    return Err(format!("unsupported content encoding {shown:?}"));
                }
            }
        }
    }
    if out.len() > MAX_CODINGS {
        return Err(format!(
            "{} content codings one over another (at most {MAX_CODINGS} are decoded)",
            out.len()
        ));
    }
    Ok(out)
}

/// What feeding a chunk did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fed {
    /// The body is not full yet: feed more.
    More,
    /// The body holds `cap` bytes: stop reading.
    Full,
}

/// Decodes one body, chunk by chunk, into at most `cap` bytes.
pub(crate) struct Decoder {
    chain: Chain,
    /// Encoded bytes fed so far.
    fed: u64,
}

impl Decoder {
    /// A decoder for a body with `codings` (in the order applied), keeping `cap` bytes.
    pub(crate) fn new(codings: &[Coding], cap: usize) -> Decoder {
        let mut chain = Chain::Sink(Sink {
            body: Vec::new(),
            cap,
        });
        // The first coding applied is the last one undone: it goes nearest the sink.
        for coding in codings {
            chain = match coding {
                Coding::Gzip => Chain::Gzip(Box::new(MultiGzDecoder::new(chain))),
                Coding::Deflate => Chain::Inflate(Box::new(Inflate::new(chain))),
            };
        }
        Decoder { chain, fed: 0 }
    }

    /// Decodes `chunk`; an error says why the body is broken.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<Fed, String> {
        self.fed += chunk.len() as u64;
        let written = self.chain.write_all(chunk);
        if self.chain.sink().is_full() {
            // The sink refuses bytes past the cap, which surfaces here as an error.
            return Ok(Fed::Full);
        }
        match written {
            Ok(()) => Ok(Fed::More),
            Err(e) => Err(format!("bad compression: {e}")),
        }
    }

    /// The body once the response ended: every stream must be complete.
    pub(crate) fn finish(mut self) -> Result<Vec<u8>, String> {
        // No bytes at all is an empty body, whatever the headers say.
        if self.fed > 0 {
            let finished = self.chain.finish();
            // A layer may hold output back until the end: reaching the cap there is a body
            // cut at the cap, as it is while bytes arrive.
            if !self.chain.sink().is_full() {
                finished.map_err(|e| format!("bad compression: {e}"))?;
            }
        }
        Ok(self.into_body())
    }

    /// The body as decoded so far (all of it, once [`Fed::Full`]).
    pub(crate) fn into_body(mut self) -> Vec<u8> {
        std::mem::take(&mut self.chain.sink().body)
    }
}

/// The layers of a [`Decoder`], outermost first.
enum Chain {
    Sink(Sink),
    Gzip(Box<MultiGzDecoder<Chain>>),
    Inflate(Box<Inflate<Chain>>),
}

impl Chain {
    fn sink(&mut self) -> &mut Sink {
        match self {
            Chain::Sink(sink) => sink,
            Chain::Gzip(d) => d.get_mut().sink(),
            Chain::Inflate(d) => d.out.sink(),
        }
    }

    /// Ends every layer, outermost first, so that each flushes into the next.
    fn finish(&mut self) -> io::Result<()> {
        match self {
            Chain::Sink(_) => Ok(()),
            Chain::Gzip(d) => {
                d.try_finish()?;
                d.get_mut().finish()
            }
            Chain::Inflate(d) => {
                d.finish()?;
                d.out.finish()
            }
        }
    }
}

impl Write for Chain {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Chain::Sink(s) => s.write(buf),
            Chain::Gzip(d) => d.write(buf),
            Chain::Inflate(d) => d.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Chain::Sink(s) => s.flush(),
            Chain::Gzip(d) => d.flush(),
            Chain::Inflate(d) => d.flush(),
        }
    }
}

/// The decoded body: takes bytes up to `cap`, then refuses (an error that stops every layer).
struct Sink {
    body: Vec<u8>,
    cap: usize,
}

impl Sink {
    fn is_full(&self) -> bool {
        self.body.len() >= self.cap
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self.cap - self.body.len().min(self.cap);
        if room == 0 && !buf.is_empty() {
            return Err(io::Error::other("the body reached its cap"));
        }
        let take = room.min(buf.len());
        self.body.extend_from_slice(&buf[..take]);
        Ok(take)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A `deflate` layer: zlib (what RFC 9110 means) or raw deflate (what some servers send), told
/// apart by whether the first two bytes are a valid zlib header, as browsers and curl do.
struct Inflate<W: Write> {
    /// The first bytes, until there are two.
    head: Vec<u8>,
    state: Option<Decompress>,
    done: bool,
    buf: Box<[u8]>,
    out: W,
}

impl<W: Write> Inflate<W> {
    fn new(out: W) -> Inflate<W> {
        Inflate {
            head: Vec::with_capacity(2),
            state: None,
            done: false,
            buf: vec![0; INFLATE_BUF].into_boxed_slice(),
            out,
        }
    }

    /// Inflates `input` whole, writing every byte it gives to `out`.
    fn inflate(&mut self, mut input: &[u8]) -> io::Result<()> {
        let Some(d) = self.state.as_mut() else {
            return Ok(());
        };
        loop {
            if self.done {
                if input.is_empty() {
                    return Ok(());
                }
                return Err(corrupt("bytes after the end of the deflate stream"));
            }
            let (in0, out0) = (d.total_in(), d.total_out());
            let status = d
                .decompress(input, &mut self.buf, FlushDecompress::None)
                .map_err(|e| corrupt(&format!("corrupt deflate stream: {e}")))?;
            let used = usize::try_from(d.total_in() - in0).unwrap_or(usize::MAX);
            let made = usize::try_from(d.total_out() - out0).unwrap_or(usize::MAX);
            self.out.write_all(&self.buf[..made.min(self.buf.len())])?;
            input = &input[used.min(input.len())..];
            if status == Status::StreamEnd {
                self.done = true;
                continue;
            }
            if made < self.buf.len() && (input.is_empty() || used == 0 && made == 0) {
                if !input.is_empty() {
                    return Err(corrupt("corrupt deflate stream: no progress"));
                }
                return Ok(());
            }
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        if !self.done {
            return Err(corrupt("the deflate stream is cut short"));
        }
        Ok(())
    }
}

impl<W: Write> Write for Inflate<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.state.is_none() {
            let take = (2 - self.head.len()).min(buf.len());
            self.head.extend_from_slice(&buf[..take]);
            if self.head.len() < 2 {
                return Ok(take);
            }
            let zlib = is_zlib_header(self.head[0], self.head[1]);
            self.state = Some(Decompress::new(zlib));
            let head = std::mem::take(&mut self.head);
            self.inflate(&head)?;
            self.inflate(&buf[take..])?;
            return Ok(buf.len());
        }
        self.inflate(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// RFC 1950 §2.2: compression method 8 with a window of at most 32 KiB, and a check value
/// that makes the two bytes a multiple of 31.
fn is_zlib_header(cmf: u8, flg: u8) -> bool {
    cmf & 0x0f == 8 && cmf >> 4 <= 7 && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0
}

fn corrupt(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::{DeflateEncoder, GzEncoder, ZlibEncoder};
    use flate2::Compression;
    use reqwest::header::HeaderValue;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).expect("gzip");
        e.finish().expect("gzip")
    }

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut e = ZlibEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).expect("zlib");
        e.finish().expect("zlib")
    }

    fn raw_deflate(data: &[u8]) -> Vec<u8> {
        let mut e = DeflateEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).expect("deflate");
        e.finish().expect("deflate")
    }

    /// Decodes `body` fed in chunks of `step` bytes.
    fn decode(codings: &[Coding], body: &[u8], step: usize, cap: usize) -> Result<Vec<u8>, String> {
        let mut d = Decoder::new(codings, cap);
        for chunk in body.chunks(step.max(1)) {
            if d.feed(chunk)? == Fed::Full {
                return Ok(d.into_body());
            }
        }
        d.finish()
    }

    fn header(values: &[&'static str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for v in values {
            map.append(CONTENT_ENCODING, HeaderValue::from_static(v));
        }
        map
    }

    const TEXT: &[u8] = b"User-agent: *\nDisallow: /private\n";

    #[test]
    fn every_supported_coding_decodes_whatever_the_chunking() {
        use Coding::{Deflate, Gzip};
        let cases: Vec<(Vec<Coding>, Vec<u8>)> = vec![
            (vec![], TEXT.to_vec()),
            (vec![Gzip], gzip(TEXT)),
            (vec![Deflate], zlib(TEXT)),
            (vec![Deflate], raw_deflate(TEXT)),
            (vec![Gzip, Gzip], gzip(&gzip(TEXT))),
            (vec![Deflate, Gzip], gzip(&zlib(TEXT))),
            (vec![Gzip, Deflate, Gzip], gzip(&zlib(&gzip(TEXT)))),
            // Two gzip members are one valid gzip body.
            (vec![Gzip], [gzip(&TEXT[..10]), gzip(&TEXT[10..])].concat()),
        ];
        for (codings, body) in cases {
            for step in [1, 2, 3, 7, 64, body.len()] {
                assert_eq!(
                    decode(&codings, &body, step, 1000).as_deref(),
                    Ok(TEXT),
                    "{codings:?} in chunks of {step}"
                );
            }
        }
    }

    #[test]
    fn broken_streams_are_errors() {
        use Coding::{Deflate, Gzip};
        let g = gzip(TEXT);
        let z = zlib(TEXT);
        let cases: Vec<(&str, Vec<Coding>, Vec<u8>)> = vec![
            ("gzip cut short", vec![Gzip], g[..g.len() - 4].to_vec()),
            ("gzip of plain text", vec![Gzip], TEXT.to_vec()),
            (
                "gzip then garbage",
                vec![Gzip],
                [g.clone(), b"xx".to_vec()].concat(),
            ),
            ("gzip, gzip of a single gzip", vec![Gzip, Gzip], g.clone()),
            ("zlib cut short", vec![Deflate], z[..z.len() / 2].to_vec()),
            (
                "zlib then garbage",
                vec![Deflate],
                [z.clone(), b"x".to_vec()].concat(),
            ),
            ("one byte of deflate", vec![Deflate], vec![0x78]),
        ];
        for (what, codings, body) in cases {
            for step in [1, 5, body.len()] {
                assert!(
                    decode(&codings, &body, step, 1000).is_err(),
                    "{what} in chunks of {step}"
                );
            }
        }
        // No bytes at all is an empty body, whatever the coding.
        assert_eq!(decode(&[Gzip], b"", 1, 10), Ok(Vec::new()));
    }

    #[test]
    fn a_bomb_stops_at_the_cap_in_bounded_memory() {
        // 64 MiB of zeros in about 64 KiB of gzip, twice over for `gzip, gzip`.
        let zeros = vec![0u8; 64 << 20];
        let once = gzip(&zeros);
        let twice = gzip(&once);
        drop(zeros);
        for (codings, body) in [
            (vec![Coding::Gzip], &once),
            (vec![Coding::Gzip, Coding::Gzip], &twice),
        ] {
            let mut d = Decoder::new(&codings, 512_001);
            let mut fed = 0;
            let mut full = false;
            for chunk in body.chunks(64) {
                fed += chunk.len();
                if d.feed(chunk).expect("valid gzip") == Fed::Full {
                    full = true;
                    break;
                }
            }
            assert!(full, "{codings:?}: the cap was reached");
            assert!(fed < body.len(), "{codings:?}: stopped early");
            let out = d.into_body();
            assert_eq!(out.len(), 512_001);
            assert!(out.iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn a_body_that_crosses_the_cap_at_the_end_is_cut_not_broken() {
        // gzip holds the output of a write back until the next one: here the whole body comes
        // in one chunk, and only `finish` pushes it past the cap.
        let mut text = Vec::new();
        while text.len() < 515_000 {
            text.extend_from_slice(b"Disallow: /some/path/x\n");
        }
        let mut e = GzEncoder::new(Vec::new(), Compression::best());
        e.write_all(&text).expect("gzip");
        let once = e.finish().expect("gzip");
        let twice = gzip(&once);
        for (codings, body) in [
            (vec![Coding::Gzip], &once),
            (vec![Coding::Gzip, Coding::Gzip], &twice),
        ] {
            for step in [body.len(), 1024] {
                let out = decode(&codings, body, step, 512_001)
                    .unwrap_or_else(|e| panic!("{codings:?} in chunks of {step}: {e}"));
                assert_eq!(out, text[..512_001], "{codings:?} in chunks of {step}");
            }
        }
    }

    #[test]
    fn content_encoding_headers() {
        use Coding::{Deflate, Gzip};
        assert_eq!(codings(&header(&[])), Ok(vec![]));
        assert_eq!(codings(&header(&["identity"])), Ok(vec![]));
        assert_eq!(codings(&header(&["GZIP"])), Ok(vec![Gzip]));
        assert_eq!(codings(&header(&["x-gzip"])), Ok(vec![Gzip]));
        assert_eq!(codings(&header(&["gzip, gzip"])), Ok(vec![Gzip, Gzip]));
        assert_eq!(
            codings(&header(&["deflate", " identity , gzip"])),
            Ok(vec![Deflate, Gzip])
        );
        for bad in [
            "br",
            "compress",
            "zstd",
            "gzip, br",
            "x-compress",
            "gzip;q=1",
        ] {
            let e = codings(&header(&[bad])).expect_err(bad);
            assert!(e.starts_with("unsupported content encoding"), "{bad}: {e}");
        }
        let e = codings(&header(&["gzip, gzip, gzip, gzip"])).expect_err("four");
        assert!(e.contains("at most 3"), "{e}");
    }

    #[test]
    fn zlib_headers() {
        assert!(is_zlib_header(0x78, 0x9c));
        assert!(is_zlib_header(0x78, 0x01));
        assert!(is_zlib_header(0x78, 0xda));
        assert!(!is_zlib_header(0x78, 0x9d));
        let raw = raw_deflate(TEXT);
        assert!(!is_zlib_header(raw[0], raw[1]));
    }
}
