//! `check`: a robots.txt, an agent, a URL and a mode, built with `arbitrary`. Calls `check`,
//! `check_path`, `rules_for(..).check`, `is_allowed` and `crawl_delay`, with the agent made by
//! `ProductToken::new` (or `from_user_agent`) or `ProductToken::verbatim`, and asserts that
//! they agree, that each decision matches its reason, that the agent's rules are in precedence
//! order, and that the answer is the naive reference matcher's over those rules.
#![no_main]

use crawlgate::{Mode, Options, Robots};
use crawlgate_fuzz::{any_token, assert_check};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input<'a> {
    google: bool,
    verbatim: bool,
    agent: &'a str,
    url: &'a str,
    /// Last, so it takes the rest of the input: seeds that are plain robots.txt files stay
    /// mostly intact.
    robots: &'a [u8],
}

fuzz_target!(|input: Input<'_>| {
    let mode = if input.google {
        Mode::Google
    } else {
        Mode::Rfc
    };
    let parsed = Robots::parse_with(input.robots, &Options::mode(mode));
    let robots = &parsed.robots;
    let token = any_token(input.agent, input.verbatim);
    assert_check(robots, &token, input.url);
    // The file's own agents, so that named groups are reached, not only `*`.
    for g in robots.groups().take(4) {
        for (agent, _) in g.agents().take(2) {
            if let crawlgate::Agent::Token(t) = agent {
                assert_check(robots, &any_token(t, false), input.url);
            }
        }
    }
});
