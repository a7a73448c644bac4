//! `differential`: the compiled matcher (linear scan up to 64 rules, prefix index above, groups
//! merged) against the naive reference matcher of `crawlgate_fuzz`, on small patterns over a
//! small alphabet, in both modes. The reference implements each mode's canonicalisation itself
//! (`reference_pattern`, `reference_path`), so `%`-escapes are generated too.
//!
//! Input: byte 0 picks the mode and the alphabet; then rules, each a flag byte (allow or
//! disallow, which of three groups, `/` or `*` first) and up to 15 characters, separated by
//! 0xFF; after a 0xFF 0xFF the paths to check, separated by 0xFF.
#![no_main]

use crawlgate::{Mode, Options, ProductToken, Robots};
use crawlgate_fuzz::{naive_allowed, reference_path, reference_pattern, RefPattern};
use libfuzzer_sys::fuzz_target;

/// `/ab*$%`, the characters that matter to matching, and a wider set that also spells
/// escapes of them (`%2A`, `%24`, `%2F`, `%61`, `%AB`) and a non-ASCII character.
const SMALL: [&str; 6] = ["/", "a", "b", "*", "$", "%"];
const WIDE: [&str; 13] = [
    "/", "a", "b", "*", "$", "%", "2", "A", "4", "F", "6", "1", "é",
];

fn text(bytes: &[u8], alphabet: &[&str], max: usize) -> String {
    bytes
        .iter()
        .take(max)
        .map(|&b| alphabet[b as usize % alphabet.len()])
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mode = if flags & 1 == 0 {
        Mode::Rfc
    } else {
        Mode::Google
    };
    let alphabet: &[&str] = if flags & 2 == 0 { &SMALL } else { &WIDE };
    let (rules_part, paths_part) = match rest.windows(2).position(|w| w == [0xFF, 0xFF]) {
        Some(i) => (&rest[..i], &rest[i + 2..]),
        None => (rest, &[][..]),
    };
    // (allow, group, pattern)
    let rules: Vec<(bool, usize, String)> = rules_part
        .split(|&b| b == 0xFF)
        .filter_map(|r| r.split_first())
        .take(120)
        .map(|(&f, body)| {
            let first = if f & 4 == 0 { "/" } else { "*" };
            (
                f & 1 == 0,
                usize::from(f >> 1 & 1) + usize::from(f >> 3 & 1),
                format!("{first}{}", text(body, alphabet, 15)),
            )
        })
        .collect();
    let mut paths: Vec<String> = paths_part
        .split(|&b| b == 0xFF)
        .take(8)
        .map(|p| format!("/{}", text(p, alphabet, 20)))
        .collect();
    if paths.is_empty() {
        paths.push("/".into());
    }

    // Group 0 `x`, group 1 `X/1.0` (also `x`: merged with group 0), group 2 `*`.
    let mut body = String::new();
    for (g, agent) in ["x", "X/1.0", "*"].iter().enumerate() {
        body.push_str(&format!("User-agent: {agent}\nDisallow:\n"));
        for (allow, _, p) in rules.iter().filter(|r| r.1 == g) {
            body.push_str(if *allow { "Allow: " } else { "Disallow: " });
            body.push_str(p);
            body.push('\n');
        }
    }
    let robots = Robots::parse_with(body.as_bytes(), &Options::mode(mode)).robots;
    let reference = |groups: &[usize]| -> Vec<(bool, RefPattern)> {
        rules
            .iter()
            .filter(|r| groups.contains(&r.1))
            .map(|(allow, _, p)| (*allow, reference_pattern(mode, p.as_bytes())))
            .collect()
    };
    let named = reference(&[0, 1]);
    let star = reference(&[2]);
    for (agent, rules) in [("x", &named), ("y", &star)] {
        let token = ProductToken::new(agent).expect("token");
        let agent_rules = robots.rules_for(&token);
        for path in &paths {
            let got = agent_rules.check_path(path);
            let want = naive_allowed(rules, &reference_path(mode, path.as_bytes()));
            assert_eq!(
                got.allowed, want,
                "mode {mode:?}, agent {agent}, path {path:?}, decision {got:?}\n{body}"
            );
        }
    }
});
