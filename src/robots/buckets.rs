//! Which rules of a short list (at most 64) can match a path, told by the path's second byte,
//! so that a check tries a few rules instead of scanning the list.
//!
//! A rule can match a path only if its literal prefix (its canonical text up to the first `*`)
//! is a prefix of the path. When that prefix holds two bytes or more, the path's second byte
//! must equal the rule's: nearly every rule starts with `/`, and the byte after it is the
//! first that tells rules apart. Rules whose prefix is shorter (`/`, `/*…`, `*…`) may match any
//! path. The sets are bit sets of list positions, so the candidates come out in precedence
//! order (lowest bit first) and the first that matches is the one a scan would find.

/// The candidate sets of one list.
#[derive(Debug, Clone)]
pub(crate) struct Buckets {
    /// Rules that may match whatever the path's second byte is.
    any: u64,
    /// Which second bytes have a set of their own: bit `b % 64` of word `b / 64`.
    present: [u64; 4],
    /// How many sets the words before each word of `present` hold: a set's place in `sets`
    /// is this plus the present bits below its own in its word.
    before: [u8; 4],
    /// The sets of the present bytes, in byte order (each without `any`).
    sets: Box<[u64]>,
}

/// The most rules a [`Buckets`] holds: one bit each in a `u64`.
pub(crate) const MAX_RULES: usize = 64;

impl Buckets {
    /// The sets of the list whose canonical texts are `texts`, in precedence order (at most
    /// [`MAX_RULES`]; any more are candidates for every path, so a longer list is still
    /// answered right, if slowly).
    pub(crate) fn build<'a>(texts: impl Iterator<Item = &'a [u8]>) -> Buckets {
        let mut by_byte = [0u64; 256];
        let mut any = 0u64;
        let mut present = [0u64; 4];
        for (i, text) in texts.enumerate() {
            let Some(bit) = u32::try_from(i).ok().and_then(|i| 1u64.checked_shl(i)) else {
                any = u64::MAX;
                break;
            };
            match text {
                [first, second, ..] if *first != b'*' && *second != b'*' => {
                    by_byte[usize::from(*second)] |= bit;
                    present[usize::from(*second >> 6)] |= 1 << (*second & 63);
                }
                _ => any |= bit,
            }
        }
        // The present bytes' sets, in byte order: a walk of the present bits, not of all 256
        // bytes (which was most of the build, 2.8 M instructions on the corpus).
        let mut before = [0u8; 4];
        let mut sets = Vec::with_capacity(present.iter().map(|w| w.count_ones() as usize).sum());
        for (w, &word) in present.iter().enumerate() {
            // At most 256 sets; a word's count before it is at most 192.
            before[w] = u8::try_from(sets.len()).unwrap_or(u8::MAX);
            let mut bits = word;
            while bits != 0 {
                sets.push(by_byte[w * 64 + bits.trailing_zeros() as usize]);
                bits &= bits - 1;
            }
        }
        Buckets {
            any,
            present,
            before,
            sets: sets.into_boxed_slice(),
        }
    }

    /// The rules that may match `path` (canonical), as a bit set of list positions.
    #[inline]
    pub(crate) fn candidates(&self, path: &[u8]) -> u64 {
        let Some(&b) = path.get(1) else {
            return self.any;
        };
        let word = usize::from(b >> 6);
        let bit = 1u64 << (b & 63);
        let present = self.present[word];
        if present & bit == 0 {
            return self.any;
        }
        let at = usize::from(self.before[word]) + (present & (bit - 1)).count_ones() as usize;
        self.any | self.sets.get(at).copied().unwrap_or(u64::MAX)
    }

    /// Heap bytes held.
    pub(crate) fn heap_size(&self) -> usize {
        self.sets.len() * std::mem::size_of::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The naive answer: the rules whose literal prefix is shorter than two bytes, and those
    /// whose first two bytes are the path's.
    fn naive(texts: &[Vec<u8>], path: &[u8]) -> u64 {
        texts.iter().enumerate().fold(0, |set, (i, t)| {
            let lit = t.iter().position(|&b| b == b'*').unwrap_or(t.len());
            let can = lit < 2 || path.len() >= 2 && t[..2] == path[..2];
            set | u64::from(can) << i
        })
    }

    proptest! {
        /// No rule that can match is left out: every rule whose first two bytes are a prefix of
        /// the path (or that has a `*` in them) is a candidate.
        #[test]
        fn candidates_keep_every_rule_that_can_match(
            texts in prop::collection::vec(prop::collection::vec(
                prop::sample::select(b"/ab*$%\x80".to_vec()), 0..6), 0..=64),
            path in prop::collection::vec(prop::sample::select(b"/ab*%\x80".to_vec()), 0..5),
        ) {
            let buckets = Buckets::build(texts.iter().map(Vec::as_slice));
            let got = buckets.candidates(&path);
            let want = naive(&texts, &path);
            // The buckets look at the second byte only: a superset of the naive set that
            // also compares the first.
            prop_assert_eq!(got & want, want, "{:?} {:?}", texts, path);
            // And nothing whose second byte differs from the path's is a candidate.
            for (i, t) in texts.iter().enumerate() {
                if let ([a, b, ..], Some(p)) = (t.as_slice(), path.get(1)) {
                    if *a != b'*' && *b != b'*' && b != p {
                        prop_assert_eq!(got >> i & 1, 0, "rule {} {:?} {:?}", i, t, path);
                    }
                }
            }
        }
    }

    #[test]
    fn sets_by_second_byte() {
        let texts: [&[u8]; 6] = [b"/admin/", b"/a", b"/*.pdf", b"/", b"/b", b"*x"];
        let buckets = Buckets::build(texts.into_iter());
        assert_eq!(buckets.candidates(b"/admin/x"), 0b101111);
        assert_eq!(buckets.candidates(b"/b"), 0b111100);
        assert_eq!(buckets.candidates(b"/c"), 0b101100);
        assert_eq!(buckets.candidates(b"/"), 0b101100);
        assert_eq!(buckets.candidates(b""), 0b101100);
        // A byte in every word of `present`, so the counts before each word are used.
        let high: Vec<Vec<u8>> = [0x10u8, 0x50, 0x90, 0xd0, 0xff]
            .iter()
            .map(|&b| vec![b'/', b])
            .collect();
        let buckets = Buckets::build(high.iter().map(Vec::as_slice));
        for (i, t) in high.iter().enumerate() {
            assert_eq!(buckets.candidates(t), 1 << i, "{t:?}");
        }
        assert_eq!(buckets.candidates(b"/\x11"), 0);
    }

    #[test]
    fn more_than_64_rules_are_all_candidates() {
        let texts: Vec<&[u8]> = vec![b"/a"; 65];
        let buckets = Buckets::build(texts.into_iter());
        assert_eq!(buckets.candidates(b"/b"), u64::MAX);
    }
}
