//! `batch_rows`: any bytes as JSON Lines rows of captures, each written as an Arrow row and
//! read back (`crawlgate batch`'s JSON Lines, Parquet and Arrow inputs, Python's `evaluate`),
//! bodies cut at 64 bytes. The invariants: `crawlgate_fuzz::assert_batch_rows`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| crawlgate_fuzz::assert_batch_rows(data, 64));
