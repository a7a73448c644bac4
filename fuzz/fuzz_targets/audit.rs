//! `audit`: a robots.txt, a path, a mode and a catalogue text, built with `arbitrary`. Reads the
//! catalogue (`Catalogue::from_json` must refuse, not panic), audits the file against it and
//! against the built-in one, runs the catalogue's lint, and asserts that each access agrees
//! with the decision for the path itself (blocked ⇒ disallowed, allowed ⇒ allowed) and that the
//! lint's diagnostics hold the parser's invariants.
#![no_main]

use crawlgate::audit::{audit, lint, Access, Catalogue};
use crawlgate::{Mode, Options, Robots};
use crawlgate_fuzz::{assert_diagnostics, line_starts};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input<'a> {
    google: bool,
    path: &'a str,
    catalogue: &'a str,
    /// Last, so it takes the rest of the input.
    robots: &'a [u8],
}

thread_local! {
    static BUILTIN: Catalogue = Catalogue::builtin();
}

fn check(robots: &Robots, input: &[u8], mode: Mode, catalogue: &Catalogue, path: &str) {
    let audits = audit(robots, catalogue, &[path]);
    assert_eq!(audits.len(), catalogue.crawlers().len());
    for a in &audits {
        for p in std::iter::once(&a.root).chain(&a.paths) {
            match p.access {
                Access::Blocked => assert!(!p.decision.allowed, "{a:?}"),
                Access::Allowed => assert!(p.decision.allowed, "{a:?}"),
                // With no rule of the other kind, only a disallowed path is partly: what
                // allows under it is that no rule matches there (`Disallow: /$`).
                Access::Partly => assert!(p.other.is_some() || !p.decision.allowed, "{a:?}"),
            }
        }
    }
    let found = lint(robots, input, catalogue);
    assert_diagnostics(input, &line_starts(input), mode, &found);
}

fuzz_target!(|input: Input<'_>| {
    let mode = if input.google {
        Mode::Google
    } else {
        Mode::Rfc
    };
    let parsed = Robots::parse_with(input.robots, &Options::mode(mode));
    BUILTIN.with(|c| check(&parsed.robots, input.robots, mode, c, input.path));
    if let Ok(c) = Catalogue::from_json(input.catalogue) {
        check(&parsed.robots, input.robots, mode, &c, input.path);
    }
});
