//! Many wildcard rules against one path, without scanning the path once per rule.
//!
//! A wildcard pattern is its literal prefix (up to the first `*`, which the [`PrefixIndex`]
//! checks) and then literal segments, each to be found leftmost-first after the previous one;
//! with a final `$`, the last segment must end the path. Tried one by one, every rule is a scan
//! of the path: 20,000 rules `*a{N}b` against a 2,000-byte URL are 20,000 scans. Here the
//! distinct segments of all the rules go into one Aho-Corasick automaton: one pass over the path
//! lists every occurrence of every segment, and a rule is then decided by one search per segment
//! in those lists (the leftmost occurrence at or after where the previous segment ended), which
//! is exactly the leftmost-first search of `pattern::glob`.
//!
//! Cost of a check through it, whatever the file: one automaton pass over the path, linear in
//! the path and in the occurrences reported, which the pass stops collecting at
//! [`OCCURRENCES_PER_BYTE`] per byte of the path; then, per rule tried, one search per segment,
//! galloping from where the rule's previous search of the same segment ended (about a step per
//! segment when a rule repeats one, `*a*a*a…`). When the segments occur more often than that
//! (many short segments, each all over the path), the check tries the rules one by one
//! instead, each a scan of the path, as it would without this index: so the index never makes
//! a check dearer than that by more than one bounded pass, and makes the case it is for (many
//! rules whose segments are rare in the path) cost one pass plus a few steps per segment of
//! each rule. The automaton is built on the first check that needs it (see
//! [`GLOBS_BEFORE_INDEX`]).
//!
//! [`PrefixIndex`]: super::prefix::PrefixIndex

use std::ops::Range;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

/// A check tries this many wildcard rules one by one before the automaton is used: a file
/// with a few dozen wildcard rules never builds it (with 16, a few real files did, and the
/// occurrence pass cost their checks more than the scans it saved). The bound above grows by
/// at most this many scans of the path.
pub(crate) const GLOBS_BEFORE_INDEX: usize = 64;

/// See the module docs.
#[derive(Debug, Clone)]
pub(crate) struct Segments {
    automaton: AhoCorasick,
    /// Length of each distinct segment (by automaton pattern id).
    lens: Vec<u32>,
    /// For the rule at position `p`: its segments (after the prefix, empty ones left out) are
    /// `ids[starts[p]..starts[p + 1]]`; a segment that must end the path (the last, after a
    /// final `$`) is marked with [`END`].
    starts: Vec<u32>,
    ids: Vec<u32>,
}

/// Above this many occurrences per byte of the path, a check does not use the segments (many
/// short segments that each occur all over the path: 1,000 rules `*a…a*x` against `/xaaa…`
/// have 1.5 million occurrences in 2,000 bytes, where trying the rules one by one costs a
/// fraction of a millisecond).
const OCCURRENCES_PER_BYTE: usize = 8;

/// Marks a segment that must end the path.
const END: u32 = 1 << 31;

/// The occurrences of every segment in one path.
pub(crate) struct Occurrences {
    /// Start offsets of segment `i`'s occurrences, ascending, are
    /// `at[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<u32>,
    at: Vec<u32>,
    /// Per segment, which call of [`Segments::matches`] last searched its occurrences, and
    /// where that search ended.
    cursors: Vec<(u32, u32)>,
    /// Calls of [`Segments::matches`] so far (a call's cursors are only its own).
    calls: u32,
}

impl Segments {
    /// The segments of the rules whose canonical texts are `texts` (arena ranges, each with
    /// its final-`$` flag, in the order of the positions later passed to
    /// [`Segments::matches`]). `None` when the automaton cannot be built (too large for its
    /// state identifiers); rules are then tried one by one.
    pub(crate) fn build(
        arena: &[u8],
        texts: impl Iterator<Item = (Range<u32>, bool)>,
    ) -> Option<Segments> {
        let mut distinct: std::collections::HashMap<&[u8], u32> = Default::default();
        let mut patterns: Vec<&[u8]> = Vec::new();
        let mut starts = vec![0u32];
        let mut ids = Vec::new();
        for (r, anchored) in texts {
            let text = &arena[r.start as usize..r.end as usize];
            // The first segment is the prefix; a text without `*` has no other.
            let mut segments = text.split(|&b| b == b'*').skip(1).peekable();
            while let Some(seg) = segments.next() {
                if seg.is_empty() {
                    continue;
                }
                let id = *distinct.entry(seg).or_insert_with(|| {
                    patterns.push(seg);
                    patterns.len() as u32 - 1
                });
                let ends = anchored && segments.peek().is_none();
                ids.push(if ends { id | END } else { id });
            }
            starts.push(ids.len() as u32);
        }
        if patterns.len() >= END as usize {
            return None;
        }
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(&patterns)
            .ok()?;
        ids.shrink_to_fit();
        Some(Segments {
            automaton,
            lens: patterns.iter().map(|p| p.len() as u32).collect(),
            starts,
            ids,
        })
    }

    /// Heap bytes held.
    pub(crate) fn heap_size(&self) -> usize {
        self.automaton.memory_usage()
            + (self.lens.capacity() + self.starts.capacity() + self.ids.capacity())
                * std::mem::size_of::<u32>()
    }

    /// Every occurrence of every segment in `path`: one pass of the automaton. `None` when
    /// they are more than [`OCCURRENCES_PER_BYTE`] per byte of the path: the pass stops there,
    /// and the rules are tried one by one.
    pub(crate) fn occurrences(&self, path: &[u8]) -> Option<Occurrences> {
        let budget = OCCURRENCES_PER_BYTE * path.len() + 64;
        let mut found: Vec<(u32, u32)> = Vec::new();
        for m in self.automaton.find_overlapping_iter(path) {
            if found.len() == budget {
                return None;
            }
            found.push((m.pattern().as_u32(), m.start() as u32));
        }
        // Grouped by segment, starts ascending (a counting sort would do; the lists are short).
        found.sort_unstable();
        let mut offsets = Vec::with_capacity(self.lens.len() + 1);
        let mut i = 0;
        for seg in 0..self.lens.len() as u32 {
            offsets.push(i as u32);
            while i < found.len() && found[i].0 == seg {
                i += 1;
            }
        }
        offsets.push(found.len() as u32);
        Some(Occurrences {
            offsets,
            at: found.into_iter().map(|(_, at)| at).collect(),
            cursors: vec![(0, 0); self.lens.len()],
            calls: 0,
        })
    }

    /// Does the rule at `pos` (its literal prefix, `prefix_len` bytes, already known to start
    /// `path`) match `path`, given the path's `occurrences`? The same answer as
    /// `pattern::matches` for its text.
    pub(crate) fn matches(
        &self,
        pos: u32,
        prefix_len: usize,
        path: &[u8],
        occurrences: &mut Occurrences,
    ) -> bool {
        let ids =
            &self.ids[self.starts[pos as usize] as usize..self.starts[pos as usize + 1] as usize];
        let mut from = prefix_len;
        // Cursors of earlier calls (other rules, or this one with another `from`) are stale;
        // at `u32::MAX` calls they are all reset instead.
        occurrences.calls = match occurrences.calls.checked_add(1) {
            Some(calls) => calls,
            None => {
                occurrences.cursors.fill((0, 0));
                1
            }
        };
        let call = occurrences.calls;
        for &id in ids {
            let seg = (id & !END) as usize;
            let at = &occurrences.at
                [occurrences.offsets[seg] as usize..occurrences.offsets[seg + 1] as usize];
            let len = self.lens[seg] as usize;
            if id & END != 0 {
                // The last segment ends the path, after the others.
                return path
                    .len()
                    .checked_sub(len)
                    .is_some_and(|end| end >= from && at.binary_search(&(end as u32)).is_ok());
            }
            // Where this rule's last search of this segment ended: `from` only grows within a
            // rule, so the occurrences before it are behind `from` already.
            let cursor = &mut occurrences.cursors[seg];
            let start = if cursor.0 == call {
                cursor.1 as usize
            } else {
                0
            };
            let i = first_at_or_after(at, start, from as u32);
            *cursor = (call, i as u32);
            match at.get(i) {
                Some(&a) => from = a as usize + len,
                None => return false,
            }
        }
        true
    }
}

/// The first index `i >= start` with `at[i] >= from` (`at.len()` if none), where `at` is
/// ascending and every entry before `start` is below `from`: a galloping search from `start`,
/// so that a rule repeating a segment (`*a*a*a…`, 1,000 times in a hostile file) pays about one
/// step per repeat rather than a binary search of the whole list (measured: 250 such rules
/// against a 2,000-byte path, 7 ms a check with binary searches).
fn first_at_or_after(at: &[u32], start: usize, from: u32) -> usize {
    let (mut lo, mut hi, mut step) = (start, start, 1);
    while hi < at.len() && at[hi] < from {
        lo = hi + 1;
        hi += step;
        step *= 2;
    }
    let end = hi.min(at.len());
    lo + at
        .get(lo..end)
        .map_or(0, |w| w.partition_point(|&a| a < from))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every rule through the segments index agrees with `pattern::matches`, the matcher a
    /// rule is otherwise tried with (itself held to a naive reference in tests/matching.rs).
    fn agree(texts: &[(String, bool)], paths: &[String]) -> Result<(), TestCaseError> {
        let mut arena = Vec::new();
        let ranges: Vec<(Range<u32>, bool)> = texts
            .iter()
            .map(|(t, anchored)| {
                let start = arena.len() as u32;
                arena.extend_from_slice(t.as_bytes());
                (start..arena.len() as u32, *anchored)
            })
            .collect();
        let segments = Segments::build(&arena, ranges.iter().cloned()).expect("built");
        for path in paths {
            let path = path.as_bytes();
            let mut occ = segments.occurrences(path).expect("few occurrences");
            for (pos, (text, anchored)) in texts.iter().enumerate() {
                let text = text.as_bytes();
                let prefix = memchr::memchr(b'*', text).unwrap_or(text.len());
                if !text.contains(&b'*') || !path.starts_with(&text[..prefix]) {
                    continue;
                }
                // Twice: a second call must not reuse the first one's cursors.
                let first = segments.matches(pos as u32, prefix, path, &mut occ);
                prop_assert_eq!(first, segments.matches(pos as u32, prefix, path, &mut occ));
                prop_assert_eq!(
                    first,
                    super::super::pattern::matches(text, *anchored, true, path),
                    "text {:?} (anchored {}), path {:?}",
                    String::from_utf8_lossy(text),
                    anchored,
                    String::from_utf8_lossy(path)
                );
            }
        }
        Ok(())
    }

    /// The galloping search against `partition_point`, from every valid start.
    #[test]
    fn galloping_finds_what_a_binary_search_finds() {
        for len in 0..40u32 {
            let at: Vec<u32> = (0..len).map(|i| i * 3 + i % 2).collect();
            for from in 0..len * 3 + 3 {
                let want = at.partition_point(|&a| a < from);
                for start in 0..=want {
                    assert_eq!(
                        first_at_or_after(&at, start, from),
                        want,
                        "{at:?} {start} {from}"
                    );
                }
            }
        }
    }

    #[test]
    fn examples() {
        let texts = [
            ("*a1b", false),
            ("/x*b*c", true),
            ("/x*b*", true),
            ("*", true),
            ("/*ab*ab", true),
            ("**a**", false),
            ("/*a*a", true),
        ]
        .map(|(t, a)| (t.to_string(), a));
        let paths = [
            "/xa1b", "/xbcc", "/xbc", "/xb", "/", "/xabab", "/aa", "/a", "",
        ]
        .map(String::from);
        agree(&texts, &paths).unwrap();
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn agrees_with_the_glob_matcher(
            texts in prop::collection::vec(("[/*][/ab*]{0,8}", any::<bool>()), 1..30),
            paths in prop::collection::vec("/[/ab]{0,24}", 1..10),
        ) {
            agree(&texts, &paths)?;
        }
    }
}
