//! `parse`: any bytes, both modes. Asserts the span/line invariants of every diagnostic (span
//! inside the input, `line` = the line the span starts on, counting LF, lone CR and CRLF as one
//! line end; column ≥ 1), the consistency of the parsed structure, and that
//! `Robots::to_robots_txt` parses back to the same rules (`crawlgate_fuzz` has the details).
//!
//! An input starting with 0xFE is also parsed behind comment lines (`behind_filler`) so that the
//! 512,000-byte limit falls inside it (at the offset given by its second byte): the
//! `content-after-limit` paths cannot be reached with inputs under `-max_len` otherwise.
#![no_main]

use std::cell::RefCell;

use crawlgate_fuzz::{assert_round_trip, behind_filler, parse_checked, MODES};
use libfuzzer_sys::fuzz_target;

thread_local! {
    static BIG: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fuzz_target!(|data: &[u8]| {
    for mode in MODES {
        let parsed = parse_checked(data, mode);
        assert_round_trip(&parsed, mode);
    }
    if let [0xFE, at, rest @ ..] = data {
        BIG.with(|big| {
            let mut big = big.borrow_mut();
            behind_filler(&mut big, rest, usize::from(*at));
            for mode in MODES {
                parse_checked(&big, mode);
            }
        });
    }
});
