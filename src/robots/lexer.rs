//! One robots.txt line → key, separator, value ([RFC 9309 §2.2]).
//!
//! The line arrives without its line end. The grammar, with Google's leniency:
//!
//! ```text
//! line   = ws* [ key ws* ( ":" | blank+ ) ws* value ] ws* [ "#" anything ]
//! ```
//!
//! `ws` is space, tab, vertical tab or form feed; `blank` is space or tab. A missing colon is
//! accepted only when the line is exactly two parts separated by blanks (`disallow /x`), as
//! google/robotstxt's `GetKeyAndValueFrom` does, in both modes: the key ends at the first space
//! or tab, and the value after the blanks may hold no other space or tab. A vertical tab or form
//! feed never separates the key from the value (`Disallow\x0B/x` is not a record), since RFC
//! 9309 names only space and tab as whitespace (`WS = %x20 / %x09`) and Google's library splits
//! only there; both are still trimmed around keys and values, as Google trims every C
//! `isspace` character. Everything here is zero-copy: the parts are sub-slices of the line, so
//! the caller turns them into byte spans with [`nom::Offset`].
//!
//! [RFC 9309 §2.2]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.2

use nom::bytes::complete::{take_till1, take_while, take_while1};
use nom::IResult;

/// How the key and the value were separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Separator {
    Colon,
    /// No colon: the line was exactly two parts, separated by spaces or tabs.
    Whitespace,
}

/// What a line holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lexed<'a> {
    /// Blank, or only a comment.
    Empty,
    /// `key: value` (the value may be empty).
    Record {
        key: &'a [u8],
        sep: Separator,
        value: &'a [u8],
    },
    /// Text that is not a record: the trimmed content (comment removed).
    Invalid(&'a [u8]),
}

/// Whitespace trimmed around keys and values. RFC 9309 names only space and tab;
/// google/robotstxt also trims vertical tab and form feed (C `isspace`), which never hurts, so
/// both modes do.
#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0B | 0x0C)
}

/// What separates key and value when the colon is missing: space or tab only (RFC 9309's `WS`,
/// and the `" \t"` google/robotstxt splits at).
#[inline]
fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

type Res<'a, O> = IResult<&'a [u8], O, ()>;

fn spaces(i: &[u8]) -> Res<'_, &[u8]> {
    take_while(is_ws)(i)
}

/// `key blank+ value` on trimmed content, with no blank in `value`: the missing-colon form.
/// Vertical tabs and form feeds next to the blanks are trimmed from key and value.
fn two_parts(i: &[u8]) -> Res<'_, (&[u8], &[u8])> {
    let (i, key) = take_till1(is_blank)(i)?;
    let (value, _) = take_while1(is_blank)(i)?;
    if value.iter().any(|&b| is_blank(b)) {
        return Err(nom::Err::Error(()));
    }
    let (value, _) = spaces(value)?;
    Ok((&[], (trim_end(key), value)))
}

/// Splits one line (without its line end) into its parts.
#[cfg(test)]
pub(crate) fn lex(line: &[u8]) -> Lexed<'_> {
    // The comment starts at the first '#', wherever it is.
    lex_content(memchr::memchr(b'#', line).map_or(line, |i| &line[..i]))
}

/// [`lex`] for a line whose comment (from its first `#`) the caller has already cut off: the
/// parser finds the `#` in the same search as the line end. Inlined into the parser's
/// per-line code, which then reads the parts without a returned enum in memory (5.5 M
/// instructions of the corpus parse when the compiler happened not to inline it).
#[inline]
pub(crate) fn lex_content(body: &[u8]) -> Lexed<'_> {
    let body = trim_end(trim_start(body));
    if body.is_empty() {
        return Lexed::Empty;
    }
    // `key ws* ":" ws* value`: the key ends at the first colon.
    if let Some(colon) = find_colon(body) {
        let key = trim_end(&body[..colon]);
        if key.is_empty() {
            return Lexed::Invalid(body);
        }
        return Lexed::Record {
            key,
            sep: Separator::Colon,
            value: trim_start(&body[colon + 1..]),
        };
    }
    match two_parts(body) {
        Ok((_, (key, value))) => Lexed::Record {
            key,
            sep: Separator::Whitespace,
            value,
        },
        Err(_) => Lexed::Invalid(body),
    }
}

/// [`lex_content`] and [`directive_of`](super::directive::directive_of) at once for the
/// common record, `key: value` with `user-agent`, `allow` or `disallow` spelled right and the
/// colon right after it (see [`common_key`](super::directive::common_key)): the directive,
/// the key and the value, exactly as the two would give them, or `None` for any other line.
#[inline(always)]
pub(crate) fn lex_common(body: &[u8]) -> Option<(super::Directive, &[u8], &[u8])> {
    // A key's first byte is a letter, never white space: `body` needs no trim at its start.
    let (directive, colon) = super::directive::common_key(body)?;
    let (key, rest) = body.split_at(colon);
    // The line trimmed at its end, then the value at its start, as `lex_content` does (an
    // empty value sits right after the colon: its span is quoted).
    Some((directive, key, trim_start(trim_end(rest.get(1..)?))))
}

/// The first `:` in `s`, eight bytes at a time: keys are short, but a byte loop over
/// `user-agent` was the lexer's largest cost. The "has a zero byte" word test marks the
/// first matching byte exactly (only bytes after it may be marked wrongly).
#[inline]
fn find_colon(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const COLONS: u64 = ONES * b':' as u64;
    let mut chunks = s.chunks_exact(8);
    let mut at = 0;
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w) ^ COLONS;
        let hit = x.wrapping_sub(ONES) & !x & (ONES << 7);
        if hit != 0 {
            return Some(at + (hit.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b':')
        .map(|i| at + i)
}

#[inline]
fn trim_start(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_ws(b)).unwrap_or(s.len());
    &s[start..]
}

#[inline]
pub(crate) fn trim_end(s: &[u8]) -> &[u8] {
    let mut end = s.len();
    while end > 0 && is_ws(s[end - 1]) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use nom::Offset;

    use super::super::{Directive, Mode};
    use super::*;

    fn rec(line: &str) -> (String, Separator, String) {
        match lex(line.as_bytes()) {
            Lexed::Record { key, sep, value } => (
                String::from_utf8_lossy(key).into_owned(),
                sep,
                String::from_utf8_lossy(value).into_owned(),
            ),
            other => panic!("{line:?} lexed as {other:?}"),
        }
    }

    #[test]
    fn key_value_with_whitespace_everywhere() {
        assert_eq!(
            rec("  Disallow \t:\t /x y  # c"),
            ("Disallow".into(), Separator::Colon, "/x y".into())
        );
        assert_eq!(
            rec("allow:/a:b"),
            ("allow".into(), Separator::Colon, "/a:b".into())
        );
        assert_eq!(
            rec("disallow:"),
            ("disallow".into(), Separator::Colon, "".into())
        );
    }

    #[test]
    fn missing_colon_only_with_two_tokens() {
        assert_eq!(
            rec("disallow /x"),
            ("disallow".into(), Separator::Whitespace, "/x".into())
        );
        assert_eq!(lex(b"disallow /x /y"), Lexed::Invalid(b"disallow /x /y"));
        assert_eq!(lex(b"disallow"), Lexed::Invalid(b"disallow"));
    }

    #[test]
    fn missing_colon_splits_only_at_space_or_tab() {
        // google/robotstxt: `strpbrk(line, " \t")`, then no other space or tab.
        assert_eq!(lex(b"Disallow\x0b/x"), Lexed::Invalid(b"Disallow\x0b/x"));
        assert_eq!(lex(b"Disallow\x0c/x"), Lexed::Invalid(b"Disallow\x0c/x"));
        assert_eq!(
            rec("disallow\t/x"),
            ("disallow".into(), Separator::Whitespace, "/x".into())
        );
        // Vertical tab and form feed around the blanks are trimmed…
        assert_eq!(
            rec("disallow\x0b \x0c/x"),
            ("disallow".into(), Separator::Whitespace, "/x".into())
        );
        // …and inside a part they are ordinary bytes.
        assert_eq!(
            rec("disallow /x\x0b/y"),
            ("disallow".into(), Separator::Whitespace, "/x\x0b/y".into())
        );
        assert_eq!(
            rec("disallow\x0b/x /y"),
            ("disallow\x0b/x".into(), Separator::Whitespace, "/y".into())
        );
    }

    #[test]
    fn find_colon_agrees_with_a_byte_scan() {
        let naive = |s: &[u8]| s.iter().position(|&b| b == b':');
        for b in 0..=255u8 {
            for at in [0, 3, 7, 8, 9, 15, 16, 20] {
                let mut v = b"user-agent-and-more-bytes".to_vec();
                v[at] = b;
                // A colon after the first one must not move the answer.
                for later in [at + 1, at + 4] {
                    let mut w = v.clone();
                    if later < w.len() {
                        w[later] = b':';
                    }
                    assert_eq!(find_colon(&w), naive(&w), "{b:#x} at {at}, {later}");
                }
                for end in 0..v.len() {
                    assert_eq!(find_colon(&v[..end]), naive(&v[..end]), "{b:#x} at {at}");
                }
            }
        }
    }

    /// [`lex_content`] then `directive_of`, kept for the records [`lex_common`] is meant for:
    /// `user-agent`, `allow` or `disallow` spelled right, the key at the line's start, the
    /// colon right after it, and 8 bytes at least.
    fn lex_common_slow(body: &[u8]) -> Option<(Directive, &[u8], &[u8])> {
        use super::super::directive::{directive_of, Spelling};
        let Lexed::Record {
            key,
            sep: Separator::Colon,
            value,
        } = lex_content(body)
        else {
            return None;
        };
        let mut found = None;
        for mode in [Mode::Rfc, Mode::Google] {
            let d = match directive_of(key, mode) {
                Some((
                    d @ (Directive::UserAgent | Directive::Allow | Directive::Disallow),
                    Spelling::Exact,
                )) => d,
                _ => return None,
            };
            found = Some(d);
        }
        let at_start = key.as_ptr() == body.as_ptr() && body.get(key.len()) == Some(&b':');
        (at_start && body.len() >= 8).then_some((found?, key, value))
    }

    /// Same parts, and the same bytes of `body` (not just equal ones).
    fn check_lex_common(body: &[u8]) {
        let spans = |r: Option<(Directive, &[u8], &[u8])>| {
            r.map(|(d, k, v)| (d, body.offset(k), k.len(), body.offset(v), v.len()))
        };
        assert_eq!(
            spans(lex_common(body)),
            spans(lex_common_slow(body)),
            "{:?}",
            String::from_utf8_lossy(body)
        );
    }

    #[test]
    fn lex_common_agrees_with_the_general_lexer_on_the_bench_corpus() {
        // The corpus is outside the repository; without it only the proptest below runs.
        let dir = std::env::var_os("CRAWLGATE_BENCH_CORPUS")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../shared/corpus/robots-bench")
            })
            .join("robotfiles");
        let Ok(files) = std::fs::read_dir(dir) else {
            return;
        };
        for file in files.flatten() {
            let body = std::fs::read(file.path()).unwrap();
            // The parser's content of a line: cut at the line end and at the comment.
            for line in body.split(|&b| b == b'\n' || b == b'\r') {
                let content = line.split(|&b| b == b'#').next().unwrap_or(line);
                check_lex_common(content);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
        /// Keys near the common ones (other case, misspelled, cut, extended), separators near
        /// `:` and values with white space at both ends.
        #[test]
        fn lex_common_agrees_with_the_general_lexer(
            key in proptest::sample::select(vec![
                &b"disallow"[..], b"DisAllow", b"allow", b"ALLOW", b"user-agent", b"User-Agent",
                b"useragent", b"user agent", b"user_agent", b"disallowed",
                b"disalow", b"allo", b"allowed", b"dis\x01llow", b"\x01llow", b"sitemap",
                b"user-agen", b"user-agents", b"USER-AGENT", b"d", b"",
            ]),
            sep in proptest::sample::select(vec![
                &b":"[..], b" :", b": ", b"\x1a", b" ", b"\t", b"\x0b:", b"::", b"", b":\x0c",
            ]),
            value in proptest::collection::vec(proptest::sample::select(b"/a* \t\x0b\x0c:\x1aZ\xff".to_vec()), 0..12),
            lead in proptest::sample::select(vec![&b""[..], b" ", b"\t", b"\x0c", b"x"]),
        ) {
            let mut body = lead.to_vec();
            body.extend_from_slice(key);
            body.extend_from_slice(sep);
            body.extend_from_slice(&value);
            check_lex_common(&body);
            // Every shorter line too (the 8-byte load, a key cut short).
            for end in 0..body.len() {
                check_lex_common(&body[..end]);
            }
        }

        #[test]
        fn lex_common_agrees_with_the_general_lexer_on_any_bytes(
            body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..24),
        ) {
            // A line's content never holds a line end or a `#` (`directive_of` reads CR as
            // `-`).
            let body: Vec<u8> = body
                .into_iter()
                .map(|b| if matches!(b, b'\n' | b'\r' | b'#') { b'x' } else { b })
                .collect();
            check_lex_common(&body);
        }
    }

    #[test]
    fn comments_and_blanks() {
        assert_eq!(lex(b""), Lexed::Empty);
        assert_eq!(lex(b"   \t"), Lexed::Empty);
        assert_eq!(lex(b"# only a comment: yes"), Lexed::Empty);
        assert_eq!(lex(b": value"), Lexed::Invalid(b": value"));
        // The comment starts at the first '#', even inside a value.
        assert_eq!(
            rec("disallow: /a#b"),
            ("disallow".into(), Separator::Colon, "/a".into())
        );
    }
}
