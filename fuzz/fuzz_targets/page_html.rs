//! `page_html`: any bytes as the HTML of a page into `page::evaluate`: no panic, the scan
//! stays within the byte budget, and every `<meta>` source lies inside what was scanned.
#![no_main]

use crawlgate::page::{evaluate, Options, SourceKind};
use crawlgate::ProductToken;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(agent) = ProductToken::new("examplebot") else {
        return;
    };
    let options = Options {
        field_limit: 512,
        html_budget: 4096,
    };
    let none: [(&str, &[u8]); 0] = [];
    let page = evaluate(none, Some(data), &agent, &options);
    assert!(page.html_scanned <= data.len().min(options.html_budget));
    for found in &page.found {
        assert_eq!(found.source.kind, SourceKind::Meta);
        assert!(found.source.offset < data.len().min(options.html_budget));
        assert!(found.source.line >= 1);
    }
});
