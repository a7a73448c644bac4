//! `page_headers`: any bytes as response header fields (split into name/value pairs at `\n`
//! and the first `:`) into `page::evaluate`: no panic, every source's offset inside its field,
//! and the merged rules agree with the directives found.
#![no_main]

use crawlgate::page::{evaluate, Options, SourceKind};
use crawlgate::ProductToken;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let fields: Vec<(String, Vec<u8>)> = data
        .split(|&b| b == b'\n')
        .map(|line| match line.iter().position(|&b| b == b':') {
            Some(i) => (
                String::from_utf8_lossy(&line[..i]).into_owned(),
                line[i + 1..].to_vec(),
            ),
            None => ("x-robots-tag".to_owned(), line.to_vec()),
        })
        .collect();
    let Ok(agent) = ProductToken::new("examplebot") else {
        return;
    };
    let options = Options {
        field_limit: 256,
        ..Options::default()
    };
    let page = evaluate(
        fields.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
        None,
        &agent,
        &options,
    );
    for found in &page.found {
        assert_eq!(found.source.kind, SourceKind::Header);
        let (_, value) = &fields[found.source.index];
        assert!(found.source.offset <= value.len().min(options.field_limit));
        assert!(found
            .source
            .agent
            .as_deref()
            .is_none_or(|a| a == "examplebot"));
    }
    let noindex = page.sources("noindex").count() > 0;
    assert_eq!(page.rules.index, !noindex);
});
