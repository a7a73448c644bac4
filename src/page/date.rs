//! `unavailable_after` dates. Google accepts "all major date/time formats" and documents RFC
//! 822, RFC 850 and ISO 8601; read here: ISO 8601 (`2025-07-01`, `2025-07-01T15:00:00Z`,
//! `…+02:00`), RFC 822/1123 (`Wed, 25 Jun 2010 15:00:00 GMT`, `25 Jun 2010 15:00:00 PST`), RFC
//! 850 (`Wednesday, 25-Jun-10 15:00:00 GMT`) and asctime (`Wed Jun 25 15:00:00 2010`). A date
//! without a zone is UTC.

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn num(s: &str, min: i64, max: i64) -> Option<i64> {
    if s.is_empty() || s.len() > 4 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|n| (min..=max).contains(n))
}

fn unix(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64, zone_s: i64) -> Option<i64> {
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let dim = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if d > *dim.get(usize::try_from(mo - 1).ok()?)? {
        return None;
    }
    Some(days(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s - zone_s)
}

/// `hh:mm[:ss[.fff]]` → (h, m, s).
fn clock(s: &str) -> Option<(i64, i64, i64)> {
    let mut parts = s.split(':');
    let h = num(parts.next()?, 0, 23)?;
    let m = num(parts.next()?, 0, 59)?;
    let sec = match parts.next() {
        Some(p) => num(p.split('.').next()?, 0, 60)?,
        None => 0,
    };
    parts.next().is_none().then_some((h, m, sec))
}

/// A zone as seconds east of UTC.
fn zone(s: &str) -> Option<i64> {
    let named = match s.to_ascii_uppercase().as_str() {
        "Z" | "GMT" | "UT" | "UTC" => Some(0),
        "EDT" => Some(-4),
        "EST" | "CDT" => Some(-5),
        "CST" | "MDT" => Some(-6),
        "MST" | "PDT" => Some(-7),
        "PST" => Some(-8),
        _ => None,
    };
    if let Some(h) = named {
        return Some(h * 3600);
    }
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|&c| c != ':').collect();
    if digits.len() != 4 && digits.len() != 2 {
        return None;
    }
    let h = num(&digits[..2], 0, 23)?;
    let m = if digits.len() == 4 {
        num(&digits[2..], 0, 59)?
    } else {
        0
    };
    Some(sign * (h * 3600 + m * 60))
}

fn month(s: &str) -> Option<i64> {
    const NAMES: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let lower = s.to_ascii_lowercase();
    let short = lower.get(..3)?;
    NAMES
        .iter()
        .position(|n| *n == short)
        .and_then(|i| i64::try_from(i + 1).ok())
}

fn iso(s: &str) -> Option<i64> {
    let (date, time) = match s.split_once(['T', 't', ' ']) {
        Some((d, t)) => (d, Some(t.trim())),
        None => (s, None),
    };
    let mut parts = date.split('-');
    let y = num(parts.next()?, 1, 9999)?;
    let mo = num(parts.next()?, 1, 12)?;
    let d = num(parts.next()?, 1, 31)?;
    if parts.next().is_some() {
        return None;
    }
    let (h, mi, sec, z) = match time {
        None => (0, 0, 0, 0),
        Some(t) => {
            let split = t
                .char_indices()
                .skip(1)
                .find(|&(_, c)| matches!(c, 'Z' | 'z' | '+' | '-'))
                .map_or(t.len(), |(i, _)| i);
            let (clock_part, zone_part) = t.split_at(split);
            let (h, mi, sec) = clock(clock_part)?;
            let z = if zone_part.is_empty() {
                0
            } else {
                zone(zone_part)?
            };
            (h, mi, sec, z)
        }
    };
    unix(y, mo, d, h, mi, sec, z)
}

fn year(s: &str) -> Option<i64> {
    let y = num(s, 0, 9999)?;
    Some(match (s.len(), y) {
        (2, y) if y < 70 => 2000 + y,
        (2, y) => 1900 + y,
        _ => y,
    })
}

fn textual(s: &str) -> Option<i64> {
    let words: Vec<&str> = s
        .split([' ', ',', '\t'])
        .filter(|w| !w.is_empty())
        .flat_map(|w| {
            // RFC 850's `25-Jun-10`; a zone `-0700` stays whole.
            if w.starts_with(['-', '+']) {
                vec![w]
            } else {
                w.split('-').collect()
            }
        })
        .collect();
    let mut i = 0;
    // A weekday first.
    if words
        .first()
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_alphabetic()) && month(w).is_none())
    {
        i = 1;
    }
    let rest = words.get(i..)?;
    // asctime: `Jun 25 15:00:00 2010`; otherwise `25 Jun 2010 15:00:00 [zone]`.
    let (d, mo, y, t, z) = if let Some(mo) = rest.first().and_then(|w| month(w)) {
        let d = num(rest.get(1)?, 1, 31)?;
        let t = clock(rest.get(2)?)?;
        let y = year(rest.get(3)?)?;
        (d, mo, y, t, rest.get(4).copied())
    } else {
        let d = num(rest.first()?, 1, 31)?;
        let mo = month(rest.get(1)?)?;
        let y = year(rest.get(2)?)?;
        let t = match rest.get(3) {
            Some(t) => clock(t)?,
            None => (0, 0, 0),
        };
        (d, mo, y, t, rest.get(4).copied())
    };
    let z = match z {
        Some(z) => zone(z)?,
        None => 0,
    };
    if rest.len() > 5 {
        return None;
    }
    unix(y, mo, d, t.0, t.1, t.2, z)
}

/// The date as Unix seconds, or `None` when it is in none of the formats read.
pub(crate) fn parse(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.len() > 64 {
        return None;
    }
    if s.as_bytes().first().is_some_and(u8::is_ascii_digit) && s.get(4..5) == Some("-") {
        iso(s)
    } else {
        textual(s)
    }
}
