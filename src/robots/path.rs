//! The part of a URL that rules match: path, params and query, without the fragment
//! ([RFC 9309 §2.2.2]).
//!
//! This is google/robotstxt's `GetPathParamsQuery`, which needs no full URL parse: it accepts
//! absolute URLs, scheme-relative `//host/…` and bare paths alike, and answers `/` when there is
//! no path.
//!
//! [RFC 9309 §2.2.2]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.2.2

use std::borrow::Cow;

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

/// Path + params + query of `url` (no fragment), always starting with `/`.
pub fn request_path(url: &str) -> Cow<'_, str> {
    let b = url.as_bytes();
    // Initial two slashes (scheme-relative URL) are skipped.
    let search_start = if b.starts_with(b"//") { 2 } else { 0 };
    // The usual case, `http://` or `https://`: the scheme holds no `/`, `?` or `;`, so the
    // general search below would find this `://` and keep it; skipping it saves two scans.
    let known = if b.starts_with(b"https://") {
        Some(8)
    } else if b.starts_with(b"http://") {
        Some(7)
    } else {
        None
    };
    let protocol_end = known.unwrap_or_else(|| {
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
