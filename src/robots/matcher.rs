//! Which group applies to a product token, and which rule decides ([RFC 9309 §2.2.1–2.2.2]).
//!
//! At parse time every distinct agent gets the merged rules of all its groups, sorted by
//! precedence: longest canonical pattern first, `allow` before `disallow` on ties, then file
//! order. A check is then a binary search for the token and a scan that stops at the first
//! matching rule, which is the one the longest-match rule would pick.
//!
//! [RFC 9309 §2.2.1–2.2.2]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.2.1

use std::cmp::Reverse;
use std::ops::Range;
use std::sync::OnceLock;

use super::path::{is_robots_txt, request_path};
use super::pattern::{self, Compiled};
use super::prefix::PrefixIndex;
use super::{Agent, Group, Mode, ProductToken, Robots, Rule, RuleKind, RuleRef};

/// One rule in an agent's precedence-ordered list: what the hot loop reads, contiguous.
#[derive(Debug, Clone, Copy)]
struct Slot {
    pattern: Compiled,
    allow: bool,
    rule: u32,
}

impl Slot {
    /// Precedence: most specific first, `allow` first on ties.
    fn order(&self) -> (Reverse<u32>, bool) {
        (Reverse(self.pattern.priority), !self.allow)
    }
}

#[derive(Debug, Clone)]
struct Entry {
    token: Box<str>,
    slots: Range<u32>,
    groups: Range<u32>,
    /// Built on the first check when the agent has many rules.
    prefixes: OnceLock<PrefixIndex>,
}

/// Above this many rules, checks go through a [`PrefixIndex`] instead of a linear scan.
const INDEX_ABOVE: usize = 16;

/// Merged, sorted rules per agent.
#[derive(Debug, Clone, Default)]
pub(crate) struct Index {
    /// Sorted by token.
    entries: Vec<Entry>,
    star: Option<Entry>,
    slots: Vec<Slot>,
    group_ids: Vec<u32>,
}

impl Index {
    /// In `Mode::Google` a group whose `user-agent` has no product token ([`Agent::Nobody`])
    /// is the group of the empty agent, as google/robotstxt compares the caller's agent with
    /// the empty token it extracts; only [`ProductToken::verbatim`] makes an empty agent.
    pub(crate) fn build(groups: &[Group], rules: &[Rule], mode: Mode) -> Index {
        let mut index = Index::default();
        index.slots.reserve(rules.len());
        // Each group's rules, sorted once. Rules were pushed in file order, so a stable sort on
        // (specificity, allow first) keeps file order among equals.
        let mut group_slots = Vec::with_capacity(groups.len());
        for g in groups {
            let start = index.slots.len();
            index.slots.extend(g.rules.clone().map(|r| Slot {
                pattern: rules[r].pattern,
                allow: rules[r].kind == RuleKind::Allow,
                rule: r as u32,
            }));
            index.slots[start..].sort_by_key(Slot::order);
            group_slots.push(start as u32..index.slots.len() as u32);
        }

        let mut pairs: Vec<(&str, u32)> = Vec::new();
        let mut star_groups: Vec<u32> = Vec::new();
        for (gi, g) in groups.iter().enumerate() {
            for (agent, _) in &g.agents {
                match agent {
                    Agent::Token(t) => pairs.push((t, gi as u32)),
                    Agent::Star => star_groups.push(gi as u32),
                    Agent::Nobody if mode == Mode::Google => pairs.push(("", gi as u32)),
                    Agent::Nobody => {}
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        star_groups.dedup();

        let mut i = 0;
        let mut gids = Vec::new();
        while i < pairs.len() {
            let token = pairs[i].0;
            gids.clear();
            while i < pairs.len() && pairs[i].0 == token {
                gids.push(pairs[i].1);
                i += 1;
            }
            let entry = index.entry(token, &gids, &group_slots);
            index.entries.push(entry);
        }
        if !star_groups.is_empty() {
            index.star = Some(index.entry("*", &star_groups, &group_slots));
        }
        index
    }

    /// The entry of an agent named by groups `gids` (in file order). One group's sorted slots
    /// are shared as they are; several groups are merged into a new run.
    fn entry(&mut self, token: &str, gids: &[u32], group_slots: &[Range<u32>]) -> Entry {
        let slots = match gids {
            [g] => group_slots[*g as usize].clone(),
            _ => {
                let start = self.slots.len();
                for &g in gids {
                    let r = &group_slots[g as usize];
                    self.slots
                        .extend_from_within(r.start as usize..r.end as usize);
                }
                // Stable: among equals, earlier groups (earlier lines) stay first.
                self.slots[start..].sort_by_key(Slot::order);
                start as u32..self.slots.len() as u32
            }
        };
        let gstart = self.group_ids.len();
        self.group_ids.extend_from_slice(gids);
        Entry {
            token: token.into(),
            slots,
            groups: gstart as u32..self.group_ids.len() as u32,
            prefixes: OnceLock::new(),
        }
    }

    fn find(&self, token: &ProductToken) -> (GroupMatch, Option<&Entry>) {
        let t = token.as_str();
        match self.entries.binary_search_by(|e| (*e.token).cmp(t)) {
            Ok(i) => (GroupMatch::Token, Some(&self.entries[i])),
            Err(_) => match &self.star {
                Some(e) => (GroupMatch::Star, Some(e)),
                None => (GroupMatch::None, None),
            },
        }
    }

    /// Group indexes that apply to `token`.
    pub(crate) fn groups_for(&self, token: &ProductToken) -> &[u32] {
        match self.find(token).1 {
            Some(e) => &self.group_ids[e.groups.start as usize..e.groups.end as usize],
            None => &[],
        }
    }
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
    prefixes: Option<&'a OnceLock<PrefixIndex>>,
}

impl<'a> AgentRules<'a> {
    /// Which groups applied.
    pub fn group(&self) -> GroupMatch {
        self.group
    }

    /// The rules in precedence order (longest first, `allow` first on ties).
    pub fn rules(&self) -> impl Iterator<Item = RuleRef<'a>> + '_ {
        self.slots
            .iter()
            .map(|s| self.robots.rule_ref(&self.robots.rules[s.rule as usize]))
    }

    /// Decides for `url`: an absolute URL, a scheme-relative `//host/…` URL, or a path (with
    /// query); the fragment is ignored.
    pub fn check(&self, url: &str) -> Decision<'a> {
        self.check_path(&request_path(url))
    }

    /// Decides for `path`, taken verbatim as the path + query to match (it should start with
    /// `/`; no fragment). For callers that already hold the request target.
    pub fn check_path(&self, path: &str) -> Decision<'a> {
        let robots = self.robots;
        if robots.mode == Mode::Rfc && is_robots_txt(path) {
            return Decision {
                allowed: true,
                group: self.group,
                reason: Reason::RobotsTxt,
            };
        }
        let (canon, mask) = pattern::canonical_path(path, robots.mode);
        let canon: &[u8] = &canon;
        let arena = &robots.patterns[..];
        let matches = |s: &Slot| {
            let p = &s.pattern;
            p.matches(
                &arena[p.start as usize..(p.start + p.len) as usize],
                canon,
                mask,
            )
        };
        let hit = match self.prefixes {
            Some(lazy) if self.slots.len() > INDEX_ABOVE => {
                let index = lazy.get_or_init(|| {
                    PrefixIndex::build(
                        arena,
                        self.slots
                            .iter()
                            .map(|s| s.pattern.start..s.pattern.start + s.pattern.len),
                    )
                });
                index
                    .first_match(arena, canon, |pos| matches(&self.slots[pos as usize]))
                    .map(|pos| &self.slots[pos as usize])
            }
            _ => self.slots.iter().find(|s| matches(s)),
        };
        if let Some(s) = hit {
            return Decision {
                allowed: s.allow,
                group: self.group,
                reason: Reason::Rule(robots.rule_ref(&robots.rules[s.rule as usize])),
            };
        }
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
        let slots = match entry {
            Some(e) => &self.index.slots[e.slots.start as usize..e.slots.end as usize],
            None => &[],
        };
        AgentRules {
            robots: self,
            group,
            slots,
            prefixes: entry.map(|e| &e.prefixes),
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
