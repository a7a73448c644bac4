//! What a capture is, by its status, headers and first bytes: the [`StatusClass`] and the
//! consequence RFC 9309 gives it (a [`Verdict`]), read with the same rules the fetcher applies
//! to a live response (`FetchOutcome::of_status`, `is_html_type`, the challenge markers,
//! `robots::looks_like_html`).

use super::Capture;
use crate::policy::{is_html_type, FetchOutcome, Unreachable, Verdict};
use crate::robots::looks_like_html;

/// What a capture is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StatusClass {
    /// A 2xx whose body is a robots.txt: its rules apply.
    Rules,
    /// No robots.txt (a 4xx other than 429, a redirect that cannot be followed, a redirect
    /// loop, more than 5 redirects): everything is allowed.
    AllowAll,
    /// Unreachable (429, 5xx, a 402, a status that gives nothing usable, a body cut short):
    /// nothing may be crawled.
    DisallowAll,
    /// A redirect whose target is not in the input: what it leads to is unknown.
    RedirectUnresolved,
    /// A 2xx that is not a robots.txt: an HTML page, a binary file, or a challenge at the edge.
    NotRobots,
    /// The input could not be read here (a broken gzip member, a malformed record or row).
    Unreadable,
}

impl StatusClass {
    /// `rules`, `allow-all`, `disallow-all`, `redirect-unresolved`, `not-robots`, `unreadable`.
    pub fn as_str(self) -> &'static str {
        match self {
            StatusClass::Rules => "rules",
            StatusClass::AllowAll => "allow-all",
            StatusClass::DisallowAll => "disallow-all",
            StatusClass::RedirectUnresolved => "redirect-unresolved",
            StatusClass::NotRobots => "not-robots",
            StatusClass::Unreadable => "unreadable",
        }
    }
}

/// A capture's class, its consequence, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// What the capture is.
    pub class: StatusClass,
    /// What a crawler may do: `None` when it cannot be known (an unresolved redirect, an
    /// unreadable input).
    pub verdict: Option<Verdict>,
    /// Why, when the class alone does not say (`HTTP 404`, `Content-Type text/html`).
    pub reason: Option<String>,
}

fn judged(class: StatusClass, verdict: Option<Verdict>, reason: Option<String>) -> Judgement {
    Judgement {
        class,
        verdict,
        reason,
    }
}

/// Whether `body` is binary rather than text: it starts with a common file signature, or more
/// than one in ten of its first 512 bytes are control bytes other than tab, line feed, form
/// feed and carriage return.
pub fn looks_binary(body: &[u8]) -> bool {
    const SIGNATURES: &[&[u8]] = &[
        b"\x1f\x8b",         // gzip
        b"\x89PNG",          // PNG
        b"\xff\xd8\xff",     // JPEG
        b"GIF8",             // GIF
        b"%PDF-",            // PDF
        b"PK\x03\x04",       // zip
        b"\x00\x00\x01\x00", // ICO
        b"RIFF",             // WebP, WAV
    ];
    if SIGNATURES.iter().any(|s| body.starts_with(s)) {
        return true;
    }
    let head = &body[..body.len().min(512)];
    let controls = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c))
        .count();
    controls * 10 > head.len()
}

/// The class of `capture` as it stands (a redirect is [`StatusClass::RedirectUnresolved`]
/// until its target is found: [`super::Redirects`]); `max_bytes` is the parsing limit.
///
/// | the capture | class | verdict |
/// |---|---|---|
/// | a challenge marker, whatever the status | `not-robots` | disallow-all |
/// | 2xx, `WARC-Truncated` with a body shorter than the parsing limit | `disallow-all` | disallow-all (a body cut short is no file) |
/// | 2xx, no `WARC-Truncated`, a body kept to fewer bytes than the parse would read (a row read with a lower limit) | `disallow-all` | disallow-all |
/// | 2xx, an HTML `Content-Type` or a body that starts as HTML | `not-robots` | rules (its valid lines, as Google reads it) |
/// | 2xx, a binary body | `not-robots` | rules (nothing in it is a line) |
/// | other 2xx | `rules` | rules |
/// | 301, 302, 303, 307, 308 with a `Location` | `redirect-unresolved` | unknown |
/// | 402 | `disallow-all` | disallow-all |
/// | 429, 5xx, 1xx, 600–999 | `disallow-all` | disallow-all |
/// | other 3xx, 4xx | `allow-all` | allow-all |
/// | no status | `disallow-all` | disallow-all (unreachable) |
pub fn judge(capture: &Capture, max_bytes: usize) -> Judgement {
    if let Some(marker) = &capture.challenge {
        let why = Unreachable::Challenge {
            status: capture.status.unwrap_or_default(),
            marker: marker.clone(),
        };
        return judged(
            StatusClass::NotRobots,
            Some(Verdict::DisallowAll),
            Some(why.to_string()),
        );
    }
    let Some(status) = capture.status else {
        return judged(
            StatusClass::DisallowAll,
            Some(Verdict::DisallowAll),
            Some("unreachable: no response".to_owned()),
        );
    };
    match status {
        200..=299 => {
            if let Some(t) = &capture.truncated {
                if capture.body_length < max_bytes as u64 {
                    let why = Unreachable::Body(format!("WARC-Truncated: {t}"));
                    return judged(
                        StatusClass::DisallowAll,
                        Some(Verdict::DisallowAll),
                        Some(why.to_string()),
                    );
                }
            }
            // Kept to fewer bytes than this parse would read (rows read with a lower limit than
            // the judging one): the rest of the file is not here, so it is a cut body too, never
            // rules that end early.
            let kept = capture.body.len() as u64;
            if capture.truncated.is_none() && kept < capture.body_length.min(max_bytes as u64) {
                let why = Unreachable::Body(format!(
                    "only {kept} of the body's {} bytes were kept, fewer than the parsing limit",
                    capture.body_length
                ));
                return judged(
                    StatusClass::DisallowAll,
                    Some(Verdict::DisallowAll),
                    Some(why.to_string()),
                );
            }
            let html = match &capture.content_type {
                Some(t) if is_html_type(t.as_bytes()) => Some(format!("Content-Type {t}")),
                _ if looks_like_html(&capture.body) => Some("the body starts as HTML".to_owned()),
                _ => None,
            };
            if let Some(why) = html {
                return judged(
                    StatusClass::NotRobots,
                    Some(Verdict::Rules),
                    Some(Unreachable::HtmlPage(why).to_string()),
                );
            }
            if looks_binary(&capture.body) {
                return judged(
                    StatusClass::NotRobots,
                    Some(Verdict::Rules),
                    Some("a binary body, not a robots.txt".to_owned()),
                );
            }
            judged(StatusClass::Rules, Some(Verdict::Rules), None)
        }
        301 | 302 | 303 | 307 | 308 if capture.location.is_some() => judged(
            StatusClass::RedirectUnresolved,
            None,
            Some(format!("HTTP {status}: the target is not in the input")),
        ),
        402 => judged(
            StatusClass::DisallowAll,
            Some(Verdict::DisallowAll),
            Some("HTTP 402: payment required".to_owned()),
        ),
        _ => match FetchOutcome::of_status(status) {
            Some(FetchOutcome::Unavailable(u)) => judged(
                StatusClass::AllowAll,
                Some(Verdict::AllowAll),
                Some(u.to_string()),
            ),
            other => {
                let why = match other {
                    Some(FetchOutcome::Unreachable(u)) => u.to_string(),
                    _ => format!("HTTP {status}"),
                };
                judged(
                    StatusClass::DisallowAll,
                    Some(Verdict::DisallowAll),
                    Some(why),
                )
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::Place;

    fn capture(status: Option<u16>, body: &[u8]) -> Capture {
        Capture {
            url: "https://example.com/robots.txt".into(),
            status,
            content_type: None,
            location: None,
            challenge: None,
            fetch_time: None,
            truncated: None,
            body: body.to_vec(),
            body_length: body.len() as u64,
            place: Place::default(),
        }
    }

    fn class(c: &Capture) -> (&'static str, Option<&'static str>) {
        let j = judge(c, 512_000);
        (j.class.as_str(), j.verdict.map(|v| v.as_str()))
    }

    #[test]
    fn statuses_and_bodies() {
        let robots = b"User-agent: *\nDisallow: /\n";
        assert_eq!(class(&capture(Some(200), robots)), ("rules", Some("rules")));
        assert_eq!(
            class(&capture(Some(404), b"")),
            ("allow-all", Some("allow-all"))
        );
        assert_eq!(
            class(&capture(Some(410), b"")),
            ("allow-all", Some("allow-all"))
        );
        assert_eq!(
            class(&capture(Some(429), b"")),
            ("disallow-all", Some("disallow-all"))
        );
        assert_eq!(
            class(&capture(Some(503), b"")),
            ("disallow-all", Some("disallow-all"))
        );
        assert_eq!(
            class(&capture(Some(402), b"")),
            ("disallow-all", Some("disallow-all"))
        );
        assert_eq!(
            class(&capture(None, b"")),
            ("disallow-all", Some("disallow-all"))
        );
        // A 301 without Location cannot be followed: "not found".
        assert_eq!(
            class(&capture(Some(301), b"")),
            ("allow-all", Some("allow-all"))
        );
        let mut moved = capture(Some(301), b"");
        moved.location = Some("https://www.example.com/robots.txt".into());
        assert_eq!(class(&moved), ("redirect-unresolved", None));
        let html = capture(
            Some(200),
            b"<!DOCTYPE html><html><body>Not found</body></html>",
        );
        assert_eq!(class(&html), ("not-robots", Some("rules")));
        let mut typed = capture(Some(200), robots);
        typed.content_type = Some("text/html; charset=utf-8".into());
        assert_eq!(class(&typed), ("not-robots", Some("rules")));
        assert_eq!(
            class(&capture(Some(200), b"\x89PNG\r\n\x1a\n")),
            ("not-robots", Some("rules"))
        );
        let mut challenged = capture(Some(403), b"");
        challenged.challenge = Some("cf-mitigated: challenge".into());
        assert_eq!(class(&challenged), ("not-robots", Some("disallow-all")));
        let mut cut = capture(Some(200), robots);
        cut.truncated = Some("time".into());
        assert_eq!(class(&cut), ("disallow-all", Some("disallow-all")));
        cut.body_length = 600_000;
        assert_eq!(class(&cut), ("rules", Some("rules")));
    }

    #[test]
    fn text_with_a_stray_control_byte_is_not_binary() {
        assert!(!looks_binary(b"User-agent: *\x00\nDisallow: /\n"));
        assert!(looks_binary(&[0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
        assert!(!looks_binary(b""));
    }
}
