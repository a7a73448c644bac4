//! One politeness key's slot ledger, pure: who booked which slot of the key's schedule
//! ([`GateState`]), whose permit was given, and when the last permit was given. Every store
//! keeps one per key beside the schedule and changes both only through [`Ledger::ask`] (the
//! Redis store through one script that does the same), so that every process on a store
//! answers an ask the same way.
//!
//! A slot belongs to a caller ([`Caller`]: a hash of the agent's product token and the URL),
//! not to its id: asking again, with or without the id, gets the caller's pending slot, and
//! an id that is not the caller's pending slot is answered as no id. So an id cannot be
//! forged into anything: the most it can get is what asking without it gets.
//!
//! The rules:
//! - A caller has at most one pending slot; asking again repeats it (concurrent first asks
//!   book one slot, as each ask is applied atomically).
//! - A slot that has come gives a permit, once: the pending slot goes, the caller's permit is
//!   remembered ([`SPENT_MIN`]) and the caller is told to come back after the spacing if it
//!   asks again within it.
//! - A permit is never closer than the spacing to the last permit actually given
//!   (`last_permit`): a slot confirmed late waits for it.
//! - A slot is void (and replaced by a new booking) when a backoff reaches it, when it is
//!   confirmed more than a spacing late, or when it falls before `not_before` (a closed
//!   `Visit-time` window). Unconfirmed slots expire a spacing after their time.
//! - Booking ahead is bounded ([`LedgerBounds`]): past the bound nothing is booked and the
//!   answer says when to come back ([`Outcome::Later`]).

use std::collections::HashMap;
use std::time::Duration;

use super::schedule::GateState;
use super::unix_ms::ms;

/// How long a given permit is remembered at least: 10 minutes (or two spacings, if longer).
/// By then any retry of the ask that got it has long come back; the schedule (whose next slot
/// is at least a spacing after the permit) keeps the spacing after that.
pub const SPENT_MIN: Duration = Duration::from_secs(600);

/// Who asks: SHA-256 of (product token, URL), and a hash of the token alone (the agent whose
/// pending slots [`LedgerBounds::per_agent`] counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Caller {
    /// The (token, URL) hash.
    pub url: [u8; 32],
    /// The token's hash.
    pub agent: u64,
}

impl Caller {
    /// The caller asking for `url` as `token`: SHA-256 of the token's length, the token and the
    /// URL (lengths first, so that no two pairs hash the same bytes); the agent is the first
    /// eight bytes of SHA-256 of the token.
    pub fn of(token: &str, url: &str) -> Caller {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        hash.update((token.len() as u64).to_be_bytes());
        hash.update(token.as_bytes());
        hash.update(url.as_bytes());
        let agent = Sha256::digest(token.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&agent[..8]);
        Caller {
            url: hash.finalize().into(),
            agent: u64::from_be_bytes(first),
        }
    }
}

/// A slot's id: 128 random bits, drawn by the asker for each new booking.
pub type SlotKey = u128;

/// Limits on booking ahead (see [`GateOptions::book_ahead`](super::GateOptions::book_ahead)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LedgerBounds {
    /// A new slot is booked at most this far (ms) behind the earliest the key allows (now, the
    /// end of a backoff, the opening of a `Visit-time` window).
    pub ahead_ms: u64,
    /// Pending slots one agent may hold on one key.
    pub per_agent: u32,
}

/// One ask of a key's ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ask {
    /// Who asks.
    pub caller: Caller,
    /// Now (ms since the epoch, the store's clock).
    pub now: u64,
    /// The key's spacing (ms).
    pub spacing_ms: u64,
    /// How long (ms) from now until the site's `Visit-time` window opens (0: open, or none).
    pub closed_ms: u64,
    /// The id a new booking gets.
    pub fresh: SlotKey,
}

/// Why an ask books nothing ([`Outcome::Later`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LaterWhy {
    /// The next slot is further than [`LedgerBounds::ahead_ms`] behind the earliest the key
    /// allows (now, or the end of a backoff, or the opening of a `Visit-time` window).
    Ahead,
    /// The agent holds [`LedgerBounds::per_agent`] pending slots of the key.
    AgentFull,
    /// The caller was given a permit less than a spacing ago.
    JustServed,
}

impl LaterWhy {
    /// Its name, kebab-case: `ahead`, `agent-full` or `just-served`.
    pub fn as_str(self) -> &'static str {
        match self {
            LaterWhy::Ahead => "ahead",
            LaterWhy::AgentFull => "agent-full",
            LaterWhy::JustServed => "just-served",
        }
    }
}

/// What an ask got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Fetch now; the slot `id` is spent.
    Permit {
        /// The slot's id.
        id: SlotKey,
    },
    /// The caller's slot `id` comes at `at` (ms): ask again then.
    Wait {
        /// The slot's id.
        id: SlotKey,
        /// When it comes (ms since the epoch, the store's clock).
        at: u64,
        /// Whether this ask booked it (a first ask, or a void slot replaced).
        booked: bool,
    },
    /// Nothing booked: come back at `at` (ms).
    Later {
        /// When to ask again (ms since the epoch, the store's clock).
        at: u64,
        /// Why.
        why: LaterWhy,
    },
}

/// An ask's outcome and the store's `now` it was worked out at, so that a caller on another
/// clock can turn its times into waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asked {
    /// The store's now (ms since the epoch).
    pub now: u64,
    /// What the ask got.
    pub outcome: Outcome,
}

impl Asked {
    /// How long (ms) from the store's now to the slot or to coming back (0 for a permit).
    pub fn wait_ms(&self) -> u64 {
        match self.outcome {
            Outcome::Permit { .. } => 0,
            Outcome::Wait { at, .. } | Outcome::Later { at, .. } => at.saturating_sub(self.now),
        }
    }

    /// The wait as a duration.
    pub fn wait(&self) -> Duration {
        Duration::from_millis(self.wait_ms())
    }
}

/// A caller's pending slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pending {
    id: SlotKey,
    agent: u64,
    at: u64,
    /// Gone after this (ms): a spacing after `at`, when it would be void anyway.
    expires: u64,
}

/// A caller's last permit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Spent {
    id: SlotKey,
    at: u64,
    expires: u64,
}

/// One politeness key's ledger. See the module docs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ledger {
    pending: HashMap<[u8; 32], Pending>,
    spent: HashMap<[u8; 32], Spent>,
    /// When the last permit was given (ms; 0: never).
    pub last_permit: u64,
}

impl Ledger {
    /// Answers `ask` on the key whose schedule is `gate`, changing both. See the module docs.
    pub fn ask(&mut self, gate: &mut GateState, ask: &Ask, bounds: &LedgerBounds) -> Asked {
        let now = ask.now;
        let spacing = ask.spacing_ms;
        self.sweep(now);
        let me = ask.caller.url;
        let not_before = now.saturating_add(ask.closed_ms);
        let outcome = 'outcome: {
            if let Some(mut p) = self.pending.get(&me).copied() {
                let void = gate.backoff_until > p.at
                    || now > p.at.saturating_add(spacing)
                    || (ask.closed_ms > 0 && p.at < not_before);
                if !void {
                    if now < p.at {
                        break 'outcome Outcome::Wait {
                            id: p.id,
                            at: p.at,
                            booked: false,
                        };
                    }
                    let earliest = self.earliest(spacing);
                    if now < earliest {
                        // Confirmed late after another permit: the slot moves to the spacing's end.
                        p.at = earliest;
                        p.expires = earliest.saturating_add(spacing);
                        self.pending.insert(me, p);
                        break 'outcome Outcome::Wait {
                            id: p.id,
                            at: p.at,
                            booked: false,
                        };
                    }
                    self.pending.remove(&me);
                    break 'outcome self.give(gate, me, p.id, now, spacing);
                }
                self.pending.remove(&me);
            } else if let Some(s) = self.spent.get(&me) {
                let again = s.at.saturating_add(spacing);
                if now < again {
                    break 'outcome Outcome::Later {
                        at: again,
                        why: LaterWhy::JustServed,
                    };
                }
            }
            self.book(gate, ask, bounds, not_before)
        };
        Asked { now, outcome }
    }

    /// A new slot for the caller (who has none pending): the latest of now, the schedule's
    /// next slot and backoff, `not_before` and a spacing after the last permit.
    fn book(
        &mut self,
        gate: &mut GateState,
        ask: &Ask,
        bounds: &LedgerBounds,
        not_before: u64,
    ) -> Outcome {
        let now = ask.now;
        let spacing = ask.spacing_ms;
        let slot = now
            .max(gate.next_free)
            .max(gate.backoff_until)
            .max(not_before)
            .max(self.earliest(spacing));
        // Ahead of what the key allows at best (now, the backoff's end, the window's
        // opening): the queue of bookings, which is what the bound limits.
        let base = now.max(gate.backoff_until).max(not_before);
        if slot - base > bounds.ahead_ms {
            return Outcome::Later {
                at: slot - bounds.ahead_ms,
                why: LaterWhy::Ahead,
            };
        }
        let agent = ask.caller.agent;
        let mut held = 0u32;
        let mut first = u64::MAX;
        for p in self.pending.values().filter(|p| p.agent == agent) {
            held += 1;
            // When one may be gone: its time, or, once it has come, just after its expiry
            // (never now: a caller that comes back at once would find it full again).
            let back = if p.at > now {
                p.at
            } else {
                p.expires.saturating_add(1)
            };
            first = first.min(back);
        }
        if held >= bounds.per_agent {
            return Outcome::Later {
                at: first,
                why: LaterWhy::AgentFull,
            };
        }
        gate.next_free = slot.saturating_add(spacing);
        if slot == now {
            return self.give(gate, ask.caller.url, ask.fresh, now, spacing);
        }
        self.pending.insert(
            ask.caller.url,
            Pending {
                id: ask.fresh,
                agent,
                at: slot,
                expires: slot.saturating_add(spacing),
            },
        );
        Outcome::Wait {
            id: ask.fresh,
            at: slot,
            booked: true,
        }
    }

    /// The permit of slot `id` is given to `caller` at `now`.
    fn give(
        &mut self,
        gate: &mut GateState,
        caller: [u8; 32],
        id: SlotKey,
        now: u64,
        spacing: u64,
    ) -> Outcome {
        let remember = ms(SPENT_MIN).max(spacing.saturating_mul(2));
        self.spent.insert(
            caller,
            Spent {
                id,
                at: now,
                expires: now.saturating_add(remember),
            },
        );
        self.last_permit = now;
        gate.next_free = gate.next_free.max(now.saturating_add(spacing));
        Outcome::Permit { id }
    }

    /// The earliest permit a spacing after the last one (0: none given).
    fn earliest(&self, spacing: u64) -> u64 {
        if self.last_permit == 0 {
            0
        } else {
            self.last_permit.saturating_add(spacing)
        }
    }

    /// Drops expired pending slots and permits.
    fn sweep(&mut self, now: u64) {
        self.pending.retain(|_, p| p.expires >= now);
        self.spent.retain(|_, s| s.expires >= now);
    }

    /// Whether the ledger holds nothing at `now` that an ask could read (it may be forgotten;
    /// the schedule keeps the spacing after the last permit).
    pub fn is_idle(&self, now: u64) -> bool {
        self.pending.values().all(|p| p.expires < now)
            && self.spent.values().all(|s| s.expires < now)
    }

    /// The id of `caller`'s last permit, while it is remembered.
    pub fn spent_id(&self, caller: &Caller, now: u64) -> Option<SlotKey> {
        self.spent
            .get(&caller.url)
            .filter(|s| s.expires >= now)
            .map(|s| s.id)
    }

    /// Pending slots held at `now`.
    pub fn pending_count(&self, now: u64) -> usize {
        self.pending.values().filter(|p| p.expires >= now).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: u64 = 1_800_000_000_000;
    const SPACING: u64 = 1000;

    fn caller(n: u8, agent: u64) -> Caller {
        Caller {
            url: [n; 32],
            agent,
        }
    }

    fn bounds() -> LedgerBounds {
        LedgerBounds {
            ahead_ms: 120_000,
            per_agent: 32,
        }
    }

    struct Key {
        gate: GateState,
        ledger: Ledger,
        next_id: u128,
    }

    impl Key {
        fn new() -> Key {
            Key {
                gate: GateState::default(),
                ledger: Ledger::default(),
                next_id: 1,
            }
        }

        fn ask_with(&mut self, who: Caller, now: u64, closed_ms: u64, b: LedgerBounds) -> Outcome {
            let fresh = self.next_id;
            self.next_id += 1;
            let ask = Ask {
                caller: who,
                now,
                spacing_ms: SPACING,
                closed_ms,
                fresh,
            };
            let asked = self.ledger.ask(&mut self.gate, &ask, &b);
            assert_eq!(asked.now, now);
            asked.outcome
        }

        fn ask(&mut self, who: Caller, now: u64) -> Outcome {
            self.ask_with(who, now, 0, bounds())
        }
    }

    #[test]
    fn a_first_ask_on_a_free_key_is_a_permit_and_asking_again_books_nothing() {
        let mut k = Key::new();
        let a = caller(1, 1);
        assert_eq!(k.ask(a, T), Outcome::Permit { id: 1 });
        assert_eq!(k.ledger.last_permit, T);
        assert_eq!(k.ledger.spent_id(&a, T), Some(1));
        // Again within the spacing: come back at its end, nothing booked.
        for _ in 0..9 {
            assert_eq!(
                k.ask(a, T + 10),
                Outcome::Later {
                    at: T + SPACING,
                    why: LaterWhy::JustServed
                }
            );
        }
        assert_eq!(k.gate.next_free, T + SPACING);
        assert_eq!(k.ledger.pending_count(T + 10), 0);
        // After it, a new fetch of the URL books the next slot.
        assert_eq!(k.ask(a, T + SPACING), Outcome::Permit { id: 11 });
    }

    #[test]
    fn concurrent_first_asks_book_one_slot_and_repeat_it() {
        let mut k = Key::new();
        let other = caller(9, 9);
        assert!(matches!(k.ask(other, T), Outcome::Permit { .. }));
        let a = caller(1, 1);
        let first = k.ask(a, T + 1);
        assert_eq!(
            first,
            Outcome::Wait {
                id: 2,
                at: T + SPACING,
                booked: true
            }
        );
        for n in 0..9 {
            assert_eq!(
                k.ask(a, T + 2 + n),
                Outcome::Wait {
                    id: 2,
                    at: T + SPACING,
                    booked: false
                }
            );
        }
        assert_eq!(k.gate.next_free, T + 2 * SPACING, "one slot booked");
        // At its time it is a permit, once.
        assert_eq!(k.ask(a, T + SPACING), Outcome::Permit { id: 2 });
        assert!(matches!(
            k.ask(a, T + SPACING + 1),
            Outcome::Later {
                why: LaterWhy::JustServed,
                ..
            }
        ));
    }

    #[test]
    fn a_permit_is_never_closer_than_the_spacing_to_the_last() {
        let mut k = Key::new();
        let (a, b, c) = (caller(1, 1), caller(2, 1), caller(3, 1));
        assert!(matches!(k.ask(c, T), Outcome::Permit { .. }));
        // a at T+1000, b at T+2000.
        assert!(matches!(k.ask(a, T), Outcome::Wait { at, .. } if at == T + SPACING));
        assert!(matches!(k.ask(b, T), Outcome::Wait { at, .. } if at == T + 2 * SPACING));
        // a confirms 950 ms late: a permit (not void), at T+1950.
        assert!(matches!(k.ask(a, T + 1950), Outcome::Permit { .. }));
        // b's slot has come, but a permit now would be 50 ms after a's: it waits.
        assert_eq!(
            k.ask(b, T + 2000),
            Outcome::Wait {
                id: 3,
                at: T + 2950,
                booked: false
            }
        );
        assert_eq!(k.ask(b, T + 2950), Outcome::Permit { id: 3 });
        // A new booking counts from the last permit too.
        assert!(
            matches!(k.ask(caller(4, 4), T + 3000), Outcome::Wait { at, .. } if at >= T + 3950)
        );
    }

    #[test]
    fn a_slot_confirmed_more_than_a_spacing_late_is_void_and_replaced() {
        let mut k = Key::new();
        let a = caller(1, 1);
        assert!(matches!(k.ask(caller(9, 9), T), Outcome::Permit { .. }));
        assert!(matches!(k.ask(a, T), Outcome::Wait { id: 2, at, .. } if at == T + SPACING));
        // Another caller books behind it.
        assert!(
            matches!(k.ask(caller(2, 2), T), Outcome::Wait { at, .. } if at == T + 2 * SPACING)
        );
        // Slot T+1000 confirmed at T+2001: void; a new slot after the booked ones.
        assert_eq!(
            k.ask(a, T + 2001),
            Outcome::Wait {
                id: 4,
                at: T + 3 * SPACING,
                booked: true
            }
        );
    }

    #[test]
    fn a_backoff_voids_the_slots_it_reaches() {
        let mut k = Key::new();
        let a = caller(1, 1);
        assert!(matches!(k.ask(caller(9, 9), T), Outcome::Permit { .. }));
        assert!(matches!(k.ask(a, T), Outcome::Wait { id: 2, .. }));
        let rules = super::super::GateOptions::default().backoff(100);
        k.gate
            .back_off(T + 10, Some(Duration::from_secs(30)), &rules);
        // Asked again before its time: void, a new slot at the backoff's end.
        assert_eq!(
            k.ask(a, T + 20),
            Outcome::Wait {
                id: 3,
                at: T + 10 + 30_000,
                booked: true
            }
        );
        // A backoff longer than the bound ahead: the slot at its end is booked all the same
        // (the bound counts the queue behind it, not the backoff).
        k.gate
            .back_off(T + 30, Some(Duration::from_secs(3600)), &rules);
        assert_eq!(
            k.ask(caller(2, 2), T + 40),
            Outcome::Wait {
                id: 4,
                at: T + 30 + 3_600_000,
                booked: true
            }
        );
    }

    #[test]
    fn a_closed_visit_window_voids_earlier_slots_and_books_at_its_opening() {
        let mut k = Key::new();
        let a = caller(1, 1);
        assert!(matches!(k.ask(caller(9, 9), T), Outcome::Permit { .. }));
        assert!(matches!(k.ask(a, T), Outcome::Wait { id: 2, .. }));
        assert_eq!(
            k.ask_with(a, T + 1000, 60_000, bounds()),
            Outcome::Wait {
                id: 3,
                at: T + 61_000,
                booked: true
            }
        );
    }

    #[test]
    fn an_id_is_no_key_slots_belong_to_callers() {
        // Two callers: each gets its own slot; nothing one does gives the other a permit.
        let mut k = Key::new();
        let (a, b) = (caller(1, 1), caller(2, 1));
        assert!(matches!(k.ask(a, T), Outcome::Permit { id: 1 }));
        // b asks at a's permit time (as if it sent a's id): a slot of its own, a spacing on.
        assert_eq!(
            k.ask(b, T),
            Outcome::Wait {
                id: 2,
                at: T + SPACING,
                booked: true
            }
        );
    }

    #[test]
    fn booking_ahead_is_bounded_per_key_and_per_agent() {
        let mut k = Key::new();
        let tight = LedgerBounds {
            ahead_ms: 3 * SPACING,
            per_agent: 2,
        };
        // Agent 1 books two slots (and a permit), then is full until its first slot.
        assert!(matches!(
            k.ask_with(caller(1, 1), T, 0, tight),
            Outcome::Permit { .. }
        ));
        assert!(
            matches!(k.ask_with(caller(2, 1), T, 0, tight), Outcome::Wait { at, .. } if at == T + SPACING)
        );
        assert!(
            matches!(k.ask_with(caller(3, 1), T, 0, tight), Outcome::Wait { at, .. } if at == T + 2 * SPACING)
        );
        assert_eq!(
            k.ask_with(caller(4, 1), T, 0, tight),
            Outcome::Later {
                at: T + SPACING,
                why: LaterWhy::AgentFull
            }
        );
        // Agent 2 books the third slot ahead, then the key is full.
        assert!(
            matches!(k.ask_with(caller(5, 2), T, 0, tight), Outcome::Wait { at, .. } if at == T + 3 * SPACING)
        );
        let before = (k.gate, k.ledger.pending_count(T));
        assert_eq!(
            k.ask_with(caller(6, 3), T, 0, tight),
            Outcome::Later {
                at: T + SPACING,
                why: LaterWhy::Ahead
            }
        );
        assert_eq!(
            (k.gate, k.ledger.pending_count(T)),
            before,
            "nothing booked"
        );
        // Once its slots have come (unconfirmed), agent 1 is told to come back just after the
        // first expires, never "now".
        assert_eq!(
            k.ask_with(caller(7, 1), T + 2 * SPACING, 0, tight),
            Outcome::Later {
                at: T + 2 * SPACING + 1,
                why: LaterWhy::AgentFull
            }
        );
    }

    #[test]
    fn unconfirmed_slots_and_spent_permits_expire_by_time() {
        let mut k = Key::new();
        let a = caller(1, 1);
        assert!(matches!(k.ask(a, T), Outcome::Permit { id: 1 }));
        assert!(matches!(k.ask(caller(2, 1), T), Outcome::Wait { .. }));
        assert_eq!(k.ledger.pending_count(T + 2 * SPACING), 1);
        // Swept by the next ask after its expiry (a spacing after its time).
        assert!(matches!(
            k.ask(caller(3, 3), T + 2 * SPACING + 1),
            Outcome::Permit { .. }
        ));
        assert_eq!(k.ledger.pending_count(T + 2 * SPACING + 1), 0);
        // A permit is remembered for SPENT_MIN, however many others come meanwhile.
        // 590 other permits meanwhile (a count-bounded table of fewer would forget it).
        for n in 0..590u64 {
            let mut url = [0u8; 32];
            url[..8].copy_from_slice(&n.to_be_bytes());
            url[31] = 0xff;
            let who = Caller { url, agent: 7 };
            assert!(matches!(
                k.ask(who, T + 3 * SPACING + 1 + n * SPACING),
                Outcome::Permit { .. }
            ));
        }
        let end = T + ms(SPENT_MIN);
        assert_eq!(k.ledger.spent_id(&a, end), Some(1));
        k.ask(caller(200, 200), end + 1);
        assert_eq!(k.ledger.spent_id(&a, end + 1), None);
        assert!(!k.ledger.is_idle(end + 1));
        assert!(k.ledger.is_idle(end + 10 * ms(SPENT_MIN)));
    }

    proptest::proptest! {
        /// Any sequence of asks (callers of two agents, times moving on, backoffs, closed
        /// windows, tight bounds): permits are never closer than the spacing, each id gives at
        /// most one permit, a caller holds at most one pending slot, and a `Later` books
        /// nothing.
        #[test]
        fn permits_keep_the_spacing_and_ids_give_one_permit(
            steps in proptest::collection::vec(
                (0u8..6, 0u64..2_500, 0u8..20, 0u64..3_000),
                1..200,
            ),
        ) {
            let rules = super::super::GateOptions::default().backoff(100);
            let b = LedgerBounds { ahead_ms: 4 * SPACING, per_agent: 2 };
            let mut k = Key::new();
            let mut now = T;
            let mut permits: Vec<(u64, SlotKey)> = Vec::new();
            for (who, step, event, closed) in steps {
                now += step;
                if event == 0 {
                    k.gate.back_off(now, Some(Duration::from_millis(closed)), &rules);
                    continue;
                }
                let closed = if event == 1 { closed } else { 0 };
                let before = (k.gate, k.ledger.clone());
                let outcome = k.ask_with(caller(who, u64::from(who % 2)), now, closed, b);
                match outcome {
                    Outcome::Permit { id } => {
                        proptest::prop_assert!(permits.iter().all(|(_, p)| *p != id));
                        if let Some((last, _)) = permits.last() {
                            proptest::prop_assert!(now >= last + SPACING, "{} after {}", now, last);
                        }
                        proptest::prop_assert!(before.0.backoff_until <= now, "a permit while backed off");
                        permits.push((now, id));
                    }
                    Outcome::Wait { at, .. } => proptest::prop_assert!(at > now),
                    Outcome::Later { at, .. } => {
                        // Never "now": a caller told to come back at once would spin.
                        proptest::prop_assert!(at > now);
                        // Nothing booked: the schedule did not move and no slot was added
                        // (a void slot of the caller's may have gone).
                        proptest::prop_assert_eq!(k.gate, before.0);
                        proptest::prop_assert!(
                            k.ledger.pending_count(now) <= before.1.pending_count(now)
                        );
                    }
                }
                proptest::prop_assert!(k.ledger.pending.len() <= 6);
            }
        }
    }
}
