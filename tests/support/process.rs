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

/// The `main` of a binary that is also its own child process: with `child_var` set it runs
/// `child`, otherwise the `tests`.
pub fn main(child_var: &str, child: fn(), tests: &[(&str, fn())]) {
    if std::env::var_os(child_var).is_some() {
        child();
    } else {
        run_tests(tests);
    }
}

/// The lines a child writes to `out`, as they come, read on a thread of their own (so that a
/// test can wait for one with a timeout).
pub fn lines(out: impl std::io::Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}
