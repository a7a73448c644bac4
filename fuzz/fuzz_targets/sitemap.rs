//! `sitemap`: any bytes (XML, text, gzip…) into the sitemap reader: no panic, the same items
//! however the source splits the bytes, positions that point at the right line and column (see
//! `crawlgate_fuzz::assert_sitemap`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    crawlgate_fuzz::assert_sitemap(data);
});
