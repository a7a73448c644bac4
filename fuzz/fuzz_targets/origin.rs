//! `origin`: any string into `Origin::from_url`, `robots_txt_url` and `request_path`: no
//! panic, the two origin functions agree, and an origin's robots.txt URL parses back to the
//! same origin (see `crawlgate_fuzz::assert_origin`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    crawlgate_fuzz::assert_origin(&String::from_utf8_lossy(data));
});
