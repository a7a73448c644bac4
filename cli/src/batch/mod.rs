//! `crawlgate batch`: robots.txt captures at research scale, judged on every core into the
//! `captures`, `agents` and `rules` tables (the library's `crawlgate::batch`).
//!
//! The inputs are read by a pool of threads (rayon), one input per thread at a time; each
//! thread fills its own tables and hands them to the writer every `--chunk-rows` rows, through
//! a bounded channel; the writer closes a Parquet row group every 131,072 rows, and with
//! `--part-rows` a file every so many captures: memory stays bounded however many captures go
//! through. Redirect
//! captures are held back; when there are any, a second reading of the inputs finds their
//! targets, and their rows come last.

mod input;
mod write;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use crawlgate::batch::{Batches, Capture, Redirects, Resolution, Settings, Tables};
use crawlgate::Options;
use rayon::prelude::*;

use crate::args::BatchArgs;
use crate::output::{plural, Out};
use crate::progress::{summary, Progress};
use crate::status::Status;
use crate::verdicts::{catalogue, crawlers_named};

use self::input::{Input, Reading};
use self::write::{Output, Table};

/// What the threads share.
struct Run<'a> {
    settings: &'a Settings,
    reading: Reading,
    chunk_rows: usize,
    sender: SyncSender<Batches>,
    redirects: Mutex<Redirects>,
    /// Shared with the progress line, which shows it.
    captures: Arc<AtomicU64>,
    unreadable: AtomicU64,
    progress: Progress,
}

impl Run<'_> {
    /// Hands the tables' rows to the writer once there are enough (or `all`).
    fn flush(&self, tables: &mut Tables<'_>, all: bool) -> anyhow::Result<()> {
        if tables.rows() == 0 || (!all && tables.rows() < self.chunk_rows) {
            return Ok(());
        }
        let batches = tables.finish()?;
        // The writer has stopped only when it failed; its error is the one reported.
        let _ = self.sender.send(batches);
        Ok(())
    }

    /// Pass one: every capture judged, redirects held back.
    fn read(&self, input: &Input) -> anyhow::Result<()> {
        let mut tables = Tables::new(self.settings);
        let max = self.settings.options.max_bytes;
        for item in input::open(input, &self.reading, &self.progress) {
            match item {
                Ok(capture) => {
                    self.captures.fetch_add(1, Ordering::Relaxed);
                    let kept = self
                        .redirects
                        .lock()
                        .map_err(|_| anyhow::anyhow!("a thread panicked"))?
                        .hold(capture, max);
                    if let Some(capture) = kept {
                        tables.push(&capture, None);
                    }
                }
                Err(u) => {
                    self.unreadable.fetch_add(1, Ordering::Relaxed);
                    tables.push_unreadable(&u);
                }
            }
            self.flush(&mut tables, false)?;
        }
        self.flush(&mut tables, true)
    }
}

pub fn run(args: &BatchArgs, out: &mut Out) -> anyhow::Result<Status> {
    let mut paths = args.inputs.clone();
    if let Some(list) = &args.files_from {
        paths.extend(
            input::files_from(list)
                .with_context(|| format!("cannot read the list {}", list.display()))?,
        );
    }
    let inputs = input::expand(&paths, args.input_format);
    let catalogue = catalogue(args.catalogue.as_deref())?;
    let agents = crawlers_named(&catalogue, &args.crawler)?
        .into_iter()
        .map(str::to_owned)
        .collect();
    let settings = Settings {
        options: Options::mode(args.mode.into()),
        catalogue,
        agents,
        purposes: args.purpose.clone(),
        paths: args.path.clone(),
        rules: args.rules,
    };
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot make {}", args.out.display()))?;
    let threads = if args.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        args.threads
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let (sender, receiver) = sync_channel::<Batches>(threads * 2);
    let format = args.format;
    let dir = args.out.clone();
    let with_rules = args.rules;
    let tables = Tables::schemas()
        .into_iter()
        .filter(|(name, _)| *name != "rules" || with_rules)
        .map(|(name, schema)| Table {
            name,
            record: match name {
                "captures" => "capture",
                "agents" => "agent",
                _ => "rule",
            },
            schema,
        })
        .collect();
    let mut output = Output::create(&dir, format, tables, args.part_rows.map(u64::from))?;
    let writer = std::thread::spawn(move || -> anyhow::Result<Vec<u64>> {
        for batches in receiver {
            output.write(&batches)?;
        }
        output.close()
    });
    let captures = Arc::new(AtomicU64::new(0));
    let run = Run {
        settings: &settings,
        reading: input::Reading {
            max_bytes: settings.options.max_bytes,
            url_template: args.url_template.clone(),
        },
        chunk_rows: args.chunk_rows as usize,
        sender,
        redirects: Mutex::new(Redirects::new()),
        captures: captures.clone(),
        unreadable: AtomicU64::new(0),
        progress: Progress::bytes(input::size(&inputs), "judged", "captures", captures),
    };
    let read: anyhow::Result<()> =
        pool.install(|| inputs.par_iter().try_for_each(|input| run.read(input)));
    let resolved = read.and_then(|()| resolve(&run, &pool, &inputs));
    run.progress.finish();
    let Run {
        sender,
        captures,
        unreadable,
        ..
    } = run;
    drop(sender);
    let written = writer
        .join()
        .map_err(|_| anyhow::anyhow!("the writer thread panicked"))?;
    resolved?;
    let written = written?;
    let rows = |i: usize| written.get(i).copied().unwrap_or(0);
    let (capture_rows, agent_rows, rule_rows) = (rows(0), rows(1), rows(2));
    let unreadable = unreadable.into_inner();
    let status = if unreadable > 0 {
        Status::Findings
    } else {
        Status::Clean
    };
    summary(
        out,
        format_args!(
            "{}: {} captures rows, {} agents rows{} in {}{}",
            plural(
                captures.load(Ordering::Relaxed) as usize,
                "capture",
                "captures"
            ),
            capture_rows,
            agent_rows,
            if with_rules {
                format!(", {rule_rows} rules rows")
            } else {
                String::new()
            },
            args.out.display(),
            if unreadable > 0 {
                format!(
                    "; {} could not be read",
                    plural(
                        unreadable as usize,
                        "stretch of input",
                        "stretches of input"
                    )
                )
            } else {
                String::new()
            }
        ),
        status,
        "a stretch of input could not be read",
    );
    Ok(status)
}

/// Pass two, when redirects were held: their targets found in the inputs (the first capture
/// of each URL, by input and record), then their rows.
fn resolve(run: &Run<'_>, pool: &rayon::ThreadPool, inputs: &[Input]) -> anyhow::Result<()> {
    let redirects = run
        .redirects
        .lock()
        .map_err(|_| anyhow::anyhow!("a thread panicked"))?;
    if redirects.is_empty() {
        return Ok(());
    }
    let wanted = redirects.wanted();
    let found: Mutex<HashMap<String, (usize, Capture)>> = Mutex::new(HashMap::new());
    pool.install(|| {
        inputs.par_iter().enumerate().for_each(|(n, input)| {
            // Read again: not counted on the progress line, which has gone through them.
            for capture in input::open(input, &run.reading, &Progress::hidden()).flatten() {
                if !Redirects::wants(&wanted, &capture.url) {
                    continue;
                }
                let Some(key) = url::Url::parse(&capture.url).ok().map(String::from) else {
                    continue;
                };
                if let Ok(mut found) = found.lock() {
                    let earlier = found
                        .get(&key)
                        .is_some_and(|(m, c)| (*m, c.place.record) <= (n, capture.place.record));
                    if !earlier {
                        found.insert(key, (n, capture));
                    }
                }
            }
        })
    });
    let targets: HashMap<String, Capture> = found
        .into_inner()
        .map_err(|_| anyhow::anyhow!("a thread panicked"))?
        .into_iter()
        .map(|(k, (_, c))| (k, c))
        .collect();
    let mut tables = Tables::new(run.settings);
    for (capture, resolution) in redirects.resolve(&targets) {
        let resolution = match resolution {
            Resolution::Missing => None,
            r => Some(r),
        };
        tables.push(capture, resolution.as_ref());
        run.flush(&mut tables, false)?;
    }
    run.flush(&mut tables, true)
}
