//! The start-up of the test binaries that are processes of their own (`harness = false`): run
//! the named tests (those whose names contain one of the arguments, or all), print them as the
//! test harness does.

/// Runs `tests`, filtered by the command line's non-flag arguments; a failing test panics.
pub fn run_tests(tests: &[(&str, fn())]) {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut ran = 0;
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        eprintln!("test {name} ...");
        test();
        eprintln!("test {name} ... ok");
        ran += 1;
    }
    eprintln!("test result: ok. {ran} passed");
}
