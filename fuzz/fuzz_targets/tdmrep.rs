//! `tdmrep`: any bytes as a `tdmrep.json` (up to the first NUL) and a path to evaluate (after
//! it). No panic, and the answers hold together: every diagnostic names a rule that exists in
//! the file, the rules used are in file order, the rule `evaluate` returns is the first whose
//! own `matches` says yes, and its policy is only given when reserved.
#![no_main]

use crawlgate::tdmrep::{TdmRep, MAX_RULES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (file, path) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b"/"[..]),
    };
    let path = String::from_utf8_lossy(path);
    let parsed = TdmRep::parse(file);
    let rules = parsed.tdmrep.rules();
    assert!(rules.len() <= MAX_RULES);
    assert!(rules.windows(2).all(|w| w[0].number < w[1].number));
    for d in &parsed.diagnostics {
        assert!(!d.message.is_empty());
        assert!(d.rule.is_none_or(|n| n >= 1), "{d}");
        assert!(!d.to_string().contains('\u{1b}'));
    }
    let first = rules.iter().find(|r| r.matches(&path));
    let answer = parsed.tdmrep.evaluate(&path);
    assert_eq!(answer.map(|m| m.rule.number), first.map(|r| r.number));
    if let Some(m) = answer {
        assert_eq!(m.reserved, m.rule.reserved);
        assert!(m.policy.is_none() || m.reserved);
    }
    let _ = parsed.tdmrep.evaluate_url(&path);
});
