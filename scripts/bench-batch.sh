#!/usr/bin/env bash
# `crawlgate batch`'s figures (docs/benchmarks.md, docs/batch.md):
#
#   scripts/bench-batch.sh [peers] [scale] [disagree]     (none named: all three)
#
# - peers: `cargo bench -p crawlgate-cli --no-default-features --features batch --bench batch`
#   with CRAWLGATE_BENCH_PYTHON set: batch, read-only and inflate-only per core, and Protego and
#   urllib.robotparser answering `/` for the catalogue's crawlers, in one run
#   (cli/benches/batch.rs, python/bench/batch_peers.py).
# - scale: the release binary (`cargo build --release -p crawlgate-cli`) on WARC.gz files of
#   10^4, 10^5 and 10^6 captures (python/bench/make_warc.py: the corpus repeated under distinct
#   hosts, 5,000 captures a file, as Common Crawl splits its robots.txt WARCs into many files),
#   each run under /usr/bin/time -v: wall and CPU time, peak RSS, output size. The generated
#   files and the tables are deleted at the end (about 0.75 GB of WARC.gz at 10^6).
# - disagree: python/bench/disagree.py --markdown (needs the crawlgate Python package: the venv
#   of scripts/python-test.sh, python/.venv, or DISAGREE_PYTHON).
#
# Every figure line says the load average: on a shared machine the ratios within one run are
# the measure.
#
# Environment:
#   CRAWLGATE_BENCH_CORPUS  the robots-bench corpus (default: ../shared/corpus/robots-bench).
#   BENCH_PYTHON     an interpreter with Protego (default: target/venv-bench, made here with
#                    `pip install protego` from PyPI).
#   DISAGREE_PYTHON  an interpreter with crawlgate and Protego (default: python/.venv/bin/python).
#   SCALES           captures per scale run (default: "10000 100000 1000000").
#   PART_ROWS        `--part-rows` of the scale runs (default 200000; empty: one file a table).
#   SCALE_DIR        where the WARC.gz files and tables go (default: a new temporary directory).
#   CRAWLGATE_BIN    the binary for `scale` (default: the release build, made here).
#   CARGO_TARGET_DIR as for cargo.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CORPUS="${CRAWLGATE_BENCH_CORPUS:-$ROOT/../shared/corpus/robots-bench}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
SCALES="${SCALES:-10000 100000 1000000}"
PART_ROWS="${PART_ROWS-200000}"
PER_FILE=5000
die() {
    echo "bench-batch.sh: $*" >&2
    exit 2
}
load() { cut -d' ' -f1-3 /proc/loadavg; }

[[ -d $CORPUS/robotfiles ]] || die "no corpus at $CORPUS (set CRAWLGATE_BENCH_CORPUS)"
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(peers scale disagree)

bench_python() {
    if [[ -n ${BENCH_PYTHON:-} ]]; then
        echo "$BENCH_PYTHON"
        return
    fi
    # Under target/ (ignored by git), apart from the package's own python/.venv.
    local venv="$ROOT/target/venv-bench"
    if ! "$venv/bin/python" -c 'import protego' 2>/dev/null; then
        python3 -m venv "$venv" >&2 || die "python3 -m venv failed (apt-get install python3-venv)"
        "$venv/bin/python" -m pip install -q --disable-pip-version-check "protego>=0.3" >&2
    fi
    echo "$venv/bin/python"
}

peers() {
    local python
    python="$(bench_python)"
    echo "== peers: load average $(load)"
    (cd "$ROOT" && CRAWLGATE_BENCH_PYTHON="$python" CRAWLGATE_BENCH_CORPUS="$CORPUS" \
        cargo bench -p crawlgate-cli --no-default-features --features batch --bench batch)
}

scale() {
    command -v /usr/bin/time >/dev/null || die "/usr/bin/time not found (apt-get install time)"
    local bin="${CRAWLGATE_BIN:-$TARGET/release/crawlgate}" max=0 n
    [[ -n ${CRAWLGATE_BIN:-} ]] || (cd "$ROOT" && cargo build --release -p crawlgate-cli)
    # Global: the trap runs after the function has returned.
    dir="${SCALE_DIR:-$(mktemp -d)}"
    trap 'rm -rf "$dir/warc" "$dir/out" "$dir/time"; [[ -n ${SCALE_DIR:-} ]] || rmdir "$dir"' EXIT
    for n in $SCALES; do ((n > max)) && max=$n; done
    python3 "$ROOT/python/bench/make_warc.py" "$CORPUS" "$dir/warc" --captures "$max" \
        --per-file "$PER_FILE"
    local split=()
    [[ -z $PART_ROWS ]] || split=(--part-rows "$PART_ROWS")
    echo "== scale: $bin, $(nproc) cores, default threads, ${split[*]:-one file a table}"
    echo "| captures | files | WARC.gz MB | wall s | CPU s | captures per CPU s | peak RSS MiB | tables MB | load average |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for n in $SCALES; do
        local count=$(((n + PER_FILE - 1) / PER_FILE)) files=() mb
        mapfile -t files < <(find "$dir/warc" -name 'part-*.warc.gz' | sort | head -n "$count")
        mb=$(du -cm "${files[@]}" | tail -1 | cut -f1)
        rm -rf "$dir/out"
        /usr/bin/time -v "$bin" batch -o "$dir/out" "${split[@]}" "${files[@]}" 2>"$dir/time" >/dev/null ||
            die "crawlgate batch failed: $(tail -5 "$dir/time")"
        awk -v n="$n" -v files="${#files[@]}" -v mb="$mb" -v out="$(du -sm "$dir/out" | cut -f1)" \
            -v load="$(load)" -F': ' '
            /User time/ {u = $2} /System time/ {s = $2}
            /Elapsed \(wall clock\)/ {k = split($2, t, ":"); w = 0; for (i = 1; i <= k; i++) w = w * 60 + t[i]}
            /Maximum resident/ {r = $2}
            END {printf "| %d | %d | %d | %.1f | %.1f | %.0f | %.1f | %d | %s |\n",
                 n, files, mb, w, u + s, n / (u + s), r / 1024, out, load}' "$dir/time"
        rm -rf "$dir/out"
    done
}

disagree() {
    local python="${DISAGREE_PYTHON:-$ROOT/python/.venv/bin/python}"
    (cd /tmp && "$python" -c 'import crawlgate, protego') 2>/dev/null ||
        die "$python lacks crawlgate or protego: run scripts/python-test.sh, or set DISAGREE_PYTHON"
    echo "== disagree: load average $(load)"
    # Run from outside python/, so that the installed package is imported, not the source tree.
    (cd /tmp && CRAWLGATE_BENCH_CORPUS="$CORPUS" "$python" "$ROOT/python/bench/disagree.py" --markdown)
}

for part in "${parts[@]}"; do
    case $part in
        peers | scale | disagree) "$part" ;;
        *) die "unknown part $part (peers, scale, disagree)" ;;
    esac
done
