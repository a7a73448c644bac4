//! Which group applies to a product token, and which rule decides ([RFC 9309 §2.2.1–2.2.2]).
//!
//! At parse time every distinct agent gets the merged rules of all its groups, sorted by
//! precedence: longest canonical pattern first, `allow` before `disallow` on ties, then file
//! order. A check is then a binary search for the token and a scan that stops at the first
//! matching rule, which is the one the longest-match rule would pick. The scan looks only at
//! rules that can match: in a list of more than a few rules, those of the path's second byte
//! (`buckets`), and above 64 rules, those whose literal prefix starts the path (`prefix`).
//!
//! [RFC 9309 §2.2.1–2.2.2]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.2.1

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use super::buckets::{self, Buckets};
use super::canonical;
use super::group::{AgentSlot, GroupTable};
use super::path::{
    has_dot_segment, http_path_start, is_robots_txt, may_be_respelled, may_request_robots_txt,
    request_path, request_target,
};
use super::pattern::{self, Compiled, Pairs};
use super::prefix::PrefixIndex;
use super::segments::GLOBS_BEFORE_INDEX;
use super::usage::{self, Signals, Usage};
use super::{run_at, Mode, ProductToken, Robots, Rule, RuleKind, RuleRef};

/// One rule in an agent's precedence-ordered list, and the only record of a compiled rule:
/// what the hot loop reads (prefilter, canonical text, flags) and what a [`RuleRef`] needs
/// (line, kind, the key's spelling; the value as written is the canonical text unless
/// [`Slot::SHARED`] is clear). 16 bytes. A pattern's specificity is not kept: it only sorts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slot {
    /// [`canonical::byte_mask`] of the literal bytes (its 32 bits: see [`canonical::byte_bit`]).
    need: u32,
    /// Where the canonical text (final `$` removed) starts in `Robots::texts`.
    pub start: u32,
    /// 1-based line.
    pub line: u32,
    /// The canonical text's length, or [`Slot::LONG`]: then the length is written in hex
    /// in the 8 bytes before the text (see [`Slot::text`]). A `u16` keeps a slot at 16 bytes.
    len: u16,
    /// How many `*` the text holds, [`Slot::STARS_UNKNOWN`] from that many on (see
    /// [`Slot::min_len`]).
    stars: u8,
    /// [`Slot::ALLOW`], [`Slot::ANCHORED`], [`Slot::WILDCARD`], [`Slot::INDEX_HTML`],
    /// [`Slot::SHARED`] in the low bits; the spelling (index into `Robots::spellings`, or
    /// [`Slot::NO_SPELLING`]: then the spelling is in `Robots::written`) in the top three.
    pub flags: u8,
}

impl Slot {
    pub const ALLOW: u8 = 1;
    /// The pattern ended with `$`: the path must end where the pattern does.
    pub const ANCHORED: u8 = 2;
    /// The canonical text holds at least one `*`.
    pub const WILDCARD: u8 = 4;
    /// Google mode's `/dir/$` rule derived from `Allow: /dir/index.html`.
    pub const INDEX_HTML: u8 = 8;
    /// The value as written is the canonical text followed by `$` when anchored.
    pub const SHARED: u8 = 16;
    const STARS_UNKNOWN: u8 = u8::MAX;
    /// More key spellings than `Robots::spellings` holds (it holds this many).
    pub const NO_SPELLING: u8 = 7;
    const SPELLING_SHIFT: u32 = 5;
    /// See [`Slot::len`]: the parser writes such a text's length before it ([`Slot::header`]).
    pub const LONG: u32 = u16::MAX as u32;

    fn new(rule: &Rule, c: &Compiled) -> Slot {
        let need = c.need();
        let flag = |on: bool, f: u8| if on { f } else { 0 };
        Slot {
            need: need as u32,
            start: c.start,
            line: rule.line,
            len: c.len.min(Slot::LONG) as u16,
            stars: u8::try_from(c.len - c.min_len()).unwrap_or(Slot::STARS_UNKNOWN),
            flags: flag(rule.kind == RuleKind::Allow, Slot::ALLOW)
                | flag(c.anchored, Slot::ANCHORED)
                | flag(c.wildcard, Slot::WILDCARD)
                | flag(rule.index_html, Slot::INDEX_HTML)
                | flag(rule.shared, Slot::SHARED)
                | rule.spelling.min(Slot::NO_SPELLING) << Slot::SPELLING_SHIFT,
        }
    }

    /// The 8 hex digits written before a text of [`Slot::LONG`] bytes or more.
    pub fn header(len: u32) -> String {
        format!("{len:08x}")
    }

    /// The spelling: an index into `Robots::spellings`, or [`Slot::NO_SPELLING`].
    pub fn spelling(&self) -> u8 {
        self.flags >> Slot::SPELLING_SHIFT
    }

    /// The canonical text's length.
    #[inline(always)]
    pub fn len(&self, arena: &[u8]) -> u32 {
        match u32::from(self.len) {
            Slot::LONG => long_len(arena, self.start),
            n => n,
        }
    }

    /// The canonical text.
    #[inline(always)]
    pub fn text<'a>(&self, arena: &'a [u8]) -> &'a [u8] {
        let start = self.start as usize;
        &arena[start..start + self.len(arena) as usize]
    }

    /// The canonical text's range in the arena.
    pub fn range(&self, arena: &[u8]) -> Range<u32> {
        self.start..self.start + self.len(arena)
    }

    #[inline]
    pub fn anchored(&self) -> bool {
        self.flags & Slot::ANCHORED != 0
    }

    #[inline]
    pub fn wildcard(&self) -> bool {
        self.flags & Slot::WILDCARD != 0
    }

    /// Does the rule match `path` (canonical, with [`canonical::byte_mask`] `mask`)? The
    /// prefilter first: slicing the arena (a bounds check that may panic) is not moved past it
    /// by the compiler. Always inlined: it is the hot loop's body, called from a few places.
    #[inline(always)]
    fn matches(&self, arena: &[u8], path: &mut Pairs<'_>, mask: u64) -> bool {
        self.may_match(path.path(), mask)
            && pattern::matches_path(self.text(arena), self.anchored(), self.wildcard(), path)
    }

    /// The prefilter: `false` when `path` (with [`canonical::byte_mask`] `mask`) lacks one of
    /// the pattern's literal bytes or is shorter than its literal bytes. The same test as
    /// `Compiled::may_match`, written out here: calling one shared function measured 9% more
    /// instructions per check (`benches/tools/workload.rs check`), from how the loop was compiled.
    #[inline(always)]
    fn may_match(&self, path: &[u8], mask: u64) -> bool {
        self.need & !(mask as u32) == 0 && self.min_len() as usize <= path.len()
    }

    /// How many literal bytes a matching path has at least (0 when the stars were too many
    /// to count); for a [`Slot::LONG`] text, a lower bound.
    #[inline(always)]
    fn min_len(&self) -> u32 {
        match self.stars {
            Slot::STARS_UNKNOWN => 0,
            n => u32::from(self.len).saturating_sub(u32::from(n)),
        }
    }
}

/// The length written before a long text (see [`Slot::len`]).
#[cold]
#[inline(never)]
fn long_len(arena: &[u8], start: u32) -> u32 {
    let start = start as usize;
    let digits = arena
        .get(start.saturating_sub(8)..start)
        .unwrap_or_default();
    digits.iter().fold(0, |n, &d| {
        n << 4 | char::from(d).to_digit(16).unwrap_or_default()
    })
}

/// The index as the semantic lint sees it while parsing: each slot's rule (index in file
/// order) and compiled pattern, which the compiled file does not keep.
pub(crate) struct LintIndex<'a> {
    pub index: &'a Index,
    /// The rule of each slot, parallel to the index's slots.
    pub slot_rules: &'a [u32],
    /// The compiled pattern of each slot, parallel to the index's slots: the lint reads them
    /// often, and one lookup is cheaper than going through the rule.
    pub slot_compiled: &'a [Compiled],
}

impl<'a> LintIndex<'a> {
    /// See [`Index::lists`].
    pub(crate) fn lists(&self) -> impl Iterator<Item = List<'a>> + 'a {
        self.index.lists()
    }

    /// The rule index and the compiled pattern at `pos` of a list.
    pub(crate) fn slot(&self, pos: u32) -> (u32, &'a Compiled) {
        (self.rule(pos), self.pattern(pos))
    }

    /// The rule index at `pos` of a list.
    #[inline]
    pub(crate) fn rule(&self, pos: u32) -> u32 {
        self.slot_rules[pos as usize]
    }

    /// The compiled pattern at `pos` of a list.
    #[inline]
    pub(crate) fn pattern(&self, pos: u32) -> &'a Compiled {
        &self.slot_compiled[pos as usize]
    }

    /// How many distinct tokens the groups name (the `who` of a token agent is below it).
    pub(crate) fn entry_count(&self) -> usize {
        self.index.entries.len()
    }

    /// See [`Index::entry_token`].
    pub(crate) fn entry_token(&self, at: u32) -> &'a str {
        self.index.entry_token(at)
    }

    /// How many rules the groups naming the token of entry `at` have.
    pub(crate) fn entry_rule_count(&self, at: u32) -> usize {
        self.index
            .entries
            .get(at as usize)
            .map_or(0, |e| e.slots.len())
    }

    /// See [`Index::star_rule_count`].
    pub(crate) fn star_rule_count(&self) -> usize {
        self.index.star_rule_count()
    }
}

#[derive(Debug, Clone)]
struct Entry {
    /// Where the token starts in [`Index::tokens`]; it ends where the next entry's starts.
    token: u32,
    /// Where its groups start in [`Index::group_ids`]; they end where the next entry's start.
    groups: u32,
    slots: Range<u32>,
    /// Built on a check of an agent with more than a few rules (not the file's first such
    /// check, which scans: see [`AgentRules::check`]); boxed, so that the
    /// many agents that never need one pay a pointer for it.
    lookup: OnceLock<Box<Lookup>>,
}

/// What finds the rules that can match a path in a list longer than [`BUCKETS_ABOVE`], built
/// on a check of the list (not the file's first: see [`AgentRules::check`]).
#[derive(Debug, Clone)]
enum Lookup {
    /// Lists of up to [`buckets::MAX_RULES`]: the candidates by the path's second byte.
    Buckets(Buckets),
    /// Longer lists (above [`INDEX_ABOVE`]).
    Prefixes(PrefixIndex),
}

impl Lookup {
    fn heap_size(&self) -> usize {
        std::mem::size_of::<Lookup>()
            + match self {
                Lookup::Buckets(b) => b.heap_size(),
                Lookup::Prefixes(p) => p.heap_size(),
            }
    }
}

/// Working space of [`push_sorted`], reused across groups and agents.
#[derive(Default)]
struct SortScratch {
    keys: Vec<u64>,
    /// The counting sort's buckets.
    counts: Vec<u32>,
}

/// Appends the slots of rules `ids` (increasing) to `slots`, in precedence order: most
/// specific first, `allow` first on ties, then file order (and, across merged groups, group
/// order, since groups hold increasing runs of rules), i.e. by rule index.
fn push_sorted(
    (slots, slot_rules): (&mut Vec<Slot>, &mut Vec<u32>),
    ids: impl Iterator<Item = usize>,
    scratch: &mut SortScratch,
    rules: &[Rule],
    compiled: &[Compiled],
) {
    let start = slot_rules.len();
    sort_rules(ids, scratch, rules, compiled, slot_rules);
    slots.extend(
        slot_rules[start..]
            .iter()
            .map(|&r| Slot::new(&rules[r as usize], &compiled[r as usize])),
    );
}

/// Bits of a sort key for the rule index.
const INDEX_BITS: u32 = 31;

/// Lists above this many rules are counting-sorted (when their specificities are close);
/// shorter ones are sorted by comparison, which is then as cheap.
const COUNTING_ABOVE: usize = 32;

/// Appends rules `ids` to `out` in precedence order (see [`push_sorted`]).
///
/// Each rule becomes one integer key, (specificity, kind, index), unique per rule: an
/// unstable sort of plain integers gives the order a stable sort by (specificity, kind) would,
/// without a closure reading `rules` per comparison. A long list whose specificities span
/// little (almost every one: paths are short) is counting-sorted by (specificity, kind)
/// instead, which keeps increasing `ids` in order among equals, as the keys would: linear
/// rather than n log n (the comparison sort cost the corpus parse 9 M instructions).
fn sort_rules(
    ids: impl Iterator<Item = usize>,
    SortScratch { keys, counts }: &mut SortScratch,
    rules: &[Rule],
    compiled: &[Compiled],
    out: &mut Vec<u32>,
) {
    if rules.len() >= 1 << INDEX_BITS {
        // Too many rules for the key's index bits (not a file that fits in memory): a
        // stable sort, which keeps the order of `ids` among equals.
        let start = out.len();
        out.extend(ids.map(|r| r as u32));
        out[start..].sort_by_key(|&r| {
            let allow = rules[r as usize].kind == RuleKind::Allow;
            (std::cmp::Reverse(compiled[r as usize].priority), !allow)
        });
        return;
    }
    let (mut lo, mut hi) = (u32::MAX, 0);
    // Whether `ids` increase, as the counting sort needs (they always do; checked, as
    // it is free).
    let mut increasing = true;
    let mut next = 0;
    keys.clear();
    keys.extend(ids.map(|r| {
        let p = compiled[r].priority;
        (lo, hi) = (lo.min(p), hi.max(p));
        increasing &= r >= next;
        next = r + 1;
        let disallow = rules[r].kind != RuleKind::Allow;
        u64::from(u32::MAX - p) << 32 | u64::from(disallow) << INDEX_BITS | r as u64
    }));
    let index = |k: u64| (k & ((1 << INDEX_BITS) - 1)) as u32;
    let n = keys.len();
    let span = hi.saturating_sub(lo) as usize + 1;
    if n <= COUNTING_ABOVE || !increasing || span > 2 * n {
        keys.sort_unstable();
        out.extend(keys.iter().map(|&k| index(k)));
        return;
    }
    // Bucket (most specific first, allow first): the key without its index, less the
    // smallest such (that of the most specific allow).
    let first = u64::from(u32::MAX - hi) << 1;
    let bucket = |k: u64| ((k >> INDEX_BITS) - first) as usize;
    counts.clear();
    counts.resize(2 * span + 1, 0);
    for &k in keys.iter() {
        counts[bucket(k) + 1] += 1;
    }
    // Each bucket's first position.
    let mut sum = 0;
    for c in counts.iter_mut() {
        sum += *c;
        *c = sum;
    }
    let start = out.len();
    out.resize(start + n, 0);
    let dest = &mut out[start..];
    for &k in keys.iter() {
        let at = &mut counts[bucket(k)];
        dest[*at as usize] = index(k);
        *at += 1;
    }
}

#[cfg(test)]
mod sort_tests {
    use proptest::prelude::*;

    use super::{sort_rules, SortScratch};
    use crate::robots::pattern::{self, Compiled};
    use crate::robots::{Mode, Rule, RuleKind};

    /// Rules of the given specificities and kinds (`true`: allow).
    fn rules(specs: &[(u32, bool)]) -> (Vec<Rule>, Vec<Compiled>) {
        let (mut arena, mut scratch) = (String::new(), Vec::new());
        specs
            .iter()
            .enumerate()
            .map(|(i, &(p, allow))| {
                // `/aaa…`: as specific as it is long.
                let value = format!("/{}", "a".repeat(p as usize - 1));
                let (c, _, _) =
                    pattern::compile(value.as_bytes(), Mode::Rfc, &mut arena, None, &mut scratch);
                assert_eq!(c.priority, p);
                let kind = if allow {
                    RuleKind::Allow
                } else {
                    RuleKind::Disallow
                };
                let rule = Rule {
                    kind,
                    index_html: false,
                    line: i as u32 + 1,
                    spelling: 0,
                    shared: true,
                    clean: true,
                };
                (rule, c)
            })
            .unzip()
    }

    /// `Index::build` sorts agents by a prefix of their token first: every token is still found
    /// (the entries' binary search needs them in byte order), with its groups merged.
    #[test]
    fn agents_sorted_by_prefix_are_found() {
        let tokens = [
            "abcdefghi",
            "b",
            "abcdefgh",
            "a",
            "abcdefgha",
            "ab",
            "zz",
            "abcdefg",
            "aa",
            "abcdefgh-x",
            "b",
            "a_",
            "a-",
            "abcdefgh",
            "ba",
            "a0",
        ];
        let mut file = String::new();
        let mut want = std::collections::HashMap::new();
        for (i, t) in tokens.iter().enumerate() {
            file.push_str(&format!("user-agent: {t}\n"));
            for r in 0..=i {
                file.push_str(&format!("disallow: /{i}/{r}\n"));
            }
            *want.entry(*t).or_insert(0) += i + 1;
        }
        let robots = crate::robots::Robots::parse(file.as_bytes()).robots;
        for (t, n) in want {
            assert_eq!(robots.index.named_rule_count(t), Some(n), "{t}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]
        /// The counting sort and the key sort give the order of a stable sort by
        /// (specificity descending, allow first), whatever the list's length and spread.
        #[test]
        fn sorts_as_a_stable_sort_by_precedence(
            specs in prop::collection::vec((1u32..12, any::<bool>()), 0..120),
            wide in prop::collection::vec(1u32..400, 0..120),
            keep in prop::collection::vec(any::<bool>(), 120),
            offset in 0usize..3,
        ) {
            // Some specificities spread far (the comparison sort), most close.
            let specs: Vec<(u32, bool)> = specs
                .iter()
                .zip(wide.iter().chain(std::iter::repeat(&0)))
                .map(|(&(p, a), &w)| (if w > 300 { w } else { p }, a))
                .collect();
            let (rules, compiled) = rules(&specs);
            // An increasing selection of the rules, as merged groups give.
            let ids: Vec<usize> = (0..rules.len()).filter(|&r| keep[r] || r % 3 == offset).collect();
            let mut want: Vec<u32> = ids.iter().map(|&r| r as u32).collect();
            want.sort_by_key(|&r| {
                let allow = rules[r as usize].kind == RuleKind::Allow;
                (std::cmp::Reverse(compiled[r as usize].priority), !allow)
            });
            let mut got = vec![7];
            let mut scratch = SortScratch::default();
            sort_rules(ids.iter().copied(), &mut scratch, &rules, &compiled, &mut got);
            prop_assert_eq!(got[0], 7);
            prop_assert_eq!(&got[1..], &want[..]);
        }
    }
}

/// Above this many rules, checks go through a [`PrefixIndex`] instead of a linear scan.
///
/// Measured on the bench corpus (`benches/tools/workload.rs`, `benches/tools/memory_survey.rs`): the
/// index's binary search and parent walk cost more than the prefilter's scan of a few dozen
/// rules. Per check pass, 16: 100.5 M instructions, 1.59× the bodies; 32: 97.5 M, 1.56×; 64:
/// 98.1 M, 1.51×; 128: 101.1 M, 1.46×. 64 is also [`GLOBS_BEFORE_INDEX`], so a linear scan
/// tries no more wildcard rules one by one than an indexed check does before it turns to the
/// segments.
const INDEX_ABOVE: usize = GLOBS_BEFORE_INDEX;

/// Above this many rules (and up to [`INDEX_ABOVE`]), checks try only the rules that
/// [`Buckets`] names for the path; shorter lists are scanned.
const BUCKETS_ABOVE: usize = 4;

const _: () = assert!(INDEX_ABOVE <= buckets::MAX_RULES);

/// Whether the file has had no check yet that needed a lookup: that check scans its list
/// instead of building one (see [`AgentRules::check`]).
#[derive(Debug)]
struct Unchecked(AtomicBool);

impl Unchecked {
    /// `true` the first time it is asked, `false` after.
    #[inline]
    fn take(&self) -> bool {
        self.0.load(Ordering::Relaxed) && self.0.swap(false, Ordering::Relaxed)
    }
}

impl Default for Unchecked {
    fn default() -> Self {
        Unchecked(AtomicBool::new(true))
    }
}

impl Clone for Unchecked {
    fn clone(&self) -> Self {
        Unchecked(AtomicBool::new(self.0.load(Ordering::Relaxed)))
    }
}

/// Merged, sorted rules per agent.
#[derive(Debug, Clone, Default)]
pub(crate) struct Index {
    /// Sorted by token, then the `*` entry when `has_star`: in one vector, so that an entry's
    /// token and groups end where the next one's start (32 bytes an entry, not 40).
    entries: Vec<Entry>,
    has_star: bool,
    /// No check has needed a lookup yet: the first that does scans its list instead.
    unchecked: Unchecked,
    slots: Vec<Slot>,
    group_ids: Vec<u32>,
    /// The entries' tokens, end to end: one allocation rather than one per agent.
    tokens: String,
}

impl Index {
    /// Drops the per-list lookups built so far: a lint that checked paths leaves the file as
    /// parsing left it, so that a crawler pays for a lookup only when it checks.
    pub(super) fn forget_lookups(&mut self) {
        for entry in &mut self.entries {
            entry.lookup = OnceLock::new();
        }
        self.unchecked = Unchecked::default();
    }

    /// In `Mode::Google` a group whose `user-agent` has no product token ([`Agent::Nobody`])
    /// is the group of the empty agent, as google/robotstxt compares the caller's agent with
    /// the empty token it extracts; only [`ProductToken::verbatim`] makes an empty agent.
    /// `compiled` holds each rule's pattern (parallel to `rules`). The agents' tokens are
    /// `tokens` (each agent's `who` indexes its range of the text); each agent is given the
    /// index of its token's entry instead.
    ///
    /// Also returns the rule of each slot, for the lint while parsing. The groups' sorted runs
    /// come first, in group order (`Robots::order` relies on it).
    ///
    /// [`Agent::Nobody`]: super::Agent::Nobody
    pub(crate) fn build(
        groups: &mut GroupTable,
        (text, tokens): (&str, &[Range<u32>]),
        compiled: &[Compiled],
        rules: &[Rule],
        mode: Mode,
    ) -> (Index, Vec<u32>) {
        /// The agent of a pair that names no agent (Google mode's empty token).
        const NO_AGENT: u32 = u32::MAX;
        let mut index = Index::default();
        // (token's first bytes, token, group, agent): the first bytes as a big-endian integer
        // order tokens as the bytes do, so that most comparisons of the sort are one integer
        // compare rather than a call to `memcmp` (files naming hundreds of agents are common).
        let mut pairs: Vec<(u64, &str, u32, u32)> = Vec::with_capacity(tokens.len());
        let mut star_groups: Vec<u32> = Vec::new();
        for (ai, (gi, a)) in groups.all_agents().enumerate() {
            match a.who {
                AgentSlot::STAR => star_groups.push(gi as u32),
                AgentSlot::NOBODY if mode == Mode::Google => {
                    pairs.push((0, "", gi as u32, NO_AGENT));
                }
                AgentSlot::NOBODY => {}
                t => {
                    let token = tokens
                        .get(t as usize)
                        .and_then(|r| text.get(r.start as usize..r.end as usize))
                        .unwrap_or_default();
                    pairs.push((token_prefix(token), token, gi as u32, ai as u32));
                }
            }
        }
        pairs.sort_unstable();
        star_groups.dedup();
        // The distinct groups of a run of one token's pairs (sorted, so repeats are adjacent).
        fn distinct<'r>(run: &'r [(u64, &str, u32, u32)]) -> impl Iterator<Item = u32> + 'r {
            run.iter()
                .enumerate()
                .filter(move |&(k, p)| k == 0 || run[k - 1].2 != p.2)
                .map(|(_, p)| p.2)
        }
        // Exact sizes, so that nothing grows (copying) and `shrink_to_fit` has little to do:
        // an entry per token, every pair's group id once, each token once, and a merged run
        // of slots for each agent of several groups.
        let group_rules = |gids: &mut dyn Iterator<Item = u32>| -> usize {
            gids.map(|g| groups.rules(g as usize).len()).sum()
        };
        let mut merged = 0;
        let mut token_bytes = usize::from(!star_groups.is_empty());
        let mut distinct_tokens = 0;
        let mut group_ids = star_groups.len();
        let mut j = 0;
        while j < pairs.len() {
            let token = pairs[j].1;
            let run = pairs[j..].iter().take_while(|p| p.1 == token).count();
            let in_groups = distinct(&pairs[j..j + run]).count();
            if in_groups > 1 {
                merged += group_rules(&mut distinct(&pairs[j..j + run]));
            }
            group_ids += in_groups;
            token_bytes += token.len();
            distinct_tokens += 1;
            j += run;
        }
        if star_groups.len() > 1 {
            merged += group_rules(&mut star_groups.iter().copied());
        }
        // Every rule is in one group: the groups' runs, then the merged ones, in one
        // allocation (reserving for the merged runs later copied the groups' slots).
        index.slots.reserve_exact(rules.len() + merged);
        let mut slot_rules = Vec::with_capacity(rules.len() + merged);
        // Each group's rules, sorted once.
        let mut keys = SortScratch::default();
        let mut group_slots = Vec::with_capacity(groups.len());
        for g in 0..groups.len() {
            let start = index.slots.len();
            let g = groups.rules(g);
            push_sorted(
                (&mut index.slots, &mut slot_rules),
                g.start as usize..g.end as usize,
                &mut keys,
                rules,
                compiled,
            );
            group_slots.push(start as u32..index.slots.len() as u32);
        }
        index
            .entries
            .reserve_exact(distinct_tokens + usize::from(!star_groups.is_empty()));
        index.group_ids.reserve_exact(group_ids);
        index.tokens.reserve_exact(token_bytes);

        let mut i = 0;
        let mut gids = Vec::new();
        while i < pairs.len() {
            let token = pairs[i].1;
            let run = pairs[i..].iter().take_while(|p| p.1 == token).count();
            gids.clear();
            gids.extend(distinct(&pairs[i..i + run]));
            i += run;
            let entry = index.entry(
                token,
                &gids,
                (groups, &group_slots),
                (rules, compiled, &mut slot_rules),
                &mut keys,
            );
            index.entries.push(entry);
        }
        if !star_groups.is_empty() {
            let entry = index.entry(
                "*",
                &star_groups,
                (groups, &group_slots),
                (rules, compiled, &mut slot_rules),
                &mut keys,
            );
            index.entries.push(entry);
            index.has_star = true;
        }
        // Each agent's token is now its entry (entries are in the pairs' order).
        let agents = groups.agents_mut();
        let (mut i, mut entry) = (0, 0);
        while i < pairs.len() {
            let token = pairs[i].1;
            while let Some(p) = pairs.get(i).filter(|p| p.1 == token) {
                if let Some(a) = agents.get_mut(p.3 as usize) {
                    a.who = entry;
                }
                i += 1;
            }
            entry += 1;
        }
        // Sizes were reserved exactly; in case a count was off, nothing is kept spare.
        index.slots.shrink_to_fit();
        index.entries.shrink_to_fit();
        index.group_ids.shrink_to_fit();
        index.tokens.shrink_to_fit();
        (index, slot_rules)
    }

    /// The token of the entry at `at` (an agent's `who`).
    pub(crate) fn entry_token(&self, at: u32) -> &str {
        self.token(at as usize)
    }

    /// The token of entry `i`.
    fn token(&self, i: usize) -> &str {
        run_at(&self.entries, i, self.tokens.len(), |e| e.token as usize)
            .and_then(|r| self.tokens.get(r))
            .unwrap_or_default()
    }

    /// The groups of entry `i`.
    fn groups(&self, i: usize) -> &[u32] {
        run_at(&self.entries, i, self.group_ids.len(), |e| {
            e.groups as usize
        })
        .and_then(|r| self.group_ids.get(r))
        .unwrap_or_default()
    }

    /// Number of entries of named agents (`*`'s is after them).
    fn named_len(&self) -> usize {
        self.entries.len() - usize::from(self.has_star)
    }

    /// Heap bytes held: the entries and their tokens, the slots, the group lists, and the
    /// lookups (buckets, prefix indexes) built so far.
    pub(crate) fn heap_size(&self) -> usize {
        use std::mem::size_of;
        let entry = |e: &Entry| e.lookup.get().map_or(0, |l| l.heap_size());
        self.entries.capacity() * size_of::<Entry>()
            + self.entries.iter().map(entry).sum::<usize>()
            + self.slots.capacity() * size_of::<Slot>()
            + self.group_ids.capacity() * size_of::<u32>()
            + self.tokens.capacity()
    }

    /// [`Index::heap_size`] by part.
    pub(crate) fn heap_parts(&self) -> [(&'static str, usize); 3] {
        use std::mem::size_of;
        let entry = |e: &Entry| e.lookup.get().map_or(0, |l| l.heap_size());
        [
            (
                "agent entries",
                self.entries.capacity() * size_of::<Entry>()
                    + self.group_ids.capacity() * size_of::<u32>()
                    + self.tokens.capacity(),
            ),
            ("slots", self.slots.capacity() * size_of::<Slot>()),
            (
                "lookups (buckets, prefix indexes)",
                self.entries.iter().map(entry).sum(),
            ),
        ]
    }

    /// The entry of an agent named by groups `gids` (in file order). One group's sorted slots
    /// are shared as they are; several groups are merged into a new run.
    /// `groups` are the file's groups and the ranges of their sorted slots.
    fn entry(
        &mut self,
        token: &str,
        gids: &[u32],
        (groups, group_slots): (&GroupTable, &[Range<u32>]),
        (rules, compiled, slot_rules): (&[Rule], &[Compiled], &mut Vec<u32>),
        keys: &mut SortScratch,
    ) -> Entry {
        let slots = match gids {
            [g] => group_slots[*g as usize].clone(),
            _ => {
                let start = self.slots.len();
                // The groups' rules (the set of each one's slots), merged and sorted anew.
                let ids = gids
                    .iter()
                    .flat_map(|&g| groups.rules(g as usize))
                    .map(|r| r as usize);
                push_sorted((&mut self.slots, slot_rules), ids, keys, rules, compiled);
                start as u32..self.slots.len() as u32
            }
        };
        let groups = self.group_ids.len() as u32;
        self.group_ids.extend_from_slice(gids);
        let token_start = self.tokens.len() as u32;
        self.tokens.push_str(token);
        Entry {
            token: token_start,
            groups,
            slots,
            lookup: OnceLock::new(),
        }
    }

    fn find(&self, token: &ProductToken) -> (GroupMatch, Option<usize>) {
        match self.named(token.as_str()) {
            Some(e) => (GroupMatch::Token, Some(e)),
            None => self.star(),
        }
    }

    /// The entry of the groups that name `token` exactly.
    fn named(&self, token: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.named_len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.token(mid).cmp(token) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    fn star(&self) -> (GroupMatch, Option<usize>) {
        match self.has_star {
            true => (GroupMatch::Star, Some(self.entries.len() - 1)),
            false => (GroupMatch::None, None),
        }
    }

    /// Every agent's precedence-ordered list (the named agents', then `*`'s), as a range of
    /// positions for [`LintIndex::slot`]. Several agents of one group share one range.
    pub(crate) fn lists(&self) -> impl Iterator<Item = List<'_>> + '_ {
        self.entries.iter().enumerate().map(|(i, e)| List {
            slots: e.slots.clone(),
            groups: self.groups(i),
        })
    }

    /// The slot at `pos`.
    pub(crate) fn slot(&self, pos: u32) -> Option<&Slot> {
        self.slots.get(pos as usize)
    }

    /// How many rules the groups naming `token` have (`None`: no group names it).
    #[cfg(test)]
    pub(crate) fn named_rule_count(&self, token: &str) -> Option<usize> {
        self.named(token).map(|e| self.entries[e].slots.len())
    }

    /// How many rules the `*` groups have.
    pub(crate) fn star_rule_count(&self) -> usize {
        match self.star().1 {
            Some(e) => self.entries[e].slots.len(),
            None => 0,
        }
    }

    /// Group indexes that apply to `token`.
    pub(crate) fn groups_for(&self, token: &ProductToken) -> &[u32] {
        match self.find(token).1 {
            Some(e) => self.groups(e),
            None => &[],
        }
    }
}

/// The first eight bytes of `token` (zero-padded) as a big-endian integer: tokens whose
/// prefixes differ order as these integers do, and equal tokens have equal prefixes.
fn token_prefix(token: &str) -> u64 {
    let mut w = [0u8; 8];
    let n = token.len().min(8);
    w[..n].copy_from_slice(&token.as_bytes()[..n]);
    u64::from_be_bytes(w)
}

/// One agent's precedence-ordered rule list, for the semantic lint.
pub(crate) struct List<'a> {
    /// Positions for [`LintIndex::slot`].
    pub slots: Range<u32>,
    /// The groups merged into it, in file order: lists with the same groups are the same.
    pub groups: &'a [u32],
}

/// Which groups applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupMatch {
    /// One or more groups name the token (merged).
    Token,
    /// No group names the token; the `*` group(s) applied.
    Star,
    /// Neither: no rules apply.
    None,
}

impl GroupMatch {
    /// `"token"`, `"star"` or `"none"`, as the CLI's JSON prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupMatch::Token => "token",
            GroupMatch::Star => "star",
            GroupMatch::None => "none",
        }
    }
}

/// Why a [`Decision`] came out as it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason<'a> {
    /// This rule was the longest match.
    Rule(RuleRef<'a>),
    /// The groups that applied have no rule matching the path.
    NoMatchingRule,
    /// No group applies to the agent and there is no `*` group.
    NoGroup,
    /// The path is `/robots.txt`, which is always allowed ([`Mode::Rfc`]).
    RobotsTxt,
}

impl Reason<'_> {
    /// `"rule"`, `"no-matching-rule"`, `"no-group"` or `"robots-txt"`, as the CLI's JSON
    /// prints it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Reason::Rule(_) => "rule",
            Reason::NoMatchingRule => "no-matching-rule",
            Reason::NoGroup => "no-group",
            Reason::RobotsTxt => "robots-txt",
        }
    }

    /// The reason in words, for people (reports): `a rule matched`, `no rule matches the
    /// path`, `no group for the agent and no * group`, `/robots.txt is always allowed`.
    pub fn text(&self) -> &'static str {
        match self {
            Reason::Rule(_) => "a rule matched",
            Reason::NoMatchingRule => "no rule matches the path",
            Reason::NoGroup => "no group for the agent and no * group",
            Reason::RobotsTxt => "/robots.txt is always allowed",
        }
    }
}

/// The answer to "may this agent fetch this URL?", with what decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision<'a> {
    /// May the agent fetch it?
    pub allowed: bool,
    /// Which groups applied.
    pub group: GroupMatch,
    /// What decided.
    pub reason: Reason<'a>,
}

impl<'a> Decision<'a> {
    /// The rule that decided, if one did.
    pub fn rule(&self) -> Option<RuleRef<'a>> {
        match self.reason {
            Reason::Rule(r) => Some(r),
            _ => None,
        }
    }
}

/// The rules that apply to one agent, resolved once: for checking many URLs with one token.
#[derive(Debug, Clone, Copy)]
pub struct AgentRules<'a> {
    robots: &'a Robots,
    group: GroupMatch,
    slots: &'a [Slot],
    lookup: Option<&'a OnceLock<Box<Lookup>>>,
    /// The groups that applied (indexes into `Robots::groups`), in file order.
    groups: &'a [u32],
    /// The token of the groups that applied, `*`, or none.
    token: Option<&'a str>,
}

impl<'a> AgentRules<'a> {
    /// Which groups applied.
    pub fn group(&self) -> GroupMatch {
        self.group
    }

    /// The product token whose groups applied (lowercase), `"*"` for the `*` groups, `None`
    /// when no group applied. With [`Robots::rules_for_any`], which of the tokens won.
    pub fn matched_token(&self) -> Option<&'a str> {
        self.token
    }

    /// The indexes (into [`Robots::groups`]) of the groups that applied, in file order.
    pub fn group_indexes(&self) -> impl Iterator<Item = usize> + 'a {
        self.groups.iter().map(|&g| g as usize)
    }

    /// The usage preferences in force at `url` (a URL or a path, as [`AgentRules::check`]
    /// takes): the `Content-Usage` rules of the groups that applied, matched by longest path,
    /// and only when the URL may be crawled (draft-ietf-aipref-attach §3.1). A signal about
    /// use, never a crawl permission; see the `usage` module docs for the rules.
    pub fn usage(&self, url: &str) -> Usage<'a> {
        self.usage_path(&self.target(url))
    }

    /// Like [`AgentRules::usage`] for a path + query taken verbatim (see
    /// [`AgentRules::check_path`]).
    pub fn usage_path(&self, path: &str) -> Usage<'a> {
        let decision = self.check_path(path);
        if !decision.allowed {
            return Usage {
                decision,
                preferences: Default::default(),
                rules: Vec::new(),
            };
        }
        let (preferences, rules) = usage::usage_at(self.robots, self.groups, path);
        Usage {
            decision,
            preferences,
            rules,
        }
    }

    /// The `Content-Signal` lines of the groups that applied, and their signals combined
    /// (disallowed if any line says `no`, else allowed if any says `yes`). A signal about use,
    /// never a crawl permission.
    pub fn content_signals(&self) -> Signals<'a> {
        usage::signals_of(self.robots, self.groups)
    }

    /// The rules in precedence order (longest first, `allow` first on ties).
    pub fn rules(&self) -> impl Iterator<Item = RuleRef<'a>> + '_ {
        self.slots.iter().map(|s| self.robots.slot_ref(s))
    }

    /// Decides for `url`: an absolute URL, a scheme-relative `//host/…` URL, or a path (with
    /// query); the fragment is ignored.
    ///
    /// In [`Mode::Rfc`] the path judged is the one an HTTP client requests
    /// ([`request_target`](crate::request_target): TAB, LF and CR removed, `\` read as `/`,
    /// dot segments resolved), so that `/x/../private` is judged as `/private`. In
    /// [`Mode::Google`] it is the path as written, as google/robotstxt judges it
    /// ([`request_path`]).
    ///
    /// An agent with more than a few rules is checked through a lookup of them (by the path's
    /// second byte, or a prefix index above 64 rules), built on a check and kept. The file's
    /// first check that would build one scans the agent's rules instead (giving up for the
    /// lookup past 64 wildcard rules that could match): a crawler that asks one question of
    /// a file pays for no index, and one that asks more builds it on its second.
    pub fn check(&self, url: &str) -> Decision<'a> {
        if self.slots.is_empty() {
            // Allowed whatever the path; only whether it is `/robots.txt` is asked of it (and
            // only in `Mode::Rfc`), which a URL without those bytes cannot be.
            if self.robots.mode == Mode::Google || !may_request_robots_txt(url.as_bytes()) {
                return self.no_rule_matched();
            }
            return self.without_rules(&self.target(url));
        }
        {
            if let Some(start) = http_path_start(url.as_bytes()) {
                // The usual URL: one scan finds the fragment and the canonical form, and says
                // whether the path could be respelled by a client (a path with nothing to
                // escape and no `.` cannot: a `.` shares its mask bit with `z`).
                let c = canonical::canonical_path_before_fragment(&url[start..], self.robots.mode);
                let respell = self.robots.mode == Mode::Rfc
                    && if c.plain {
                        // Nothing but a dot segment can change a plain path (and the host
                        // holds no `\\`: the shortcut stops there).
                        c.mask & canonical::byte_bit(b'.') != 0
                            && has_dot_segment(c.path.as_bytes())
                    } else {
                        // The path alone: the shortcut found no `\\` in the host, and a TAB,
                        // LF or CR there does not change the path.
                        may_be_respelled(c.path.as_bytes())
                    };
                if !respell {
                    return self.decide(c.path, &c.canon, c.mask);
                }
            }
        }
        self.check_path(&self.target(url))
    }

    /// The path + query of `url` that this mode judges: what a client requests in
    /// [`Mode::Rfc`], the path as written in [`Mode::Google`].
    fn target<'u>(&self, url: &'u str) -> std::borrow::Cow<'u, str> {
        match self.robots.mode {
            Mode::Rfc => request_target(url),
            Mode::Google => request_path(url),
        }
    }

    /// Decides for `path`, taken verbatim as the path + query to match (it should start with
    /// `/`; no fragment). For callers that already hold the request target.
    pub fn check_path(&self, path: &str) -> Decision<'a> {
        if self.slots.is_empty() {
            return self.without_rules(path);
        }
        let (canon, mask) = canonical::canonical_path(path, self.robots.mode);
        self.decide(path, &canon, mask)
    }

    /// Decides for `path`, whose canonical form is `canon` with [`canonical::byte_mask`] `mask`.
    fn decide(&self, path: &str, canon: &[u8], mask: u64) -> Decision<'a> {
        let robots = self.robots;
        if let Some(decision) = self.robots_txt(path) {
            return decision;
        }
        let arena = robots.texts.as_bytes();
        let mut pairs = Pairs::new(canon);
        let lookup = match self.lookup {
            Some(lazy) if self.slots.len() > BUCKETS_ABOVE => match lazy.get() {
                Some(built) => Some(built),
                None => {
                    if robots.index.unchecked.take() {
                        // The file's first check that would build a lookup scans the list
                        // instead: a crawler that asks one question of a file (its first verdict)
                        // does not pay for an index it never uses again, and one that asks many
                        // builds it on the next question. The scan gives up, and the lookup is
                        // built, where it would try more wildcard rules one by one than an
                        // indexed check does, so that its cost stays bounded.
                        if let Some(hit) = self.scan(arena, &mut pairs, mask) {
                            return self.decided(hit);
                        }
                    }
                    Some(lazy.get_or_init(|| {
                        Box::new(if self.slots.len() > INDEX_ABOVE {
                            Lookup::Prefixes(PrefixIndex::build(
                                arena,
                                self.slots.iter().map(|s| s.range(arena)),
                            ))
                        } else {
                            Lookup::Buckets(Buckets::build(
                                self.slots.iter().map(|s| s.text(arena)),
                            ))
                        })
                    }))
                }
            },
            _ => None,
        };
        let hit = match lookup.map(|l| &**l) {
            Some(Lookup::Buckets(buckets)) => {
                let mut set = buckets.candidates(canon);
                let mut hit = None;
                while set != 0 {
                    let s = self.slots.get(set.trailing_zeros() as usize);
                    if let Some(s) = s.filter(|s| s.matches(arena, &mut pairs, mask)) {
                        hit = Some(s);
                        break;
                    }
                    set &= set - 1;
                }
                hit
            }
            Some(Lookup::Prefixes(index)) => {
                // Wildcard rules are tried one by one up to a point, then all through the
                // segments index (see `segments`): the cost of a check stays bounded however
                // many wildcard rules the path's prefixes lead to.
                let mut globs = 0;
                let mut occurrences = None;
                let segments = || {
                    index.segments(arena, || {
                        self.slots
                            .iter()
                            .map(|s| (s.range(arena), s.anchored()))
                            .collect()
                    })
                };
                index
                    .first_match(arena, canon, |pos, prefix_len| {
                        let s = &self.slots[pos as usize];
                        if !s.wildcard() {
                            // The text is the prefix the index found at the path's start.
                            return !s.anchored() || canon.len() == prefix_len;
                        }
                        if !s.may_match(canon, mask) {
                            return false;
                        }
                        globs += 1;
                        if globs <= GLOBS_BEFORE_INDEX {
                            return pattern::matches_path(
                                s.text(arena),
                                s.anchored(),
                                true,
                                &mut pairs,
                            );
                        }
                        // Without the segments, or when they occur too often in this path
                        // (see `segments`), the rule is tried as a scan.
                        let seg = segments();
                        let occ = seg.and_then(|seg| {
                            occurrences
                                .get_or_insert_with(|| seg.occurrences(canon))
                                .as_mut()
                        });
                        match (seg, occ) {
                            (Some(seg), Some(occ)) => seg.matches(pos, prefix_len, canon, occ),
                            _ => s.matches(arena, &mut pairs, mask),
                        }
                    })
                    .map(|pos| &self.slots[pos as usize])
            }
            None => self
                .slots
                .iter()
                .find(|s| s.matches(arena, &mut pairs, mask)),
        };
        self.decided(hit)
    }

    /// The first rule of the list that matches, by a scan that tries at most
    /// [`GLOBS_BEFORE_INDEX`] wildcard rules: `None` when it would try more.
    fn scan(&self, arena: &[u8], pairs: &mut Pairs<'_>, mask: u64) -> Option<Option<&'a Slot>> {
        let mut globs = 0;
        for s in self.slots {
            if !s.may_match(pairs.path(), mask) {
                continue;
            }
            if s.wildcard() {
                globs += 1;
                if globs > GLOBS_BEFORE_INDEX {
                    return None;
                }
            }
            if pattern::matches_path(s.text(arena), s.anchored(), s.wildcard(), pairs) {
                return Some(Some(s));
            }
        }
        Some(None)
    }

    /// The decision of rule `hit` (`None`: no rule matched).
    fn decided(&self, hit: Option<&'a Slot>) -> Decision<'a> {
        match hit {
            Some(s) => Decision {
                allowed: s.flags & Slot::ALLOW != 0,
                group: self.group,
                reason: Reason::Rule(self.robots.slot_ref(s)),
            },
            None => self.no_rule_matched(),
        }
    }

    /// The decision when no rule applies to the agent: the path's canonical form is not
    /// needed (a check skips that scan; on the bench corpus, 7% of checks).
    fn without_rules(&self, path: &str) -> Decision<'a> {
        self.robots_txt(path)
            .unwrap_or_else(|| self.no_rule_matched())
    }

    /// `/robots.txt` is always allowed in [`Mode::Rfc`].
    #[inline]
    fn robots_txt(&self, path: &str) -> Option<Decision<'a>> {
        (self.robots.mode == Mode::Rfc && is_robots_txt(path)).then_some(Decision {
            allowed: true,
            group: self.group,
            reason: Reason::RobotsTxt,
        })
    }

    /// The decision when no rule matched.
    fn no_rule_matched(&self) -> Decision<'a> {
        Decision {
            allowed: true,
            group: self.group,
            reason: if self.group == GroupMatch::None {
                Reason::NoGroup
            } else {
                Reason::NoMatchingRule
            },
        }
    }
}

impl Robots {
    /// The rules that apply to `token` (its groups merged, or the `*` groups, or none).
    pub fn rules_for(&self, token: &ProductToken) -> AgentRules<'_> {
        let (group, entry) = self.index.find(token);
        self.agent_rules(group, entry)
    }

    /// The rules for a crawler that obeys several product tokens, most specific first
    /// (`[googlebot-image, googlebot]`): the groups of the first token that has a group of its
    /// own, else the `*` groups, else none. Groups of different tokens are never combined, and
    /// `*` is not combined with a named group.
    ///
    /// This is the rule Google documents for its crawlers: a crawler follows the group of its
    /// most specific user-agent token and ignores the others; Googlebot-Image, whose tokens
    /// are `Googlebot-Image` and `Googlebot`, follows a `googlebot` group when there is no
    /// `googlebot-image` group, and follows `*` only when neither is named ("Order of
    /// precedence for user agents",
    /// <https://developers.google.com/search/docs/crawling-indexing/robots/robots_txt#order-of-precedence-for-user-agents>;
    /// "Overview of Google crawlers and fetchers", where several tokens are listed per
    /// crawler, <https://developers.google.com/search/docs/crawling-indexing/overview-google-crawlers>).
    ///
    /// It is **not** what google/robotstxt's `AllowedByRobots` does with a vector of agents:
    /// that library merges the groups of every listed agent. This method answers the same in
    /// both modes; [`AgentRules::matched_token`] says which token won.
    ///
    /// ```
    /// use crawlgate::{GroupMatch, ProductToken, Robots};
    /// let robots = Robots::parse(
    ///     b"User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nDisallow: /private/\n",
    /// ).robots;
    /// let image = ProductToken::new("Googlebot-Image")?;
    /// let web = ProductToken::new("Googlebot")?;
    /// let rules = robots.rules_for_any(&[image, web]);
    /// assert_eq!(rules.group(), GroupMatch::Token);
    /// assert_eq!(rules.matched_token(), Some("googlebot"));
    /// assert!(rules.check("/images/a.png").allowed);
    /// assert!(!rules.check("/private/a.png").allowed);
    /// # Ok::<(), crawlgate::TokenError>(())
    /// ```
    pub fn rules_for_any(&self, tokens: &[ProductToken]) -> AgentRules<'_> {
        match tokens.iter().find_map(|t| self.index.named(t.as_str())) {
            Some(e) => self.agent_rules(GroupMatch::Token, Some(e)),
            None => {
                let (group, entry) = self.index.star();
                self.agent_rules(group, entry)
            }
        }
    }

    fn agent_rules(&self, group: GroupMatch, entry: Option<usize>) -> AgentRules<'_> {
        let index = &self.index;
        let Some((i, e)) = entry.and_then(|i| Some((i, index.entries.get(i)?))) else {
            return AgentRules {
                robots: self,
                group,
                slots: &[],
                lookup: None,
                groups: &[],
                token: None,
            };
        };
        AgentRules {
            robots: self,
            group,
            slots: index
                .slots
                .get(e.slots.start as usize..e.slots.end as usize)
                .unwrap_or_default(),
            lookup: Some(&e.lookup),
            groups: index.groups(i),
            token: Some(index.token(i)),
        }
    }

    /// May `token` fetch `url`? `url` is an absolute URL or a path (with query); no full URL
    /// parse is done. The [`Decision`] names the rule that decided.
    pub fn check(&self, token: &ProductToken, url: &str) -> Decision<'_> {
        self.rules_for(token).check(url)
    }

    /// Like [`Robots::check`] for a path + query taken verbatim (see [`AgentRules::check_path`]).
    pub fn check_path(&self, token: &ProductToken, path: &str) -> Decision<'_> {
        self.rules_for(token).check_path(path)
    }

    /// `self.check(token, url).allowed`.
    pub fn is_allowed(&self, token: &ProductToken, url: &str) -> bool {
        self.check(token, url).allowed
    }
}
