//! Checks of single sitemap values: URLs, dates, numbers, and the keywords and codes the
//! sitemap, video, image and news formats allow: the [sitemaps protocol] and Google's
//! [image], [video] and [news] sitemap extensions.
//!
//! [sitemaps protocol]: https://www.sitemaps.org/protocol.html
//! [image]: https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps
//! [video]: https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps
//! [news]: https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap
//!
//! The reader calls these for every value of files up to 50 MB, so they are pure functions that
//! allocate nothing when the value is fine: a message is built only for a problem. Values arrive
//! trimmed of XML whitespace; nothing here trims. Nothing here panics, whatever the input.

use std::borrow::Cow;

use memchr::memchr;
use url::{Host, Url};

use super::{Code, MAX_URL_CHARS};

/// Characters of a URL a message quotes: enough to recognise it, short enough for one line.
const QUOTE_CHARS: usize = 80;
/// Of those, how many come before the offending character when a message points at one.
const QUOTE_BEFORE: usize = 30;

/// The longest video, in seconds (8 hours), as Google's video sitemap reference allows
/// (<https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps>);
/// messages write it `28,800`.
const MAX_DURATION: u32 = 28_800;

/// Checks a URL value (already trimmed). Calls `report(code, message)` for each problem found:
/// errors [`Code::InvalidUrl`] (not an absolute http/https URL with a host: relative, another
/// scheme, refused by the `url` crate, empty) and [`Code::UrlTooLong`] (more than
/// [`MAX_URL_CHARS`] characters); warnings [`Code::UrlNotEncoded`] (characters RFC 3986 requires
/// percent-encoded: non-ASCII, space, controls, `"` `<` `>` `\` `^` `` ` `` `{` `|` `}`, a `%`
/// without two hex digits) and [`Code::SessionId`] (see [`has_session_id`]). Returns true when
/// the URL is usable (no error).
pub(crate) fn check_url(url: &str, report: &mut dyn FnMut(Code, Cow<'static, str>)) -> bool {
    if url.is_empty() {
        report(Code::InvalidUrl, Cow::Borrowed("the URL is empty"));
        return false;
    }
    let mut usable = true;
    if let Some(n) = chars_over(url, MAX_URL_CHARS) {
        report(
            Code::UrlTooLong,
            format!(
                "the URL has {n} characters; at most {MAX_URL_CHARS} are allowed: `{}`",
                quote(url)
            )
            .into(),
        );
        usable = false;
    }
    if let Some(why) = not_absolute_http(url) {
        report(Code::InvalidUrl, why.into());
        usable = false;
    }
    if let Some(why) = needs_encoding(url) {
        report(Code::UrlNotEncoded, why.into());
    }
    if let Some(name) = session_id(url) {
        report(
            Code::SessionId,
            format!(
                "session-ID parameter `{}` in `{}`; list the URL without it",
                quote(name),
                quote(url)
            )
            .into(),
        );
    }
    usable
}

/// Why `url` is not an absolute http or https URL with a host, or `None` when it is.
fn not_absolute_http(url: &str) -> Option<String> {
    let Some(colon) = scheme_end(url.as_bytes()) else {
        return Some(format!(
            "`{}` is not an absolute URL; sitemaps need absolute http or https URLs",
            quote(url)
        ));
    };
    let scheme = url.get(..colon).unwrap_or("");
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return Some(format!(
            "`{}` has scheme `{}`; only http and https URLs are allowed",
            quote(url),
            quote(scheme)
        ));
    }
    // The `url` crate follows WHATWG and reads `http:example.com`, `http:\\example.com` and
    // `http:///example.com` as `http://example.com/`; a sitemap needs the real `//host` form.
    let rest = url.as_bytes().get(colon + 1..).unwrap_or(&[]);
    if !rest.starts_with(b"//") {
        return Some(format!(
            "`{}` is not an absolute URL: `{scheme}:` must be followed by `//` and a host",
            quote(url)
        ));
    }
    if matches!(rest.get(2), None | Some(b'/' | b'\\' | b'?' | b'#')) {
        return Some(format!("`{}` has no host", quote(url)));
    }
    if crate::plain_url::plain_http(url.as_bytes()).is_some() {
        // The `url` crate would accept it: no need to build a `Url` (a tenth of the reader's
        // time on a video sitemap).
        return None;
    }
    match Url::parse(url) {
        Err(e) => Some(format!("`{}` is not a valid URL: {e}", quote(url))),
        Ok(u) if u.host_str().is_none_or(str::is_empty) => {
            Some(format!("`{}` has no host", quote(url)))
        }
        Ok(_) => None,
    }
}

/// The byte index of the `:` ending a valid RFC 3986 scheme at the start of `b`, if there is one.
fn scheme_end(b: &[u8]) -> Option<usize> {
    let colon = memchr(b':', b)?;
    let scheme = b.get(..colon)?;
    let (first, others) = scheme.split_first()?;
    let valid = first.is_ascii_alphabetic()
        && others
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'));
    valid.then_some(colon)
}

/// Bytes a URL may hold as they are. `%` is not among them: it is checked with its two digits.
/// `[`, `]` and a second `#` are strictly invalid outside the host too, but browsers and crawlers
/// take them as they are, so they are not worth a warning.
const URL_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0x21; // everything printable after the space
    while c < 0x7f {
        table[c] = true;
        c += 1;
    }
    let refused = b"\"<>\\^`{|}%";
    let mut i = 0;
    while i < refused.len() {
        table[refused[i] as usize] = false;
        i += 1;
    }
    table
};

/// What in `url` must be percent-encoded (the first such thing), or `None`.
fn needs_encoding(url: &str) -> Option<String> {
    let b = url.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if URL_BYTE[usize::from(c)] {
            continue;
        }
        if c == b'%' {
            let hex = |at: usize| b.get(at).is_some_and(u8::is_ascii_hexdigit);
            if hex(i + 1) && hex(i + 2) {
                continue; // the two digits are URL bytes, so the loop passes over them
            }
            return Some(format!(
                "`%` not followed by two hex digits (write `%25` for a `%`): `{}`",
                around(url, i)
            ));
        }
        // `i` is a character boundary: every earlier byte was ASCII.
        let ch = url
            .get(i..)
            .and_then(|r| r.chars().next())
            .unwrap_or('\u{fffd}');
        let what = if ch == ' ' {
            Cow::Borrowed("a space")
        } else if ch.is_control() {
            Cow::Owned(format!("control character U+{:04X}", u32::from(ch)))
        } else {
            Cow::Owned(format!("`{ch}`"))
        };
        return Some(format!(
            "{what} must be percent-encoded: `{}`",
            around(url, i)
        ));
    }
    None
}

/// Query parameter names that carry a session ID (compared ASCII case-insensitively).
const SESSION_NAMES: [&str; 10] = [
    "jsessionid",
    "phpsessid",
    "sid",
    "sessionid",
    "session_id",
    "session",
    "cfid",
    "cftoken",
    "zenid",
    "oscsid",
];

/// Whether `url` carries a session ID: a path parameter `;jsessionid=` (any case), or a query parameter whose name is
/// (ASCII case-insensitively) one of `jsessionid`, `phpsessid`, `sid`, `sessionid`, `session_id`,
/// `session`, `aspsessionid…` (IIS adds eight letters), `cfid`, `cftoken`, `zenid`, `osCsid`.
/// The name decides, whatever the value (even none); parameters are separated by `&` or `;`;
/// the fragment is not looked at, since it never reaches the server.
#[cfg(test)]
pub(crate) fn has_session_id(url: &str) -> bool {
    session_id(url).is_some()
}

/// The session-ID parameter name in `url`, if any (see [`has_session_id`]).
fn session_id(url: &str) -> Option<&str> {
    let all = url.as_bytes();
    let end = memchr(b'#', all).unwrap_or(all.len());
    let b = all.get(..end)?;
    for i in memchr::memchr_iter(b';', b) {
        let name = b.get(i + 1..i + 12);
        if name.is_some_and(|n| n.eq_ignore_ascii_case(b"jsessionid=")) {
            return url.get(i + 1..i + 11);
        }
    }
    let query_start = memchr(b'?', b)? + 1;
    let mut start = query_start;
    for param in b.get(query_start..)?.split(|&c| c == b'&' || c == b';') {
        let name = param.get(..memchr(b'=', param).unwrap_or(param.len()))?;
        let session = SESSION_NAMES
            .iter()
            .any(|s| name.eq_ignore_ascii_case(s.as_bytes()))
            || name
                .get(..12)
                .is_some_and(|p| p.eq_ignore_ascii_case(b"aspsessionid"));
        if session {
            return url.get(start..start + name.len());
        }
        start += param.len() + 1;
    }
    None
}

/// [W3C Datetime](https://www.w3.org/TR/NOTE-datetime) as the sitemaps protocol takes it: `YYYY-MM-DD`, `YYYY-MM-DDThh:mmTZD`,
/// `YYYY-MM-DDThh:mm:ssTZD` or `YYYY-MM-DDThh:mm:ss.s+TZD` (one or more fraction digits), where
/// TZD is `Z`, `+hh:mm` or `-hh:mm`. Ranges are checked: month 1–12, the day within its month
/// (Gregorian leap years), hour 0–23, minute 0–59, second 0–60 (60: a leap second, at any
/// minute, since the zone may be local), zone hours 0–23 and minutes 0–59. The year is exactly
/// four digits (0000 included); a time needs a zone; `T` and `Z` are uppercase.
pub(crate) fn is_w3c_datetime(s: &str) -> bool {
    datetime(s.as_bytes()).is_some()
}

/// [`is_w3c_datetime`], with `?` for the many ways to fail.
fn datetime(b: &[u8]) -> Option<()> {
    let year = digits(b, 0, 4)?;
    byte(b, 4, b'-')?;
    let month = digits(b, 5, 2)?;
    byte(b, 7, b'-')?;
    let day = digits(b, 8, 2)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    if b.len() == 10 {
        return Some(());
    }
    byte(b, 10, b'T')?;
    let hour = digits(b, 11, 2)?;
    byte(b, 13, b':')?;
    let minute = digits(b, 14, 2)?;
    if hour > 23 || minute > 59 {
        return None;
    }
    let mut at = 16;
    if byte(b, at, b':').is_some() {
        if digits(b, 17, 2)? > 60 {
            return None;
        }
        at = 19;
        if byte(b, at, b'.').is_some() {
            let fraction = b.get(at + 1..)?;
            let n = fraction.iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 {
                return None;
            }
            at += 1 + n;
        }
    }
    zone(b.get(at..)?)
}

/// A time zone designator: `Z`, or `+hh:mm` / `-hh:mm`.
fn zone(z: &[u8]) -> Option<()> {
    if z == b"Z" {
        return Some(());
    }
    if z.len() != 6 || !matches!(z.first(), Some(b'+' | b'-')) {
        return None;
    }
    let hours = digits(z, 1, 2)?;
    byte(z, 3, b':')?;
    let minutes = digits(z, 4, 2)?;
    (hours <= 23 && minutes <= 59).then_some(())
}

/// The number written by the `n` ASCII digits at `at` (small `n` only: no overflow check).
fn digits(b: &[u8], at: usize, n: usize) -> Option<u32> {
    b.get(at..at.checked_add(n)?)?
        .iter()
        .try_fold(0u32, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
        })
}

/// `Some` if the byte at `at` is `want`.
fn byte(b: &[u8], at: usize, want: u8) -> Option<()> {
    (b.get(at) == Some(&want)).then_some(())
}

/// Days in `month` (1–12) of `year`, Gregorian.
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `yes` / `no` (exact, lowercase, as Google documents) → `Some(true)` / `Some(false)`.
pub(crate) fn parse_yes_no(s: &str) -> Option<bool> {
    match s {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    }
}

/// A video duration: ASCII digits only (no sign, no decimals, leading zeros allowed), 1 to
/// 28,800 seconds.
pub(crate) fn parse_duration(s: &str) -> Option<u32> {
    let n = saturating_int(s.as_bytes())?;
    (1..=MAX_DURATION).contains(&n).then_some(n)
}

/// A Media RSS `duration` attribute: like [`parse_duration`], but a decimal such as `120.5` is
/// also accepted and rounded down (digits, then optionally `.` and at least one digit). The
/// rounded value must still be 1 to 28,800, so `0.5` is refused.
pub(crate) fn parse_media_duration(s: &str) -> Option<u32> {
    let (int, _) = split_decimal(s.as_bytes())?;
    let n = saturating_int(int)?;
    (1..=MAX_DURATION).contains(&n).then_some(n)
}

/// A video rating: digits, optionally `.` and at least one digit (`4`, `4.5`, `5.00`), from 0.0
/// to 5.0 inclusive. Signs, exponents, `.5`, `5.`, `inf` and `NaN` are refused.
pub(crate) fn parse_rating(s: &str) -> Option<f32> {
    let (int, fraction) = split_decimal(s.as_bytes())?;
    // Compare the digits, not the float: `5.00000001` rounds to 5.0 as an f32.
    let whole = saturating_int(int)?;
    if whole > 5 || (whole == 5 && fraction.iter().any(|&c| c != b'0')) {
        return None;
    }
    s.parse().ok()
}

/// A `view_count`: ASCII digits only (no sign), fitting in a `u64`.
pub(crate) fn parse_count(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    // Not `str::parse`: it takes a leading `+`.
    s.bytes().try_fold(0u64, |acc, c| {
        if c.is_ascii_digit() {
            acc.checked_mul(10)?.checked_add(u64::from(c - b'0'))
        } else {
            None
        }
    })
}

/// A `<priority>`: an `xsd:decimal` from 0.0 to 1.0 inclusive, as the protocol's own XML schema
/// defines it, so that nothing it validates is called invalid here: an optional sign, then
/// digits with an optional `.` and fraction, where either side of the `.` may be empty but not
/// both (`0.5`, `1`, `1.0`, `0`, `.5`, `1.`, `+0.5`, `-0.0`).
pub(crate) fn is_priority(s: &str) -> bool {
    let b = s.as_bytes();
    let (negative, b) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, b),
    };
    let (int, fraction) = match memchr(b'.', b) {
        Some(dot) => (b.get(..dot).unwrap_or(&[]), b.get(dot + 1..).unwrap_or(&[])),
        None => (b, &[][..]),
    };
    if (int.is_empty() && fraction.is_empty())
        || !int.iter().chain(fraction).all(u8::is_ascii_digit)
    {
        return false;
    }
    let whole = int.iter().skip_while(|&&c| c == b'0').count();
    let int_is_one = whole == 1 && int.last() == Some(&b'1');
    let fraction_zero = fraction.iter().all(|&c| c == b'0');
    match (negative, whole) {
        (true, _) => whole == 0 && fraction_zero,
        (false, 0) => true,
        (false, _) => int_is_one && fraction_zero,
    }
}

/// A `<changefreq>`: `always`, `hourly`, `daily`, `weekly`, `monthly`, `yearly` or `never`
/// (exact lowercase, as the protocol's schema enumerates them).
pub(crate) fn is_changefreq(s: &str) -> bool {
    matches!(
        s,
        "always" | "hourly" | "daily" | "weekly" | "monthly" | "yearly" | "never"
    )
}

/// The 249 assigned ISO 3166-1 alpha-2 country codes, sorted.
const COUNTRIES: [&str; 249] = [
    "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ",
    "BA", "BB", "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ", "BR", "BS",
    "BT", "BV", "BW", "BY", "BZ", "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK", "CL", "CM", "CN",
    "CO", "CR", "CU", "CV", "CW", "CX", "CY", "CZ", "DE", "DJ", "DK", "DM", "DO", "DZ", "EC", "EE",
    "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK", "FM", "FO", "FR", "GA", "GB", "GD", "GE", "GF",
    "GG", "GH", "GI", "GL", "GM", "GN", "GP", "GQ", "GR", "GS", "GT", "GU", "GW", "GY", "HK", "HM",
    "HN", "HR", "HT", "HU", "ID", "IE", "IL", "IM", "IN", "IO", "IQ", "IR", "IS", "IT", "JE", "JM",
    "JO", "JP", "KE", "KG", "KH", "KI", "KM", "KN", "KP", "KR", "KW", "KY", "KZ", "LA", "LB", "LC",
    "LI", "LK", "LR", "LS", "LT", "LU", "LV", "LY", "MA", "MC", "MD", "ME", "MF", "MG", "MH", "MK",
    "ML", "MM", "MN", "MO", "MP", "MQ", "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ", "NA",
    "NC", "NE", "NF", "NG", "NI", "NL", "NO", "NP", "NR", "NU", "NZ", "OM", "PA", "PE", "PF", "PG",
    "PH", "PK", "PL", "PM", "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RE", "RO", "RS", "RU", "RW",
    "SA", "SB", "SC", "SD", "SE", "SG", "SH", "SI", "SJ", "SK", "SL", "SM", "SN", "SO", "SR", "SS",
    "ST", "SV", "SX", "SY", "SZ", "TC", "TD", "TF", "TG", "TH", "TJ", "TK", "TL", "TM", "TN", "TO",
    "TR", "TT", "TV", "TW", "TZ", "UA", "UG", "UM", "US", "UY", "UZ", "VA", "VC", "VE", "VG", "VI",
    "VN", "VU", "WF", "WS", "YE", "YT", "ZA", "ZM", "ZW",
];

/// An assigned ISO 3166-1 alpha-2 country code, ASCII case-insensitive (Google's Media RSS
/// example writes `us ca`).
pub(crate) fn is_country_code(s: &str) -> bool {
    let [a, b] = s.as_bytes() else {
        return false;
    };
    let key = [a.to_ascii_uppercase(), b.to_ascii_uppercase()];
    COUNTRIES
        .binary_search_by(|c| c.as_bytes().cmp(&key[..]))
        .is_ok()
}

/// ISO 4217 list one, sorted: the codes Debian's iso-codes 4.15 lists, plus ZWG (2024) and XCG
/// (2025) added since. Codes withdrawn since then (HRK, CUC, SLL, ZWL, ANG) are kept: refusing
/// one drops the whole price, a heavier outcome than a stale currency deserves.
const CURRENCIES: [&str; 183] = [
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT",
    "BGN", "BHD", "BIF", "BMD", "BND", "BOB", "BOV", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD",
    "CAD", "CDF", "CHE", "CHF", "CHW", "CLF", "CLP", "CNY", "COP", "COU", "CRC", "CUC", "CUP",
    "CVE", "CZK", "DJF", "DKK", "DOP", "DZD", "EGP", "ERN", "ETB", "EUR", "FJD", "FKP", "GBP",
    "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD", "HNL", "HRK", "HTG", "HUF", "IDR",
    "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS", "KHR", "KMF", "KPW",
    "KRW", "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL", "LYD", "MAD", "MDL", "MGA",
    "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN", "MXV", "MYR", "MZN", "NAD",
    "NGN", "NIO", "NOK", "NPR", "NZD", "OMR", "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG",
    "QAR", "RON", "RSD", "RUB", "RWF", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE",
    "SLL", "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT", "TND", "TOP",
    "TRY", "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "USN", "UYI", "UYU", "UYW", "UZS", "VED",
    "VES", "VND", "VUV", "WST", "XAF", "XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XCD", "XCG",
    "XDR", "XOF", "XPD", "XPF", "XPT", "XSU", "XTS", "XUA", "XXX", "YER", "ZAR", "ZMW", "ZWG",
    "ZWL",
];

/// An ISO 4217 currency code: three uppercase letters from [`CURRENCIES`].
pub(crate) fn is_currency_code(s: &str) -> bool {
    s.len() == 3 && CURRENCIES.binary_search(&s).is_ok()
}

/// An hreflang or news language: `x-default`, or a BCP 47-shaped tag: a 2- or 3-letter language,
/// then optionally a 4-letter script, then optionally a region of 2 letters or 3 digits (`en`,
/// `en-US`, `zh-Hant`, `zh-Hant-TW`, `es-419`). ASCII case-insensitive; `-` only (Google requires
/// it: `en_US` is refused); no variants or extensions. The shape is checked, not the registry.
pub(crate) fn is_language_tag(s: &str) -> bool {
    if s.eq_ignore_ascii_case("x-default") {
        return true;
    }
    let letters = |p: &str, n: usize| p.len() == n && p.bytes().all(|c| c.is_ascii_alphabetic());
    let mut parts = s.split('-');
    let language = parts.next().unwrap_or("");
    if !(letters(language, 2) || letters(language, 3)) {
        return false;
    }
    let mut next = parts.next();
    if next.is_some_and(|p| letters(p, 4)) {
        next = parts.next();
    }
    let region = |p: &str| letters(p, 2) || (p.len() == 3 && p.bytes().all(|c| c.is_ascii_digit()));
    if next.is_some_and(region) {
        next = parts.next();
    }
    next.is_none()
}

/// A `<video:platform>` value: `web`, `mobile` or `tv` (exact lowercase).
pub(crate) fn is_platform(s: &str) -> bool {
    matches!(s, "web" | "mobile" | "tv")
}

/// Whether the uploader `info` URL is in the same domain as the page `loc`. Both must parse as
/// URLs with hosts. Domain names are compared ASCII case-insensitively after dropping a final `.`
/// and one leading `www.` from each: the same if equal, or if one is a subdomain of the other
/// (ends with `.` and the other). Without a public-suffix list, `example.co.uk` counts as inside
/// `co.uk`. IP addresses must be equal, and never match a name.
pub(crate) fn same_domain(page: &str, info: &str) -> bool {
    fn plain(u: &str) -> Option<&[u8]> {
        crate::plain_url::plain_http(u.as_bytes()).map(|p| p.host)
    }
    if let (Some(a), Some(b)) = (plain(page), plain(info)) {
        // Plain DNS names, which the `url` crate reads as these same domains: no parse (two
        // parses per video with an uploader were a twentieth of the reader's work).
        return same_domain_name(a, b);
    }
    same_domain_parsed(page, info)
}

/// [`same_domain`] through the `url` crate's parse.
fn same_domain_parsed(page: &str, info: &str) -> bool {
    let (Ok(page), Ok(info)) = (Url::parse(page), Url::parse(info)) else {
        return false;
    };
    match (page.host(), info.host()) {
        (Some(Host::Domain(a)), Some(Host::Domain(b))) => {
            same_domain_name(a.as_bytes(), b.as_bytes())
        }
        (Some(Host::Ipv4(a)), Some(Host::Ipv4(b))) => a == b,
        (Some(Host::Ipv6(a)), Some(Host::Ipv6(b))) => a == b,
        _ => false,
    }
}

/// Whether two domain names are the same or one is a subdomain of the other (see
/// [`same_domain`]).
fn same_domain_name(a: &[u8], b: &[u8]) -> bool {
    let (a, b) = (bare_domain(a), bare_domain(b));
    !a.is_empty()
        && !b.is_empty()
        && (a.eq_ignore_ascii_case(b) || is_subdomain(a, b) || is_subdomain(b, a))
}

/// A domain name's bytes without a final `.` and one leading `www.`.
fn bare_domain(d: &[u8]) -> &[u8] {
    let d = d.strip_suffix(b".").unwrap_or(d);
    match d.get(..4) {
        Some(www) if www.eq_ignore_ascii_case(b"www.") => d.get(4..).unwrap_or(&[]),
        _ => d,
    }
}

/// Whether `sub` ends with `.` + `parent` (ASCII case-insensitively).
fn is_subdomain(sub: &[u8], parent: &[u8]) -> bool {
    let Some(dot) = sub.len().checked_sub(parent.len() + 1) else {
        return false;
    };
    sub.get(dot) == Some(&b'.')
        && sub
            .get(dot + 1..)
            .is_some_and(|t| t.eq_ignore_ascii_case(parent))
}

/// `None` if `s` has at most `limit` characters, else `Some` of its character count. Free when
/// the byte length is within the limit, which is every value of a normal sitemap.
pub(crate) fn chars_over(s: &str, limit: usize) -> Option<usize> {
    if s.len() <= limit {
        return None; // a character is at least one byte
    }
    let n = s.chars().count();
    (n > limit).then_some(n)
}

/// Digits then optionally `.` and at least one digit: the integer and fraction digits.
fn split_decimal(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let (int, fraction) = match memchr(b'.', b) {
        Some(dot) => {
            let fraction = b.get(dot + 1..)?;
            if fraction.is_empty() {
                return None;
            }
            (b.get(..dot)?, fraction)
        }
        None => (b, &[][..]),
    };
    let all_digits = int.iter().chain(fraction).all(u8::is_ascii_digit);
    (!int.is_empty() && all_digits).then_some((int, fraction))
}

/// The value of one or more ASCII digits, saturating at `u32::MAX` (enough for range checks).
fn saturating_int(b: &[u8]) -> Option<u32> {
    if b.is_empty() {
        return None;
    }
    b.iter().try_fold(0u32, |acc, &c| {
        c.is_ascii_digit()
            .then(|| acc.saturating_mul(10).saturating_add(u32::from(c - b'0')))
    })
}

/// At most [`QUOTE_CHARS`] characters of `s`, controls escaped, `…` if cut.
fn quote(s: &str) -> String {
    let end = s
        .char_indices()
        .nth(QUOTE_CHARS)
        .map_or(s.len(), |(i, _)| i);
    let mut out = String::new();
    push_escaped(&mut out, s.get(..end).unwrap_or(s));
    if end < s.len() {
        out.push('…');
    }
    out
}

/// About [`QUOTE_CHARS`] characters of `s` around byte `at` (a character boundary), so that a
/// message shows the offending character even deep inside a long URL.
fn around(s: &str, at: usize) -> String {
    let (Some(before), Some(after)) = (s.get(..at), s.get(at..)) else {
        return quote(s);
    };
    let start = before
        .char_indices()
        .rev()
        .nth(QUOTE_BEFORE - 1)
        .map_or(0, |(i, _)| i);
    let end = after
        .char_indices()
        .nth(QUOTE_CHARS - QUOTE_BEFORE)
        .map_or(after.len(), |(i, _)| i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    push_escaped(&mut out, before.get(start..).unwrap_or(""));
    push_escaped(&mut out, after.get(..end).unwrap_or(""));
    if end < after.len() {
        out.push('…');
    }
    out
}

/// Appends `s` with control characters escaped, so a message stays on one line.
fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs [`check_url`]: whether the URL is usable, and the problems as (code, message).
    fn check(url: &str) -> (bool, Vec<(Code, String)>) {
        let mut found = Vec::new();
        let usable = check_url(url, &mut |code, message| {
            found.push((code, message.into_owned()))
        });
        (usable, found)
    }

    fn codes(url: &str) -> (bool, Vec<Code>) {
        let (usable, found) = check(url);
        (usable, found.into_iter().map(|(c, _)| c).collect())
    }

    #[test]
    fn good_urls_have_no_problem() {
        for url in [
            "http://www.example.com/",
            "https://example.com",
            "HTTPS://Example.COM/a/b?c=d&e=f#g",
            "http://www.example.com/%C3%BCmlat.html&q=name",
            "https://example.com/a?x=1&y=2",
            "http://user:pw@example.com:8080/p;x=1?q",
            "http://127.0.0.1/",
            "http://[::1]:80/x",
            "https://example.com/~user/!$&'()*+,;=:@-._",
            "https://example.com/?a[]=1",
            "https://xn--mnchen-3ya.de/",
        ] {
            assert_eq!(codes(url), (true, vec![]), "{url}");
        }
    }

    #[test]
    fn relative_and_other_schemes_are_invalid() {
        for url in [
            "/a",
            "a/b",
            "//example.com/a",
            "ftp://x/",
            "mailto:a@example.com",
            "javascript:alert(1)",
            "file:///etc/passwd",
            "example.com",
            "http:example.com",
            "http:/example.com",
            "http:\\\\example.com",
            "http://",
            "http:///example.com",
            "http://?q",
            "http://#f",
            "http://:80/",
            "http://exa mple.com/",
            "http://example.com:99999/",
            "http://[::1/",
            "ht\ntp://example.com/",
            "1http://example.com/",
        ] {
            let (usable, found) = codes(url);
            assert!(!usable, "{url:?}");
            assert!(found.contains(&Code::InvalidUrl), "{url:?}: {found:?}");
        }
    }

    #[test]
    fn empty_url_is_invalid() {
        let (usable, found) = check("");
        assert!(!usable);
        assert_eq!(
            found,
            vec![(Code::InvalidUrl, "the URL is empty".to_owned())]
        );
    }

    #[test]
    fn invalid_url_messages_name_the_problem() {
        let (_, found) = check("ftp://x/");
        assert!(found[0].1.contains("`ftp`"), "{}", found[0].1);
        let (_, found) = check("/a");
        assert!(found[0].1.contains("`/a`"), "{}", found[0].1);
        let (_, found) = check("http://");
        assert!(found[0].1.contains("host"), "{}", found[0].1);
        let (_, found) = check("http://example.com:99999/");
        assert!(found[0].1.contains("port"), "{}", found[0].1);
    }

    #[test]
    fn non_ascii_is_usable_but_not_encoded() {
        let (usable, found) = check("https://example.com/ümlat.html");
        assert!(usable);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, Code::UrlNotEncoded);
        assert!(found[0].1.contains("`ü`"), "{}", found[0].1);
    }

    #[test]
    fn characters_that_must_be_encoded() {
        for (url, named) in [
            ("http://e.com/a b", "a space"),
            ("http://e.com/a\tb", "U+0009"),
            ("http://e.com/a\u{7f}", "U+007F"),
            ("http://e.com/\"", "`\"`"),
            ("http://e.com/<", "`<`"),
            ("http://e.com/>", "`>`"),
            ("http://e.com/a\\b", "`\\`"),
            ("http://e.com/^", "`^`"),
            ("http://e.com/`", "```"),
            ("http://e.com/{", "`{`"),
            ("http://e.com/|", "`|`"),
            ("http://e.com/}", "`}`"),
            ("http://e.com/日本", "`日`"),
            ("http://e.com/a%zz", "`%`"),
            ("http://e.com/a%", "`%`"),
            ("http://e.com/a%4", "`%`"),
            ("http://e.com/%%41", "`%`"),
        ] {
            let (usable, found) = check(url);
            assert!(usable, "{url:?}");
            assert_eq!(found.len(), 1, "{url:?}: {found:?}");
            assert_eq!(found[0].0, Code::UrlNotEncoded, "{url:?}");
            assert!(found[0].1.contains(named), "{url:?}: {}", found[0].1);
        }
    }

    #[test]
    fn percent_escapes_any_case_are_fine() {
        assert_eq!(codes("http://e.com/%c3%BC%2f%00"), (true, vec![]));
        assert_eq!(codes("http://e.com/%41"), (true, vec![]));
    }

    #[test]
    fn not_encoded_message_stays_short_and_on_one_line() {
        let url = format!("http://e.com/{}\n{}", "a".repeat(1_000), "b".repeat(1_000));
        let (usable, found) = check(&url);
        assert!(usable);
        assert_eq!(found.len(), 1);
        let message = &found[0].1;
        assert!(message.contains("U+000A"), "{message}");
        assert!(message.contains("\\n"), "{message}");
        assert!(!message.contains('\n'), "{message}");
        assert!(message.chars().count() < 160, "{message}");
    }

    #[test]
    fn url_length_limit() {
        let base = "http://e.com/";
        let fits = format!("{base}{}", "a".repeat(MAX_URL_CHARS - base.len()));
        assert_eq!(fits.chars().count(), 2_048);
        assert_eq!(codes(&fits), (true, vec![]));

        let over = format!("{fits}a");
        let (usable, found) = check(&over);
        assert!(!usable);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, Code::UrlTooLong);
        assert!(found[0].1.contains("2049"), "{}", found[0].1);
        assert!(found[0].1.chars().count() < 200, "{}", found[0].1);
    }

    #[test]
    fn url_length_counts_characters_not_bytes() {
        // 2,048 characters but more bytes: too long only in bytes, so fine.
        let base = "http://e.com/";
        let url = format!("{base}{}", "é".repeat(MAX_URL_CHARS - base.len()));
        assert!(url.len() > MAX_URL_CHARS);
        let (usable, found) = codes(&url);
        assert!(usable);
        assert_eq!(found, vec![Code::UrlNotEncoded]);
    }

    #[test]
    fn several_problems_are_all_reported() {
        let url = format!("ftp://e.com/ü?sid=1&x={}", "a".repeat(3_000));
        let (usable, found) = codes(&url);
        assert!(!usable);
        assert_eq!(
            found,
            vec![
                Code::UrlTooLong,
                Code::InvalidUrl,
                Code::UrlNotEncoded,
                Code::SessionId
            ]
        );
    }

    #[test]
    fn session_ids_are_warnings() {
        for (url, name) in [
            ("http://e.com/;jsessionid=ABC", "jsessionid"),
            ("http://e.com/a;JSESSIONID=ABC?x=1", "JSESSIONID"),
            ("http://e.com/?PHPSESSID=1", "PHPSESSID"),
            ("http://e.com/?a=1&sid=2", "sid"),
        ] {
            let (usable, found) = check(url);
            assert!(usable, "{url}");
            assert_eq!(found.len(), 1, "{url}: {found:?}");
            assert_eq!(found[0].0, Code::SessionId, "{url}");
            assert!(found[0].1.contains(&format!("`{name}`")), "{}", found[0].1);
        }
    }

    #[test]
    fn session_id_names() {
        for url in [
            "http://e.com/;jsessionid=1",
            "http://e.com/;JSessionId=1",
            "http://e.com/a.jsp;jsessionid=1?x=2",
            "http://e.com/?jsessionid=1",
            "http://e.com/?PHPSESSID=1",
            "http://e.com/?phpsessid=1",
            "http://e.com/?sid=1",
            "http://e.com/?SID=1",
            "http://e.com/?sessionid=1",
            "http://e.com/?session_id=1",
            "http://e.com/?session=1",
            "http://e.com/?ASPSESSIONIDQADCDBCA=1",
            "http://e.com/?aspsessionid=1",
            "http://e.com/?CFID=1&CFTOKEN=2",
            "http://e.com/?cftoken=2",
            "http://e.com/?zenid=1",
            "http://e.com/?osCsid=1",
            "http://e.com/?a=1&b=2&sid=3",
            "http://e.com/?a=1;sid=3",
            "http://e.com/?sid",
            "http://e.com/?sid=",
            "http://e.com/p?sid=1#frag",
        ] {
            assert!(has_session_id(url), "{url}");
        }
    }

    #[test]
    fn not_session_ids() {
        for url in [
            "http://e.com/?sidebar=1",
            "http://e.com/?side=1",
            "http://e.com/?a=sid",
            "http://e.com/?a=1&b=sid",
            "http://e.com/?xsid=1",
            "http://e.com/?sessions=1",
            "http://e.com/?sessionidx=1",
            "http://e.com/?aspsession=1",
            "http://e.com/sid=1",
            "http://e.com/sid/1",
            "http://e.com/;jsessionid",
            "http://e.com/jsessionid=1",
            "http://e.com/#?sid=1",
            "http://e.com/#;jsessionid=1",
            "http://e.com/?",
            "http://e.com/",
            "",
            "?",
            ";",
        ] {
            assert!(!has_session_id(url), "{url}");
        }
    }

    #[test]
    fn dates_valid() {
        for s in [
            "2024-01-31",
            "2024-01-31T10:00Z",
            "2024-01-31T10:00:59Z",
            "2024-01-31T23:59:60Z",
            "2007-11-05T19:20:30+08:00",
            "2020-10-15T00:00+01:00",
            "2005-01-01T12:00:00.1-05:00",
            "2005-01-01T12:00:00.123456789Z",
            "1997-07-16T19:20:30.45+01:00",
            "2024-12-31T00:00-00:00",
            "2024-06-30T12:00+23:59",
            "0000-01-01",
            "9999-12-31",
            "2024-04-30",
        ] {
            assert!(is_w3c_datetime(s), "{s}");
        }
    }

    #[test]
    fn dates_invalid() {
        for s in [
            "",
            "2024",
            "2024-01",
            "2024-1-5",
            "2024-01-5",
            "24-01-05",
            "02024-01-05",
            "2024/01/05",
            "2024-00-10",
            "2024-13-10",
            "2024-01-00",
            "2024-01-32",
            "2024-04-31",
            "2024-06-31",
            "2024-09-31",
            "2024-11-31",
            "2024-01-31T10:00",
            "2024-01-31T10:00:00",
            "2024-01-31T24:00Z",
            "2024-01-31T23:60Z",
            "2024-01-31T23:59:61Z",
            "2024-01-31T10Z",
            "2024-01-31T1:00Z",
            "2024-01-31t10:00Z",
            "2024-01-31T10:00z",
            "2024-01-31 10:00Z",
            "2024-01-31T10:00:00.Z",
            "2024-01-31T10:00.5Z",
            "2024-01-31T10:00:00+0800",
            "2024-01-31T10:00:00+08",
            "2024-01-31T10:00:00+24:00",
            "2024-01-31T10:00:00+08:60",
            "2024-01-31T10:00:00 +08:00",
            "2024-01-31T10:00:00ZZ",
            "2024-01-31T10:00:00+08:00Z",
            "2024-01-31Z",
            "2024-01-31T",
            "2024-01-31 ",
            " 2024-01-31",
            "２０２４-01-31",
            "2024-01-31T10:00:00.５Z",
            "+2024-01-31",
        ] {
            assert!(!is_w3c_datetime(s), "{s:?}");
        }
    }

    #[test]
    fn leap_years() {
        assert!(is_w3c_datetime("2000-02-29"));
        assert!(!is_w3c_datetime("1900-02-29"));
        assert!(is_w3c_datetime("2024-02-29"));
        assert!(!is_w3c_datetime("2023-02-29"));
        assert!(is_w3c_datetime("2023-02-28"));
        assert!(!is_w3c_datetime("2024-02-30"));
        assert!(!is_w3c_datetime("2100-02-29"));
        assert!(is_w3c_datetime("2400-02-29T00:00Z"));
    }

    #[test]
    fn yes_no() {
        assert_eq!(parse_yes_no("yes"), Some(true));
        assert_eq!(parse_yes_no("no"), Some(false));
        for s in ["Yes", "NO", "y", "n", "true", "1", "", " yes", "yes "] {
            assert_eq!(parse_yes_no(s), None, "{s:?}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1"), Some(1));
        assert_eq!(parse_duration("600"), Some(600));
        assert_eq!(parse_duration("28800"), Some(28_800));
        assert_eq!(parse_duration("0060"), Some(60));
        for s in [
            "",
            "0",
            "000",
            "28801",
            "-5",
            "+5",
            "5.0",
            "5s",
            " 5",
            "1e3",
            "٣",
            "99999999999999999999999",
        ] {
            assert_eq!(parse_duration(s), None, "{s:?}");
        }
    }

    #[test]
    fn media_durations() {
        assert_eq!(parse_media_duration("120"), Some(120));
        assert_eq!(parse_media_duration("120.5"), Some(120));
        assert_eq!(parse_media_duration("120.999"), Some(120));
        assert_eq!(parse_media_duration("1.0"), Some(1));
        assert_eq!(parse_media_duration("28800.9"), Some(28_800));
        for s in [
            "", "0", "0.5", "28801", "28801.0", ".5", "5.", "5..0", "5.0.0", "-1", "+1", "1e2",
            "1,5", "NaN", "inf",
        ] {
            assert_eq!(parse_media_duration(s), None, "{s:?}");
        }
    }

    #[test]
    fn ratings() {
        assert_eq!(parse_rating("0"), Some(0.0));
        assert_eq!(parse_rating("0.0"), Some(0.0));
        assert_eq!(parse_rating("4.2"), Some(4.2));
        assert_eq!(parse_rating("5"), Some(5.0));
        assert_eq!(parse_rating("5.0"), Some(5.0));
        assert_eq!(parse_rating("5.000"), Some(5.0));
        assert_eq!(parse_rating("03.5"), Some(3.5));
        for s in [
            "",
            "5.1",
            "5.00000001",
            "6",
            "10",
            "-0",
            "-1",
            "+4",
            ".5",
            "5.",
            "4.2.1",
            "NaN",
            "nan",
            "inf",
            "infinity",
            "1e0",
            "4,5",
            " 4",
            "4 ",
            "99999999999999999999",
        ] {
            assert_eq!(parse_rating(s), None, "{s:?}");
        }
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("0"), Some(0));
        assert_eq!(parse_count("12345"), Some(12_345));
        assert_eq!(parse_count("007"), Some(7));
        assert_eq!(parse_count("18446744073709551615"), Some(u64::MAX));
        for s in [
            "",
            "18446744073709551616",
            "99999999999999999999999",
            "+1",
            "-1",
            "1.0",
            "1,000",
            "1e3",
            " 1",
            "١",
        ] {
            assert_eq!(parse_count(s), None, "{s:?}");
        }
    }

    #[test]
    fn priorities() {
        for s in [
            "0", "1", "0.5", "1.0", "0.0", "1.000", "0.05", "00.5", "01", "01.00", ".5", "1.",
            "0.", ".0", "+0.5", "+1", "-0", "-0.0", "-.0",
        ] {
            assert!(is_priority(s), "{s:?}");
        }
        for s in [
            "", ".", "+", "-", "+.", "1.1", "1.01", "2", "10", "-0.1", "-1", "0.5.0", "0,5", "1e0",
            "NaN", " 0.5", "0.5 ", "high", "++1", "１",
        ] {
            assert!(!is_priority(s), "{s:?}");
        }
    }

    #[test]
    fn changefreqs() {
        for s in [
            "always", "hourly", "daily", "weekly", "monthly", "yearly", "never",
        ] {
            assert!(is_changefreq(s), "{s}");
        }
        for s in ["", "Daily", "DAILY", "day", "biweekly", " daily"] {
            assert!(!is_changefreq(s), "{s:?}");
        }
    }

    #[test]
    fn country_table_is_sorted_and_complete() {
        assert_eq!(COUNTRIES.len(), 249);
        assert!(COUNTRIES.windows(2).all(|w| w[0] < w[1]));
        assert!(COUNTRIES
            .iter()
            .all(|c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_uppercase())));
    }

    #[test]
    fn country_codes() {
        for s in ["US", "us", "Ca", "cA", "GB", "AD", "ZW", "AX", "SS", "XK"] {
            assert_eq!(is_country_code(s), s != "XK", "{s}");
        }
        for s in ["", "U", "USA", "UK", "EU", "ZZ", "AA", "u1", "é", "ü", "  "] {
            assert!(!is_country_code(s), "{s:?}");
        }
    }

    #[test]
    fn currency_table_is_sorted() {
        assert!(CURRENCIES.windows(2).all(|w| w[0] < w[1]));
        assert!(CURRENCIES
            .iter()
            .all(|c| c.len() == 3 && c.bytes().all(|b| b.is_ascii_uppercase())));
    }

    #[test]
    fn currency_codes() {
        for s in [
            "USD", "EUR", "JPY", "GBP", "CHF", "AED", "ZWG", "XCG", "XAU",
        ] {
            assert!(is_currency_code(s), "{s}");
        }
        for s in [
            "", "usd", "Usd", "US", "USDD", "ABC", "DEM", "FRF", "EUR ", "€",
        ] {
            assert!(!is_currency_code(s), "{s:?}");
        }
    }

    #[test]
    fn language_tags() {
        for s in [
            "en",
            "EN",
            "en-US",
            "en-us",
            "de-CH",
            "zh-Hant",
            "zh-Hant-TW",
            "zh-hans-cn",
            "es-419",
            "sr-Latn",
            "sr-Latn-RS",
            "fil",
            "fil-PH",
            "x-default",
            "X-Default",
        ] {
            assert!(is_language_tag(s), "{s}");
        }
        for s in [
            "",
            "e",
            "english",
            "en_US",
            "en-",
            "-en",
            "en--US",
            "en-USA",
            "en-U",
            "en-1",
            "en-12",
            "en-1234",
            "en-US-Hant",
            "en-US-US",
            "zh-Hant-Hans",
            "de-CH-1996",
            "en-US-x-private",
            "e1",
            "x-defaults",
            "x",
            "i-klingon",
            "é",
            "en-ÜS",
            "en US",
        ] {
            assert!(!is_language_tag(s), "{s:?}");
        }
    }

    #[test]
    fn platforms() {
        for s in ["web", "mobile", "tv"] {
            assert!(is_platform(s), "{s}");
        }
        for s in ["", "Web", "TV", "desktop", "web mobile"] {
            assert!(!is_platform(s), "{s:?}");
        }
    }

    #[test]
    fn same_domains() {
        for (page, info) in [
            ("http://example.com/v", "http://example.com/u"),
            ("https://www.example.com/v", "http://example.com/u"),
            ("https://example.com/v", "https://www.example.com/u"),
            ("https://WWW.Example.COM/v", "https://example.com/u"),
            ("https://example.com/v", "https://videos.example.com/u"),
            ("https://www.example.com/v", "https://a.b.example.com/u"),
            ("https://videos.example.com/v", "https://example.com/u"),
            ("https://example.com./v", "https://example.com/u"),
            ("http://127.0.0.1/v", "http://127.0.0.1:8080/u"),
            ("http://[::1]/v", "http://[0:0:0:0:0:0:0:1]/u"),
        ] {
            assert!(same_domain(page, info), "{page} {info}");
        }
    }

    #[test]
    fn other_domains() {
        for (page, info) in [
            ("https://example.com/v", "https://example.org/u"),
            ("https://example.com/v", "https://badexample.com/u"),
            ("https://badexample.com/v", "https://example.com/u"),
            ("https://example.com/v", "https://example.com.evil.net/u"),
            ("https://a.example.com/v", "https://b.example.com/u"),
            ("http://127.0.0.1/v", "http://127.0.0.2/u"),
            ("http://127.0.0.1/v", "http://localhost/u"),
            ("http://[::1]/v", "http://127.0.0.1/u"),
            ("https://example.com/v", "/u"),
            ("/v", "https://example.com/u"),
            ("https://example.com/v", ""),
            ("https://example.com/v", "mailto:a@example.com"),
        ] {
            assert!(!same_domain(page, info), "{page} {info}");
        }
    }

    #[test]
    fn same_domain_fast_path_agrees_with_the_parse() {
        let urls = [
            "http://example.com/v",
            "https://www.example.com/u?x=1",
            "https://WWW.Example.COM:8443/v",
            "https://example.com./v",
            "https://videos.example.com/v",
            "https://a.b.example.com/u",
            "https://badexample.com/u",
            "https://example.com.evil.net/u",
            "https://www.www.example.com/u",
            "https://www./u",
            "https://com/u",
            "http://127.0.0.1/v",
            "http://xn--bcher-kva.example/v",
            "http://b\u{fc}cher.example/v",
            "https://example.org/u",
        ];
        for page in urls {
            for info in urls {
                assert_eq!(
                    same_domain(page, info),
                    same_domain_parsed(page, info),
                    "{page} {info}"
                );
            }
        }
    }

    #[test]
    fn counting_characters() {
        assert_eq!(chars_over("", 0), None);
        assert_eq!(chars_over("abc", 3), None);
        assert_eq!(chars_over("abcd", 3), Some(4));
        assert_eq!(chars_over("ééé", 3), None);
        assert_eq!(chars_over("éééé", 3), Some(4));
        assert_eq!(chars_over("a", 0), Some(1));
        let big = "x".repeat(100_000);
        assert_eq!(chars_over(&big, 2_048), Some(100_000));
        assert_eq!(chars_over(&big, 100_000), None);
    }

    #[test]
    fn quoting_cuts_long_text_at_characters() {
        let long = "ü".repeat(200);
        let q = quote(&long);
        assert_eq!(q.chars().count(), QUOTE_CHARS + 1);
        assert!(q.ends_with('…'));
        assert_eq!(quote("short"), "short");
        let a = around(&long, 100 * 2);
        assert!(a.starts_with('…') && a.ends_with('…'), "{a}");
        assert_eq!(a.chars().count(), QUOTE_CHARS + 2);
        // Not a character boundary: falls back to the start, never panics.
        assert_eq!(around(&long, 1), q);
    }

    proptest::proptest! {
        #[test]
        fn nothing_panics(s in "\\PC{0,40}|[-+.:/?#%;=&0-9a-zA-Z_TZ]{0,40}") {
            let mut seen = 0usize;
            let usable = check_url(&s, &mut |_, m| seen += m.len());
            proptest::prop_assert!(!usable || !s.is_empty());
            let _ = has_session_id(&s);
            let _ = is_w3c_datetime(&s);
            let _ = parse_yes_no(&s);
            if let Some(d) = parse_duration(&s) {
                proptest::prop_assert!((1..=28_800).contains(&d));
            }
            if let Some(d) = parse_media_duration(&s) {
                proptest::prop_assert!((1..=28_800).contains(&d));
            }
            if let Some(r) = parse_rating(&s) {
                proptest::prop_assert!((0.0..=5.0).contains(&r));
            }
            let _ = parse_count(&s);
            let _ = is_priority(&s);
            let _ = is_country_code(&s);
            let _ = is_currency_code(&s);
            let _ = is_language_tag(&s);
            let _ = same_domain(&s, &s);
            let _ = chars_over(&s, 3);
        }
    }
}
