//! The semantic lint: what a file means, not how it is written. Run once per parse, after the
//! per-agent rule lists are built, so that every finding is about the lists a crawler actually
//! gets.
//!
//! - `duplicate-group`: a second group naming an agent (or `*`) that already has one; RFC 9309
//!   §2.2.1 merges their rules.
//! - `empty-group`: the file ends in `user-agent` lines with no `allow`/`disallow` after them;
//!   an agent named only there gets an empty rule list and may crawl everything, although a
//!   `*` group has rules it would otherwise follow.
//! - `duplicate-rule`, `conflicting-rules`, `shadowed-rule`: a rule that never decides. A rule
//!   is reported only when that holds in **every** agent's list that contains it (a rule of a
//!   group shared by two agents may be dead for one and live for the other). Within a list,
//!   rules are in precedence order (longest first, `allow` first on ties, then file order) and
//!   the first that matches decides, so a rule never decides when an earlier rule matches every
//!   path it matches:
//!   - an earlier rule with the same kind and the same canonical pattern: `duplicate-rule`;
//!   - an `allow` with the same canonical pattern before a `disallow`: `conflicting-rules`;
//!   - an earlier rule of the other kind whose pattern matches every path the rule's pattern
//!     matches: `shadowed-rule`. Inclusion is decided soundly: the earlier pattern must match
//!     the later one's text read as a word in which each `*` (and the implicit `*` at the end
//!     of a pattern without `$`) is a symbol that only a `*` can match. When that holds, every
//!     path of the later pattern is matched; when it does not, nothing is reported, so the lint
//!     has no false positives, and it misses the cases where only several rules together
//!     cover one. Rules of the same kind that cover a rule are not reported: the verdict is
//!     the same.
//!
//! Google mode's derived `/dir/$` rules (from `Allow: /dir/index.html`) are left out on both
//! sides. Only rules with a `*` can shadow, so a list without them costs one pass; the inclusion
//! search is bounded (65,536 candidate pairs plus 64 per rule, per file), so a hostile file costs
//! little more to parse; past the budget, shadowing is not reported.

use std::collections::HashMap;
use std::ops::Range;

use super::group::{AgentSlot, GroupTable};
use super::matcher::LintIndex;
use super::pattern::Compiled;
use super::{Rule, RuleKind};
use crate::diagnostic::{Code, Diagnostic};

/// Runs of equally specific rules up to this long are compared pairwise, longer ones through a
/// hash map.
const PAIRWISE: usize = 16;

/// What the lint reads.
pub(crate) struct Input<'a> {
    pub groups: &'a GroupTable,
    pub rules: &'a [Rule],
    pub index: &'a LintIndex<'a>,
    pub arena: &'a [u8],
    /// Input span of each rule.
    pub rule_spans: &'a [Range<usize>],
    /// Input span of each agent value, groups' agents in order.
    pub agent_spans: &'a [Range<usize>],
    /// The file ended in a run of `user-agent` lines.
    pub ends_in_agents: bool,
    /// Some rule is one of Google mode's derived `/dir/$` rules (known while parsing, rather
    /// than looked for among the rules).
    pub derived: bool,
}

/// Appends the semantic findings to `out`.
pub(crate) fn semantic(input: &Input<'_>, out: &mut Vec<Diagnostic>) {
    groups(input, out);
    if !input.rules.is_empty() {
        #[cfg(test)]
        if tests::NAIVE.with(std::cell::Cell::get) {
            tests::rules_naive(input, out);
            return;
        }
        rules(input, out);
    }
}

fn push(out: &mut Vec<Diagnostic>, code: Code, line: u32, span: Range<usize>, message: String) {
    out.push(Diagnostic {
        code,
        severity: code.default_severity(),
        line,
        span,
        message: message.into(),
    });
}

/// `parts` end to end, in one allocation: what `format!` gives for the lint's messages,
/// without its machinery (a large file has thousands).
pub(crate) fn message(parts: &[&str]) -> String {
    let mut m = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        m.push_str(p);
    }
    m
}

/// A line number in decimal, on the stack.
struct Num(u32);

impl Num {
    fn to_str(&self) -> NumStr {
        let mut buf = [0u8; 10];
        let mut at = buf.len();
        let mut n = self.0;
        loop {
            at -= 1;
            buf[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        NumStr { buf, at }
    }
}

/// [`Num::to_str`]'s digits.
struct NumStr {
    buf: [u8; 10],
    at: usize,
}

impl std::ops::Deref for NumStr {
    type Target = str;
    fn deref(&self) -> &str {
        // Only ASCII digits were written.
        std::str::from_utf8(&self.buf[self.at..]).unwrap_or_default()
    }
}

/// `duplicate-group` and `empty-group`.
fn groups(input: &Input<'_>, out: &mut Vec<Diagnostic>) {
    let (groups, index) = (input.groups, input.index);
    if groups.len() > 1 {
        // Each agent's first group and its line, by the agent's entry (its token's index
        // among the matcher's), `*` apart.
        let mut first: Vec<Option<(usize, u32)>> = vec![None; index.entry_count()];
        let mut star = None;
        for (k, (gi, a)) in groups.all_agents().enumerate() {
            let (seen, name) = match a.who {
                AgentSlot::NOBODY => continue,
                AgentSlot::STAR => (&mut star, "*"),
                e => match first.get_mut(e as usize) {
                    Some(seen) => (seen, index.entry_token(e)),
                    None => continue,
                },
            };
            match *seen {
                Some((g0, l0)) if g0 != gi => {
                    let span = input.agent_spans.get(k).cloned().unwrap_or_default();
                    push(
                        out,
                        Code::DuplicateGroup,
                        a.line,
                        span,
                        message(&[
                            "`",
                            name,
                            "` already has a group (line ",
                            &Num(l0).to_str(),
                            "); RFC 9309 §2.2.1 merges the rules of both groups",
                        ]),
                    );
                }
                Some(_) => {}
                None => *seen = Some((gi, a.line)),
            }
        }
    }
    if !input.ends_in_agents || index.star_rule_count() == 0 {
        return;
    }
    let Some(last) = groups.len().checked_sub(1) else {
        return;
    };
    let before = groups.agent_count() - groups.agents(last).len();
    for (i, a) in groups.agents(last).iter().enumerate() {
        if a.who == AgentSlot::STAR || a.who == AgentSlot::NOBODY {
            continue;
        }
        if index.entry_rule_count(a.who) == 0 {
            let t = index.entry_token(a.who);
            let span = input
                .agent_spans
                .get(before + i)
                .cloned()
                .unwrap_or_default();
            push(
                out,
                Code::EmptyGroup,
                a.line,
                span,
                format!(
                    "`{t}` is named only by a group with no allow/disallow line at the end of the file: it may crawl everything, instead of following the `*` group"
                ),
            );
        }
    }
}

/// A multiply-rotate hash (as rustc's FxHash) for the pattern map: the keys are the file's
/// own patterns, hashed once each per list, and SipHash's strength buys nothing here but time
/// (a hostile file can at worst slow its own lint, which the list length already bounds).
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type Fx = std::hash::BuildHasherDefault<FxHasher>;

/// A rule found dead in one list (or in `copies` identical lists), and why.
#[derive(Clone, Copy)]
struct Finding {
    rule: u32,
    copies: u32,
    why: Dead,
}

/// Why a rule is dead in one list.
#[derive(Clone, Copy)]
struct Dead {
    code: Code,
    /// The rule that decides instead.
    by: u32,
}

fn text<'a>(arena: &'a [u8], p: &Compiled) -> &'a [u8] {
    arena
        .get(p.start as usize..(p.start + p.len) as usize)
        .unwrap_or_default()
}

/// `duplicate-rule`, `conflicting-rules`, `shadowed-rule`.
fn rules(input: &Input<'_>, out: &mut Vec<Diagnostic>) {
    let (index, rules, arena) = (input.index, input.rules, input.arena);
    let mut lists: Vec<_> = index.lists().filter(|l| l.slots.len() > 1).collect();
    // Agents named by the same groups have the same list: look at each once.
    lists.sort_unstable_by(|a, b| a.groups.cmp(b.groups));
    let mut scratch = Scratch {
        budget: BUDGET_BASE + BUDGET_PER_RULE * rules.len(),
        ..Scratch::default()
    };
    // Working space sized once for the longest list, rather than regrown list by list; the
    // shadow search's only for as many wildcard rules as the lists hold, and skipped when
    // they hold none (many files).
    let longest = lists.iter().map(|l| l.slots.len()).max().unwrap_or(0);
    let wild_slots = index
        .slot_compiled
        .iter()
        .filter(|c| c.wildcard)
        .count()
        .min(longest);
    scratch.dead.reserve(longest);
    if wild_slots > 0 {
        for (w, n) in scratch.wild.iter_mut().zip(scratch.needs.iter_mut()) {
            w.reserve(wild_slots);
            n.reserve(wild_slots);
        }
    }
    let mut seen: HashMap<(&[u8], bool), [Option<u32>; 2], Fx> = HashMap::default();
    // Google mode's derived rules: without any (always in `Mode::Rfc`), every rule is live.
    let derived = input.derived;
    debug_assert_eq!(derived, rules.iter().any(|r| r.index_html));
    // Dead rules are few: they are collected here, and only then are the lists that contain
    // them counted, instead of a tally per rule for every file.
    let mut found: Vec<Finding> = Vec::new();
    let mut i = 0;
    while i < lists.len() {
        let list = &lists[i];
        let mut copies = 0u32;
        while i < lists.len() && lists[i].groups == list.groups {
            copies += 1;
            i += 1;
        }
        let view = ListView {
            index,
            rules,
            arena,
            start: list.slots.start,
            len: list.slots.len(),
            patterns: index
                .slot_compiled
                .get(list.slots.start as usize..list.slots.end as usize)
                .unwrap_or_default(),
            derived,
        };
        scratch.dead.clear();
        scratch.dead.resize(view.len, None);
        // Whether a search may have marked a rule: most lists have none to collect.
        let mut marked = false;
        // Equal patterns have equal specificity, and a list is sorted by it: look for them
        // within each run of equally specific rules.
        // The runs are found in the list's patterns as one slice, without an index check per
        // rule.
        let patterns = view.patterns;
        let mut block = 0;
        while let Some(first) = patterns.get(block) {
            let end = block
                + 1
                + patterns[block + 1..]
                    .iter()
                    .take_while(|c| c.priority == first.priority)
                    .count();
            if end - block > 1 && may_repeat(&view, block..end, &mut scratch.keys) {
                marked = true;
                if end - block <= PAIRWISE {
                    equal_pairwise(&view, block..end, &mut scratch);
                } else {
                    equal_hashed(&view, block..end, &mut seen, &mut scratch);
                }
            }
            block = end;
        }
        if wild_slots > 0 {
            marked |= shadowed(&view, &mut scratch);
        }
        if !marked {
            continue;
        }
        for (p, d) in scratch.dead.iter().enumerate() {
            if let Some(d) = d {
                found.push(Finding {
                    rule: view.rule(p as u32),
                    copies,
                    why: *d,
                });
            }
        }
    }
    if found.is_empty() {
        return;
    }

    // Every list that contains a rule counts, including single-rule ones (never dead); a rule
    // is reported only when it is dead in all of them.
    let mut containing = vec![0u32; rules.len()];
    for list in index.lists() {
        for pos in list.slots.clone() {
            if let Some(c) = containing.get_mut(index.slot(pos).0 as usize) {
                *c += 1;
            }
        }
    }
    // By rule, in file order; a stable sort keeps each rule's findings in list order, so the
    // first is the reason given.
    found.sort_by_key(|f| f.rule);
    let mut k = 0;
    while k < found.len() {
        let Finding {
            rule: r, why: d, ..
        } = found[k];
        let mut dead_in = 0u32;
        while k < found.len() && found[k].rule == r {
            dead_in += found[k].copies;
            k += 1;
        }
        let rule = &rules[r as usize];
        if rule.index_html || dead_in < containing[r as usize] {
            continue;
        }
        let by = &rules[d.by as usize];
        let line = Num(by.line);
        let line = line.to_str();
        let text = match d.code {
            Code::DuplicateRule => message(&[
                "the same rule as line ",
                &line,
                ", for the same agents: it changes nothing",
            ]),
            Code::ConflictingRules => message(&[
                "line ",
                &line,
                " allows the same pattern, and allow wins a tie: this disallow is never used",
            ]),
            _ => message(&[
                "never decides: the ",
                by.kind.as_str(),
                " on line ",
                &line,
                " takes precedence and matches every path this rule matches",
            ]),
        };
        let span = input
            .rule_spans
            .get(r as usize)
            .cloned()
            .unwrap_or_default();
        push(out, d.code, rule.line, span, text);
    }
}

/// Whether two live rules of `block` may have the same canonical pattern, found cheaply: most
/// blocks have none, and then the exact search is skipped. A short block is compared pair by
/// pair (most pairs differ in their byte summaries already); a long one by [`text_key`]s,
/// which equal patterns share. `keys` is working space.
fn may_repeat(view: &ListView<'_>, block: Range<usize>, keys: &mut Vec<u64>) -> bool {
    let range = block.start as u32..block.end as u32;
    if block.len() <= PAIRWISE {
        // The live rules' summaries (anchor, length, byte summary) on the stack, compared as
        // one word a pair: equal patterns have equal words, and only equal words are compared
        // in full (reading the patterns anew for every pair cost 2 M instructions of the
        // corpus parse).
        let mut words = [0u64; PAIRWISE];
        let mut at = [0u32; PAIRWISE];
        for (n, p) in range.filter(|&p| view.live(p)).enumerate() {
            let c = view.pattern(p);
            let w = c.need() ^ (u64::from(c.len) << 1 | u64::from(c.anchored)).rotate_right(7);
            if words[..n]
                .iter()
                .zip(&at[..n])
                .any(|(&x, &q)| x == w && view.same(q, p))
            {
                return true;
            }
            words[n] = w;
            at[n] = p;
        }
        return false;
    }
    let live = range.filter(|&p| view.live(p));
    let key = |p: u32| text_key(view.text(p), view.pattern(p).anchored);
    keys.clear();
    // A long block: an open-addressing set of the keys, at most half full (0 is a free slot,
    // so keys are made odd).
    let size = (2 * block.len()).next_power_of_two();
    let shift = 64 - size.trailing_zeros();
    keys.resize(size, 0);
    for k in live.map(key) {
        let k = k | 1;
        let mut i = (k >> shift) as usize;
        loop {
            match keys[i] {
                0 => {
                    keys[i] = k;
                    break;
                }
                x if x == k => return true,
                _ => i = (i + 1) & (size - 1),
            }
        }
    }
    false
}

/// A hash of a canonical pattern, eight bytes at a time (a collision only costs the exact
/// search). Patterns of one block have the same specificity, and often the same length and
/// bytes in another order (`/item/123`, `/item/321`): a summary of either would not do.
fn text_key(text: &[u8], anchored: bool) -> u64 {
    let mut h = FxHasher(u64::from(anchored) ^ (text.len() as u64) << 1);
    let mut chunks = text.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h.add(u64::from_le_bytes(w));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        if text.len() >= 8 {
            // The last eight bytes, overlapping the last chunk: one load.
            w.copy_from_slice(&text[text.len() - 8..]);
        } else {
            for (d, &b) in w.iter_mut().zip(rest) {
                *d = b;
            }
        }
        h.add(u64::from_le_bytes(w));
    }
    h.0
}

/// Candidate pairs examined for `shadowed-rule` per file: this many, plus
/// [`BUDGET_PER_RULE`] per rule.
const BUDGET_BASE: usize = 1 << 16;
const BUDGET_PER_RULE: usize = 64;

#[derive(Default)]
struct Scratch {
    dead: Vec<Option<Dead>>,
    /// [`may_repeat`]'s keys.
    keys: Vec<u64>,
    word: Vec<u8>,
    /// Wildcard rules, per kind (allows, disallows): position and length of the literal
    /// prefix (up to the first `*`), found once here rather than per candidate pair.
    wild: [Vec<(u32, u32)>; 2],
    /// Their [`Compiled::need`]s, apart (parallel to `wild`).
    needs: [Vec<u64>; 2],
    budget: usize,
}

/// One list, by position.
struct ListView<'a> {
    index: &'a LintIndex<'a>,
    rules: &'a [Rule],
    arena: &'a [u8],
    start: u32,
    len: usize,
    /// The list's compiled patterns (the index's, from `start`): read often, and through one
    /// slice rather than the index.
    patterns: &'a [Compiled],
    /// The file has derived rules ([`ListView::live`] has something to check).
    derived: bool,
}

impl<'a> ListView<'a> {
    fn rule(&self, p: u32) -> u32 {
        self.index.rule(self.start + p)
    }
    fn pattern(&self, p: u32) -> &'a Compiled {
        &self.patterns[p as usize]
    }
    fn text(&self, p: u32) -> &'a [u8] {
        text(self.arena, self.pattern(p))
    }
    fn kind(&self, p: u32) -> RuleKind {
        self.rules[self.rule(p) as usize].kind
    }
    /// Google mode's derived `/dir/$` rules are left out.
    fn live(&self, p: u32) -> bool {
        !self.derived || !self.rules[self.rule(p) as usize].index_html
    }
    fn same(&self, a: u32, b: u32) -> bool {
        let (x, y) = (self.pattern(a), self.pattern(b));
        // Equal texts have equal byte summaries: most pairs differ there already.
        x.anchored == y.anchored
            && x.len == y.len
            && x.need() == y.need()
            && self.text(a) == self.text(b)
    }
}

/// Marks, among the positions `block` (equally specific rules, in precedence order), the rules
/// that repeat an earlier one's canonical pattern: `duplicate-rule` (same kind, pointing at the
/// first of that kind) or `conflicting-rules` (a disallow after an allow: an allow always
/// comes first among equals).
fn equal_pairwise(view: &ListView<'_>, block: Range<usize>, scratch: &mut Scratch) {
    for p in block.clone().skip(1) {
        let p = p as u32;
        if !view.live(p) {
            continue;
        }
        let mut first = None;
        let mut twin = None;
        for q in block.start as u32..p {
            if view.live(q) && view.same(q, p) {
                first.get_or_insert(q);
                if view.kind(q) == view.kind(p) {
                    twin = Some(q);
                    break;
                }
            }
        }
        scratch.dead[p as usize] = match (twin, first) {
            (Some(q), _) => Some(Dead {
                code: Code::DuplicateRule,
                by: view.rule(q),
            }),
            (None, Some(q)) => Some(Dead {
                code: Code::ConflictingRules,
                by: view.rule(q),
            }),
            (None, None) => None,
        };
    }
}

/// Like [`equal_pairwise`] for a long block: each pattern looked up in `seen` (canonical
/// text and anchor → first position of each kind).
fn equal_hashed<'a>(
    view: &ListView<'a>,
    block: Range<usize>,
    seen: &mut HashMap<(&'a [u8], bool), [Option<u32>; 2], Fx>,
    scratch: &mut Scratch,
) {
    seen.clear();
    seen.reserve(block.len());
    for p in block.start as u32..block.end as u32 {
        if !view.live(p) {
            continue;
        }
        let k = usize::from(view.kind(p) == RuleKind::Disallow);
        let firsts = seen
            .entry((view.text(p), view.pattern(p).anchored))
            .or_default();
        scratch.dead[p as usize] = match (firsts[k], firsts[1 - k]) {
            (Some(q), _) => Some(Dead {
                code: Code::DuplicateRule,
                by: view.rule(q),
            }),
            // An allow always comes before a disallow with the same pattern.
            (None, Some(q)) => Some(Dead {
                code: Code::ConflictingRules,
                by: view.rule(q),
            }),
            (None, None) => None,
        };
        firsts[k].get_or_insert(p);
    }
}

/// Marks the rules that an earlier rule of the other kind covers (`shadowed-rule`), and says
/// whether it marked any. Only a
/// pattern with a `*` can cover another while taking precedence (a plain pattern that covers
/// one is a prefix of it, so no longer, and equal ones are found apart), and its literal
/// prefix (up to its first `*`) is a prefix of the covered one's text.
///
/// The budget is spent as a scan of every earlier candidate, one unit each, up to the first
/// that covers, would spend it; the candidates' byte summaries sit apart, so that most are
/// passed over by one tight search rather than one by one.
fn shadowed(view: &ListView<'_>, scratch: &mut Scratch) -> bool {
    let Scratch {
        dead,
        word,
        budget,
        wild,
        needs,
        ..
    } = scratch;
    // Live wildcard rules, per kind, in precedence order (the caller reserved room for all).
    for (w, n) in wild.iter_mut().zip(needs.iter_mut()) {
        w.clear();
        n.clear();
    }
    for p in 0..view.len as u32 {
        if view.pattern(p).wildcard && view.live(p) {
            let t = view.text(p);
            // Literal prefixes are short: a byte loop, rather than a call to `memchr` set up
            // for long haystacks.
            let lit = t.iter().position(|&b| b == b'*').unwrap_or(t.len()) as u32;
            let k = usize::from(view.kind(p) == RuleKind::Disallow);
            wild[k].push((p, lit));
            needs[k].push(view.pattern(p).need());
        }
    }
    // Nothing up to the first candidate can be covered.
    let Some(first) = wild.iter().filter_map(|w| w.first()).map(|c| c.0).min() else {
        return false;
    };
    let mut marked = false;
    // How many candidates of each kind come before `p` (which only grows).
    let mut before = [0usize; 2];
    for p in first + 1..view.len as u32 {
        let k = usize::from(view.kind(p) == RuleKind::Allow);
        let other = &wild[k];
        let mut m = before[k];
        while m < other.len() && other[m].0 < p {
            m += 1;
        }
        before[k] = m;
        if m == 0 {
            continue;
        }
        if *budget == 0 {
            return marked;
        }
        if dead[p as usize].is_some() || !view.live(p) {
            continue;
        }
        let c = view.pattern(p);
        let t = view.text(p);
        // `*` has no summary bit: the word's summary is the pattern's.
        let mask = c.need();
        // The pattern as a word in which `*` is a symbol only a `*` matches: built for the
        // first candidate that passes the cheap tests (most never do).
        let mut built = false;
        let cand = &needs[k][..m];
        let mut from = 0;
        let mut hit = None;
        // `matches` starts with the byte-summary test: most candidates fail it.
        while let Some(r) = cand[from..].iter().position(|&n| n & !mask == 0) {
            let j = from + r;
            if j >= *budget {
                // The budget runs out before this candidate.
                break;
            }
            let (q, lit) = other[j];
            let qt = view.text(q);
            if t.starts_with(&qt[..lit as usize]) {
                if !built {
                    word.clear();
                    word.extend_from_slice(t);
                    if !c.anchored {
                        word.push(b'*');
                    }
                    built = true;
                }
                if view.pattern(q).matches(qt, word, mask) {
                    hit = Some(j);
                    break;
                }
            }
            from = j + 1;
        }
        match hit {
            Some(j) => {
                dead[p as usize] = Some(Dead {
                    code: Code::ShadowedRule,
                    by: view.rule(other[j].0),
                });
                marked = true;
                *budget -= j + 1;
            }
            None if m >= *budget => {
                *budget = 0;
                return marked;
            }
            None => *budget -= m,
        }
    }
    marked
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::collections::HashMap;

    use super::{push, Dead, Fx, Input, ListView, Scratch, BUDGET_BASE, BUDGET_PER_RULE, PAIRWISE};
    use crate::diagnostic::Code;
    use crate::robots::{Mode, Options, Robots, RuleKind};
    use crate::Diagnostic;

    thread_local! {
        /// Run [`rules_naive`] instead of [`super::rules`] (this thread's parses only).
        pub(super) static NAIVE: Cell<bool> = const { Cell::new(false) };
    }

    /// Per rule: in how many agents' lists it is, in how many it is dead, and why (the first).
    #[derive(Default, Clone, Copy)]
    struct Tally {
        containing: u32,
        dead_in: u32,
        why: Option<Dead>,
    }

    /// The lint as it was before its fast paths: every list tallied, every block searched,
    /// every candidate pair scanned in turn.
    pub(super) fn rules_naive(input: &Input<'_>, out: &mut Vec<Diagnostic>) {
        let (index, rules, arena) = (input.index, input.rules, input.arena);
        // Every list that contains a rule counts, including single-rule ones (never dead).
        let mut tally = vec![Tally::default(); rules.len()];
        let mut lists = Vec::new();
        for list in index.lists() {
            for pos in list.slots.clone() {
                tally[index.slot(pos).0 as usize].containing += 1;
            }
            if list.slots.len() > 1 {
                lists.push(list);
            }
        }
        // Agents named by the same groups have the same list: look at each once.
        lists.sort_unstable_by(|a, b| a.groups.cmp(b.groups));
        let mut scratch = Scratch {
            budget: BUDGET_BASE + BUDGET_PER_RULE * rules.len(),
            ..Scratch::default()
        };
        let mut seen: HashMap<(&[u8], bool), [Option<u32>; 2], Fx> = HashMap::default();
        // Google mode's derived rules: without any (always in `Mode::Rfc`), every rule is live.
        let derived = rules.iter().any(|r| r.index_html);
        let mut i = 0;
        while i < lists.len() {
            let list = &lists[i];
            let mut copies = 0u32;
            while i < lists.len() && lists[i].groups == list.groups {
                copies += 1;
                i += 1;
            }
            let view = ListView {
                index,
                rules,
                arena,
                start: list.slots.start,
                len: list.slots.len(),
                patterns: index
                    .slot_compiled
                    .get(list.slots.start as usize..list.slots.end as usize)
                    .unwrap_or_default(),
                derived,
            };
            scratch.dead.clear();
            scratch.dead.resize(view.len, None);
            // Equal patterns have equal specificity, and a list is sorted by it: look for them
            // within each run of equally specific rules.
            let mut block = 0;
            while block < view.len {
                let priority = view.pattern(block as u32).priority;
                let mut end = block + 1;
                while end < view.len && view.pattern(end as u32).priority == priority {
                    end += 1;
                }
                match end - block {
                    1 => {}
                    n if n <= PAIRWISE => super::equal_pairwise(&view, block..end, &mut scratch),
                    _ => super::equal_hashed(&view, block..end, &mut seen, &mut scratch),
                }
                block = end;
            }
            shadowed_naive(&view, &mut scratch);
            for (p, d) in scratch.dead.iter().enumerate() {
                if let Some(d) = d {
                    let t = &mut tally[view.rule(p as u32) as usize];
                    t.dead_in += copies;
                    t.why.get_or_insert(*d);
                }
            }
        }

        for (r, (rule, t)) in rules.iter().zip(&tally).enumerate() {
            let Some(d) = t.why else { continue };
            if rule.index_html || t.dead_in < t.containing {
                continue;
            }
            let by = &rules[d.by as usize];
            let message = match d.code {
                Code::DuplicateRule => format!(
                    "the same rule as line {}, for the same agents: it changes nothing",
                    by.line
                ),
                Code::ConflictingRules => format!(
                    "line {} allows the same pattern, and allow wins a tie: this disallow is never used",
                    by.line
                ),
                _ => format!(
                    "never decides: the {} on line {} takes precedence and matches every path this rule matches",
                    by.kind.as_str(),
                    by.line
                ),
            };
            let span = input.rule_spans.get(r).cloned().unwrap_or_default();
            push(out, d.code, rule.line, span, message);
        }
    }

    /// [`super::shadowed`], one candidate pair at a time. Only a
    /// pattern with a `*` can cover another while taking precedence (a plain pattern that covers
    /// one is a prefix of it, so no longer, and equal ones are found apart), and its literal
    /// prefix (up to its first `*`) is a prefix of the covered one's text.
    fn shadowed_naive(view: &ListView<'_>, scratch: &mut Scratch) {
        let Scratch {
            dead, word, budget, ..
        } = scratch;
        let mut wild: [Vec<(u32, u32, u64)>; 2] = Default::default();
        // Live wildcard rules, per kind, in precedence order.
        for w in wild.iter_mut() {
            w.clear();
        }
        for p in 0..view.len as u32 {
            if view.pattern(p).wildcard && view.live(p) {
                let t = view.text(p);
                // Literal prefixes are short: a byte loop, rather than a call to `memchr` set up
                // for long haystacks.
                let lit = t.iter().position(|&b| b == b'*').unwrap_or(t.len()) as u32;
                let need = view.pattern(p).need();
                wild[usize::from(view.kind(p) == RuleKind::Disallow)].push((p, lit, need));
            }
        }
        if wild.iter().all(Vec::is_empty) {
            return;
        }
        for p in 0..view.len as u32 {
            let other = &wild[usize::from(view.kind(p) == RuleKind::Allow)];
            if other.first().is_none_or(|&(q, _, _)| q >= p) {
                continue;
            }
            if *budget == 0 {
                return;
            }
            if dead[p as usize].is_some() || !view.live(p) {
                continue;
            }
            let c = view.pattern(p);
            let t = view.text(p);
            // `*` has no summary bit: the word's summary is the pattern's.
            let mask = c.need();
            // The pattern as a word in which `*` is a symbol only a `*` matches: built for the
            // first candidate that passes the cheap tests (most never do).
            let mut built = false;
            for &(q, lit, need) in other.iter().take_while(|&&(q, _, _)| q < p) {
                *budget -= 1;
                // `matches` starts with this test; done first, it spares most pairs the rest.
                if need & !mask == 0 {
                    let qt = view.text(q);
                    if t.starts_with(&qt[..lit as usize]) {
                        if !built {
                            word.clear();
                            word.extend_from_slice(t);
                            if !c.anchored {
                                word.push(b'*');
                            }
                            built = true;
                        }
                        if view.pattern(q).matches(qt, word, mask) {
                            dead[p as usize] = Some(Dead {
                                code: Code::ShadowedRule,
                                by: view.rule(q),
                            });
                            break;
                        }
                    }
                }
                if *budget == 0 {
                    return;
                }
            }
        }
    }

    /// A small xorshift generator: the same files on every run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[(self.next() % items.len() as u64) as usize]
        }
    }

    /// A file of few, short patterns, so that equal, conflicting and covering rules are common,
    /// with repeated and shared agents.
    fn random_file(rng: &mut Rng) -> String {
        let agents = ["*", "a", "b", "c", "a b"];
        let parts = [
            "/",
            "/a",
            "/b",
            "/ab",
            "/ba",
            "*",
            "/*",
            "x",
            "$",
            "/index.html",
            "/a/",
        ];
        let mut file = String::new();
        for _ in 0..1 + rng.next() % 5 {
            for _ in 0..1 + rng.next() % 2 {
                file.push_str(&format!("user-agent: {}\n", rng.pick(&agents)));
            }
            for _ in 0..rng.next() % 30 {
                let kind = if rng.next().is_multiple_of(2) {
                    "allow"
                } else {
                    "disallow"
                };
                let mut path = String::new();
                for _ in 0..1 + rng.next() % 4 {
                    path.push_str(rng.pick(&parts));
                }
                if !path.starts_with('/') {
                    path.insert(0, '/');
                }
                file.push_str(&format!("{kind}: {path}\n"));
            }
        }
        file
    }

    /// A file of many equally specific rules (`/` and three bytes), so that long blocks with
    /// repeats are common.
    fn long_blocks_file(rng: &mut Rng) -> String {
        let bytes = ["a", "b", "*"];
        let mut file = String::new();
        for _ in 0..1 + rng.next() % 3 {
            file.push_str(&format!("user-agent: {}\n", rng.pick(&["*", "a", "b"])));
            for _ in 0..rng.next() % 60 {
                let kind = if rng.next().is_multiple_of(2) {
                    "allow"
                } else {
                    "disallow"
                };
                let mut path = String::from("/");
                for _ in 0..3 {
                    path.push_str(rng.pick(&bytes));
                }
                file.push_str(&format!("{kind}: {path}\n"));
            }
        }
        file
    }

    #[test]
    fn long_blocks_agree_with_the_naive_lint() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut findings = 0;
        for _ in 0..1000 {
            let file = long_blocks_file(&mut rng);
            let fast = lint(&file, Mode::Rfc, false);
            assert_eq!(fast, lint(&file, Mode::Rfc, true), "\n{file}");
            findings += codes(&fast);
        }
        assert!(findings > 1000, "{findings}");
    }

    fn lint(file: &str, mode: Mode, naive: bool) -> Vec<Diagnostic> {
        NAIVE.with(|n| n.set(naive));
        let options = Options {
            mode,
            ..Options::default()
        };
        let parsed = Robots::parse_with(file.as_bytes(), &options);
        NAIVE.with(|n| n.set(false));
        parsed.diagnostics
    }

    fn codes(d: &[Diagnostic]) -> usize {
        d.iter()
            .filter(|d| {
                matches!(
                    d.code,
                    Code::DuplicateRule | Code::ConflictingRules | Code::ShadowedRule
                )
            })
            .count()
    }

    #[test]
    fn messages_are_what_format_gives() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, u32::MAX] {
            assert_eq!(&*super::Num(n).to_str(), n.to_string());
            assert_eq!(
                super::message(&["a `", &super::Num(n).to_str(), "` b"]),
                format!("a `{n}` b")
            );
        }
    }

    #[test]
    fn fast_paths_agree_with_the_naive_lint() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut findings = 0;
        for _ in 0..3000 {
            let file = random_file(&mut rng);
            for mode in [Mode::Rfc, Mode::Google] {
                let fast = lint(&file, mode, false);
                assert_eq!(fast, lint(&file, mode, true), "{mode:?}:\n{file}");
                findings += codes(&fast);
            }
        }
        // The files do exercise the searches.
        assert!(findings > 1000, "{findings}");
    }

    /// Past the budget, shadowing is no longer reported: the fast scan spends it as the naive
    /// one does, pair by pair, including where it runs out.
    #[test]
    fn budget_runs_out_where_the_naive_scan_does() {
        let mut cut = 0;
        // With 4518, the budget left for the 87th disallow is exactly its covering
        // candidate's position: the naive scan stops just before reaching it.
        for noise in [0, 1, 7, 300, 599, 1500, 4518] {
            let mut file = String::from("user-agent: *\n");
            // Long wildcard allows take precedence and cover nothing; `/b****` covers every
            // disallow, and comes before them (allow first on a tie).
            for i in 0..noise {
                file.push_str(&format!("allow: /zz{i:04}*qqqqqqqqqqqq\n"));
            }
            file.push_str("allow: /b****\n");
            for i in 0..600 {
                file.push_str(&format!("disallow: /b{i:04}\n"));
            }
            let fast = lint(&file, Mode::Rfc, false);
            assert_eq!(fast, lint(&file, Mode::Rfc, true), "noise {noise}");
            let reported = codes(&fast);
            assert!(reported > 0, "noise {noise}");
            cut += usize::from(reported < 600);
        }
        // The budget does run out in some.
        assert!(cut >= 2, "{cut}");
    }
}
