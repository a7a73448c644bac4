#!/usr/bin/env bash
# Run one cargo-fuzz target for a while:  scripts/fuzz.sh TARGET [SECONDS]
#                     or every target:   scripts/fuzz.sh all [SECONDS]
#       build every target, run nothing:   scripts/fuzz.sh build
#
# TARGET: parse, check, differential, origin, policy, sitemap, tdmrep, audit, page_headers, page_html, warc, batch_rows (see fuzz/README.md). SECONDS defaults to 60.
#
# - Installs cargo-fuzz (`cargo install cargo-fuzz --locked`) when it is missing.
# - Uses the nightly toolchain when rustup has one; otherwise the default (stable) toolchain
#   with RUSTC_BOOTSTRAP=1, which cargo-fuzz needs for its -Z flags. Both work, with and
#   without AddressSanitizer.
# - Seeds fuzz/corpus/TARGET from testdata/ and, when present, ../shared/corpus/robots-bench
#   (copied at run time; fuzz/corpus is not committed).
# - Passes the target's dictionary and -max_len (reasons in fuzz/README.md).
# - Exits non-zero on a crash and prints where the artifact is and how to replay it.
#
# Environment:
#   FUZZ_SANITIZER  none (default) or address. crawlgate is #![forbid(unsafe_code)], and
#                   AddressSanitizer cut executions/s by 4.4x on `parse` here; use `address`
#                   for a longer hunt in the unsafe code of dependencies (memchr).
#   FUZZ_JOBS       libFuzzer -fork=N (parallel processes); default 1 (no fork).
#   FUZZ_QUIET      1: keep libFuzzer's progress lines out of the terminal (log file only).
#   FUZZ_TOOLCHAIN  stable: use the stable fallback even when nightly is installed.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
FUZZ="$ROOT/fuzz"
TARGETS=(parse check differential origin policy sitemap tdmrep audit page_headers page_html warc batch_rows)
CARGO_FUZZ_VERSION=0.13.2

usage() {
    echo "usage: scripts/fuzz.sh TARGET|all [SECONDS] | build   (TARGET: ${TARGETS[*]})" >&2
    exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
TARGET="$1"
SECONDS_EACH="${2:-60}"
[[ "$SECONDS_EACH" =~ ^[0-9]+$ ]] && [ "$SECONDS_EACH" -gt 0 ] || usage

# Per-target libFuzzer settings. -max_len, with the reason:
#   parse         65536: long enough for lines past Google's 16,663-byte cut and for many
#                 groups; short enough for thousands of runs a second. (The 512,000-byte limit
#                 is reached by the target itself, behind a filler, for inputs starting 0xFE.)
#   check         16384: a file with more than 64 rules (the prefix-index path), an agent and
#                 a URL of a few KiB; the naive reference check stays cheap.
#   differential  2048: up to 120 rules of 16 characters (more than 64 reach the prefix
#                 index) and paths; more adds nothing.
#   origin        4096: past DNS's 253-byte names and IDNA's label limits, and long paths.
#   policy        4096: up to 256 events (fetches, availability reports, clock moves) with
#                 small bodies; the ladder's state is what matters, not the bodies.
#   sitemap       16384: a few entries with every extension, CDATA, references, gzip headers;
#                 odd first bytes run with 300-byte and 3-entry limits, so the limits are
#                 reached without long inputs.
#   page_headers  4096: a few header lines past the target's 256-byte field limit (so a cut
#                 member is common); the limits, not the length, are what is tested.
#   page_html     8192: twice the target's 4,096-byte HTML budget, so the budget is reached.
max_len() {
    case "$1" in
        parse) echo 65536 ;;
        check) echo 16384 ;;
        differential) echo 2048 ;;
        origin) echo 4096 ;;
        policy) echo 4096 ;;
        sitemap) echo 16384 ;;
        tdmrep) echo 8192 ;;
        audit) echo 16384 ;;
        page_headers) echo 4096 ;;
        page_html) echo 8192 ;;
        warc) echo 16384 ;;
        batch_rows) echo 4096 ;;
    esac
}
dict() {
    case "$1" in
        origin) echo "$FUZZ/url.dict" ;;
        sitemap) echo "$FUZZ/sitemap.dict" ;;
        tdmrep) echo "$FUZZ/tdmrep.dict" ;;
        page_headers | page_html) echo "$FUZZ/page.dict" ;;
        warc) echo "$FUZZ/warc.dict" ;;
        batch_rows) echo "$FUZZ/json.dict" ;;
        *) echo "$FUZZ/robots.dict" ;;
    esac
}

# Toolchain: nightly when installed, else the default (stable) with RUSTC_BOOTSTRAP=1.
# FUZZ_TOOLCHAIN=stable forces the fallback (to check it on a machine that has nightly).
CARGO=(cargo)
if [ "${FUZZ_TOOLCHAIN:-auto}" != stable ] && command -v rustup >/dev/null 2>&1 &&
    rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    CARGO=(cargo +nightly)
    TOOLCHAIN="nightly"
else
    export RUSTC_BOOTSTRAP=1
    TOOLCHAIN="$(rustc --version 2>/dev/null || echo rustc) with RUSTC_BOOTSTRAP=1"
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz $CARGO_FUZZ_VERSION (cargo install --locked)"
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi

SANITIZER="${FUZZ_SANITIZER:-none}"
case "$SANITIZER" in none | address) ;; *)
    echo "FUZZ_SANITIZER must be none or address" >&2
    exit 2
    ;;
esac

copy() { [ -e "$2" ] || cp "$1" "$2"; }

# Seeds: the repo's own robots.txt files, and the shared real-world corpus when present.
seed() {
    local target="$1" dir="$FUZZ/corpus/$1" f
    mkdir -p "$dir"
    case "$target" in
        parse | check)
            while IFS= read -r -d '' f; do
                copy "$f" "$dir/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
            done < <(find "$ROOT/testdata" -type f ! -name '*.md' ! -name '*.json' -print0)
            if [ -d "$ROOT/../shared/corpus/robots-bench/robotfiles" ]; then
                for f in "$ROOT/../shared/corpus/robots-bench/robotfiles"/*; do
                    copy "$f" "$dir/seed-bench-$(basename "$f")"
                done
            fi
            ;;
        origin)
            # One URL per seed: those written in testdata/, and the first of each real site's
            # link list.
            local n=0 url
            while IFS= read -r url; do
                n=$((n + 1))
                printf '%s' "$url" >"$dir/seed-testdata-$n"
            done < <(grep -rhoE 'https?://[^][:space:]"<>`)(]+' "$ROOT/testdata" | sort -u | head -200)
            if [ -d "$ROOT/../shared/corpus/robots-bench/links" ]; then
                for f in "$ROOT/../shared/corpus/robots-bench/links"/*; do
                    head -n 1 "$f" | tr -d '\n' >"$dir/seed-bench-$(basename "$f")"
                done
            fi
            ;;
        sitemap)
            while IFS= read -r -d '' f; do
                copy "$f" "$dir/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
            done < <(find "$ROOT/testdata/sitemap" -type f ! -name '*.md' ! -name '*.expect' ! -name 'bomb-*' -print0)
            ;;
        tdmrep)
            for f in "$ROOT/testdata/tdmrep"/*.json; do
                # The file, a NUL, then a path to evaluate.
                [ -e "$dir/seed-$(basename "$f")" ] ||
                    { cat "$f"; printf '\0/directory-b/images/a.jpg'; } >"$dir/seed-$(basename "$f")"
            done
            ;;
        audit)
            # Real files that name AI crawlers (the structured input takes them as its tail).
            for f in "$ROOT/testdata/audit/real"/* "$ROOT/testdata/diagnostics"/*.txt; do
                case "$f" in *content-after-limit* | *line-too-long*) continue ;; esac
                copy "$f" "$dir/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
            done
            ;;
        page_html)
            while IFS= read -r -d '' f; do
                copy "$f" "$dir/seed-$(basename "$f")"
            done < <(find "$ROOT/testdata/page" -type f -name '*.html' -print0)
            ;;
        page_headers)
            printf 'X-Robots-Tag: googlebot: unavailable_after: Wed, 25 Jun 2010 15:00:00 GMT, noarchive\nRobots-Tag: *;nosnippet, examplebot;noindex;max-snippet=20\ncontent-usage: train-ai=n\ntdm-reservation: 1' >"$dir/seed-headers"
            ;;
        warc)
            # A warcinfo, a request and two responses (one of them cut short by the crawler):
            # plain, and as a WARC.gz of a member per record.
            local r uri=https://a.test/robots.txt body='User-agent: *\nDisallow: /x\n'
            local block="HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n$body"
            local records=(
                "WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 27\r\n\r\nisPartOf: CC-MAIN-2025-05\r\n"
                "WARC/1.0\r\nWARC-Type: request\r\nWARC-Target-URI: $uri\r\nContent-Length: 0\r\n\r\n"
                "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: $uri\r\nWARC-Date: 2025-01-02T03:04:05Z\r\nContent-Length: $(printf "$block" | wc -c)\r\n\r\n$block"
                "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://b.test/robots.txt\r\nWARC-Truncated: length\r\nContent-Length: 45\r\n\r\nHTTP/1.1 301 Moved\r\nLocation: /robots.txt\r\n\r\n"
            )
            : >"$dir/seed-plain"
            : >"$dir/seed-gz"
            for r in "${records[@]}"; do
                printf "$r\r\n\r\n" >>"$dir/seed-plain"
                printf "$r\r\n\r\n" | gzip -c >>"$dir/seed-gz"
            done
            ;;
        batch_rows)
            # Rows of each shape: text and base64 bodies, every optional field, a null status,
            # and lines that are not rows.
            printf '%s\n' \
                '{"url":"https://a.test/robots.txt","status":200,"body_text":"User-agent: *\nDisallow: /x\n"}' \
                '{"url":"https://b.test/robots.txt","status":null,"body":"VXNlci1hZ2VudDogKgo=","fetch_time":"2025-01-01T00:00:00Z","content_type":"text/plain","location":"/r"}' \
                '' '{"status":404}' '{"url":"x","body":"!!"}' 'not json' >"$dir/seed-rows"
            ;;
        differential | policy) ;; # structured input: no file makes a useful seed
    esac
}

run() {
    local target="$1" seconds="$2"
    local artifacts="$FUZZ/artifacts/$target" logs="$FUZZ/target/fuzz-logs"
    local log="$logs/$target.log" stamp="$logs/$target.start"
    mkdir -p "$artifacts" "$logs"
    seed "$target"
    touch "$stamp"
    local fork=()
    if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then
        fork=("-fork=$FUZZ_JOBS")
    fi
    echo "== fuzz $target for ${seconds}s ($TOOLCHAIN, sanitizer $SANITIZER, -max_len=$(max_len "$target"), $(find "$FUZZ/corpus/$target" -type f | wc -l) corpus files)"
    local status=0
    (
        cd "$FUZZ"
        "${CARGO[@]}" fuzz run --sanitizer "$SANITIZER" "$target" "$FUZZ/corpus/$target" -- \
            -max_total_time="$seconds" -max_len="$(max_len "$target")" -dict="$(dict "$target")" \
            -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$artifacts/" "${fork[@]}"
    ) >"$log" 2>&1 &
    local pid=$!
    if [ "${FUZZ_QUIET:-0}" != 1 ]; then
        tail -n +1 -f "$log" --pid="$pid" | grep --line-buffered -E 'pulse|DONE|INITED|panicked|ERROR|Error|SUMMARY|error\[' || true
    fi
    wait "$pid" || status=$?
    # libFuzzer's last status line: "#N DONE cov: C ft: F corp: U/Sb ... exec/s: E rss: R".
    local last
    last="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)"
    echo "-- $target: ${last:-no status line}"
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | tr '\n' ' ' || true
    echo
    echo "-- corpus: $(find "$FUZZ/corpus/$target" -type f | wc -l) files; log: $log"
    if [ "$status" -ne 0 ]; then
        echo "!! fuzz target $target failed (exit $status); see $log" >&2
        grep -E -A12 'panicked at|ERROR: libFuzzer|SUMMARY:' "$log" | head -n 40 | cut -c1-400 >&2 || true
        local found
        found="$(find "$artifacts" -type f -newer "$stamp" 2>/dev/null || true)"
        if [ -n "$found" ]; then
            echo "!! artifact(s):" >&2
            echo "$found" | sed 's/^/   /' >&2
            echo "!! replay: (cd fuzz && ${RUSTC_BOOTSTRAP:+RUSTC_BOOTSTRAP=1 }${CARGO[*]} fuzz run --sanitizer $SANITIZER $target <artifact>)" >&2
            echo "!! then keep it: copy it to testdata/fuzz/<name> and add a test to tests/it/fuzz_regressions.rs" >&2
        fi
        return "$status"
    fi
}

if [ "$TARGET" = build ]; then
    echo "== building every fuzz target ($TOOLCHAIN, sanitizer $SANITIZER)"
    (cd "$FUZZ" && "${CARGO[@]}" fuzz build --sanitizer "$SANITIZER")
    exit 0
fi

if [ "$TARGET" = all ]; then
    failed=()
    for t in "${TARGETS[@]}"; do
        run "$t" "$SECONDS_EACH" || failed+=("$t")
    done
    if [ ${#failed[@]} -gt 0 ]; then
        echo "!! failed: ${failed[*]}" >&2
        exit 1
    fi
    echo "== all fuzz targets ran ${SECONDS_EACH}s each without a crash"
    exit 0
fi

for t in "${TARGETS[@]}"; do
    if [ "$t" = "$TARGET" ]; then
        run "$TARGET" "$SECONDS_EACH"
        exit $?
    fi
done
usage
