//! The common URL recognised without the WHATWG parse: `http(s)://name[:port]` followed by
//! `/`, `?`, `#`, `\` or the end, where the name is a plain DNS name.
//!
//! A full [`url::Url::parse`] costs more than a whole robots.txt check, and most URLs a
//! crawler, a robots.txt `Sitemap:` line or a sitemap `<loc>` holds have this shape. The
//! origin, the parser's sitemap records and the sitemap reader's URL check all take this one
//! fast path, and fall back to the full parse when it says `None`. It only says yes where the
//! `url` crate reads the same scheme, host and port (`tests::agrees_with_the_url_crate`), so it
//! is conservative: IP addresses, IDNs, userinfo, odd ports and surrounding whitespace all go
//! to the full parse.

/// `http` or `https`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scheme {
    /// `http`, default port 80.
    Http,
    /// `https`, default port 443.
    Https,
}

impl Scheme {
    /// `"http"` or `"https"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }
}

/// A URL of the plain shape, split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlainUrl<'a> {
    pub scheme: Scheme,
    /// The name as written (any case; a trailing dot kept).
    pub host: &'a [u8],
    /// The port as written, the scheme's default included.
    pub port: Option<u16>,
}

/// `input` split, if it has the plain shape (see the module docs); `None` means "ask the URL
/// parser", not "invalid".
///
/// The name: ASCII letters, digits and `-` in labels of 1 to 63 bytes, at most 253 bytes, an
/// optional trailing dot; no `xn--` label (IDNA validates those); a last label that does not
/// start with a digit (WHATWG reads `127.1` and `0x7f.1` as IPv4 addresses). The port: 1 to 5
/// digits, at most 65,535.
pub(crate) fn plain_http(input: &[u8]) -> Option<PlainUrl<'_>> {
    let (scheme, rest) = scheme_and_rest(input)?;
    // One pass over the name, a table lookup a byte, checking each label as its dot is
    // reached: about 316 instructions a call on the bench corpus's parse, where the split,
    // search and per-label scans it replaced cost about 690 (`tests::plain_http_split`).
    let mut i = 0;
    let mut label = 0;
    // Start of the label before the current one (the last label of a name with a trailing dot).
    let mut prev = 0;
    let stop = loop {
        let c = rest.get(i).map_or(END, |&b| HOST[usize::from(b)]);
        match c {
            NAME => i += 1,
            DOT => {
                if !plain_label(&rest[label..i]) {
                    return None;
                }
                i += 1;
                prev = label;
                label = i;
            }
            _ => break c,
        }
    };
    let host = &rest[..i];
    let last = if label == i && i > 0 {
        // A trailing dot: its label was checked at the dot.
        &rest[prev..i - 1]
    } else {
        if !plain_label(&rest[label..i]) {
            return None;
        }
        &rest[label..i]
    };
    let name_len = if label == i { i.saturating_sub(1) } else { i };
    if name_len == 0 || name_len > 253 || last.first().is_none_or(u8::is_ascii_digit) {
        return None;
    }
    let port = match stop {
        END => None,
        COLON => {
            let digits = rest[i + 1..]
                .iter()
                .position(|&b| HOST[usize::from(b)] == END)
                .map_or(&rest[i + 1..], |e| &rest[i + 1..i + 1 + e]);
            if digits.is_empty() || digits.len() > 5 || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let v = digits
                .iter()
                .fold(0u32, |v, &d| v * 10 + u32::from(d - b'0'));
            Some(u16::try_from(v).ok()?)
        }
        _ => return None,
    };
    Some(PlainUrl { scheme, host, port })
}

/// The scheme and what follows `://`, for an `http`/`https` URL with something after it and
/// no trailing whitespace or control byte (the URL parser strips those: left to it).
///
/// The scheme is compared as one word, its letters folded to lowercase by setting their
/// `0x20` bit (only `H`/`h`, `T`/`t`, `P`/`p` and `S`/`s` fold to those letters), where
/// `eq_ignore_ascii_case` took about 80 instructions of a sitemap line.
fn scheme_and_rest(input: &[u8]) -> Option<(Scheme, &[u8])> {
    let head: [u8; 8] = input.get(..8)?.try_into().ok()?;
    let w = u64::from_le_bytes(head);
    let split = if (w | 0x2020_2020) & 0x00FF_FFFF_FFFF_FFFF == u64::from_le_bytes(*b"http://\0") {
        (Scheme::Http, &input[7..])
    } else if input.len() > 8 && w | 0x20_2020_2020 == u64::from_le_bytes(*b"https://") {
        (Scheme::Https, &input[8..])
    } else {
        return None;
    };
    if input.last().is_some_and(|&c| c <= b' ') {
        return None;
    }
    Some(split)
}

/// A label of a plain name (its bytes already known to be letters, digits and `-`): 1 to 63
/// bytes, and no `xn--` label (IDNA validates those).
#[inline]
fn plain_label(label: &[u8]) -> bool {
    !label.is_empty()
        && label.len() <= 63
        && !(label.len() >= 4 && label[..4].eq_ignore_ascii_case(b"xn--"))
}

/// [`HOST`] classes: a name byte (ASCII letter, digit, `-`), a label's end, the port's
/// start, the authority's end (`/`, `?`, `#`, `\`, or the end of the input), anything else.
const NAME: u8 = 0;
const DOT: u8 = 1;
const COLON: u8 = 2;
const END: u8 = 3;
const OTHER: u8 = 4;

/// The class of each byte in an authority.
static HOST: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || c == b'-' {
            t[b] = NAME;
        }
        b += 1;
    }
    t[b'.' as usize] = DOT;
    t[b':' as usize] = COLON;
    t[b'/' as usize] = END;
    t[b'?' as usize] = END;
    t[b'#' as usize] = END;
    t[b'\\' as usize] = END;
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use url::Url;

    /// The fast path as first written (split, search, per-label scans): what the one-pass
    /// version must agree with.
    fn plain_http_split(input: &[u8]) -> Option<PlainUrl<'_>> {
        let (scheme, rest) = scheme_and_rest(input)?;
        let end = rest
            .iter()
            .position(|&b| matches!(b, b'/' | b'?' | b'#' | b'\\'))
            .unwrap_or(rest.len());
        let authority = &rest[..end];
        let (host, port) = match memchr::memchr(b':', authority) {
            Some(i) => (&authority[..i], Some(&authority[i + 1..])),
            None => (authority, None),
        };
        let port = match port {
            None => None,
            Some(p) if !p.is_empty() && p.len() <= 5 && p.iter().all(u8::is_ascii_digit) => {
                let n = p.iter().fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'));
                Some(u16::try_from(n).ok()?)
            }
            Some(_) => return None,
        };
        let name = host.strip_suffix(b".").unwrap_or(host);
        if name.is_empty() || name.len() > 253 {
            return None;
        }
        let mut last: &[u8] = &[];
        for label in name.split(|&b| b == b'.') {
            let plain = !label.is_empty()
                && label.len() <= 63
                && label
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b == b'-')
                && !(label.len() >= 4 && label[..4].eq_ignore_ascii_case(b"xn--"));
            if !plain {
                return None;
            }
            last = label;
        }
        if last.first().is_none_or(u8::is_ascii_digit) {
            return None;
        }
        Some(PlainUrl { scheme, host, port })
    }

    /// The scheme test as first written, byte by byte: what the word compare must agree with.
    fn scheme_and_rest_bytes(input: &[u8]) -> Option<(Scheme, &[u8])> {
        let split = if input.len() > 7 && input[..7].eq_ignore_ascii_case(b"http://") {
            (Scheme::Http, &input[7..])
        } else if input.len() > 8 && input[..8].eq_ignore_ascii_case(b"https://") {
            (Scheme::Https, &input[8..])
        } else {
            return None;
        };
        if input.last().is_some_and(|&c| c <= b' ') {
            return None;
        }
        Some(split)
    }

    #[test]
    fn the_scheme_word_agrees_with_the_byte_compare() {
        // Every byte at every place of both schemes' prefixes, at every length around them.
        for base in [&b"https://ab"[..], b"http://ab", b"HTTPS://", b"Http://x"] {
            for at in 0..base.len() {
                for b in 0..=255u8 {
                    let mut v = base.to_vec();
                    v[at] = b;
                    for len in 0..=v.len() {
                        let v = &v[..len];
                        assert_eq!(scheme_and_rest(v), scheme_and_rest_bytes(v), "{v:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn takes_plain_names_only() {
        for yes in [
            "http://www.example.com/x",
            "https://example.com:8080",
            "HTTP://EXAMPLE.com.?q",
            "http://a-b.c#f",
            "http://a.com\\x",
        ] {
            assert!(plain_http(yes.as_bytes()).is_some(), "{yes}");
        }
        for no in [
            "http://1.2.3.4/",
            "http://example.123/",
            "http://host.0x1F",
            "http://xn--bcher-kva.example/",
            "http://a:99999/",
            "http://a:/",
            "http://user@a.com/",
            "http://a..b/",
            "http://",
            "http://[::1]/",
            "http://ex_ample.com/",
            "http://a.com/ ",
            "ftp://a.com/",
            "http:/a.com/",
        ] {
            assert!(plain_http(no.as_bytes()).is_none(), "{no}");
        }
        let u = plain_http(b"https://Example.com.:443/x").expect("plain");
        assert_eq!(
            (u.scheme, u.host, u.port),
            (Scheme::Https, &b"Example.com."[..], Some(443))
        );
    }

    /// A label for [`agrees_with_the_split_version`]: short, edge-length (63, 64) or odd.
    fn label() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => "[a-zA-Z0-9-]{0,6}",
            1 => "[0-9][a-z0-9]{0,2}",
            1 => "(xn|XN|xN)--[a-z]{0,3}",
            1 => (62usize..66).prop_map(|n| "a".repeat(n)),
            1 => "[a-z_@%\\[\\] ]{1,3}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        /// The one-pass fast path answers exactly as the split version does, names of up to
        /// and past 253 bytes, labels of up to and past 63, ports and tails included.
        #[test]
        fn agrees_with_the_split_version(
            scheme in prop::sample::select(vec!["http://", "https://", "HTTP://", "hTtPs://", "http:/", "ftp://", ""]),
            labels in prop::collection::vec(label(), 0..6),
            long in prop::option::of(prop::collection::vec((60usize..64).prop_map(|n| "b".repeat(n)), 4..5)),
            dot in prop::sample::select(vec!["", ".", ".."]),
            port in prop::option::of("[0-9a:]{0,7}"),
            tail in "([/\\\\?#][a-z% ]{0,4})?[ \t]?",
        ) {
            let mut host = labels.join(".");
            if let Some(long) = long {
                host = format!("{}.{host}", long.join("."));
            }
            let input = match &port {
                Some(p) => format!("{scheme}{host}{dot}:{p}{tail}"),
                None => format!("{scheme}{host}{dot}{tail}"),
            };
            prop_assert_eq!(plain_http(input.as_bytes()), plain_http_split(input.as_bytes()), "{}", input);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        /// Whenever the fast path answers, the `url` crate reads the same scheme, host and port.
        #[test]
        fn agrees_with_the_url_crate(
            scheme in prop::sample::select(vec!["http://", "https://", "HTTP://", "hTtPs://"]),
            host in "[a-zA-Z0-9.:@%\\[\\]_ -]{0,16}|([a-zA-Z0-9-]{1,8}\\.){1,3}(com|0x1f|123|1a|xn--a|-a|a-)\\.?",
            port in prop::option::of("[0-9]{0,6}"),
            tail in "([/\\\\][a-z% ]{0,4})?(\\?[a-z=]{0,3})?(#x)?[ \t]?",
        ) {
            let input = match &port {
                Some(p) => format!("{scheme}{host}:{p}{tail}"),
                None => format!("{scheme}{host}{tail}"),
            };
            if let Some(fast) = plain_http(input.as_bytes()) {
                let parsed = Url::parse(&input);
                let u = parsed.as_ref().map_err(|e| TestCaseError::fail(format!("{input}: {e}")))?;
                let want = match fast.scheme { Scheme::Http => "http", Scheme::Https => "https" };
                prop_assert_eq!(u.scheme(), want, "{}", input);
                let host = String::from_utf8_lossy(fast.host).to_ascii_lowercase();
                prop_assert_eq!(u.host_str(), Some(host.as_str()), "{}", input);
                prop_assert_eq!(u.port(), fast.port.filter(|&p| p != if want == "http" { 80 } else { 443 }), "{}", input);
            }
        }
    }
}
