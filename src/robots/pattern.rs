//! Path patterns: percent-normalisation and matching with `*` and a final `$`
//! ([RFC 9309 §2.2.2–2.2.3]).
//!
//! A pattern is compiled once into its canonical text (without the final `$`) plus two flags.
//! In the canonical text a raw `*` is always the wildcard: in [`Mode::Rfc`] a literal star is
//! written `%2A` on both sides (pattern and URL), and a literal dollar `%24`. Matching is a
//! prefix or equality test for plain patterns and a leftmost-first segment search for patterns
//! with wildcards, which is exact for `*`-only globs and linear in the path length per segment.
//! No regex, no backtracking.
//!
//! [RFC 9309 §2.2.2–2.2.3]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.2.2

use super::canonical::*;
use super::search::find;
use super::Mode;

/// `Compiled::stars` of a text with this many `*` or more: its minimum length is then taken
/// as 0, a weaker prefilter that is still right.
const STARS_UNKNOWN: u16 = u16::MAX;

/// A compiled pattern: its canonical text lives in the owner's text arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Compiled {
    /// Byte range of the canonical text (final `$` removed) in the arena.
    pub start: u32,
    pub len: u32,
    /// The pattern ended with `$`: the path must end where the pattern does.
    pub anchored: bool,
    /// The canonical text holds at least one `*`.
    pub wildcard: bool,
    /// How many `*` the text holds, [`STARS_UNKNOWN`] from that many on: with `len`, how many
    /// literal bytes a matching path has at least ([`Compiled::min_len`]). Kept in what was
    /// padding after the flags, so that a matcher slot (this and a rule index) is 28 bytes.
    stars: u16,
    /// [`byte_mask`] of the literal bytes (the text without `*`): its 32 bits.
    need: u32,
    /// How specific the pattern is: its octets, `*` and the final `$` included. In
    /// `Mode::Google` these are the octets of the escaped pattern, as google/robotstxt counts
    /// them. In `Mode::Rfc` an ASCII character counts one octet however it is written (`%2A`
    /// and `*`, `%62` and `b` are the same character), a non-ASCII byte three (its `%XX`).
    pub priority: u32,
}

/// The [`byte_mask`] of the bytes of `text` other than `*` (which have no bit), and how many
/// `*` it holds.
fn literal_summary(text: &[u8]) -> (u64, usize) {
    (byte_mask(text), count_stars(text))
}

/// How many `*` `bytes` holds, eight bytes at a time: the exact "is zero" word test marks each
/// `*` byte with its high bit, and a multiply adds the marks up.
#[inline(always)]
fn count_stars(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // One 0x01 per `*` byte of the word.
    let marks = |c: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w) ^ (ONES * u64::from(b'*'));
        !(((x & LOW7) + LOW7) | x) >> 7 & ONES
    };
    // At most eight marks: their sum fits the top byte of the product.
    let sum = |m: u64| (m.wrapping_mul(ONES) >> 56) as usize;
    let mut chunks = bytes.chunks_exact(8);
    let mut n = 0;
    for c in &mut chunks {
        n += sum(marks(c));
    }
    let rest = chunks.remainder().len();
    if rest > 0 {
        n += match bytes.len().checked_sub(8) {
            // The last eight bytes, overlapping the last chunk: only the new bytes' marks
            // (the word's top `rest` bytes) count.
            Some(last) => sum(marks(&bytes[last..]) >> (8 * (8 - rest))),
            None => bytes.iter().filter(|&&b| b == b'*').count(),
        };
    }
    n
}

/// Compiles `value` (an `allow`/`disallow` value) and returns the compiled pattern, with the
/// position of the first `$` that is not at the end (an ordinary character there), if any, and
/// whether `value` holds a control byte (below 0x20, or DEL).
///
/// The canonical text goes into `arena`, except when the arena already holds it at
/// `written_at`, where the caller stored `value` as [`String::from_utf8_lossy`] writes it:
/// most patterns are canonical as written, and then the two share their bytes. Canonical text
/// is always ASCII. `scratch` is working space, reused across calls.
///
/// Always inlined (into the parser's rule code): a call, its eight arguments and the result
/// copied back cost about 45 instructions a rule (5 M of the corpus parse).
#[inline(always)]
pub(crate) fn compile(
    value: &[u8],
    mode: Mode,
    arena: &mut String,
    written_at: Option<u32>,
    scratch: &mut Vec<u8>,
) -> (Compiled, Option<usize>, bool) {
    let (body, anchored) = match value.split_last() {
        Some((b'$', body)) => (body, true),
        _ => (value, false),
    };
    // Most patterns are already canonical: one table scan, and the text is the body.
    let plain_table = match mode {
        Mode::Rfc => &PLAIN_RFC_SCAN,
        Mode::Google => &PLAIN_GOOGLE_SCAN,
    };
    // One pass ORs the bytes' classes and sums up every byte for the prefilter (`*` adds
    // nothing to the sum: see `byte_bit`), where testing each byte for `*` as well cost twice
    // the instructions (about 5 M of the corpus parse).
    let (mut need, classes) = summarize(body, plain_table);
    let plain = classes & CHANGES == 0;
    let mut stars = 0usize;
    if plain && classes & STAR != 0 {
        // `*` has no summary bit, so only the stars' count is left, taken a word at a time (a
        // second byte-by-byte summary cost 1 M instructions of the corpus parse).
        stars = count_stars(body);
    }
    // `$` is never plain, so a plain body has no literal `$`.
    let dollar = if plain {
        None
    } else {
        memchr::memchr(b'$', body)
    };
    let text: &[u8] = match mode {
        _ if plain => body,
        Mode::Rfc => {
            scratch.clear();
            canonical_rfc(body, Side::Pattern, scratch);
            scratch
        }
        Mode::Google => {
            scratch.clear();
            canonical_google(body, scratch);
            scratch
        }
    };
    let octets = match mode {
        Mode::Google => text.len(),
        // Every escape left in canonical RFC text is `%XX` with upper-case hex.
        Mode::Rfc if plain => text.len(),
        Mode::Rfc => {
            // A pass over byte pairs, where a search per `%` cost 45 instructions an escape
            // (texts that need a canonical form are mostly escapes).
            let ascii_escapes = text
                .windows(2)
                .filter(|w| w[0] == b'%' && w[1] < b'8')
                .count();
            text.len() - 2 * ascii_escapes
        }
    };
    if !plain {
        (need, stars) = literal_summary(text);
    }
    // A plain body is ASCII and a prefix of `value`, which the caller stored at `written_at`:
    // shared without comparing (a call to `memcmp` per rule, 2 M instructions of the corpus
    // parse).
    let shared = written_at.filter(|&at| {
        plain
            || arena
                .as_bytes()
                .get(at as usize..)
                .is_some_and(|t| t.starts_with(text))
    });
    debug_assert!(shared.is_none_or(|at| arena
        .as_bytes()
        .get(at as usize..)
        .is_some_and(|t| t.starts_with(text))));
    let start = match shared {
        Some(at) => at as usize,
        None => {
            let at = arena.len();
            // ASCII: the plain check (a word at a time for ASCII) passes, and the lossy
            // decoding, slower, is only there so that nothing can panic.
            match std::str::from_utf8(text) {
                Ok(text) => arena.push_str(text),
                Err(_) => arena.push_str(&String::from_utf8_lossy(text)),
            }
            at
        }
    };
    let compiled = Compiled {
        start: start as u32,
        len: text.len() as u32,
        anchored,
        wildcard: stars > 0,
        need: need as u32,
        stars: u16::try_from(stars).unwrap_or(STARS_UNKNOWN),
        priority: (octets + usize::from(anchored)) as u32,
    };
    // A final `$` is no control byte: the body's answer is the value's.
    (compiled, dollar, classes & CONTROL != 0)
}

/// [`compile`] of a value that is canonical as written (no `%`, `$` but a final one, control
/// or non-ASCII byte, nor one the mode's canonical form changes: 98% of the corpus's rules),
/// whose value the caller stores at `start` (the canonical text and the final `$` are then
/// the value as written, shared); `None` for any other value, left to [`compile`]. One scan
/// of the bytes gives both the answer and the summary; without a literal `$` or a control
/// byte there is nothing to report.
#[inline(always)]
pub(crate) fn compile_plain(value: &[u8], mode: Mode, start: u32) -> Option<Compiled> {
    let (body, anchored) = match value.split_last() {
        Some((b'$', body)) => (body, true),
        _ => (value, false),
    };
    let table = match mode {
        Mode::Rfc => &PLAIN_RFC_SCAN,
        Mode::Google => &PLAIN_GOOGLE_SCAN,
    };
    let (need, classes) = summarize_value(body, table);
    if classes & !STAR != 0 {
        return None;
    }
    let stars = if classes & STAR != 0 {
        count_stars(body)
    } else {
        0
    };
    Some(Compiled {
        start,
        len: body.len() as u32,
        anchored,
        wildcard: stars > 0,
        stars: u16::try_from(stars).unwrap_or(STARS_UNKNOWN),
        need: need as u32,
        // A plain text's octets are its bytes, in both modes; the final `$` counts one.
        priority: value.len() as u32,
    })
}

/// [`summarize`] for a rule's value: sixteen bytes a step, then eight, and a tail of one to
/// seven bytes taken as the last eight bytes again (an OR of a byte twice changes nothing),
/// where a byte loop cost up to 28 instructions a rule.
#[inline(always)]
fn summarize_value(bytes: &[u8], table: &[u64; 256]) -> (u64, u8) {
    let mut acc = 0u64;
    let mut or_all = |chunk: &[u8]| {
        for &b in chunk {
            acc |= table[usize::from(b)];
        }
    };
    match bytes.len().checked_sub(8) {
        Some(last) => {
            let mut chunks = bytes.chunks_exact(16);
            for chunk in &mut chunks {
                or_all(chunk);
            }
            let rest = chunks.remainder().len();
            if rest > 8 {
                or_all(&bytes[bytes.len() - rest..][..8]);
            }
            if rest > 0 {
                or_all(&bytes[last..]);
            }
        }
        None => or_all(bytes),
    }
    (acc & u64::from(u32::MAX), (acc >> 32) as u8)
}

#[cfg(test)]
mod compile_tests {
    use proptest::prelude::*;

    use super::*;

    /// [`compile`] without its fast paths: every value canonicalised, summed up and looked
    /// for in the arena.
    fn compile_naive(
        value: &[u8],
        mode: Mode,
        arena: &mut String,
        written_at: Option<u32>,
    ) -> (Compiled, Option<usize>) {
        let (body, anchored) = match value.split_last() {
            Some((b'$', body)) => (body, true),
            _ => (value, false),
        };
        let dollar = memchr::memchr(b'$', body);
        let mut text = Vec::new();
        match mode {
            Mode::Rfc => canonical_rfc(body, Side::Pattern, &mut text),
            Mode::Google => canonical_google(body, &mut text),
        }
        let octets = match mode {
            Mode::Google => text.len(),
            Mode::Rfc => {
                let ascii_escapes = memchr::memchr_iter(b'%', &text)
                    .filter(|&i| text.get(i + 1).is_some_and(|&h| h < b'8'))
                    .count();
                text.len() - 2 * ascii_escapes
            }
        };
        let stars = text.iter().filter(|&&b| b == b'*').count();
        let need = byte_mask(
            &text
                .iter()
                .copied()
                .filter(|&b| b != b'*')
                .collect::<Vec<_>>(),
        );
        let shared = written_at.filter(|&at| arena.as_bytes()[at as usize..].starts_with(&text));
        let start = match shared {
            Some(at) => at as usize,
            None => {
                let at = arena.len();
                arena.push_str(std::str::from_utf8(&text).expect("canonical text is ASCII"));
                at
            }
        };
        let compiled = Compiled {
            start: start as u32,
            len: text.len() as u32,
            anchored,
            wildcard: stars > 0,
            need: need as u32,
            stars: u16::try_from(stars).unwrap_or(STARS_UNKNOWN),
            priority: (octets + usize::from(anchored)) as u32,
        };
        // A `$` is reported only when the body is not canonical as written.
        (compiled, dollar)
    }

    /// [`compile_plain`] against [`compile`] for `value` stored at `at` in `arena` (as the
    /// parser stores it): when the fast path answers, it is what the general path gives,
    /// with nothing to report and nothing added to the arena. Whether it answered.
    fn plain_agrees(value: &[u8], mode: Mode) -> bool {
        let mut arena = String::from("x");
        let at = arena.len() as u32;
        arena.push_str(&String::from_utf8_lossy(value));
        let before = arena.clone();
        let Some(fast) = compile_plain(value, mode, at) else {
            return false;
        };
        let (general, dollar, control) =
            compile(value, mode, &mut arena, Some(at), &mut Vec::new());
        assert_eq!(fast, general, "{value:?} {mode:?}");
        assert_eq!((dollar, control), (None, false), "{value:?} {mode:?}");
        assert_eq!(arena, before, "{value:?} {mode:?}");
        true
    }

    /// The fast path on every rule value of the bench corpus (when it is there) and of the
    /// test files, in both modes: it answers for nearly all of them, and as the general path.
    #[test]
    fn the_plain_path_agrees_with_compile_on_real_values() {
        let mut bodies: Vec<Vec<u8>> = Vec::new();
        let corpus = match std::env::var_os("CRAWLGATE_BENCH_CORPUS") {
            Some(dir) => std::path::PathBuf::from(dir),
            None => std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../shared/corpus/robots-bench"),
        };
        let testdata = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        for dir in [
            corpus.join("robotfiles"),
            testdata.join("audit/real"),
            testdata.join("diagnostics"),
        ] {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                bodies.extend(std::fs::read(entry.path()));
            }
        }
        let (mut values, mut plain) = (0usize, 0usize);
        for body in &bodies {
            let robots = crate::robots::Robots::parse_with(
                body,
                &crate::robots::Options::mode(Mode::Google),
            )
            .robots;
            for rule in (0..robots.rule_count()).filter_map(|i| robots.rule(i)) {
                let value = rule.text.value().as_bytes();
                for mode in [Mode::Rfc, Mode::Google] {
                    values += 1;
                    plain += usize::from(plain_agrees(value, mode));
                }
            }
        }
        // The test files alone hold a few hundred values; most are plain.
        assert!(
            values > 200 && plain * 10 > values * 8,
            "{plain} of {values}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]
        /// The fast path answers as the general path, on any bytes; and answers for every
        /// value made of bytes that are canonical as written.
        #[test]
        fn the_plain_path_agrees_with_compile(
            value in prop::collection::vec(prop::sample::select(b"/aZj*$%2fF9#?\x20\x7f\xc3\xa9\xff\x01".to_vec()), 0..40),
            plain_value in "[/a-zA-Z0-9._~*?=&-]{0,40}[$]?",
            long in 0usize..4,
        ) {
            for mode in [Mode::Rfc, Mode::Google] {
                plain_agrees(&value, mode);
                let mut plain_value = plain_value.clone();
                for _ in 0..long {
                    plain_value.insert_str(0, "/abc*defgh");
                }
                prop_assert!(plain_agrees(plain_value.as_bytes(), mode), "{:?}", plain_value);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]
        /// `compile` gives what the naive version gives, stored as the value as written
        /// (lossily, as the parser stores it) or not stored at all.
        #[test]
        fn agrees_with_the_naive_version(
            value in prop::collection::vec(prop::sample::select(b"/aZj*$%2fF9#?\x20\x7f\xc3\xa9\xff".to_vec()), 0..40),
            long in 0usize..20,
            google in any::<bool>(),
            stored in any::<bool>(),
        ) {
            let mode = if google { Mode::Google } else { Mode::Rfc };
            // Sometimes long, and with many bytes of one kind.
            let mut value = value;
            for _ in 0..long {
                value.extend_from_slice(b"/ab*");
            }
            let mut arena = String::from("x");
            let written_at = stored.then(|| {
                let at = arena.len() as u32;
                arena.push_str(&String::from_utf8_lossy(&value));
                at
            });
            let mut naive_arena = arena.clone();
            let (got, dollar, control) =
                compile(&value, mode, &mut arena, written_at, &mut Vec::new());
            let (want, want_dollar) = compile_naive(&value, mode, &mut naive_arena, written_at);
            prop_assert_eq!(got, want);
            prop_assert_eq!(arena, naive_arena);
            prop_assert_eq!(dollar, want_dollar);
            prop_assert_eq!(control, value.iter().any(|&b| b < 0x20 || b == 0x7f));
        }
    }
}

impl Compiled {
    /// Does this pattern, whose canonical text is `text`, match `path` (canonical, with
    /// [`byte_mask`] `mask`)?
    #[inline]
    pub(crate) fn matches(&self, text: &[u8], path: &[u8], mask: u64) -> bool {
        self.may_match(path, mask) && matches(text, self.anchored, self.wildcard, path)
    }

    /// The prefilter: `false` when `path` (with [`byte_mask`] `mask`) lacks one of the
    /// pattern's literal bytes or is shorter than its literal bytes.
    #[inline]
    pub(crate) fn may_match(&self, path: &[u8], mask: u64) -> bool {
        self.need() & !mask == 0 && self.min_len() as usize <= path.len()
    }

    /// How many literal bytes a matching path has at least (0 when the stars were too many to
    /// count: see [`STARS_UNKNOWN`]).
    #[inline]
    pub(crate) fn min_len(&self) -> u32 {
        let stars = match self.stars {
            STARS_UNKNOWN => self.len,
            n => u32::from(n),
        };
        self.len - stars
    }

    /// How many `*` the text holds, [`STARS_UNKNOWN`] from that many on.
    #[inline]
    pub(crate) fn stars(&self) -> u16 {
        self.stars
    }

    /// [`byte_mask`] of the literal bytes (the text without `*`).
    #[inline]
    pub(crate) fn need(&self) -> u64 {
        u64::from(self.need)
    }
}

/// Does `pattern` (canonical text) match `path` (canonical)?
#[inline]
pub(crate) fn matches(pattern: &[u8], anchored: bool, wildcard: bool, path: &[u8]) -> bool {
    if !wildcard {
        return literal(pattern, anchored, path);
    }
    glob(pattern, anchored, path, |_| true)
}

/// [`matches`] for a check, which asks many patterns about one path: a wildcard pattern is
/// first tested against the path's byte pairs.
#[inline]
pub(crate) fn matches_path(
    pattern: &[u8],
    anchored: bool,
    wildcard: bool,
    path: &mut Pairs<'_>,
) -> bool {
    if !wildcard {
        return literal(pattern, anchored, path.path);
    }
    glob_path(pattern, anchored, path)
}

/// The wildcard half of [`matches_path`], out of line: kept out of the loop over the rules,
/// which most checks finish without it.
#[inline(never)]
fn glob_path(pattern: &[u8], anchored: bool, path: &mut Pairs<'_>) -> bool {
    let bytes = path.path;
    glob(pattern, anchored, bytes, |segments| path.may_hold(segments))
}

#[inline(always)]
fn literal(pattern: &[u8], anchored: bool, path: &[u8]) -> bool {
    if anchored {
        path == pattern
    } else {
        path.starts_with(pattern)
    }
}

/// The byte pairs a path holds, hashed into a 64-bit set, built on the first question.
///
/// Nearly every wildcard pattern a check tries fails (on the bench corpus, one pass of
/// `benches/tools/workload.rs check`: 669 matches in 44,282 tries), and most hold a pair of adjacent
/// literal bytes that the path lacks (`*/minipip` against `/en/shop/…`): of the 40,647 tries
/// whose prefix fit and whose pattern holds a pair, a bit test per pair turned away 33,804,
/// where the search for their segments cost a few hundred instructions each. The set
/// costs a few instructions per byte of the path, once per check, and only in the checks that
/// reach such a pattern. (A 256-bit set rejected a few more and cost more than it saved: 2.2 M
/// instructions more per check pass, `benches/tools/workload.rs`.)
pub(crate) struct Pairs<'p> {
    path: &'p [u8],
    set: Option<u64>,
}

impl<'p> Pairs<'p> {
    /// See [`Pairs::may_hold`].
    const LOOK: usize = 64;

    /// The pairs of `path` (canonical), not yet counted.
    pub(crate) fn new(path: &'p [u8]) -> Pairs<'p> {
        Pairs { path, set: None }
    }

    /// The path.
    #[inline(always)]
    pub(crate) fn path(&self) -> &'p [u8] {
        self.path
    }

    /// The set's bit for the pair `a`, `b`. (Of the hashes tried, this one measured best:
    /// `a << 3 ^ a >> 3 ^ b`, which spreads `a`'s low six bits evenly, cost 5.8 M
    /// instructions more per pass.)
    #[inline(always)]
    fn bit(a: u8, b: u8) -> u8 {
        (a.rotate_left(3) ^ b) & 63
    }

    fn count(path: &[u8]) -> u64 {
        let mut set = 0u64;
        for pair in path.windows(2) {
            set |= 1 << Pairs::bit(pair[0], pair[1]);
        }
        set
    }

    /// `false` when `segments` (a pattern after its first `*`) holds two adjacent literal
    /// bytes (no `*` between them) that are nowhere adjacent in the path: then the pattern
    /// cannot match. `true` says nothing. Only the first [`Pairs::LOOK`] bytes are looked at,
    /// so that a long pattern without pairs (`*a*a*a…`) costs no more here than a short one.
    #[inline]
    pub(crate) fn may_hold(&mut self, segments: &[u8]) -> bool {
        let mut prev = b'*';
        for &b in segments.get(..Pairs::LOOK).unwrap_or(segments) {
            if prev != b'*' && b != b'*' {
                let path = self.path;
                let set = self.set.get_or_insert_with(|| Pairs::count(path));
                if *set & 1 << Pairs::bit(prev, b) == 0 {
                    return false;
                }
            }
            prev = b;
        }
        true
    }
}

/// `*`-glob matching: the first segment is a prefix, middle segments are found leftmost-first
/// (which is optimal for `*`-only globs), and with `anchored` the last segment must be a suffix
/// of what is left.
///
/// Nearly every call is a miss (on the bench corpus, 669 matches in 44,282 calls), so the
/// cheapest tests come first: the prefix, then an anchored pattern's suffix, which must end
/// the path whatever the middle segments do; they are then looked for before it.
///
/// `may_hold` is asked about the pattern after its prefix (see [`Pairs::may_hold`]) once the
/// prefix fits; `false` ends the match.
#[inline]
fn glob(pattern: &[u8], anchored: bool, path: &[u8], may_hold: impl FnOnce(&[u8]) -> bool) -> bool {
    let (first, mut segments) = match pattern.iter().position(|&b| b == b'*') {
        Some(star) => (&pattern[..star], &pattern[star + 1..]),
        // No `*` after all (not reached: callers pass `wildcard`).
        None => return literal(pattern, anchored, path),
    };
    let Some(mut rest) = path.strip_prefix(first) else {
        return false;
    };
    if !may_hold(segments) {
        return false;
    }
    if anchored {
        let (middle, last) = match segments.iter().rposition(|&b| b == b'*') {
            Some(star) => (&segments[..star], &segments[star + 1..]),
            None => (&[][..], segments),
        };
        // The leftmost-first search of the middle segments within what the suffix leaves
        // finds them exactly when a search of the whole rest does and ends before the suffix.
        match rest.strip_suffix(last) {
            Some(before) => rest = before,
            None => return false,
        }
        segments = middle;
    }
    for segment in segments.split(|&b| b == b'*') {
        match find(rest, segment) {
            Some(at) => rest = &rest[at + segment.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::super::search::find_byte;
    use super::*;

    /// The summary has 32 bits (a slot keeps it in a `u32`) and is what its docs say.
    #[test]
    fn byte_bits_fit_a_u32() {
        for b in 0..=u8::MAX {
            let bit = byte_bit(b);
            assert!(bit.count_ones() <= 1 && bit < 1 << 32, "{b}: {bit:#x}");
            assert_eq!(bit, byte_bit(b.to_ascii_lowercase()), "{b}");
        }
        assert_eq!(byte_bit(b'/'), 0);
        assert_eq!(byte_bit(b'*'), 0);
        let letters = byte_mask(b"abcdefghijklmnopqrstuvwxyz");
        assert_eq!(letters.count_ones(), 26);
        assert_eq!(byte_mask(b"0123456789") & letters, 0);
        assert_eq!(byte_bit(b'_') & (letters | byte_mask(b"0123456789")), 0);
    }

    /// The one-table scans give what the byte summary and the class tables give apart, for
    /// every byte alone and in a long run (past the eight-byte steps).
    #[test]
    fn summaries_are_the_byte_mask_and_the_classes() {
        let tables: [(&[u64; 256], &[u8; 256]); 4] = [
            (&SCAN, &CLASS),
            (&SCAN_OR_FRAGMENT, &CLASS_OR_FRAGMENT),
            (&PLAIN_RFC_SCAN, &PLAIN_RFC),
            (&PLAIN_GOOGLE_SCAN, &PLAIN_GOOGLE),
        ];
        let all: Vec<u8> = (0..=u8::MAX).collect();
        for (scan, class) in tables {
            for b in 0..=u8::MAX {
                assert_eq!(
                    summarize(&[b], scan),
                    (byte_bit(b), class[usize::from(b)]),
                    "{b}"
                );
            }
            for len in [0, 7, 8, 9, 100, 256] {
                let bytes = &all[256 - len..];
                let classes = bytes.iter().fold(0, |c, &b| c | class[usize::from(b)]);
                assert_eq!(summarize(bytes, scan), (byte_mask(bytes), classes), "{len}");
            }
        }
    }

    /// The value scan gives what [`summarize`] gives, at every length around its steps.
    #[test]
    fn value_summaries_are_the_summaries() {
        let all: Vec<u8> = (0..=u8::MAX).rev().collect();
        for table in [&PLAIN_RFC_SCAN, &PLAIN_GOOGLE_SCAN, &SCAN] {
            for len in 0..60 {
                for start in [0, 3, 60, 196] {
                    let bytes = &all[start..start + len];
                    assert_eq!(
                        summarize_value(bytes, table),
                        summarize(bytes, table),
                        "{bytes:?}"
                    );
                }
            }
        }
    }

    fn canon_pat(p: &str, mode: Mode) -> (String, bool) {
        let mut arena = String::new();
        let (c, _, _) = compile(p.as_bytes(), mode, &mut arena, None, &mut Vec::new());
        (arena, c.anchored)
    }

    fn canon_url(p: &str) -> String {
        String::from_utf8(canonical_path(p, Mode::Rfc).0.into_owned()).unwrap()
    }

    #[test]
    fn rfc_canonical_forms() {
        assert_eq!(canon_pat("/foo/bar/ツ", Mode::Rfc).0, "/foo/bar/%E3%83%84");
        assert_eq!(canon_pat("/foo/bar/%62%61%7A", Mode::Rfc).0, "/foo/bar/baz");
        assert_eq!(canon_pat("/a%2a*b$", Mode::Rfc), ("/a%2A*b".into(), true));
        assert_eq!(canon_pat("/a$b", Mode::Rfc).0, "/a%24b");
        assert_eq!(canon_pat("/100%", Mode::Rfc).0, "/100%25");
        assert_eq!(canon_pat("/%2f%3a%25", Mode::Rfc).0, "//:%25");
        assert_eq!(canon_url("/foo/bar/ツ"), "/foo/bar/%E3%83%84");
        assert_eq!(canon_url("/a*b$"), "/a%2Ab%24");
        assert_eq!(canon_url("/a b"), "/a%20b");
        assert_eq!(canon_url("/%7euser"), "/~user");
    }

    #[test]
    fn google_escapes_only_the_pattern() {
        assert_eq!(
            canon_pat("/foo/bar/ツ", Mode::Google).0,
            "/foo/bar/%E3%83%84"
        );
        assert_eq!(canon_pat("/%62%61%7a", Mode::Google).0, "/%62%61%7A");
        assert_eq!(canon_pat("/a$b", Mode::Google).0, "/a$b");
        assert!(matches!(
            canonical_path("/ツ", Mode::Google).0,
            Cow::Borrowed(_)
        ));
    }

    /// The word-at-a-time searches against a naive search: every needle length from 1 to 20
    /// (the long ones take the other paths), at every offset of haystacks around the word
    /// size, with the needle's first and last bytes also scattered as decoys.
    #[test]
    fn find_agrees_with_a_naive_search() {
        let naive = |h: &[u8], n: &[u8]| h.windows(n.len()).position(|w| w == n);
        for len in 0..40usize {
            for n in 1..=20usize {
                let needle: Vec<u8> = (0..n).map(|i| b'a' + (i % 7) as u8).collect();
                for at in 0..=len.saturating_sub(n) {
                    // Decoys: the first and last bytes everywhere, and 0x01 bytes, which a
                    // word's zero test can flag falsely.
                    let mut hay: Vec<u8> = (0..len)
                        .map(|i| [needle[0], needle[n - 1], 1, b'x'][i % 4])
                        .collect();
                    if at + n <= len {
                        hay[at..at + n].copy_from_slice(&needle);
                    }
                    assert_eq!(
                        find(&hay, &needle),
                        naive(&hay, &needle),
                        "{hay:?} {needle:?}"
                    );
                    if n == 1 {
                        assert_eq!(find_byte(&hay, needle[0]), naive(&hay, &needle));
                    }
                }
            }
        }
        // Past the first 64 bytes, `find_byte` hands over to memchr.
        for len in 0..150usize {
            for at in 0..=len {
                let mut hay = vec![b'x'; len];
                if let Some(b) = hay.get_mut(at) {
                    *b = b'a';
                }
                assert_eq!(
                    find_byte(&hay, b'a'),
                    (at < len).then_some(at),
                    "{len} {at}"
                );
            }
        }
        assert_eq!(find(b"", b""), Some(0));
        assert_eq!(find(b"ab", b"abc"), None);
    }

    proptest::proptest! {
        /// The byte-pair test never turns a match away: through `matches_path`, every pattern
        /// gives the answer of `matches` (the pairs of a real match are in the path).
        #[test]
        fn the_pair_test_only_rejects_misses(
            pattern in "[ab/.*]{0,12}",
            anchored: bool,
            path in "[ab/.]{0,24}",
        ) {
            let (pattern, path) = (pattern.as_bytes(), path.as_bytes());
            let wildcard = pattern.contains(&b'*');
            let mut pairs = Pairs::new(path);
            proptest::prop_assert_eq!(
                matches_path(pattern, anchored, wildcard, &mut pairs),
                matches(pattern, anchored, wildcard, path)
            );
        }
    }

    /// The pair test rejects what it should: a pattern with a pair the path lacks.
    #[test]
    fn the_pair_test_rejects_a_missing_pair() {
        let mut pairs = Pairs::new(b"/en/shop/item");
        assert!(!pairs.may_hold(b"/minipip"));
        assert!(pairs.may_hold(b"/shop/*item"));
        // A pair spanning a `*` is no pair.
        assert!(pairs.may_hold(b"n*x"));
    }

    #[test]
    fn count_stars_agrees_with_a_byte_count() {
        let naive = |v: &[u8]| v.iter().filter(|&&b| b == b'*').count();
        for len in 0..40 {
            for at in 0..len {
                for b in [b'*', b'j', 0x2a ^ 0x80, b'+', 0, 0xff] {
                    let mut v: Vec<u8> = (0..len)
                        .map(|i| if i % 3 == 0 { b'*' } else { b'a' })
                        .collect();
                    v[at] = b;
                    assert_eq!(count_stars(&v), naive(&v), "{v:?}");
                    v[at..].fill(b'*');
                    assert_eq!(count_stars(&v), naive(&v), "{v:?}");
                }
            }
        }
    }

    #[test]
    fn glob_cases() {
        // `p` is canonical text: the final `$` is the `a` flag.
        let m = |p: &str, a: bool, path: &str| matches(p.as_bytes(), a, true, path.as_bytes());
        assert!(m("/foo/*/qux", false, "/foo/bar/qux"));
        assert!(m("/foo/*/qux", false, "/foo/bar/qux/more"));
        assert!(!m("/foo/*/qux", false, "/foo/quz"));
        assert!(m("*.gif", true, "/a/b.gif"));
        assert!(!m("*.gif", true, "/a/b.gif?x"));
        assert!(m("/a*", true, "/abc"));
        assert!(m("*", false, "/"));
        assert!(m("/*a*a", true, "/aa"));
        assert!(!m("/*a*a", true, "/a"));
        assert!(m("/*ab*ab", true, "/xabab"));
        assert!(!m("/*ab*ab", true, "/xab"));
    }
}
