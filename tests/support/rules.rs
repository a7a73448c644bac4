//! Large robots.txt files, built in memory: one `User-agent: *` group of many rules.

/// `User-agent: *`, then `line(i)` for each `i` in `0..n`, one a line.
pub fn one_group(n: usize, line: impl Fn(usize) -> String) -> Vec<u8> {
    let mut body = b"User-agent: *\n".to_vec();
    for i in 0..n {
        body.extend_from_slice(line(i).as_bytes());
        body.push(b'\n');
    }
    body
}

/// 40,000 `Disallow: /pN$` lines (about 720 KB).
pub fn many_anchored_rules() -> Vec<u8> {
    one_group(40_000, |i| format!("Disallow: /p{i}$"))
}

/// 20,000 `Disallow: *aNb` lines: each rule starts with a wildcard.
pub fn star_rules() -> Vec<u8> {
    one_group(20_000, |i| format!("Disallow: *a{i}b"))
}
