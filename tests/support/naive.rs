//! A naive reference robots.txt matcher, straight from google/robotstxt's description, for
//! checking the compiled matcher and the segments index against.

/// google/robotstxt's position-set algorithm on raw bytes: a final `$` anchors, any other `$`
/// is literal, `*` matches any run.
pub fn naive_matches(pattern: &[u8], path: &[u8]) -> bool {
    let mut pos = vec![0usize];
    for (i, &c) in pattern.iter().enumerate() {
        if c == b'$' && i + 1 == pattern.len() {
            return pos.contains(&path.len());
        }
        if c == b'*' {
            let first = pos[0];
            pos = (first..=path.len()).collect();
        } else {
            pos = pos
                .into_iter()
                .filter(|&p| p < path.len() && path[p] == c)
                .map(|p| p + 1)
                .collect();
            if pos.is_empty() {
                return false;
            }
        }
    }
    true
}

/// Longest match, allow on ties, no match → allowed; an empty pattern matches nothing.
pub fn naive_allowed(rules: &[(bool, String)], path: &str) -> bool {
    let mut best: Option<(usize, bool)> = None;
    for (allow, pattern) in rules {
        if !pattern.is_empty() && naive_matches(pattern.as_bytes(), path.as_bytes()) {
            let cand = (pattern.len(), *allow);
            best = Some(match best {
                Some(b) if b.0 > cand.0 || (b.0 == cand.0 && b.1) => b,
                _ => cand,
            });
        }
    }
    best.is_none_or(|b| b.1)
}
