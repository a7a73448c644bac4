//! What one response for robots.txt says by its headers alone, with no I/O (by its status:
//! [`FetchOutcome::of_status`](super::FetchOutcome::of_status)): an HTML content type, and
//! the markers of a challenge at the edge. The fetcher (`http`) applies these rules to the responses it receives, the batch
//! reader (`batch`) to the captures it reads, so that both judge a response alike.

/// A response header that says a bot-protection service answered with a challenge in the
/// site's place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChallengeMarker {
    /// The header name, lower case.
    pub header: &'static str,
    /// Its value (compared without case, spaces around it ignored).
    pub value: &'static str,
    /// Whose it is.
    pub vendor: &'static str,
    /// Where it is described.
    pub source: &'static str,
}

/// Every challenge marker crawlgate knows, in one table. Any response carrying one, whatever its
/// status (AWS WAF's challenge is a `202`), is [`Unreachable::Challenge`](super::Unreachable::Challenge): the site refuses the
/// crawler, which must not read that as "no robots.txt" (a 403 or 405) nor as the file (a 202).
pub const CHALLENGE_MARKERS: &[ChallengeMarker] = &[
    ChallengeMarker {
        header: "cf-mitigated",
        value: "challenge",
        vendor: "Cloudflare",
        source: "https://developers.cloudflare.com/cloudflare-challenges/challenge-types/challenge-pages/detect-response/",
    },
    ChallengeMarker {
        header: "x-vercel-mitigated",
        value: "challenge",
        vendor: "Vercel Firewall",
        source: "https://www.urlcheckr.app/docs/troubleshooting/vercel-firewall-challenge",
    },
    ChallengeMarker {
        header: "x-amzn-waf-action",
        value: "challenge",
        vendor: "AWS WAF (Challenge action, status 202)",
        source: "https://docs.aws.amazon.com/waf/latest/developerguide/waf-captcha-and-challenge-actions.html",
    },
    ChallengeMarker {
        header: "x-amzn-waf-action",
        value: "captcha",
        vendor: "AWS WAF (CAPTCHA action, status 405)",
        source: "https://docs.aws.amazon.com/waf/latest/developerguide/waf-captcha-and-challenge-actions.html",
    },
];

/// The challenge marker that a response header `name: value` is, if any (`name` compared
/// without case, `value` without case and surrounding spaces).
pub fn challenge_marker(name: &str, value: &[u8]) -> Option<&'static ChallengeMarker> {
    let value = value.trim_ascii();
    CHALLENGE_MARKERS.iter().find(|m| {
        name.eq_ignore_ascii_case(m.header) && value.eq_ignore_ascii_case(m.value.as_bytes())
    })
}

/// Whether a `Content-Type` value names an HTML document (`text/html`,
/// `application/xhtml+xml`, parameters ignored).
pub fn is_html_type(content_type: &[u8]) -> bool {
    let essence = content_type
        .split(|&b| b == b';')
        .next()
        .unwrap_or_default()
        .trim_ascii();
    essence.eq_ignore_ascii_case(b"text/html")
        || essence.eq_ignore_ascii_case(b"application/xhtml+xml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_types_and_markers() {
        assert!(is_html_type(b"text/html"));
        assert!(is_html_type(b" Text/HTML; charset=utf-8"));
        assert!(is_html_type(b"application/xhtml+xml"));
        assert!(!is_html_type(b"text/plain"));
        assert!(!is_html_type(b"text/htmlx"));
        assert_eq!(
            challenge_marker("CF-Mitigated", b" Challenge ").map(|m| m.vendor),
            Some("Cloudflare")
        );
        assert!(challenge_marker("cf-mitigated", b"block").is_none());
        assert!(challenge_marker("x-other", b"challenge").is_none());
    }
}
