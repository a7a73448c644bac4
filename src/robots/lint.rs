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

use super::matcher::LintIndex;
use super::pattern::Compiled;
use super::{Agent, Group, Rule, RuleKind};
use crate::diagnostic::{Code, Diagnostic};

/// Runs of equally specific rules up to this long are compared pairwise, longer ones through a
/// hash map.
const PAIRWISE: usize = 16;

/// What the lint reads.
pub(crate) struct Input<'a> {
    pub groups: &'a [Group],
    pub rules: &'a [Rule],
    pub index: &'a LintIndex<'a>,
    pub arena: &'a [u8],
    /// Input span of each rule.
    pub rule_spans: &'a [Range<usize>],
    /// Input span of each agent value, groups' agents in order.
    pub agent_spans: &'a [Range<usize>],
    /// The file ended in a run of `user-agent` lines.
    pub ends_in_agents: bool,
}

/// Appends the semantic findings to `out`.
pub(crate) fn semantic(input: &Input<'_>, out: &mut Vec<Diagnostic>) {
    groups(input, out);
    if !input.rules.is_empty() {
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

/// `duplicate-group` and `empty-group`.
fn groups(input: &Input<'_>, out: &mut Vec<Diagnostic>) {
    if input.groups.len() > 1 {
        // Agent → (first group, its line).
        let mut first: HashMap<&str, (usize, u32), Fx> =
            HashMap::with_capacity_and_hasher(input.agent_spans.len(), Fx::default());
        let mut k = 0;
        for (gi, g) in input.groups.iter().enumerate() {
            for (agent, line) in &g.agents {
                let span = input.agent_spans.get(k).cloned().unwrap_or_default();
                k += 1;
                let name = match agent {
                    Agent::Token(t) => &**t,
                    Agent::Star => "*",
                    Agent::Nobody => continue,
                };
                match first.get(name) {
                    Some(&(g0, l0)) if g0 != gi => push(
                        out,
                        Code::DuplicateGroup,
                        *line,
                        span,
                        format!(
                            "`{name}` already has a group (line {l0}); RFC 9309 §2.2.1 merges the rules of both groups"
                        ),
                    ),
                    Some(_) => {}
                    None => {
                        first.insert(name, (gi, *line));
                    }
                }
            }
        }
    }
    if !input.ends_in_agents || input.index.star_rule_count() == 0 {
        return;
    }
    let Some(last) = input.groups.last() else {
        return;
    };
    let before: usize = input.groups[..input.groups.len() - 1]
        .iter()
        .map(|g| g.agents.len())
        .sum();
    for (i, (agent, line)) in last.agents.iter().enumerate() {
        let Agent::Token(t) = agent else { continue };
        if input.index.named_rule_count(t) == Some(0) {
            let span = input
                .agent_spans
                .get(before + i)
                .cloned()
                .unwrap_or_default();
            push(
                out,
                Code::EmptyGroup,
                *line,
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

/// Per rule: in how many agents' lists it is, in how many it is dead, and why (the first).
#[derive(Default, Clone, Copy)]
struct Tally {
    containing: u32,
    dead_in: u32,
    why: Option<Dead>,
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
                n if n <= PAIRWISE => equal_pairwise(&view, block..end, &mut scratch),
                _ => equal_hashed(&view, block..end, &mut seen, &mut scratch),
            }
            block = end;
        }
        shadowed(&view, &mut scratch);
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

/// Candidate pairs examined for `shadowed-rule` per file: this many, plus
/// [`BUDGET_PER_RULE`] per rule.
const BUDGET_BASE: usize = 1 << 16;
const BUDGET_PER_RULE: usize = 64;

#[derive(Default)]
struct Scratch {
    dead: Vec<Option<Dead>>,
    word: Vec<u8>,
    /// Wildcard rules, per kind (allows, disallows): position, length of the literal prefix
    /// (up to the first `*`) and [`Compiled::need`], found once here rather than per
    /// candidate pair.
    wild: [Vec<(u32, u32, u64)>; 2],
    budget: usize,
}

/// One list, by position.
struct ListView<'a> {
    index: &'a LintIndex<'a>,
    rules: &'a [Rule],
    arena: &'a [u8],
    start: u32,
    len: usize,
    /// The file has derived rules ([`ListView::live`] has something to check).
    derived: bool,
}

impl<'a> ListView<'a> {
    fn rule(&self, p: u32) -> u32 {
        self.index.rule(self.start + p)
    }
    fn pattern(&self, p: u32) -> &'a Compiled {
        self.index.pattern(self.start + p)
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

/// Marks the rules that an earlier rule of the other kind covers (`shadowed-rule`). Only a
/// pattern with a `*` can cover another while taking precedence (a plain pattern that covers
/// one is a prefix of it, so no longer, and equal ones are found apart), and its literal
/// prefix (up to its first `*`) is a prefix of the covered one's text.
fn shadowed(view: &ListView<'_>, scratch: &mut Scratch) {
    let Scratch {
        dead,
        word,
        budget,
        wild,
        ..
    } = scratch;
    // Live wildcard rules, per kind, in precedence order.
    for w in wild.iter_mut() {
        w.clear();
    }
    for p in 0..view.len as u32 {
        if view.pattern(p).wildcard && view.live(p) {
            let t = view.text(p);
            let lit = memchr::memchr(b'*', t).unwrap_or(t.len()) as u32;
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
        let mask = c.need() | 1 << (b'*' & 63);
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
