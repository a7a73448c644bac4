//! The checks that need a crawler catalogue:
//!
//! - `near-miss-agent`: a group's product token that no catalogued crawler sends, one or two
//!   edits from one that does (`gpt-bot`, `claude-bot`): that crawler follows `*` instead.
//!   Tokens of well-known crawlers outside the catalogue (search engines, social previews) are
//!   never reported.
//! - `allowed-but-refused`: a training (or search) crawler allowed everywhere by a group of its
//!   own while the `Content-Signal` or `Content-Usage` in force for it says no to training (or
//!   search): a crawler that reads only the rules crawls, and the file says two things.

use super::{audit, Access, Catalogue, Purpose};
use crate::diagnostic::{Code, Diagnostic};
use crate::robots::crawler_lint::Lines;
use crate::robots::{Agent, GroupMatch, Preference, Robots};

/// Crawlers that are not in an AI catalogue but are real: never a near miss.
const KNOWN: &[&str] = &[
    "googlebot",
    "googlebot-image",
    "googlebot-news",
    "googlebot-video",
    "adsbot-google",
    "mediapartners-google",
    "storebot-google",
    "google-inspectiontool",
    "bingbot",
    "msnbot",
    "adidxbot",
    "bingpreview",
    "slurp",
    "duckduckbot",
    "baiduspider",
    "yandex",
    "yandexbot",
    "yandeximages",
    "sogou",
    "exabot",
    "facebot",
    "twitterbot",
    "linkedinbot",
    "pinterestbot",
    "applebot",
    "seznambot",
    "naverbot",
    "yeti",
    "ahrefsbot",
    "semrushbot",
    "mj12bot",
    "dotbot",
    "rogerbot",
    "petalbot",
    "qwantify",
    "ia_archiver",
    "archive-it",
    "semrushbot-sa",
    "semrushbot-ba",
    "semrushbot-si",
    "semrushbot-bm",
    "semrushbot-ct",
    "siteauditbot",
];

/// The catalogue's findings for `robots` (parsed from `input`), in line order.
pub fn lint(robots: &Robots, input: &[u8], catalogue: &Catalogue) -> Vec<Diagnostic> {
    let mut lines = Lines::new(input);
    let mut out = Vec::new();
    near_misses(robots, catalogue, &mut lines, &mut out);
    allowed_but_refused(robots, catalogue, &mut lines, &mut out);
    out.sort_by_key(|d| (d.line, d.span.start));
    out
}

fn push(out: &mut Vec<Diagnostic>, code: Code, line: u32, lines: &mut Lines<'_>, message: String) {
    out.push(Diagnostic {
        code,
        severity: code.default_severity(),
        line,
        span: lines.span(line),
        message: message.into(),
    });
}

fn near_misses(
    robots: &Robots,
    catalogue: &Catalogue,
    lines: &mut Lines<'_>,
    out: &mut Vec<Diagnostic>,
) {
    for group in robots.groups() {
        for (agent, line) in group.agents() {
            let Agent::Token(token) = agent else { continue };
            if catalogue.knows(token) || KNOWN.contains(&token) {
                continue;
            }
            let best = catalogue
                .crawlers()
                .iter()
                .filter_map(|c| {
                    let t = c.token.as_ref()?;
                    let d = near(token, t.as_str())?;
                    Some((d, c))
                })
                .min_by_key(|(d, c)| (*d, c.name.len()));
            if let Some((_, c)) = best {
                push(
                    out,
                    Code::NearMissAgent,
                    line,
                    lines,
                    format!(
                        "no catalogued crawler sends `{token}`; did you mean `{}`? That crawler \
                         follows another group (or `*`), not this one",
                        c.name
                    ),
                );
            }
        }
    }
}

/// How near `a` is to `b` (both lowercase), if near enough to be a slip: equal but for `-`
/// and `_` (`gpt-bot`), or but for a `bot` suffix on a name of seven letters or more (`perplexity`), 0; two letters swapped
/// (`gtpbot`), or one edit in a token of eight characters or more (`claudbot`), 1. Looser
/// limits were measured on the bench corpus: one edit in shorter tokens names other real
/// crawlers (`npbot` is not `wpbot`, `snapbot` not `shapbot`).
fn near(a: &str, b: &str) -> Option<usize> {
    // Most pairs of a file's agents and the catalogue's tokens are told apart by their lengths
    // alone: each case below needs lengths without `-` and `_` equal or 3 apart (`bot`), or
    // lengths at most 1 apart. Nothing here allocates: the search ran once per agent and
    // catalogued crawler, and was most of `crawlgate batch`'s time when it built strings.
    if a == b {
        return None;
    }
    let keep = |c: &u8| *c != b'-' && *c != b'_';
    let (ka, kb) = (
        a.bytes().filter(keep).count(),
        b.bytes().filter(keep).count(),
    );
    let apart = ka.abs_diff(kb);
    if apart != 0 && apart != 3 && a.len().abs_diff(b.len()) > 1 {
        return None;
    }
    // Equal but for `-` and `_`, or but for a `bot` suffix on a name of seven letters or more.
    let stripped_eq =
        |x: &str, n: usize, y: &str| x.bytes().filter(keep).take(n).eq(y.bytes().filter(keep));
    let bot = |x: &str, kx: usize, y: &str, ky: usize| {
        kx >= 10
            && kx == ky + 3
            && x.bytes().filter(keep).skip(ky).eq(*b"bot")
            && stripped_eq(x, ky, y)
    };
    if (ka == kb && stripped_eq(a, ka, b)) || bot(a, ka, b, kb) || bot(b, kb, a, ka) {
        return Some(0);
    }
    let shorter = a.len().min(b.len());
    if shorter < 5 {
        return None;
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // Trimmed of their common prefix and suffix, two strings one edit apart differ in what is
    // left: one byte against none (an insertion), one against one (a substitution), or two
    // against the same two swapped.
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[p..], &b[p..]);
    let q = ra
        .iter()
        .rev()
        .zip(rb.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ra, rb) = (&ra[..ra.len() - q], &rb[..rb.len() - q]);
    let swapped = ra.len() == 2 && rb.len() == 2 && ra[0] == rb[1] && ra[1] == rb[0];
    if swapped {
        return Some(1);
    }
    if shorter < 8 {
        return None;
    }
    matches!((ra.len(), rb.len()), (1, 0) | (0, 1) | (1, 1)).then_some(1)
}

fn allowed_but_refused(
    robots: &Robots,
    catalogue: &Catalogue,
    lines: &mut Lines<'_>,
    out: &mut Vec<Diagnostic>,
) {
    for a in audit(robots, catalogue, &[]) {
        if a.group != GroupMatch::Token || a.root.access != Access::Allowed {
            continue;
        }
        let (what, signal, usage) = match a.crawler.purpose {
            Purpose::Training => ("training", a.signals.ai_train, a.usage.train_ai),
            Purpose::Search => ("search", a.signals.search, a.usage.search),
            _ => continue,
        };
        let line = if signal == Preference::Disallowed {
            a.signal_lines.first()
        } else if usage == Preference::Disallowed {
            a.usage_lines.first()
        } else {
            None
        };
        if let Some(&line) = line {
            push(
                out,
                Code::AllowedButRefused,
                line,
                lines,
                format!(
                    "`{}` ({what}) may crawl everything by its own group (line {}), yet this \
                     line refuses {what}: a crawler that reads only the rules crawls for it \
                     anyway; block it with `Disallow: /` if that is meant",
                    a.crawler.name,
                    a.group_lines.first().copied().unwrap_or_default()
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search as first written (strings built, a distance table): the oracle of [`near`].
    fn near_exact(a: &str, b: &str) -> Option<usize> {
        let strip = |s: &str| {
            s.chars()
                .filter(|c| *c != '-' && *c != '_')
                .collect::<String>()
        };
        if a == b {
            return None;
        }
        let (sa, sb) = (strip(a), strip(b));
        let bot = |x: &str, y: &str| x.len() >= 10 && x.strip_suffix("bot") == Some(y);
        if sa == sb || bot(&sa, &sb) || bot(&sb, &sa) {
            return Some(0);
        }
        let shorter = a.len().min(b.len());
        if shorter < 5 {
            return None;
        }
        let swapped = a.len() == b.len() && {
            let diff: Vec<usize> = (0..a.len())
                .filter(|&i| a.as_bytes()[i] != b.as_bytes()[i])
                .collect();
            diff.len() == 2
                && diff[1] == diff[0] + 1
                && a.as_bytes()[diff[0]] == b.as_bytes()[diff[1]]
                && a.as_bytes()[diff[1]] == b.as_bytes()[diff[0]]
        };
        if swapped {
            return Some(1);
        }
        if shorter < 8 {
            return None;
        }
        distance(a.as_bytes(), b.as_bytes(), 1)
    }

    /// Optimal-string-alignment distance (insertions, deletions, substitutions, adjacent swaps), or
    /// `None` once it must exceed `limit`.
    fn distance(a: &[u8], b: &[u8], limit: usize) -> Option<usize> {
        if a.len().abs_diff(b.len()) > limit {
            return None;
        }
        let w = b.len() + 1;
        let mut d = vec![0usize; (a.len() + 1) * w];
        for (j, cell) in d.iter_mut().enumerate().take(w) {
            *cell = j;
        }
        for i in 1..=a.len() {
            d[i * w] = i;
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut v = (d[(i - 1) * w + j] + 1)
                    .min(d[i * w + j - 1] + 1)
                    .min(d[(i - 1) * w + j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = v.min(d[(i - 2) * w + j - 2] + 1);
                }
                d[i * w + j] = v;
            }
        }
        d.last().copied().filter(|&v| v <= limit)
    }

    /// [`near`] answers as the oracle does: every catalogued token against every token and
    /// every slip of one (a letter dropped, added or changed, two swapped, `-` added, `bot`
    /// added or dropped).
    #[test]
    fn the_near_miss_search_agrees_with_its_oracle() {
        let catalogue = Catalogue::builtin();
        let tokens: Vec<&str> = catalogue
            .crawlers()
            .iter()
            .filter_map(|c| c.token.as_ref().map(|t| t.as_str()))
            .collect();
        let mut found = 0;
        let mut check = |a: &str, b: &str| {
            let oracle = near_exact(a, b);
            found += usize::from(oracle.is_some());
            assert_eq!(near(a, b), oracle, "{a} {b}");
        };
        for t in &tokens {
            let mut slips: Vec<String> = vec![format!("{t}bot"), format!("{t}-"), format!("-{t}")];
            if let Some(s) = t.strip_suffix("bot") {
                slips.push(s.to_owned());
            }
            // Slips at the ends and in the middle (each position would repeat the same lengths).
            let n = t.len();
            for i in [0, 1, n / 2, n.saturating_sub(2), n.saturating_sub(1)] {
                if i >= n {
                    continue;
                }
                slips.push(format!("{}{}", &t[..i], &t[i + 1..]));
                slips.push(format!("{}x{}", &t[..i], &t[i..]));
                slips.push(format!("{}x{}", &t[..i], &t[i + 1..]));
                if i + 1 < n {
                    let mut v = t.as_bytes().to_vec();
                    v.swap(i, i + 1);
                    slips.push(String::from_utf8(v).unwrap_or_default());
                }
            }
            for a in &slips {
                for b in &tokens {
                    check(a, b);
                }
            }
            for b in &tokens {
                check(t, b);
            }
        }
        for (a, b) in [
            ("gpt_bot", "gpt-bot"),
            ("a-b-c-d-e-f-g-h-i-jbot", "abcdefghij"),
            ("claud-ebot", "claudebot"),
        ] {
            check(a, b);
        }
        assert!(found > 1000, "{found} near pairs tried");
    }
}
