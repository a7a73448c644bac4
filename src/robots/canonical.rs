//! The canonical form patterns and paths are compared in ([RFC 9309 §2.2.2]): percent-escapes
//! normalised in [`Mode::Rfc`], google/robotstxt's escaping in [`Mode::Google`]; and the byte
//! summaries (masks, classes) that one scan of a path gives the matcher.
//!
//! [RFC 9309 §2.2.2]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.2.2

use std::borrow::Cow;

use super::Mode;

/// What a byte needs in [`Mode::Rfc`] canonical form.
pub(super) const KEEP: u8 = 0;
pub(super) const ENCODE: u8 = 1;
pub(super) const PERCENT: u8 = 2;
/// `*` and `$`: special in patterns, encoded in URLs.
pub(super) const SPECIAL: u8 = 3;

pub(super) static CLASS: [u8; 256] = {
    let mut t = [KEEP; 256];
    let mut b = 0;
    while b < 256 {
        if b <= 0x20 || b >= 0x7F {
            t[b] = ENCODE;
        }
        b += 1;
    }
    // Characters RFC 3986 never allows raw in a URL.
    let unsafe_chars = b"\"<>\\^`{|}";
    let mut i = 0;
    while i < unsafe_chars.len() {
        t[unsafe_chars[i] as usize] = ENCODE;
        i += 1;
    }
    t[b'%' as usize] = PERCENT;
    t[b'*' as usize] = SPECIAL;
    t[b'$' as usize] = SPECIAL;
    t
};

/// [`compile`]'s byte classes: a byte that the mode's canonical form may change, and the
/// wildcard. OR-ed over a pattern, they say at once whether it is canonical as written and
/// whether it holds a `*`.
pub(super) const CHANGES: u8 = 1;
pub(super) const STAR: u8 = 2;
/// A control byte (below 0x20, or DEL), which the parser reports: found by the same pass.
pub(super) const CONTROL: u8 = 8;

/// Pattern bytes by [`compile`] class in [`Mode::Rfc`]: canonical ones and the wildcard are
/// copied unchanged.
pub(super) static PLAIN_RFC: [u8; 256] = {
    let mut t = [0; 256];
    let mut b = 0;
    while b < 256 {
        if CLASS[b] != KEEP && b != b'*' as usize {
            t[b] = CHANGES;
        }
        b += 1;
    }
    t[b'*' as usize] = STAR;
    with_controls(t)
};

/// `table` with [`CONTROL`] on control bytes.
pub(super) const fn with_controls(mut table: [u8; 256]) -> [u8; 256] {
    let mut b = 0;
    while b < 256 {
        if b < 0x20 || b == 0x7f {
            table[b] |= CONTROL;
        }
        b += 1;
    }
    table
}

/// Pattern bytes by [`compile`] class in [`Mode::Google`] (`$` counts as changed only so that
/// a plain pattern is known to hold no literal `$`).
pub(super) static PLAIN_GOOGLE: [u8; 256] = {
    let mut t = [CHANGES; 256];
    let mut b = 0;
    while b < 0x80 {
        if b != b'%' as usize && b != b'$' as usize {
            t[b] = 0;
        }
        b += 1;
    }
    t[b'*' as usize] = STAR;
    with_controls(t)
};

pub(super) const HEX: &[u8; 16] = b"0123456789ABCDEF";

#[inline]
pub(super) fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[inline]
pub(super) fn push_escaped(out: &mut Vec<u8>, b: u8) {
    out.extend_from_slice(&[b'%', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]);
}

/// Which side of the comparison a string is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Pattern,
    Url,
}

/// RFC 9309 §2.2.2 canonical form. The RFC decodes escaped unreserved characters and encodes
/// reserved ones, so every printable ASCII character is equivalent to its `%XX` escape (its
/// table matches `/foo/bar?baz=https://foo.bar` with `…https%3A%2F%2Ffoo.bar`). Canonically such
/// characters are raw: `%XX` of one is decoded, other `%XX` upper-cased, a `%` that starts no
/// escape written `%25`, and non-ASCII, control, space and unsafe bytes percent-encoded. `%`,
/// `*` and `$` stay escaped, and in a URL `*` and `$` are written `%2A`/`%24`, so that a raw `*`
/// in a pattern is always the wildcard while `%2A` in a pattern matches a literal star.
pub(super) fn canonical_rfc(input: &[u8], side: Side, out: &mut Vec<u8>) {
    let mut i = 0;
    while i < input.len() {
        // Bytes that stay as they are come in runs: copied a run at a time rather than pushed
        // one by one (a URL that needs this form has a few escapes in a long query).
        let run = input[i..]
            .iter()
            .position(|&b| CLASS[b as usize] != KEEP)
            .unwrap_or(input.len() - i);
        out.extend_from_slice(&input[i..i + run]);
        i += run;
        let Some(&b) = input.get(i) else {
            break;
        };
        match CLASS[b as usize] {
            KEEP => out.push(b),
            ENCODE => push_escaped(out, b),
            SPECIAL => {
                if side == Side::Url || b == b'$' {
                    push_escaped(out, b);
                } else {
                    out.push(b);
                }
            }
            _ => {
                // '%'
                let hi = input.get(i + 1).copied().and_then(hex_val);
                let lo = input.get(i + 2).copied().and_then(hex_val);
                match (hi, lo) {
                    (Some(h), Some(l)) => {
                        let v = (h << 4) | l;
                        if CLASS[v as usize] == KEEP {
                            out.push(v);
                        } else {
                            push_escaped(out, v);
                        }
                        i += 2;
                    }
                    _ => push_escaped(out, b'%'),
                }
            }
        }
        i += 1;
    }
}

/// google/robotstxt's `MaybeEscapePattern`: non-ASCII bytes become `%XX`, existing escapes are
/// upper-cased; nothing else changes. URLs are not touched in `Mode::Google`.
pub(super) fn canonical_google(input: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < input.len() {
        let b = input[i];
        if b == b'%' {
            if let (Some(h), Some(l)) = (
                input.get(i + 1).copied().filter(u8::is_ascii_hexdigit),
                input.get(i + 2).copied().filter(u8::is_ascii_hexdigit),
            ) {
                out.extend_from_slice(&[b'%', h.to_ascii_uppercase(), l.to_ascii_uppercase()]);
                i += 3;
                continue;
            }
            out.push(b);
        } else if b >= 0x80 {
            push_escaped(out, b);
        } else {
            out.push(b);
        }
        i += 1;
    }
}

/// A 32-bit summary of which bytes occur in `bytes` (the [`byte_bit`] of each byte). A pattern
/// whose literal bytes are not all in a path's summary cannot match it: one AND rejects most
/// rules before any comparison.
#[inline]
pub(crate) fn byte_mask(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |m, &b| m | byte_bit(b))
}

/// A byte's bit in a [`byte_mask`]: one of 32 (so that a matcher slot keeps the summary in
/// four bytes), or none. A letter's two cases share a bit, as do the digits five apart; `_`
/// has one of its own; other punctuation shares the bit of a letter that rules and paths
/// rarely hold. `/`, in every path, `*`, so that a pattern's summary is that of its literal
/// bytes whether or not its stars are left out, and bytes that paths rarely hold have none:
/// dropping a byte from the summary only lets more rules past the test, never fewer.
#[inline(always)]
pub(crate) fn byte_bit(b: u8) -> u64 {
    BYTE_BIT[usize::from(b)]
}

pub(super) const fn letter(c: u8) -> u64 {
    1 << (c - b'a')
}

pub(super) static BYTE_BIT: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0u8;
    loop {
        t[b as usize] = match b {
            b'a'..=b'z' => letter(b),
            b'A'..=b'Z' => letter(b.to_ascii_lowercase()),
            b'0'..=b'9' => 1 << (26 + (b - b'0') % 5),
            b'_' => 1 << 31,
            b'-' => letter(b'q'),
            b'.' => letter(b'z'),
            b'=' => letter(b'j'),
            b'?' => letter(b'x'),
            b'%' | b'&' | b'+' | b':' => letter(b'v'),
            _ => 0,
        };
        if b == u8::MAX {
            break;
        }
        b += 1;
    }
    t
};

/// [`CLASS`], with `#` marked: a URL's fragment starts there.
pub(super) static CLASS_OR_FRAGMENT: [u8; 256] = {
    let mut t = CLASS;
    t[b'#' as usize] |= FRAGMENT;
    t
};

/// A `#` was seen (a bit of its own: the classes use the two below it).
pub(super) const FRAGMENT: u8 = 4;

/// Each byte's [`byte_bit`] in the low 32 bits and its class in `class` above them, so that a
/// scan ORs one entry a byte rather than one of each table (two loads and two ORs a byte cost
/// 4 M instructions more of a corpus check pass).
pub(super) const fn bits_and_classes(class: &[u8; 256]) -> [u64; 256] {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = BYTE_BIT[b] | (class[b] as u64) << 32;
        b += 1;
    }
    t
}

/// [`bits_and_classes`] of [`CLASS`], [`CLASS_OR_FRAGMENT`], [`PLAIN_RFC`] and
/// [`PLAIN_GOOGLE`].
pub(super) static SCAN: [u64; 256] = bits_and_classes(&CLASS);
pub(super) static SCAN_OR_FRAGMENT: [u64; 256] = bits_and_classes(&CLASS_OR_FRAGMENT);
pub(super) static PLAIN_RFC_SCAN: [u64; 256] = bits_and_classes(&PLAIN_RFC);
pub(super) static PLAIN_GOOGLE_SCAN: [u64; 256] = bits_and_classes(&PLAIN_GOOGLE);

/// The OR of `table`'s entries (see [`bits_and_classes`]) for `bytes`: their [`byte_mask`] and
/// the OR of their classes (0: all [`KEEP`]). Always inlined: a check's first cost (a third of
/// it), and not always inlined by `#[inline]` alone.
#[inline(always)]
pub(super) fn summarize(bytes: &[u8], table: &[u64; 256]) -> (u64, u8) {
    // Eight bytes a step, OR-ing the classes rather than comparing each byte.
    let mut acc = 0u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        for &b in chunk {
            acc |= table[usize::from(b)];
        }
    }
    for &b in chunks.remainder() {
        acc |= table[usize::from(b)];
    }
    (acc & u64::from(u32::MAX), (acc >> 32) as u8)
}

/// The request path (path + params + query) in the form patterns are compared with, and its
/// [`byte_mask`]. Borrowed when nothing needs to change, which is the common case.
pub(crate) fn canonical_path(path: &str, mode: Mode) -> (Cow<'_, [u8]>, u64) {
    let (mask, dirty) = summarize(path.as_bytes(), &SCAN);
    canonical_after_scan(path.as_bytes(), mode, mask, dirty)
}

/// Whether two request paths are one under RFC 9309's percent-equivalence (`/a%62` is `/ab`,
/// an ESC byte is `%1B`).
pub(crate) fn same_request_path(a: &str, b: &str) -> bool {
    a == b || canonical_path(a, Mode::Rfc).0 == canonical_path(b, Mode::Rfc).0
}

/// A request path in canonical form, as [`canonical_path_before_fragment`] finds it.
pub(crate) struct CanonicalPath<'a> {
    /// The path + query as written, without the fragment.
    pub path: &'a str,
    /// Its canonical form.
    pub canon: Cow<'a, [u8]>,
    /// The canonical form's [`byte_mask`].
    pub mask: u64,
    /// Every byte of `path` is [`KEEP`] (no `%`, control byte, space, `\`, non-ASCII…): the
    /// form is `path` itself, and `mask` is `path`'s.
    pub plain: bool,
}

/// [`canonical_path`] of `rest` up to its first `#` (the rest of a URL from its path on), and
/// that path: the fragment is found by the same scan that canonicalisation needs, rather than
/// by a search of its own.
#[inline]
pub(crate) fn canonical_path_before_fragment(rest: &str, mode: Mode) -> CanonicalPath<'_> {
    let (mask, dirty) = summarize(rest.as_bytes(), &SCAN_OR_FRAGMENT);
    if dirty & FRAGMENT == 0 {
        let (canon, mask) = canonical_after_scan(rest.as_bytes(), mode, mask, dirty);
        return CanonicalPath {
            path: rest,
            canon,
            mask,
            plain: dirty == KEEP,
        };
    }
    let path = rest.split('#').next().unwrap_or_default();
    let (mask, dirty) = summarize(path.as_bytes(), &SCAN);
    let (canon, mask) = canonical_after_scan(path.as_bytes(), mode, mask, dirty);
    CanonicalPath {
        path,
        canon,
        mask,
        plain: dirty == KEEP,
    }
}

/// The canonical form of `bytes`, given their [`summarize`] by [`SCAN`] (a [`FRAGMENT`] bit is
/// ignored).
#[inline]
pub(super) fn canonical_after_scan(
    bytes: &[u8],
    mode: Mode,
    mask: u64,
    dirty: u8,
) -> (Cow<'_, [u8]>, u64) {
    if mode == Mode::Google || dirty & !FRAGMENT == KEEP {
        return (Cow::Borrowed(bytes), mask);
    }
    canonical_url(bytes)
}

/// The [`Mode::Rfc`] canonical form of a URL's path that needs one, and its mask: out of
/// line, as few paths need it.
#[inline(never)]
pub(super) fn canonical_url(bytes: &[u8]) -> (Cow<'_, [u8]>, u64) {
    let mut out = Vec::with_capacity(bytes.len() + 8);
    canonical_rfc(bytes, Side::Url, &mut out);
    let mask = byte_mask(&out);
    (Cow::Owned(out), mask)
}
