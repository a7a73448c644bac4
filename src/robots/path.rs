//! The part of a URL that rules match: path, params and query, without the fragment
//! ([RFC 9309 §2.2.2]).
//!
//! This is google/robotstxt's `GetPathParamsQuery`, which needs no full URL parse: it accepts
//! absolute URLs, scheme-relative `//host/…` and bare paths alike, and answers `/` when there is
//! no path.
//!
//! [RFC 9309 §2.2.2]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.2.2

use std::borrow::Cow;

use super::swar;

/// First `/`, `?` or `;` at or after `from`.
fn find_path_start(s: &[u8], from: usize) -> Option<usize> {
    memchr::memchr3(b'/', b'?', b';', s.get(from..)?).map(|i| i + from)
}

/// First `://` at or after `from`.
fn find_scheme_end(s: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let i = at + memchr::memchr(b':', s.get(at..)?)?;
        if s[i + 1..].starts_with(b"//") {
            return Some(i);
        }
        at = i + 1;
    }
}

/// Bytes that end an `http(s)://` URL's host: the path, params or query start (`/`, `?`,
/// `;`), the fragment (`#`), or a `\`, which a client reads as `/` (the shortcut then steps
/// aside: the general search and [`request_target`] answer). Also `+`, which no host holds,
/// so that [`host_end`] tests two bytes at once (see there); the shortcut steps aside there.
static HOST_END: [bool; 256] = {
    let mut t = [false; 256];
    t[b'+' as usize] = true;
    t[b'\\' as usize] = true;
    t[b'/' as usize] = true;
    t[b'?' as usize] = true;
    t[b';' as usize] = true;
    t[b'#' as usize] = true;
    t
};

/// Where [`request_path`]'s answer starts in `url`, for the URLs a crawler nearly always
/// checks: `http://` or `https://`, then a host, then `/`. `None` for any other shape (and
/// when a `#` comes first), which the general search in [`request_path`] answers. The
/// fragment after the start is not looked for: the caller's scan of the rest finds it.
///
/// The host is short, so one table lookup per byte costs less than a `memchr3` call.
/// Always inlined: the check's first step, and not always inlined by `#[inline]` alone.
#[inline(always)]
pub(crate) fn http_path_start(url: &[u8]) -> Option<usize> {
    let host = http_scheme_len(url)?;
    let end = host + host_end(url.get(host..)?)?;
    (url[end] == b'/').then_some(end)
}

/// The length of `url`'s `http://` or `https://` (lower case, as crawlers write it; other
/// spellings take the general search, which answers the same).
#[inline]
fn http_scheme_len(url: &[u8]) -> Option<usize> {
    if url.starts_with(b"https://") {
        Some(8)
    } else if url.starts_with(b"http://") {
        Some(7)
    } else {
        None
    }
}

/// The first byte of `s` that [`HOST_END`] marks: eight bytes per step, each word tested for
/// the five bytes at once (see [`swar`]: the lowest flag of a word is always a real one).
#[inline]
fn host_end(s: &[u8]) -> Option<usize> {
    let mut chunks = s.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        // `/` (0x2F) and `?` (0x3F), `;` (0x3B) and `+` (0x2B) differ only in bit 4: one
        // test each pair.
        let v = w | swar::splat(0x10);
        let found = swar::zero_bytes(v ^ swar::splat(b'?'))
            | swar::zero_bytes(v ^ swar::splat(b';'))
            | swar::zero_bytes(w ^ swar::splat(b'#'))
            | swar::zero_bytes(w ^ swar::splat(b'\\'));
        if found != 0 {
            return Some(at + swar::first(found));
        }
        at += 8;
    }
    let rest = chunks.remainder();
    rest.iter()
        .position(|&b| HOST_END[b as usize])
        .map(|i| at + i)
}

/// Path + params + query of `url` (no fragment), always starting with `/`.
pub fn request_path(url: &str) -> Cow<'_, str> {
    let b = url.as_bytes();
    if let Some(start) = http_path_start(b) {
        let end = memchr::memchr(b'#', &b[start..]).map_or(b.len(), |i| start + i);
        return Cow::Borrowed(&url[start..end]);
    }
    // Initial two slashes (scheme-relative URL) are skipped.
    let search_start = if b.starts_with(b"//") { 2 } else { 0 };
    // `http://` or `https://` (with no `/` after the host): the scheme holds no `/`, `?` or
    // `;`, so the general search below would find this `://` and keep it; skipping it saves
    // two scans.
    let protocol_end = http_scheme_len(b).unwrap_or_else(|| {
        let early_path = find_path_start(b, search_start);
        let mut protocol_end = find_scheme_end(b, search_start);
        if let (Some(early), Some(proto)) = (early_path, protocol_end) {
            if early < proto {
                // A path, param or query starts before "://", so "://" is no scheme separator.
                protocol_end = None;
            }
        }
        protocol_end.map_or(search_start, |p| p + 3)
    });
    let Some(path_start) = find_path_start(b, protocol_end) else {
        return Cow::Borrowed("/");
    };
    let hash = memchr::memchr(b'#', &b[search_start..]).map(|i| i + search_start);
    if matches!(hash, Some(h) if h < path_start) {
        return Cow::Borrowed("/");
    }
    let path_end = hash.unwrap_or(b.len());
    let path = &url[path_start..path_end];
    if b[path_start] != b'/' {
        // `?q` or `;p` right after the host: the path is "/".
        return Cow::Owned(format!("/{path}"));
    }
    Cow::Borrowed(path)
}

/// The path + query (no fragment) that an HTTP client requests for `url`: the
/// [WHATWG URL Standard]'s reading, which reqwest (the `url` crate), browsers and Scrapy
/// request.
///
/// [`request_path`] takes the URL as written; a client does not. It removes ASCII TAB, LF and
/// CR anywhere, strips leading and trailing spaces and control bytes, reads `\` as `/` in
/// `http(s)` URLs and resolves dot segments (`/x/../`, `/./`, `/x/%2e%2e/`). With
/// `Disallow: /private/`, `http://h/x/../private/x`, `http://h/priv<TAB>ate/x` and
/// `http://h\private\x` all *request* `/private/x`; judged as written they would not match.
/// This function answers `/private/x` for each.
///
/// A URL with none of those spellings (no TAB, LF, CR or `\`, no outer whitespace, no segment
/// that starts with `.` or `%2e`) is answered as [`request_path`] answers it, borrowed, without
/// a parse. A path (`/x/../y`) or scheme-relative URL (`//h/x/../y`) is resolved as a client
/// resolves it against a page of another origin; a scheme-less `host/path` as `http://`; input
/// the URL parser refuses is taken as written.
///
/// [`Mode::Rfc`](super::Mode::Rfc) checks judge this; [`Mode::Google`](super::Mode::Google)
/// checks judge [`request_path`], as google/robotstxt does.
///
/// ```
/// use crawlgate::request_target;
///
/// assert_eq!(request_target("https://h/x/../private/x"), "/private/x");
/// assert_eq!(request_target("https://h\\private\\x?a#f"), "/private/x?a");
/// assert_eq!(request_target("https://h/priv\tate/%2e/x"), "/private/x");
/// assert_eq!(request_target("https://h/a/b.html?q=/../"), "/a/b.html?q=/../");
/// ```
///
/// [WHATWG URL Standard]: https://url.spec.whatwg.org/#concept-basic-url-parser
pub fn request_target(url: &str) -> Cow<'_, str> {
    match respelled(url) {
        Some(target) => Cow::Owned(target.path),
        None => request_path(url),
    }
}

/// A URL that an HTTP client requests otherwise than it is written ([`respelled`]): what it
/// requests, and the URL as it spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Respelled {
    /// Path + query, always starting with `/`.
    pub path: String,
    /// The whole URL as the WHATWG parser serialises it (scheme-less input gets `http://`;
    /// a path stays a path).
    pub url: String,
}

/// What an HTTP client requests for `url` when it may read it otherwise than [`request_path`]
/// does (see [`request_target`]); `None` when `url` has none of the spellings a client changes
/// (or the URL parser refuses it): then `url` is requested as written.
///
/// ```
/// let r = crawlgate::respelled("https://h/x/../private?q#f").expect("a dot segment");
/// assert_eq!((r.path.as_str(), r.url.as_str()), ("/private?q", "https://h/private?q#f"));
/// assert_eq!(crawlgate::respelled("https://h/private"), None);
/// ```
pub fn respelled(url: &str) -> Option<Respelled> {
    if !may_be_respelled(url.as_bytes()) {
        return None;
    }
    respelled_by_parse(url)
}

/// [`respelled`] without its prefilter: what the URL parser requests for `url`, when it is not
/// what `url` says.
fn respelled_by_parse(url: &str) -> Option<Respelled> {
    let trimmed = url.trim_matches(|c: char| c <= ' ');
    let (parsed, relative) = match url::Url::parse(trimmed) {
        Ok(u) => (u, false),
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            if trimmed.starts_with(['/', '\\']) {
                // A path or `//host/path`: resolved as against a page (the base's host is
                // replaced by a `//host`, and never shown for a path).
                let base = url::Url::parse("http://base.invalid/").ok()?;
                (base.join(trimmed).ok()?, !trimmed.starts_with("//"))
            } else {
                // `host/path`: google/robotstxt's reading of a scheme-less URL.
                (url::Url::parse(&format!("http://{trimmed}")).ok()?, false)
            }
        }
        Err(_) => return None,
    };
    let tail = &parsed[url::Position::BeforePath..url::Position::AfterQuery];
    let path = if tail.starts_with('/') {
        tail.to_owned()
    } else {
        format!("/{tail}")
    };
    if super::canonical::same_request_path(&path, &request_path(url)) {
        // `.well-known`, a `/./` in the query, a control byte the client escapes: requested
        // as written, up to RFC 9309's percent-equivalence.
        return None;
    }
    let url = if relative {
        parsed[url::Position::BeforePath..].to_owned()
    } else {
        parsed.into()
    };
    Some(Respelled { path, url })
}

/// Whether the WHATWG parser may request another path than [`request_path`] reads in `url`:
/// outer spaces or control bytes, TAB, LF, CR or `\\` anywhere, or a segment that starts with
/// `.` or `%2e` (any case: a dot segment, or a name like `.well-known`, which a parse tells
/// apart). Conservative (a control byte of any kind also says yes), never wrong the other
/// way; one pass of eight bytes a step.
///
/// A segment that starts with another escape (`/%E2%82%AC`) is no dot segment: told apart
/// here, it costs no URL parse (about 6,600 instructions; 1.3 M of a corpus check pass,
/// `benches/tools/workload.rs`).
#[inline(never)]
pub(crate) fn may_be_respelled(url: &[u8]) -> bool {
    let (Some(&first), Some(&last)) = (url.first(), url.last()) else {
        return false;
    };
    if first <= b' ' || last <= b' ' {
        return true;
    }
    // A segment starts at `i` with `.` or `%2e` (`i` flagged as one that may: see below).
    let dot_start = |i: usize| {
        i > 0
            && url[i - 1] == b'/'
            && match url[i] {
                b'.' => true,
                b'%' => url
                    .get(i + 1..i + 3)
                    .is_some_and(|e| e.eq_ignore_ascii_case(b"2e")),
                _ => false,
            }
    };
    let mut chunks = url.chunks_exact(8);
    let mut carry = 0;
    let mut at = 0;
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        // Bytes below 0x20 (TAB, LF, CR among them) and `\\`.
        let odd = w.wrapping_sub(swar::splat(0x20)) & !w & swar::splat(0x80)
            | swar::zero_bytes(w ^ swar::splat(b'\\'));
        if odd != 0 {
            return true;
        }
        let starts =
            swar::zero_bytes(w ^ swar::splat(b'.')) | swar::zero_bytes(w ^ swar::splat(b'%'));
        let slashes = swar::zero_bytes(w ^ swar::splat(b'/'));
        // Flags, some false (see `swar`), of a `.` or `%` after a `/`: each confirmed.
        let mut after = starts & ((slashes << 8) | carry);
        while after != 0 {
            if dot_start(at + swar::first(after)) {
                return true;
            }
            after &= after - 1;
        }
        carry = slashes >> 56;
        at += 8;
    }
    for (i, &b) in chunks.remainder().iter().enumerate() {
        if b < 0x20 || b == b'\\' || dot_start(at + i) {
            return true;
        }
    }
    false
}

/// Whether a segment of `url` starts with `.` (a `/.` in it). A searcher built once: building
/// one per call (`memmem::find`) costs more than a whole check.
#[inline]
pub(crate) fn has_dot_segment(url: &[u8]) -> bool {
    static SLASH_DOT: std::sync::OnceLock<memchr::memmem::Finder<'static>> =
        std::sync::OnceLock::new();
    SLASH_DOT
        .get_or_init(|| memchr::memmem::Finder::new(b"/."))
        .find(url)
        .is_some()
}

/// Whether [`request_target`] or [`request_path`] of `url` may be the robots.txt file
/// ([`is_robots_txt`]): `false` when `url` holds no `robots.txt` and no TAB, LF or CR. Their
/// path's letters and dots are `url`'s, in order, with at most TAB, LF and CR taken out
/// between them (a client decodes no `%XX` but a dot segment's and joins no segments), so
/// without these bytes no path is `/robots.txt`. A check of an agent without rules asks only
/// this of the URL; telling it by two searches rather than [`request_target`]'s scan (and a
/// URL parse for a segment that starts with `.` or `%`) saved 4.8 M instructions of a corpus
/// check pass (`benches/tools/workload.rs`).
#[inline]
pub(crate) fn may_request_robots_txt(url: &[u8]) -> bool {
    static ROBOTS_TXT: std::sync::OnceLock<memchr::memmem::Finder<'static>> =
        std::sync::OnceLock::new();
    memchr::memchr3(b'\t', b'\n', b'\r', url).is_some()
        || ROBOTS_TXT
            .get_or_init(|| memchr::memmem::Finder::new(b"robots.txt"))
            .find(url)
            .is_some()
}

/// Is `path` (path + query) the robots.txt file itself, which is always allowed
/// (RFC 9309 §2.2.2)?
pub(crate) fn is_robots_txt(path: &str) -> bool {
    // The part before the first `?` is `/robots.txt`.
    path.strip_prefix("/robots.txt")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('?'))
}

#[cfg(test)]
mod tests {
    use super::request_path;

    /// google/robotstxt's TestGetPathParamsQuery expectations.
    #[test]
    fn google_get_path_params_query() {
        let cases = [
            ("", "/"),
            ("http://www.example.com", "/"),
            ("http://www.example.com/", "/"),
            ("http://www.example.com/a", "/a"),
            ("http://www.example.com/a/", "/a/"),
            (
                "http://www.example.com/a/b?c=http://d.e/",
                "/a/b?c=http://d.e/",
            ),
            (
                "http://www.example.com/a/b?c=d&e=f#fragment",
                "/a/b?c=d&e=f",
            ),
            ("example.com", "/"),
            ("example.com/", "/"),
            ("example.com/a", "/a"),
            ("example.com/a/", "/a/"),
            ("example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"),
            ("a", "/"),
            ("a/", "/"),
            ("/a", "/a"),
            ("a/b", "/b"),
            ("example.com?a", "/?a"),
            ("example.com/a;b#c", "/a;b"),
            ("//a/b/c", "/b/c"),
        ];
        for (url, want) in cases {
            assert_eq!(request_path(url), want, "{url:?}");
        }
    }

    /// The `http://`/`https://` shortcut answers as the general search does.
    #[test]
    fn known_schemes_as_the_general_search() {
        for url in [
            "http://h",
            "https://h",
            "http://h/a?b#c",
            "https://h?q",
            "https://h;p",
            "https://h#f/x",
            "http://",
            "https://",
            "https:///x",
            "http://a/b?c=https://d/e",
        ] {
            // An upper-case scheme is not the shortcut's: it takes the general search.
            let general = url.replacen("http", "HTTP", 1);
            assert_eq!(request_path(url), request_path(&general), "{url:?}");
        }
    }

    /// The `http(s)://host/` start, with the fragment cut where `request_path` cuts it, is
    /// what the general search finds.
    #[test]
    fn http_path_start_as_the_general_search() {
        use super::http_path_start;
        let mut found = 0;
        for url in [
            "http://h/a?b#c",
            "https://h/",
            "https://www.example.com/a/b;c?d=http://e/f#g",
            "https://h?q/x",
            "https://h;p/x",
            "https://h#f/x",
            "http://h",
            "http://",
            "https:///x",
            "https://h:8080/x#",
            "HTTPS://h/x",
            "ftp://h/x",
            "//h/x",
            "http://h\\x/y",
            "https://a+b/x",
        ] {
            let general = request_path(&url.replacen("http", "HTTP", 1)).into_owned();
            assert_eq!(request_path(url), general, "{url:?}");
            if let Some(start) = http_path_start(url.as_bytes()) {
                let rest = &url[start..];
                let cut = rest.split('#').next().unwrap_or_default();
                assert_eq!(cut, general, "{url:?}");
                found += 1;
            }
        }
        // Only the shape it is for: not `?`/`;`/`#` first, not another scheme, not no path.
        assert_eq!(found, 5);
    }

    /// The word-at-a-time search finds what a byte-by-byte one does, at every offset.
    #[test]
    fn host_end_as_a_byte_scan() {
        use super::{host_end, HOST_END};
        let mut tried = 0;
        for len in 0..20 {
            for at in 0..=len {
                for stop in [
                    b'/',
                    b'?',
                    b';',
                    b'#',
                    b'\\',
                    b'.',
                    0x80,
                    0xFF,
                    0x2E,
                    0x2F - 1,
                    0x01,
                    b'+',
                    0x1F,
                    0x0B,
                    0x6F,
                    0x7B,
                ] {
                    let mut s = vec![b'a'; len];
                    if at < len {
                        s[at] = stop;
                    }
                    // The byte whose test a stop byte's borrow can flag falsely.
                    if at + 1 < len {
                        s[at + 1] = stop ^ 1;
                    }
                    let want = s.iter().position(|&b| HOST_END[b as usize]);
                    assert_eq!(host_end(&s), want, "{s:?}");
                    tried += usize::from(want.is_some());
                }
            }
        }
        assert!(tried > 500);
    }

    /// The word-at-a-time search never misses a `/.`, at any offset, next to any bytes.
    #[test]
    fn dot_segments_are_never_missed() {
        use super::has_dot_segment;
        let naive = |s: &[u8]| s.windows(2).any(|w| w == b"/.");
        let mut false_flags = 0;
        for len in 0..26 {
            for at in 0..len {
                for filler in [b'a', b'/', b'.', 0x01, 0x2E ^ 1, 0x2F ^ 1, 0x00, 0xFF] {
                    let mut s = vec![filler; len];
                    s[at] = b'/';
                    if at + 1 < len {
                        s[at + 1] = b'.';
                    }
                    let want = naive(&s);
                    let got = has_dot_segment(&s);
                    assert!(got || !want, "{s:?}");
                    false_flags += usize::from(got && !want);
                    // Without the dot: only false flags may remain.
                    if at + 1 < len {
                        s[at + 1] = filler;
                        assert!(has_dot_segment(&s) || !naive(&s), "{s:?}");
                    }
                }
            }
        }
        assert!(!has_dot_segment(b"/a/b/c.html?x=1.2"));
        assert!(has_dot_segment(b"/a/b/c/d/e/f/g/./h"));
        assert!(!has_dot_segment(b"/a/b/c/"));
        assert!(has_dot_segment(b"/a/b/c/."));
        assert!(false_flags < 100, "{false_flags} false flags");
    }

    /// The pieces [`robots_txt_is_never_missed`] builds URLs of.
    const ROBOTS_PIECES: [&str; 22] = [
        "http://h",
        "https://h",
        "//h",
        "h",
        "/",
        "\\",
        "robots",
        ".txt",
        "robots.txt",
        "x",
        "..",
        ".",
        "%2e",
        "%2E",
        "\t",
        "\n",
        "\r",
        " ",
        "?q",
        "#f",
        "r\tobots.txt",
        "a/",
    ];

    /// Whether [`super::may_request_robots_txt`] lets `url` through if its target (in either
    /// reading) is the robots.txt file; and whether it is.
    fn robots_txt_case(url: &str) -> (bool, bool) {
        use super::{is_robots_txt, may_request_robots_txt, request_target};
        let hit = is_robots_txt(&request_target(url)) || is_robots_txt(&request_path(url));
        (!hit || may_request_robots_txt(url.as_bytes()), hit)
    }

    /// [`super::may_request_robots_txt`] never says no to a URL whose target is the robots.txt
    /// file: every URL of up to three pieces.
    #[test]
    fn robots_txt_is_never_missed() {
        let mut targets = 0;
        let mut stack = vec![(String::new(), 0)];
        while let Some((url, depth)) = stack.pop() {
            let (ok, hit) = robots_txt_case(&url);
            assert!(ok, "{url:?}");
            targets += usize::from(hit);
            if depth < 3 {
                stack.extend(
                    ROBOTS_PIECES
                        .iter()
                        .map(|p| (format!("{url}{p}"), depth + 1)),
                );
            }
        }
        assert!(targets > 50, "{targets}");
        for url in [
            "https://h/a/robots.txt/b",
            "https://h/sitemap.xml",
            "/robotstxt",
        ] {
            assert_eq!(
                super::may_request_robots_txt(url.as_bytes()),
                url.contains("robots.txt"),
                "{url:?}"
            );
        }
    }

    proptest::proptest! {
        /// The same for longer URLs of those pieces.
        #[test]
        fn robots_txt_is_never_missed_in_long_urls(
            pieces in proptest::collection::vec(0..ROBOTS_PIECES.len(), 0..10),
        ) {
            let url: String = pieces.iter().map(|&i| ROBOTS_PIECES[i]).collect();
            proptest::prop_assert!(robots_txt_case(&url).0, "{:?}", url);
        }
    }

    /// The pieces [`respelled_urls_are_flagged`] builds URLs of: dot segments in every
    /// spelling, escapes that only resemble them, and what else a client changes.
    const SPELLING_PIECES: [&str; 24] = [
        "/",
        "/",
        "\\",
        ".",
        "..",
        "%2e",
        "%2E",
        "%2",
        "%e",
        "%2f",
        "%E2%82%AC",
        "%41",
        "%",
        "a",
        ".well-known",
        "?",
        "#",
        "\t",
        " ",
        "%2e%2e",
        ".%2E",
        "e",
        "2",
        "/x",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4_000))]
        /// [`super::may_be_respelled`] says yes to every URL that the URL parser requests
        /// otherwise than it is written.
        #[test]
        fn respelled_urls_are_flagged(
            start in proptest::sample::select(vec!["https://h", "http://h:8", "//h", "h", "", "HTTP://h"]),
            pieces in proptest::collection::vec(0..SPELLING_PIECES.len(), 0..12),
        ) {
            let url: String =
                std::iter::once(start).chain(pieces.iter().map(|&i| SPELLING_PIECES[i])).collect();
            if !super::may_be_respelled(url.as_bytes()) {
                proptest::prop_assert_eq!(super::respelled_by_parse(&url), None, "{:?}", url);
            }
        }
    }

    /// Escapes at a segment's start: only `%2e` may make a dot segment.
    #[test]
    fn escapes_that_start_a_segment() {
        use super::may_be_respelled;
        for (url, flagged) in [
            ("https://h/%E2%82%AC/x", false),
            ("https://h/a/%41", false),
            ("https://h/a/%2", false),
            ("https://h/a/%", false),
            ("https://h/a/%2e", true),
            ("https://h/a/%2E%2e/b", true),
            ("https://h/abcdefg/%2e", true),
            ("https://h/abcdef/%2e", true),
            ("https://h/a%2e", false),
            ("https://h/a/.", true),
        ] {
            assert_eq!(may_be_respelled(url.as_bytes()), flagged, "{url:?}");
        }
    }

    #[test]
    fn robots_txt_itself() {
        use super::is_robots_txt;
        for (path, want) in [
            ("/robots.txt", true),
            ("/robots.txt?x=1", true),
            ("/robots.txt?", true),
            ("/robots.txtx", false),
            ("/robots.txt/", false),
            ("/robots.tx", false),
            ("/a/robots.txt", false),
            ("", false),
        ] {
            assert_eq!(is_robots_txt(path), want, "{path:?}");
        }
    }

    #[test]
    fn fragment_before_path_and_utf8() {
        assert_eq!(request_path("http://h#frag/x"), "/");
        assert_eq!(request_path("http://h/ツ?ü#x"), "/ツ?ü");
    }
}
