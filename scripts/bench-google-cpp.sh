#!/usr/bin/env bash
# google/robotstxt's C++ parser beside crawlgate's, in the same run, on the bench corpus: the
# parse, and the first verdict per site (`OneAgentAllowedByRobots` for each site's first URL
# beside the bench group `first-verdict`, which holds fast-robots and texting_robots too).
# google/robotstxt is not a crate: this script compiles its `robots.cc`, vendored unchanged in
# `benches/google_cpp/robotstxt/` (see PROVENANCE.md there), or from a checkout you give it (any
# commit whose robots.cc builds against the system's Abseil; a source tree without .git will
# do), with our driver (`benches/google_cpp/bench.cc`), then runs the two alternately, ROUNDS
# times.
#
#   scripts/bench-google-cpp.sh [CHECKOUT|vendored] [ROUNDS]
#
# Installs g++, pkg-config and Abseil (Debian packages) when missing. Prints the driver's
# lines (`google-cpp parse best: … MB/s`, `google-cpp first …`) and criterion's for
# `parse/crawlgate-*`, `parse/fast-robots` and `first-verdict/*`. With INSTRUCTIONS=1, also
# both libraries' instruction counts for the parse and the first verdict (callgrind; installs
# valgrind).
set -euo pipefail

root=$(git rev-parse --show-toplevel)
google=${1:-vendored}
label=
if [ "$google" = vendored ]; then
    google=$root/benches/google_cpp/robotstxt
    label="vendored $(sed -n 's/.*commit `\([0-9a-f]\{7\}\).*/\1/p' "$google/PROVENANCE.md")"
fi
rounds=${2:-2}
corpus=${CRAWLGATE_BENCH_CORPUS:-$root/../shared/corpus/robots-bench}
[ -f "$google/robots.cc" ] || { echo "bench-google-cpp: no robots.cc in $google" >&2; exit 2; }
[ -d "$corpus/robotfiles" ] || { echo "bench-google-cpp: no corpus at $corpus" >&2; exit 2; }

need=()
command -v g++ >/dev/null || need+=(g++)
command -v pkg-config >/dev/null || need+=(pkg-config)
pkg-config --exists absl_strings 2>/dev/null || need+=(libabsl-dev)
[ "${INSTRUCTIONS:-0}" = 1 ] && ! command -v valgrind >/dev/null && need+=(valgrind)
if [ ${#need[@]} -gt 0 ]; then
    echo "== installing ${need[*]}" >&2
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi

out="$root/target/google-cpp"
mkdir -p "$out"
echo "== building google/robotstxt (${label:-$(git -C "$google" rev-parse --short HEAD 2>/dev/null || echo "$google")}) and crawlgate's parse bench" >&2
# shellcheck disable=SC2046 # pkg-config's flags are separate words
g++ -O3 -std=c++17 -I "$google" -o "$out/bench" "$root/benches/google_cpp/bench.cc" \
    "$google/robots.cc" $(pkg-config --cflags --libs absl_strings)
ours=$(cd "$root" && CRAWLGATE_BENCH_CORPUS=$corpus cargo bench --no-run --no-default-features \
    --bench parse --message-format=json 2>/dev/null | grep -o '"executable":"[^"]*"' | tail -1 | cut -d'"' -f4)
[ -n "$ours" ] || { echo "bench-google-cpp: could not build the parse bench" >&2; exit 2; }

for round in $(seq "$rounds"); do
    echo "== round $round ($(uptime | sed 's/.*load average/load average/'))"
    "$out/bench" parse 20 "$corpus" | grep -E 'best|median'
    "$out/bench" first 20 "$corpus" | grep -E 'best|median'
    CRAWLGATE_BENCH_CORPUS=$corpus "$ours" --bench --discard-baseline --warm-up-time 1 \
        --measurement-time "${MEASURE:-3}" '^(parse/(crawlgate|fast-robots)|first-verdict/)' 2>&1 |
        grep -E '^(parse|first-verdict)/|thrpt'
done

if [ "${INSTRUCTIONS:-0}" = 1 ]; then
    count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
        sed -n 's/.*Collected : *//p'; }
    p=$(count "$out/bench" parse 1 "$corpus")
    l=$(count "$out/bench" load 1 "$corpus")
    echo "google-cpp instructions, parse - load: $((p - l))"
    f=$(count "$out/bench" first 1 "$corpus")
    fl=$(count "$out/bench" first-load 1 "$corpus")
    echo "google-cpp instructions, first verdict (first - first-load): $((f - fl))"
    (cd "$root" && cargo build -q --profile bench --no-default-features --example workload)
    p=$(CRAWLGATE_BENCH_CORPUS=$corpus count "$root/target/release/examples/workload" parse)
    l=$(CRAWLGATE_BENCH_CORPUS=$corpus count "$root/target/release/examples/workload" load)
    echo "crawlgate instructions, parse - load: $((p - l))"
    q=$(CRAWLGATE_BENCH_CORPUS=$corpus count "$root/target/release/examples/workload" parse-quiet)
    echo "crawlgate instructions without diagnostics, parse-quiet - load: $((q - l))"
    f=$(CRAWLGATE_BENCH_CORPUS=$corpus count "$root/target/release/examples/workload" first)
    echo "crawlgate instructions, first verdict (first - load): $((f - l))"
fi
