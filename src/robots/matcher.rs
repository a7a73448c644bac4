//! Which group applies to a product token, and which rule decides ([RFC 9309 §2.2.1–2.2.2]).
//!
//! At parse time every rule gets a slot, in file order, and every distinct agent an entry
//! (its token and groups). The merged rules of an agent's groups are sorted by precedence
//! (longest canonical pattern first, `allow` before `disallow` on ties, then file order) when
//! its checks need them, once: a check is then a binary search for the token and a scan that
//! stops at the first matching rule, which is the one the longest-match rule would pick. The
//! scan looks only at rules that can match: in a list of more than a few rules, those of the
//! path's second byte (`buckets`), and above 64 rules, those whose literal prefix starts the
//! path (`prefix`). The file's first check sorts nothing: it scans the agent's rules in file
//! order and keeps the best match by precedence.
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
use super::prefix::{self, PrefixIndex};
use super::segments::GLOBS_BEFORE_INDEX;
use super::usage::{self, Signals, Usage};
use super::{run_at, Mode, ProductToken, Robots, Rule, RuleKind, RuleRef};

/// One rule (the file keeps one per rule, in file order; the agents' sorted lists name
/// them by position), and the only record of a compiled rule:
/// what the hot loop reads (prefilter, canonical text, flags) and what a [`RuleRef`] needs
/// (line, kind, the key's spelling; the value as written is the canonical text unless
/// [`Slot::SHARED`] is clear). 16 bytes. A pattern's specificity is not kept: it only sorts,
/// and [`Slot::priority`] works it out again.
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

    pub fn new(rule: &Rule, c: &Compiled) -> Slot {
        let need = c.need();
        let flag = |on: bool, f: u8| if on { f } else { 0 };
        Slot {
            need: need as u32,
            start: c.start,
            line: rule.line,
            len: c.len.min(Slot::LONG) as u16,
            // `Compiled`'s count, or its "too many" (`u16::MAX`, only in texts that long, which
            // the slot's "too many" is too), is the text's length less its minimum: read as it
            // is rather than subtracted (0.4 M instructions of the corpus parse).
            stars: u8::try_from(c.stars()).unwrap_or(Slot::STARS_UNKNOWN),
            flags: flag(rule.kind == RuleKind::Allow, Slot::ALLOW)
                | flag(c.anchored, Slot::ANCHORED)
                | flag(c.wildcard, Slot::WILDCARD)
                | flag(rule.index_html, Slot::INDEX_HTML)
                | flag(rule.shared, Slot::SHARED)
                | rule.spelling.min(Slot::NO_SPELLING) << Slot::SPELLING_SHIFT,
        }
    }

    /// The slot of a rule that repeats this one's value (the parser's `repeated`): its own
    /// line, kind and spelling, never [`Slot::INDEX_HTML`].
    pub fn repeat(&self, line: u32, kind: RuleKind, spelling: u8) -> Slot {
        let kept = self.flags & (Slot::ANCHORED | Slot::WILDCARD | Slot::SHARED);
        let allow = if kind == RuleKind::Allow {
            Slot::ALLOW
        } else {
            0
        };
        Slot {
            line,
            flags: kept | allow | spelling.min(Slot::NO_SPELLING) << Slot::SPELLING_SHIFT,
            ..*self
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
    fn allow(&self) -> bool {
        self.flags & Slot::ALLOW != 0
    }

    /// How specific the pattern is (`Compiled::priority`, which the slot does not keep),
    /// worked out from the canonical text: its length and the final `$`, less two for each
    /// `%XX` of an ASCII byte in [`Mode::Rfc`] (a character counts one octet however it is
    /// written). Only a text whose summary has the bit of `%` can hold one: the others cost no
    /// look at the text.
    #[inline]
    fn priority(&self, arena: &[u8], mode: Mode) -> u32 {
        let len = self.len(arena) + u32::from(self.anchored());
        if mode == Mode::Google || self.need & canonical::byte_bit(b'%') as u32 == 0 {
            return len;
        }
        let text = self.text(arena);
        let ascii_escapes = memchr::memchr_iter(b'%', text)
            .filter(|&i| text.get(i + 1).is_some_and(|&h| h < b'8'))
            .count() as u32;
        len.saturating_sub(2 * ascii_escapes)
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
        self.may_match(path.path(), mask) && self.matches_past_prefilter(arena, path)
    }

    /// [`Slot::matches`] for a rule already through the prefilter.
    #[inline(always)]
    fn matches_past_prefilter(&self, arena: &[u8], path: &mut Pairs<'_>) -> bool {
        pattern::matches_path(self.text(arena), self.anchored(), self.wildcard(), path)
    }

    /// The prefilter: `false` when `path` (with [`canonical::byte_mask`] `mask`) lacks one of
    /// the pattern's literal bytes or is shorter than its literal bytes. The same test as
    /// `Compiled::may_match`, written out here: calling one shared function measured 9% more
    /// instructions per check (`benches/tools/workload.rs check`), from how the loop was compiled.
    #[inline(always)]
    fn may_match(&self, path: &[u8], mask: u64) -> bool {
        Slot::has_needed(self.need, mask) && self.long_enough(path)
    }

    /// The prefilter's byte test, on a `need` read from the slot or from a sorted list that
    /// keeps it beside the rule's position ([`Near`]): does a path with `mask` hold every
    /// byte the pattern needs?
    #[inline(always)]
    fn has_needed(need: u32, mask: u64) -> bool {
        need & !(mask as u32) == 0
    }

    /// The prefilter's length test: is `path` at least as long as the pattern's literal bytes?
    #[inline(always)]
    fn long_enough(&self, path: &[u8]) -> bool {
        self.min_len() as usize <= path.len()
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

/// The index as the semantic lint sees it while parsing: every agent's precedence-ordered
/// list, as positions whose rule (index in file order) and compiled pattern it gives. Built
/// for the lint only ([`Index::lint_lists`]): the compiled file sorts an agent's rules when
/// its checks need them.
pub(crate) struct LintIndex<'a> {
    pub index: &'a Index,
    /// Each entry's list: a range of positions.
    pub lists: &'a [Range<u32>],
    /// The rule of each position.
    pub slot_rules: &'a [u32],
    /// The compiled pattern of each position, parallel to `slot_rules`: the lint reads them
    /// often, and one lookup is cheaper than going through the rule.
    pub slot_compiled: &'a [Compiled],
}

impl<'a> LintIndex<'a> {
    /// Every agent's precedence-ordered list (the named agents', then `*`'s), as a range of
    /// positions for [`LintIndex::slot`]. Several agents of one group share one range.
    pub(crate) fn lists(&self) -> impl Iterator<Item = List<'a>> + 'a {
        let index = self.index;
        self.lists.iter().enumerate().map(move |(i, r)| List {
            slots: r.clone(),
            groups: index.groups(i),
        })
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
            .map_or(0, |e| e.rules as usize)
    }

    /// See [`Index::star_rule_count`].
    pub(crate) fn star_rule_count(&self) -> usize {
        self.index.star_rule_count()
    }
}

/// What [`LintIndex`] borrows: see [`Index::lint_lists`].
pub(crate) struct LintLists {
    pub lists: Vec<Range<u32>>,
    pub slot_rules: Vec<u32>,
    pub slot_compiled: Vec<Compiled>,
}

#[derive(Debug, Clone)]
struct Entry {
    /// Where the token starts in [`Index::tokens`]; it ends where the next entry's starts.
    token: u32,
    /// Where its groups start in [`Index::group_ids`]; they end where the next entry's start.
    groups: u32,
    /// How many rules its groups hold.
    rules: u32,
    /// The entry of a crawler's verbatim name (`Mode::Rfc`: a `user-agent` value that is not a
    /// product token), which no agent of the group table points at and the semantic lint does
    /// not read: its groups are among those of the token the value starts with, or name no
    /// crawler by token at all. In the entry's padding: entries stay 32 bytes.
    verbatim: bool,
    /// Its rules in precedence order and their lookup, built by the first check that needs
    /// them (not the file's first check, which scans: see [`AgentRules::check`]) or by a
    /// reader of the list; boxed, so that the many agents never asked about pay a pointer.
    sorted: OnceLock<Box<Sorted>>,
}

// An entry is 32 bytes on 64-bit targets (`Entry::verbatim` sits in what was padding).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Entry>() == 32);

/// An agent's rules in precedence order (its groups merged): most specific first, `allow`
/// first on ties, then file order. A list of up to [`INDEX_ABOVE`] rules, which a check
/// scans (or tries by bucket), is each rule's position among the file-order slots with its
/// prefilter's `need` beside it ([`Near`], 8 bytes a rule), so that the many rules the
/// prefilter turns away cost no look at their slot; a longer one is their positions alone,
/// 4 bytes a rule, as a check reaches only the few rules its prefix index names. On the bench
/// corpus, once a crawler's agent had its list: copies of every list held 1.46× the bodies,
/// 16-byte copies up to 64 rules 1.30×, these 1.27×; positions alone up to 64 rules cost the
/// check pass 2% (`benches/tools/workload.rs check`), these nothing measurable.
#[derive(Debug, Clone)]
struct Sorted {
    /// Lists of up to [`INDEX_ABOVE`] rules: each rule's position among the file-order slots
    /// and its prefilter's bytes (longer ones' positions are kept with their prefix index, in
    /// [`Lookup::Prefixes`], where the struct has room for them).
    near: Box<[Near]>,
    /// Lists longer than [`BUCKETS_ABOVE`]: what finds the rules that can match a path.
    lookup: Option<Lookup>,
}

impl Sorted {
    /// A long list's rule indexes, in precedence order (empty for a short list: see `slots`).
    fn order(&self) -> &[u32] {
        match &self.lookup {
            Some(Lookup::Prefixes(_, order)) => order,
            _ => &[],
        }
    }

    /// The literal prefix of `slot`'s text: a text without `*` (most: its star count is 0) is
    /// its own, with no search for a `*` (the search cost the corpus's builds 2.9 M).
    #[inline]
    fn literal_prefix(slot: &Slot, arena: &[u8]) -> Range<u32> {
        match slot.stars {
            0 => slot.range(arena),
            _ => prefix::literal_prefix(arena, slot.range(arena)),
        }
    }

    /// Sorts the `rules` rules of groups `gids` (in file order), whose slots are `slots` (every
    /// rule's, in file order), and builds their lookup.
    fn build(
        (gids, rules): (&[u32], usize),
        groups: &GroupTable,
        slots: &[Slot],
        arena: &[u8],
        mode: Mode,
    ) -> Sorted {
        let ids = gids
            .iter()
            .flat_map(|&g| groups.rules(g as usize))
            .map(|r| r as usize);
        // Sized for the rules up front: growing the list and the keys was 1.5 M instructions
        // of reallocation on the corpus.
        let mut order = Vec::with_capacity(rules);
        let mut scratch = SortScratch {
            keys: Vec::with_capacity(rules),
            counts: Vec::new(),
        };
        let key = |r: usize| {
            slots
                .get(r)
                .map_or((0, false), |s| (s.priority(arena, mode), s.allow()))
        };
        sort_rules(ids, &mut scratch, slots.len(), key, &mut order);
        // Positions of slots that exist (all of them: the groups' rules are the slots').
        order.retain(|&r| (r as usize) < slots.len());
        let sorted = || order.iter().map(|&r| &slots[r as usize]);
        if order.len() > INDEX_ABOVE {
            let prefixes = sorted().map(|s| Sorted::literal_prefix(s, arena)).collect();
            let index = PrefixIndex::from_prefixes(arena, prefixes);
            return Sorted {
                near: Box::default(),
                lookup: Some(Lookup::Prefixes(index, order.into_boxed_slice())),
            };
        }
        let lookup = (order.len() > BUCKETS_ABOVE)
            .then(|| Lookup::Buckets(Buckets::build(sorted().map(|s| s.text(arena)))));
        let near = order
            .iter()
            .map(|&r| Near {
                need: slots[r as usize].need,
                at: r,
            })
            .collect();
        Sorted { near, lookup }
    }
}

/// A rule of a [`Sorted::near`] list.
#[derive(Debug, Clone, Copy)]
struct Near {
    /// Its slot's `need`: most candidates are turned away by it, without a look at the slot.
    need: u32,
    /// Its slot's position in [`Index::slots`].
    at: u32,
}

/// What finds the rules that can match a path in a list longer than [`BUCKETS_ABOVE`].
#[derive(Debug, Clone)]
enum Lookup {
    /// Lists of up to [`buckets::MAX_RULES`]: the candidates by the path's second byte.
    Buckets(Buckets),
    /// Longer lists (above [`INDEX_ABOVE`]), with the list: its rule indexes (positions in
    /// [`Index::slots`]), in precedence order.
    Prefixes(PrefixIndex, Box<[u32]>),
}

impl Lookup {
    /// Heap bytes held (it is kept in its [`Sorted`]), a long list's positions apart.
    fn heap_size(&self) -> usize {
        match self {
            Lookup::Buckets(b) => b.heap_size(),
            Lookup::Prefixes(p, _) => p.heap_size(),
        }
    }
}

/// Working space of [`sort_rules`], reused across groups and agents.
#[derive(Default)]
struct SortScratch {
    keys: Vec<u64>,
    /// The counting sort's buckets.
    counts: Vec<u32>,
}

/// Bits of a sort key for the rule index.
const INDEX_BITS: u32 = 31;

/// Lists above this many rules are counting-sorted (when their specificities are close);
/// shorter ones are sorted by comparison, which is then as cheap.
const COUNTING_ABOVE: usize = 32;

/// Appends rules `ids` (increasing) to `out` in precedence order: most specific first, `allow`
/// first on ties, then file order (and, across merged groups, group order, since groups hold
/// increasing runs of rules), i.e. by rule index. `key` gives a rule's specificity and
/// whether it is an `allow`; `rule_count` is how many rules the file has.
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
    rule_count: usize,
    key: impl Fn(usize) -> (u32, bool),
    out: &mut Vec<u32>,
) {
    if rule_count >= 1 << INDEX_BITS {
        // Too many rules for the key's index bits (not a file that fits in memory): a
        // stable sort, which keeps the order of `ids` among equals.
        let start = out.len();
        out.extend(ids.map(|r| r as u32));
        out[start..].sort_by_key(|&r| {
            let (priority, allow) = key(r as usize);
            (std::cmp::Reverse(priority), !allow)
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
        let (p, allow) = key(r);
        (lo, hi) = (lo.min(p), hi.max(p));
        increasing &= r >= next;
        next = r + 1;
        let disallow = !allow;
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
            let key = |r: usize| (compiled[r].priority, rules[r].kind == RuleKind::Allow);
            sort_rules(ids.iter().copied(), &mut scratch, rules.len(), key, &mut got);
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

/// Whether the file has had no check yet that needed an agent's sorted list: that check scans
/// the rules in file order instead of building it (see [`AgentRules::check`]).
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

/// Every rule's slot in file order, and each agent's entry: its token, its groups, and its
/// precedence-ordered list once a check or a reader needs it ([`Index::sorted`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct Index {
    /// Sorted by token, then the `*` entry when `has_star`: in one vector, so that an entry's
    /// token and groups end where the next one's start (32 bytes an entry, not 40).
    entries: Vec<Entry>,
    has_star: bool,
    /// No check has needed an agent's sorted list yet: the first that does scans the rules
    /// in file order instead.
    unchecked: Unchecked,
    /// Every rule's slot, in file order (a rule's index is its position): what the file's
    /// first check scans, and what an agent's sorted list is copied from. Sorting every
    /// agent's rules at parse time was 23.3 M of the corpus's 123.2 M parse instructions, and
    /// a crawler asks about one agent.
    slots: Vec<Slot>,
    group_ids: Vec<u32>,
    /// The entries' tokens, end to end: one allocation rather than one per agent.
    tokens: String,
}

/// The parser's agent names, for [`Index::build`]: the text they are ranges of, each token
/// agent's token (its `who` indexes `tokens`), and the verbatim names with their groups.
pub(crate) struct AgentNames<'a> {
    pub text: &'a str,
    pub tokens: &'a [Range<u32>],
    pub verbatim: &'a [(u32, Range<u32>)],
}

impl Index {
    /// Drops the sorted lists and lookups built so far: a lint that checked paths leaves the
    /// file as parsing left it, so that a crawler pays for a list only when it checks.
    pub(super) fn forget_lookups(&mut self) {
        for entry in &mut self.entries {
            entry.sorted = OnceLock::new();
        }
        self.unchecked = Unchecked::default();
    }

    /// In `Mode::Google` a group whose `user-agent` has no product token ([`Agent::Nobody`])
    /// is the group of the empty agent, as google/robotstxt compares the caller's agent with
    /// the empty token it extracts; only [`ProductToken::verbatim`] makes an empty agent.
    /// `slots` are the rules' slots, in file order (the parser makes them). The agents' tokens are
    /// `names.tokens` (each agent's `who` indexes its range of the text); each agent is given
    /// the index of its token's entry instead. Each verbatim name gets an entry of its own,
    /// sorted among the tokens': a name always holds a character no token has, so a lookup
    /// finds a token or a name, never both, with one search.
    ///
    /// [`Agent::Nobody`]: super::Agent::Nobody
    pub(crate) fn build(
        groups: &mut GroupTable,
        names: AgentNames<'_>,
        slots: Vec<Slot>,
        mode: Mode,
    ) -> Index {
        /// The agent of a pair that names no agent (Google mode's empty token).
        const NO_AGENT: u32 = u32::MAX;
        /// The agent of a verbatim name's pair.
        const VERBATIM: u32 = u32::MAX - 1;
        let AgentNames {
            text,
            tokens,
            verbatim,
        } = names;
        let mut index = Index {
            slots,
            ..Index::default()
        };
        // (token's first bytes, token, group, agent): the first bytes as a big-endian integer
        // order tokens as the bytes do, so that most comparisons of the sort are one integer
        // compare rather than a call to `memcmp` (files naming hundreds of agents are common).
        // Room for the named agents (the parser's tokens), not `*`'s: most files name only
        // `*` and allocate nothing here (Google mode's empty tokens, rare, may grow it).
        let mut pairs: Vec<(u64, &str, u32, u32)> =
            Vec::with_capacity(tokens.len() + verbatim.len());
        let mut star_groups = StarGroups::default();
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
        for (gi, r) in verbatim {
            let name = text
                .get(r.start as usize..r.end as usize)
                .unwrap_or_default();
            pairs.push((token_prefix(name), name, *gi, VERBATIM));
        }
        pairs.sort_unstable();
        // Exact sizes, so that nothing grows (copying) and `shrink_to_fit` has little to do:
        // an entry per token, every pair's group id once, each token once. Each pair's first
        // field becomes its token's entry: tokens are compared once, here, and the passes
        // below compare integers (comparing tokens in each pass cost `memcmp` calls).
        let mut token_bytes = usize::from(!star_groups.is_empty());
        let mut group_ids = star_groups.len();
        let mut distinct_tokens = 0u64;
        let mut last: Option<(u64, &str, u32)> = None;
        for p in pairs.iter_mut() {
            match last {
                Some((prefix, token, g)) if same_token((prefix, token), (p.0, p.1)) => {
                    group_ids += usize::from(g != p.2);
                }
                _ => {
                    token_bytes += p.1.len();
                    group_ids += 1;
                    distinct_tokens += 1;
                }
            }
            last = Some((p.0, p.1, p.2));
            p.0 = distinct_tokens - 1;
        }
        index
            .entries
            .reserve_exact(distinct_tokens as usize + usize::from(!star_groups.is_empty()));
        index.group_ids.reserve_exact(group_ids);
        index.tokens.reserve_exact(token_bytes);

        let mut i = 0;
        while let Some(&(entry, token, _, _)) = pairs.get(i) {
            let run = pairs[i..].iter().take_while(|p| p.0 == entry).count();
            // The run's distinct groups (sorted, so repeats are adjacent).
            let run = &pairs[i..i + run];
            let gids = (run.iter().enumerate())
                .filter(|&(k, p)| k == 0 || run[k - 1].2 != p.2)
                .map(|(_, p)| p.2);
            let mut entry = index.entry(token, gids, groups);
            entry.verbatim = run.iter().all(|p| p.3 == VERBATIM);
            index.entries.push(entry);
            i += run.len();
        }
        if !star_groups.is_empty() {
            let entry = index.entry("*", star_groups.as_slice().iter().copied(), groups);
            index.entries.push(entry);
            index.has_star = true;
        }
        // Each agent's token is now its entry.
        let agents = groups.agents_mut();
        for p in &pairs {
            if let Some(a) = agents.get_mut(p.3 as usize) {
                a.who = p.0 as u32;
            }
        }
        // Sizes were reserved exactly; in case a count was off, nothing is kept spare.
        index.entries.shrink_to_fit();
        index.group_ids.shrink_to_fit();
        index.tokens.shrink_to_fit();
        index.slots.shrink_to_fit();
        index
    }

    /// Every agent's precedence-ordered list, for the semantic lint while parsing (`rules`
    /// and `compiled` are the parse's, parallel to the slots): each group's rules sorted once,
    /// shared by the agents of that group alone, then a merged run for each agent of several
    /// groups.
    pub(crate) fn lint_lists(
        &self,
        groups: &GroupTable,
        rules: &[Rule],
        compiled: &[Compiled],
    ) -> LintLists {
        let key = |r: usize| (compiled[r].priority, rules[r].kind == RuleKind::Allow);
        let merged: usize = self
            .entries
            .iter()
            .enumerate()
            .filter(|(i, e)| !e.verbatim && self.groups(*i).len() > 1)
            .map(|(_, e)| e.rules as usize)
            .sum();
        let mut slot_rules = Vec::with_capacity(rules.len() + merged);
        let mut scratch = SortScratch::default();
        let mut group_runs = Vec::with_capacity(groups.len());
        for g in 0..groups.len() {
            let start = slot_rules.len() as u32;
            let r = groups.rules(g);
            let ids = r.start as usize..r.end as usize;
            sort_rules(ids, &mut scratch, rules.len(), key, &mut slot_rules);
            group_runs.push(start..slot_rules.len() as u32);
        }
        let lists = (0..self.entries.len())
            .map(|i| match self.groups(i) {
                // A verbatim name's list is not linted (see `Entry::verbatim`).
                _ if self.entries[i].verbatim => 0..0,
                [g] => group_runs.get(*g as usize).cloned().unwrap_or_default(),
                gids => {
                    let start = slot_rules.len() as u32;
                    let ids = gids
                        .iter()
                        .flat_map(|&g| groups.rules(g as usize))
                        .map(|r| r as usize);
                    sort_rules(ids, &mut scratch, rules.len(), key, &mut slot_rules);
                    start..slot_rules.len() as u32
                }
            })
            .collect();
        let slot_compiled = slot_rules.iter().map(|&r| compiled[r as usize]).collect();
        LintLists {
            lists,
            slot_rules,
            slot_compiled,
        }
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
    /// sorted lists and lookups (buckets, prefix indexes) built so far.
    pub(crate) fn heap_size(&self) -> usize {
        self.heap_parts().iter().map(|p| p.1).sum()
    }

    /// [`Index::heap_size`] by part.
    pub(crate) fn heap_parts(&self) -> [(&'static str, usize); 4] {
        use std::mem::size_of;
        let built = || self.entries.iter().filter_map(|e| e.sorted.get());
        [
            (
                "agent entries",
                self.entries.capacity() * size_of::<Entry>()
                    + self.group_ids.capacity() * size_of::<u32>()
                    + self.tokens.capacity(),
            ),
            (
                "slots (file order)",
                self.slots.capacity() * size_of::<Slot>(),
            ),
            (
                "agents' sorted lists",
                built()
                    .map(|s| {
                        size_of::<Sorted>()
                            + s.near.len() * size_of::<Near>()
                            + std::mem::size_of_val(s.order())
                    })
                    .sum(),
            ),
            (
                "lookups (buckets, prefix indexes)",
                built()
                    .map(|s| s.lookup.as_ref().map_or(0, Lookup::heap_size))
                    .sum(),
            ),
        ]
    }

    /// The entry of an agent named by groups `gids` (in file order).
    fn entry(
        &mut self,
        token: &str,
        gids: impl Iterator<Item = u32>,
        groups: &GroupTable,
    ) -> Entry {
        let group_start = self.group_ids.len() as u32;
        let mut rules = 0;
        for g in gids {
            self.group_ids.push(g);
            rules += groups.rules(g as usize).len();
        }
        let token_start = self.tokens.len() as u32;
        self.tokens.push_str(token);
        Entry {
            token: token_start,
            groups: group_start,
            rules: rules as u32,
            verbatim: false,
            sorted: OnceLock::new(),
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

    /// The slot of rule `rule` (file order).
    pub(crate) fn slot(&self, rule: usize) -> Option<&Slot> {
        self.slots.get(rule)
    }

    /// The precedence-ordered list of `entry`, whose groups are `gids`, built on first use:
    /// the one accessor of an agent's sorted rules.
    fn sorted<'a>(&'a self, entry: &'a Entry, gids: &[u32], robots: &Robots) -> &'a Sorted {
        entry.sorted.get_or_init(|| {
            Box::new(Sorted::build(
                (gids, entry.rules as usize),
                &robots.groups,
                &self.slots,
                robots.texts.as_bytes(),
                robots.mode,
            ))
        })
    }

    /// How many rules the groups naming `token` have (`None`: no group names it).
    #[cfg(test)]
    pub(crate) fn named_rule_count(&self, token: &str) -> Option<usize> {
        self.named(token).map(|e| self.entries[e].rules as usize)
    }

    /// How many rules the `*` groups have.
    pub(crate) fn star_rule_count(&self) -> usize {
        match self.star().1 {
            Some(e) => self.entries[e].rules as usize,
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

/// The groups that name `*`, each once, in file order: up to four kept inline, as most files
/// have one such group (a vector for them, allocated, grown and freed per file, cost the
/// corpus parse 0.3 M instructions).
#[derive(Default)]
struct StarGroups {
    inline: [u32; 4],
    len: usize,
    spill: Vec<u32>,
}

impl StarGroups {
    /// Adds group `g` (agents come in group order: a repeat is the last one added).
    fn push(&mut self, g: u32) {
        if self.as_slice().last() == Some(&g) {
            return;
        }
        match self.inline.get_mut(self.len) {
            Some(slot) if self.spill.is_empty() => *slot = g,
            _ => {
                if self.spill.is_empty() {
                    self.spill.extend_from_slice(&self.inline);
                }
                self.spill.push(g);
            }
        }
        self.len += 1;
    }

    fn as_slice(&self) -> &[u32] {
        match self.spill.is_empty() {
            true => &self.inline[..self.len],
            false => &self.spill,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Whether two tokens, each with its [`token_prefix`], are the same: tokens of up to 8 bytes
/// of the same length are when their prefixes are, without a call to `memcmp`.
#[inline]
fn same_token(a: (u64, &str), b: (u64, &str)) -> bool {
    a.0 == b.0 && a.1.len() == b.1.len() && (a.1.len() <= 8 || a.1 == b.1)
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
    /// The entry of the groups that applied, `None` when they hold no rule.
    entry: Option<&'a Entry>,
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
        let robots = self.robots;
        let all = &robots.index.slots;
        let (near, order) = self
            .sorted()
            .map_or((&[][..], &[][..]), |s| (&*s.near, s.order()));
        near.iter()
            .map(|n| n.at)
            .chain(order.iter().copied())
            .filter_map(move |r| all.get(r as usize))
            .map(move |s| robots.slot_ref(s))
    }

    /// The rules in precedence order and their lookup, built on first use (`None`: no rules).
    fn sorted(&self) -> Option<&'a Sorted> {
        let robots = self.robots;
        Some(robots.index.sorted(self.entry?, self.groups, robots))
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
    /// An agent's rules are sorted by precedence on a check and kept, with, above a few rules,
    /// a lookup of them (by the path's second byte, or a prefix index above 64 rules). The
    /// file's first check scans the agent's rules in file order instead, keeping the best
    /// match (giving up for the sorted list past 64 wildcard rules that could decide): a
    /// crawler that asks one question of a file pays for no sorting and no index, and one
    /// that asks more builds them on its second.
    pub fn check(&self, url: &str) -> Decision<'a> {
        if self.entry.is_none() {
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
        if self.entry.is_none() {
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
        let Some(entry) = self.entry else {
            return self.no_rule_matched();
        };
        let arena = robots.texts.as_bytes();
        let mut pairs = Pairs::new(canon);
        let sorted = match entry.sorted.get() {
            Some(built) => built,
            None => {
                if robots.index.unchecked.take() {
                    // The file's first check scans the rules in file order instead: a crawler
                    // that asks one question of a file (its first verdict) does not pay for a
                    // sorted list and an index it never uses again, and one that asks many
                    // builds them on the next question. The scan gives up, and the list is
                    // built, where it would try more wildcard rules one by one than an indexed
                    // check does, so that its cost stays bounded.
                    if let Some(hit) = self.scan(arena, &mut pairs, mask, GLOBS_BEFORE_INDEX) {
                        return self.decided(hit);
                    }
                }
                robots.index.sorted(entry, self.groups, robots)
            }
        };
        let all = &*robots.index.slots;
        // A list's rule (by position) that passes the prefilter (`Slot::may_match`, its
        // `need` read from the list, so that most rules cost no look at their slot).
        let candidate = |n: &Near| {
            if !Slot::has_needed(n.need, mask) {
                return None;
            }
            all.get(n.at as usize).filter(|s| s.long_enough(canon))
        };
        let near = &*sorted.near;
        let hit = match &sorted.lookup {
            Some(Lookup::Buckets(buckets)) => {
                let mut set = buckets.candidates(canon);
                let mut hit = None;
                while set != 0 {
                    let s = near.get(set.trailing_zeros() as usize).and_then(candidate);
                    if let Some(s) = s.filter(|s| s.matches_past_prefilter(arena, &mut pairs)) {
                        hit = Some(s);
                        break;
                    }
                    set &= set - 1;
                }
                hit
            }
            Some(Lookup::Prefixes(index, order)) => {
                // The list's slots by position (every position is a slot's: see
                // `Sorted::build`).
                // Wildcard rules are tried one by one up to a point, then all through the
                // segments index (see `segments`): the cost of a check stays bounded however
                // many wildcard rules the path's prefixes lead to.
                let mut globs = 0;
                let mut occurrences = None;
                let segments = || {
                    index.segments(arena, || {
                        order
                            .iter()
                            .map(|&r| &all[r as usize])
                            .map(|s| (s.range(arena), s.anchored()))
                            .collect()
                    })
                };
                index
                    .first_match(arena, canon, |pos, prefix_len| {
                        let s = &all[order[pos as usize] as usize];
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
                    .map(|pos| &all[order[pos as usize] as usize])
            }
            None => near
                .iter()
                .filter_map(candidate)
                .find(|s| s.matches_past_prefilter(arena, &mut pairs)),
        };
        self.decided(hit)
    }

    /// The rule that decides, by a scan of the groups' rules in file order that keeps the
    /// best match by precedence (most specific, `allow` on ties, then the first): the sorted
    /// list's first match. It tries a rule only when it would beat the best so far, and at
    /// most `globs` wildcard rules: `None` when it would try more.
    fn scan(
        &self,
        arena: &[u8],
        pairs: &mut Pairs<'_>,
        mask: u64,
        globs: usize,
    ) -> Option<Option<&'a Slot>> {
        let robots = self.robots;
        let mut tried = 0;
        let mut best: Option<(&'a Slot, u32)> = None;
        for &g in self.groups {
            let rules = robots.groups.rules(g as usize);
            let slots = robots
                .index
                .slots
                .get(rules.start as usize..rules.end as usize)
                .unwrap_or_default();
            for s in slots {
                if !s.may_match(pairs.path(), mask) {
                    continue;
                }
                let priority = s.priority(arena, robots.mode);
                if let Some((b, p)) = best {
                    // Later in file order: it decides only when more specific, or as
                    // specific and an `allow` where the best is a `disallow`.
                    if priority < p || (priority == p && (b.allow() || !s.allow())) {
                        continue;
                    }
                }
                if s.wildcard() {
                    tried += 1;
                    if tried > globs {
                        return None;
                    }
                }
                if pattern::matches_path(s.text(arena), s.anchored(), s.wildcard(), pairs) {
                    best = Some((s, priority));
                }
            }
        }
        Some(best.map(|(s, _)| s))
    }

    /// The decision of rule `hit` (`None`: no rule matched).
    fn decided(&self, hit: Option<&'a Slot>) -> Decision<'a> {
        match hit {
            Some(s) => Decision {
                allowed: s.allow(),
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
                entry: None,
                groups: &[],
                token: None,
            };
        };
        AgentRules {
            robots: self,
            group,
            entry: (e.rules > 0).then_some(e),
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

#[cfg(test)]
mod first_check_tests {
    use proptest::prelude::*;

    use super::canonical;
    use super::pattern::Pairs;
    use crate::robots::{Agent, Mode, Options, ProductToken, Robots, RuleRef};

    /// The tokens a check of `robots` can be asked for: every agent it names, and one it does
    /// not (`*`'s groups, or none).
    fn tokens(robots: &Robots) -> Vec<ProductToken> {
        let mut tokens = vec![ProductToken::verbatim("unnamedbot")];
        for g in robots.groups() {
            for (agent, _) in g.agents() {
                if let Agent::Token(t) = agent {
                    tokens.push(ProductToken::verbatim(t));
                }
            }
        }
        tokens
    }

    /// For every agent: the file-order scan of the first check (without its bound on wildcard
    /// rules) and the sorted list of later checks find the same deciding rule for `path`.
    fn scan_agrees_with_sorted(robots: &Robots, path: &str) -> Result<(), TestCaseError> {
        let arena = robots.texts.as_bytes();
        let (canon, mask) = canonical::canonical_path(path, robots.mode);
        for t in tokens(robots) {
            let rules = robots.rules_for(&t);
            let Some(sorted) = rules.sorted() else {
                continue;
            };
            let scanned = rules
                .scan(arena, &mut Pairs::new(&canon), mask, usize::MAX)
                .map(|hit| hit.map(|s| robots.slot_ref(s)));
            let mut pairs = Pairs::new(&canon);
            // A short list's prefilter bytes are its slots'.
            for n in sorted.near.iter() {
                prop_assert_eq!(n.need, robots.index.slots[n.at as usize].need);
            }
            let first: Option<RuleRef<'_>> = (sorted.near.iter().map(|n| n.at))
                .chain(sorted.order().iter().copied())
                .map(|r| &robots.index.slots[r as usize])
                .find(|s| s.matches(arena, &mut pairs, mask))
                .map(|s| robots.slot_ref(s));
            prop_assert_eq!(scanned, Some(first), "{:?} {:?} {}", robots.mode, t, path);
        }
        Ok(())
    }

    /// A fresh parse's first check (the scan, bounded) and its second (the sorted list, built)
    /// give the same decision, rule included, for every agent.
    fn first_check_agrees_with_later(
        body: &[u8],
        mode: Mode,
        path: &str,
        max_tokens: usize,
    ) -> Result<(), TestCaseError> {
        let mut options = Options::mode(mode);
        options.diagnostics = false;
        let mut tokens = tokens(&Robots::parse_with(body, &options).robots);
        tokens.push(ProductToken::verbatim("googlebot"));
        tokens.rotate_right(1);
        for t in tokens.into_iter().take(max_tokens) {
            let robots = Robots::parse_with(body, &options).robots;
            let first = robots.check(&t, path);
            let built = robots.heap_size();
            let later = robots.check(&t, path);
            prop_assert_eq!(first, later, "{:?} {:?} {}", mode, t, path);
            prop_assert_eq!(robots.check(&t, path), later);
            // The second check built the agent's list (when it has rules).
            prop_assert!(robots.heap_size() >= built);
        }
        Ok(())
    }

    fn line() -> impl Strategy<Value = String> {
        let pattern = prop::collection::vec(
            prop::sample::select(vec!["/", "a", "b", "*", "$", "%61", "%2f", "%7E", "~", "é"]),
            0..6,
        )
        .prop_map(|p| p.concat());
        prop_oneof![
            prop::sample::select(vec!["a", "b", "*", "googlebot", "1x"])
                .prop_map(|a| format!("User-agent: {a}")),
            pattern.clone().prop_map(|p| format!("Disallow: {p}")),
            pattern.clone().prop_map(|p| format!("Allow: {p}")),
            pattern.prop_map(|p| format!("Allow: {p}/index.html")),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1_000))]
        /// The first check's scan in file order finds the rule the sorted list finds, for
        /// random files and paths, in both modes.
        #[test]
        fn the_first_check_decides_as_the_sorted_list(
            lines in prop::collection::vec(line(), 0..24),
            path in prop::collection::vec(
                prop::sample::select(vec!["/", "a", "b", "%61", "%2F", "~", "$", "index.html", "é"]),
                0..8,
            ),
            google in any::<bool>(),
        ) {
            let body = lines.join("\n");
            let mode = if google { Mode::Google } else { Mode::Rfc };
            let path = format!("/{}", path.concat());
            let robots = Robots::parse_with(body.as_bytes(), &Options::mode(mode)).robots;
            scan_agrees_with_sorted(&robots, &path)?;
            first_check_agrees_with_later(body.as_bytes(), mode, &path, usize::MAX)?;
        }
    }

    /// The same on the bench corpus, when it is there (`CRAWLGATE_BENCH_CORPUS`, or
    /// `../shared/corpus/robots-bench`): for each file, paths made of its own rules' patterns
    /// and of its site's first URLs.
    #[test]
    fn the_first_check_decides_as_the_sorted_list_on_the_corpus() {
        let dir = std::env::var_os("CRAWLGATE_BENCH_CORPUS")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../shared/corpus/robots-bench")
            });
        let Ok(files) = std::fs::read_dir(dir.join("robotfiles")) else {
            eprintln!("no corpus at {}: skipped", dir.display());
            return;
        };
        let mut checked = 0;
        for file in files.flatten() {
            let Ok(body) = std::fs::read(file.path()) else {
                continue;
            };
            let links = std::fs::read_to_string(dir.join("links").join(file.file_name()))
                .unwrap_or_default();
            for mode in [Mode::Rfc, Mode::Google] {
                let robots = Robots::parse_with(&body, &Options::mode(mode)).robots;
                let mut paths: Vec<String> = (0..robots.rule_count())
                    .filter_map(|i| robots.rule(i))
                    .take(30)
                    .map(|r| r.pattern.replace('*', "x").trim_end_matches('$').to_owned())
                    .collect();
                paths.extend(
                    links
                        .lines()
                        .take(10)
                        .map(|u| crate::robots::request_path(u).into_owned()),
                );
                for path in &paths {
                    scan_agrees_with_sorted(&robots, path).unwrap();
                    checked += 1;
                }
                // A parse per check: `googlebot`, an agent the file does not name, and two
                // of its own.
                for path in paths.iter().take(2) {
                    first_check_agrees_with_later(&body, mode, path, 4).unwrap();
                }
            }
        }
        eprintln!("{checked} paths checked");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]
        /// A slot's specificity, worked out from its text, is the compiled pattern's.
        #[test]
        fn a_slots_priority_is_the_compiled_patterns(
            value in prop::collection::vec(
                // No `#` and no space: the parser would cut or trim the value.
                prop::sample::select(b"/aZvj*$%2fF7E9?\xc3\xa9\xff".to_vec()),
                0..40,
            ),
            long in 0usize..3,
            google in any::<bool>(),
        ) {
            let mode = if google { Mode::Google } else { Mode::Rfc };
            let mut value = value;
            if long > 1 && !google {
                // Past `Slot::LONG`, whose length is written before the text (`Mode::Google`
                // cuts a line at 16,663 bytes).
                value.extend(std::iter::repeat_n(b'%', 3 * 65_536));
            }
            let mut body = b"User-agent: *\nDisallow: ".to_vec();
            body.extend_from_slice(&value);
            let mut options = Options::mode(mode);
            options.max_bytes = body.len() + 1;
            let (arena, compiled) = {
                let mut arena = String::new();
                let (c, _, _) = super::pattern::compile(
                    &value,
                    mode,
                    &mut arena,
                    None,
                    &mut Vec::new(),
                );
                (arena, c)
            };
            let _ = arena;
            let robots = Robots::parse_with(&body, &options).robots;
            if let Some(s) = robots.index.slot(0) {
                prop_assert_eq!(s.priority(robots.texts.as_bytes(), mode), compiled.priority);
                // And its literal prefix, read from its star count, is the searched one.
                let arena = robots.texts.as_bytes();
                prop_assert_eq!(
                    super::Sorted::literal_prefix(s, arena),
                    super::prefix::literal_prefix(arena, s.range(arena))
                );
            }
        }
    }

    /// A slot's star count (read from the compiled pattern's) gives the minimum length the
    /// compiled pattern gives, capped as the slot caps it: 0 from 255 stars on, and for a text
    /// of `Slot::LONG` bytes or more. Star counts around both caps (the slot's `u8`, the
    /// pattern's `u16`), with and without literal bytes, as a rule's value and alone.
    #[test]
    fn a_slots_minimum_length_is_the_compiled_patterns() {
        for stars in [0, 1, 2, 254, 255, 256, 65_534, 65_535, 65_536, 70_000] {
            for literal in [0, 1, 3, 70_000] {
                let mut value = b"/".to_vec();
                value.extend(std::iter::repeat_n(b'*', stars));
                value.extend(std::iter::repeat_n(b'a', literal));
                for mode in [Mode::Rfc, Mode::Google] {
                    let mut arena = String::new();
                    let (c, _, _) =
                        super::pattern::compile(&value, mode, &mut arena, None, &mut Vec::new());
                    let rule = crate::robots::Rule {
                        kind: crate::robots::RuleKind::Disallow,
                        index_html: false,
                        line: 1,
                        spelling: 0,
                        shared: false,
                        clean: true,
                    };
                    let slot = super::Slot::new(&rule, &c);
                    // What the slot kept before it read the count: the length less the minimum.
                    let kept = u8::try_from(c.len - c.min_len()).unwrap_or(u8::MAX);
                    let want = match kept {
                        u8::MAX => 0,
                        n => c.len.min(super::Slot::LONG).saturating_sub(u32::from(n)),
                    };
                    assert_eq!(slot.min_len(), want, "{stars} {literal} {mode:?}");
                    assert!(slot.min_len() <= c.min_len(), "{stars} {literal} {mode:?}");
                }
            }
        }
    }
}

#[cfg(test)]
mod token_tests {
    use super::{same_token, token_prefix, StarGroups};
    use proptest::prelude::*;

    proptest! {
        /// `StarGroups` keeps what a vector with `dedup` kept, inline or spilled.
        #[test]
        fn star_groups_are_a_deduplicated_vector(gs in prop::collection::vec(0u32..6, 0..20)) {
            let mut star = StarGroups::default();
            let mut want = Vec::new();
            for &g in &gs {
                star.push(g);
                want.push(g);
            }
            want.dedup();
            prop_assert_eq!(star.as_slice(), &want[..]);
            prop_assert_eq!(star.len(), want.len());
            prop_assert_eq!(star.is_empty(), want.is_empty());
        }

        /// `same_token` (prefixes and lengths, `memcmp` past 8 bytes) is string equality,
        /// NUL bytes (the prefix's padding) and tokens of 8 bytes or so included.
        #[test]
        fn same_token_is_equality(a in "[ab\0]{0,10}", b in "[ab\0]{0,10}") {
            let same = same_token((token_prefix(&a), &a), (token_prefix(&b), &b));
            prop_assert_eq!(same, a == b);
            prop_assert!(same_token((token_prefix(&a), &a), (token_prefix(&a), &a)));
        }
    }
}
