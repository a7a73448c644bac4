//! `warc`: any bytes as a WARC or WARC.gz file (the reader tells them apart by the first bytes,
//! as for a real input), bodies cut at 64 bytes so that short inputs reach the limit. The
//! invariants: `crawlgate_fuzz::assert_warc`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crawlgate_fuzz::assert_warc(data, 64));
