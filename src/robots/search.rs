//! Substring search for the short literal segments of wildcard patterns: a word at a time where
//! `memchr`'s set-up would cost more than the search, `memmem` beyond.

use memchr::memmem;

use super::swar;

/// Leftmost `needle` in `haystack`. Needles of up to 16 bytes (nearly all: `.pdf`, `?sid=`,
/// `/print/`) are found a word at a time ([`find_byte`], [`find_short`]), which costs less
/// than a `memchr` call per candidate in a path of a few dozen bytes; a longer needle with at
/// most [`FEW_PLACES`] places to be in the haystack by memchr on its first byte and a compare,
/// cheaper than building a memmem finder per call (about a thousand instructions). Each is
/// bounded by `haystack.len() × 16` or by `FEW_PLACES` compares.
#[inline]
pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    match needle.len() {
        0 => Some(0),
        n if n > haystack.len() => None,
        1 => find_byte(haystack, needle[0]),
        n if n <= 16 => find_short(haystack, needle),
        n if haystack.len() - n < FEW_PLACES => {
            let mut from = 0;
            while from + n <= haystack.len() {
                let i = from + memchr::memchr(needle[0], &haystack[from..=haystack.len() - n])?;
                if &haystack[i..i + n] == needle {
                    return Some(i);
                }
                from = i + 1;
            }
            None
        }
        _ => memmem::find(haystack, needle),
    }
}

/// Leftmost `byte` in `haystack`: its first 64 bytes a word at a time, where `memchr`'s set-up
/// costs more than the search (a path is short, and the next segment of a pattern is usually
/// near: a rule `*a*a*a…` against `/aaa…` cost 25 instructions a segment with `memchr`), and
/// `memchr` beyond.
#[inline]
pub(super) fn find_byte(haystack: &[u8], byte: u8) -> Option<usize> {
    let want = swar::splat(byte);
    let mut at = 0;
    while let Some(word) = swar::load(haystack, at) {
        let hits = swar::zero_bytes(word ^ want);
        if hits != 0 {
            return Some(at + swar::first(hits));
        }
        at += 8;
        if at == 64 {
            let rest = haystack.get(at..).unwrap_or_default();
            return memchr::memchr(byte, rest).map(|i| at + i);
        }
    }
    let tail = haystack.get(at..).unwrap_or_default();
    tail.iter().position(|&b| b == byte).map(|i| at + i)
}

/// Leftmost `needle` (2 to 16 bytes, no longer than `haystack`) in `haystack`: eight start
/// positions per step are tested for the needle's first and last bytes at once, and only the
/// positions where both fit are compared.
#[inline]
pub(super) fn find_short(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let n = needle.len();
    let (Some(&head), Some(&tail)) = (needle.first(), needle.last()) else {
        return Some(0);
    };
    let (heads, tails) = (swar::splat(head), swar::splat(tail));
    let fits = |at: usize| haystack.get(at..at + n) == Some(needle);
    let mut at = 0;
    // The words of start positions `at..at + 8` and of their last bytes.
    while let (Some(starts), Some(ends)) =
        (swar::load(haystack, at), swar::load(haystack, at + n - 1))
    {
        // A falsely flagged position (see `swar`) fails the compare; a real one is never missed.
        let mut both = swar::zero_bytes(starts ^ heads) & swar::zero_bytes(ends ^ tails);
        while both != 0 {
            let candidate = at + swar::first(both);
            if fits(candidate) {
                return Some(candidate);
            }
            both &= both - 1;
        }
        at += 8;
    }
    // Fewer than eight start positions are left.
    let last = haystack.len().checked_sub(n)?;
    (at..=last).find(|&i| haystack[i] == head && haystack[i + n - 1] == tail && fits(i))
}

/// See [`find`].
pub(super) const FEW_PLACES: usize = 64;
