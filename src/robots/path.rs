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
    let early_path = find_path_start(b, search_start);
    let mut protocol_end = find_scheme_end(b, search_start);
    if let (Some(early), Some(proto)) = (early_path, protocol_end) {
        if early < proto {
            // A path, param or query starts before "://", so "://" is no scheme separator.
            protocol_end = None;
        }
    }
    let protocol_end = protocol_end.map_or(search_start, |p| p + 3);
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
    path.split('?').next() == Some("/robots.txt")
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

    #[test]
    fn fragment_before_path_and_utf8() {
        assert_eq!(request_path("http://h#frag/x"), "/");
        assert_eq!(request_path("http://h/ツ?ü#x"), "/ツ?ü");
    }
}
