//! Groups and their agents ([RFC 9309 §2.1]): the compact table the compiled file keeps, and
//! the borrowed views ([`Group`], [`Agent`]) it answers with.
//!
//! A group costs 8 bytes (where its agents start and where its rules start: both run to the
//! next group's; its line is its first agent's) and an agent 8 (its line, and its token as the
//! index of the matcher's entry for it, whose text the matcher keeps once however many groups
//! name it).
//!
//! [RFC 9309 §2.1]: https://www.rfc-editor.org/rfc/rfc9309.html#section-2.1

use std::iter::FusedIterator;
use std::ops::Range;

use super::{run_at, Robots};

/// One agent named by a group's `user-agent` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Agent<'a> {
    /// `*`: every crawler without a group of its own.
    Star,
    /// A product token, lowercased (`Googlebot/2.1` is read as `googlebot`): the value up to
    /// the first character that is not a letter, digit, `_` or `-` in [`Mode::Rfc`]
    /// (`MJ12bot` → `mj12bot`), not a letter, `_` or `-` in [`Mode::Google`] (`MJ12bot` →
    /// `mj`, as google/robotstxt reads it). See [`ProductToken`]. In [`Mode::Rfc`] a value
    /// that is more than its token (`UnicödeBöt`, `Foo Bar`) is also the group of the crawler
    /// given verbatim by that whole name ([`ProductToken::verbatim`]).
    ///
    /// [`ProductToken::verbatim`]: super::ProductToken::verbatim
    /// [`Mode::Rfc`]: super::Mode::Rfc
    /// [`Mode::Google`]: super::Mode::Google
    /// [`ProductToken`]: super::ProductToken
    Token(&'a str),
    /// A value with no product token (empty, `*bot`, `/1.0`): matches no crawler's token. In
    /// [`Mode::Google`] it matches the empty agent (`ProductToken::verbatim("")`), as
    /// google/robotstxt compares an empty caller agent with the empty token it reads here; in
    /// [`Mode::Rfc`] a non-empty value matches the crawler given verbatim by that name.
    ///
    /// [`Mode::Google`]: super::Mode::Google
    /// [`Mode::Rfc`]: super::Mode::Rfc
    Nobody,
}

/// A group: its `user-agent` lines and the rules that follow them. A view into the compiled
/// file ([`Robots::groups`]).
#[derive(Clone, Copy)]
pub struct Group<'a> {
    robots: &'a Robots,
    index: usize,
}

impl<'a> Group<'a> {
    pub(crate) fn new(robots: &'a Robots, index: usize) -> Group<'a> {
        Group { robots, index }
    }

    /// Its position among [`Robots::groups`] (what [`Record::group`] and
    /// [`AgentRules::group_indexes`] give).
    ///
    /// [`Record::group`]: super::Record::group
    /// [`AgentRules::group_indexes`]: super::AgentRules::group_indexes
    pub fn index(&self) -> usize {
        self.index
    }

    /// Line of the first `user-agent` line.
    pub fn line(&self) -> u32 {
        self.robots.groups.line(self.index)
    }

    /// Indexes of its rules, for [`Robots::rule`].
    pub fn rules(&self) -> Range<u32> {
        self.robots.groups.rules(self.index)
    }

    /// The agents and the line of each, in file order.
    pub fn agents(&self) -> Agents<'a> {
        Agents {
            robots: self.robots,
            slots: self.robots.groups.agents(self.index).iter(),
        }
    }
}

/// The groups of a file, in order: see [`Robots::groups`].
#[derive(Clone)]
pub struct Groups<'a> {
    robots: &'a Robots,
    at: Range<usize>,
}

impl<'a> Groups<'a> {
    pub(crate) fn new(robots: &'a Robots) -> Groups<'a> {
        Groups {
            robots,
            at: 0..robots.groups.len(),
        }
    }
}

impl<'a> Iterator for Groups<'a> {
    type Item = Group<'a>;

    fn next(&mut self) -> Option<Group<'a>> {
        self.at.next().map(|g| Group::new(self.robots, g))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.at.size_hint()
    }
}

impl DoubleEndedIterator for Groups<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.at.next_back().map(|g| Group::new(self.robots, g))
    }
}

impl ExactSizeIterator for Groups<'_> {}

impl FusedIterator for Groups<'_> {}

impl std::fmt::Debug for Groups<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}

slot_iterator!(
    /// A group's agents and the line of each, in order: see [`Group::agents`].
    Agents,
    AgentSlot,
    (Agent<'a>, u32),
    agent_at
);

/// Groups are equal when their lines, agents and rule indexes are, whichever files they are in.
impl PartialEq for Group<'_> {
    fn eq(&self, other: &Group<'_>) -> bool {
        self.line() == other.line()
            && self.rules() == other.rules()
            && self.agents().eq(other.agents())
    }
}

impl Eq for Group<'_> {}

impl std::fmt::Debug for Group<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group")
            .field("line", &self.line())
            .field("agents", &self.agents().collect::<Vec<_>>())
            .field("rules", &self.rules())
            .finish()
    }
}

/// An agent as the table keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AgentSlot {
    /// [`AgentSlot::STAR`], [`AgentSlot::NOBODY`], or the token: while parsing, an index into
    /// the parser's token list; once compiled, the index of the matcher's entry for it.
    pub who: u32,
    /// 1-based line.
    pub line: u32,
}

impl AgentSlot {
    /// `*`.
    pub const STAR: u32 = u32::MAX;
    /// No product token.
    pub const NOBODY: u32 = u32::MAX - 1;
}

/// Where a group starts. Every group has an agent: the `user-agent` line that starts it.
#[derive(Debug, Clone, Copy)]
struct Start {
    agents: u32,
    rules: u32,
}

/// The groups, in file order: each one's agents and rules run to where the next group's
/// start (the last group's to the ends of `agents` and of the rules).
#[derive(Debug, Clone, Default)]
pub(crate) struct GroupTable {
    starts: Vec<Start>,
    agents: Vec<AgentSlot>,
    /// Every rule is in one group, and groups hold increasing runs of rules from 0.
    rule_count: u32,
}

impl GroupTable {
    /// Number of groups.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Starts a group with its first agent, and whose rules will start at `rule`.
    pub fn push(&mut self, agent: AgentSlot, rule: u32) {
        self.starts.push(Start {
            agents: self.agents.len() as u32,
            rules: rule,
        });
        self.agents.push(agent);
    }

    /// Adds an agent to the last group.
    pub fn push_agent(&mut self, agent: AgentSlot) {
        self.agents.push(agent);
    }

    /// Sets the number of rules: the last group's end. The parser calls it once, when all
    /// its rules are in (until then the last group's end is stale).
    pub fn set_rule_count(&mut self, n: u32) {
        self.rule_count = n;
    }

    /// Number of rules.
    pub fn rule_count(&self) -> u32 {
        self.rule_count
    }

    /// Line of group `g`'s first `user-agent` line (0 if there is no such group).
    pub fn line(&self, g: usize) -> u32 {
        self.agents(g).first().map_or(0, |a| a.line)
    }

    /// Indexes of group `g`'s rules.
    pub fn rules(&self, g: usize) -> Range<u32> {
        run_at(&self.starts, g, self.rule_count as usize, |s| {
            s.rules as usize
        })
        .map_or(0..0, |r| r.start as u32..r.end as u32)
    }

    /// Group `g`'s agents.
    pub fn agents(&self, g: usize) -> &[AgentSlot] {
        run_at(&self.starts, g, self.agents.len(), |s| s.agents as usize)
            .and_then(|r| self.agents.get(r))
            .unwrap_or_default()
    }

    /// Every group's agents, in file order, with the group of each: one walk over the agents
    /// and the starts together (a group's slice at a time cost the token lookup's build
    /// 0.3 M instructions of the corpus parse).
    pub fn all_agents(&self) -> impl Iterator<Item = (usize, &AgentSlot)> + '_ {
        let mut g = 0;
        self.agents.iter().enumerate().map(move |(i, a)| {
            // Past every group that starts at or before this agent (each has one at least).
            while self
                .starts
                .get(g + 1)
                .is_some_and(|s| s.agents as usize <= i)
            {
                g += 1;
            }
            (g, a)
        })
    }

    /// Number of agents, in all groups.
    pub fn agent_count(&self) -> usize {
        self.agents.len()
    }

    /// Every agent, for the matcher to give each token its entry.
    pub fn agents_mut(&mut self) -> &mut [AgentSlot] {
        &mut self.agents
    }

    pub fn shrink_to_fit(&mut self) {
        self.starts.shrink_to_fit();
        self.agents.shrink_to_fit();
    }

    /// Heap bytes held.
    pub fn heap_size(&self) -> usize {
        self.starts.capacity() * std::mem::size_of::<Start>()
            + self.agents.capacity() * std::mem::size_of::<AgentSlot>()
    }
}

#[cfg(test)]
mod tests {
    use super::{AgentSlot, GroupTable};
    use proptest::prelude::*;

    proptest! {
        /// `all_agents`' one walk gives what each group's slice gives, group by group.
        #[test]
        fn all_agents_walks_the_groups_slices(starts in prop::collection::vec(any::<bool>(), 0..40)) {
            let mut table = GroupTable::default();
            for (i, &new_group) in starts.iter().enumerate() {
                let agent = AgentSlot { who: i as u32, line: i as u32 + 1 };
                if new_group || table.len() == 0 {
                    table.push(agent, i as u32);
                } else {
                    table.push_agent(agent);
                }
            }
            let want: Vec<(usize, AgentSlot)> = (0..table.len())
                .flat_map(|g| table.agents(g).iter().map(move |a| (g, *a)))
                .collect();
            let got: Vec<(usize, AgentSlot)> = table.all_agents().map(|(g, a)| (g, *a)).collect();
            prop_assert_eq!(got, want);
        }
    }
}
