#!/usr/bin/env bash
# CI: build every fuzz target, then run each for FUZZ_CI_SECONDS (default 10): 110 s of
# fuzzing for the eleven targets, the budget the CI run has for it. On a fresh machine (rustup's
# stable toolchain only) scripts/fuzz.sh first installs cargo-fuzz (about 35 s) and builds with
# RUSTC_BOOTSTRAP=1. Longer hunts: scripts/fuzz.sh TARGET SECONDS.
# Exits non-zero on a crash, after printing the artifact's path (see fuzz/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
scripts/fuzz.sh build
built=$(date +%s)
echo "== fuzz install (if needed) and build: $((built - start)) s"
FUZZ_QUIET=1 scripts/fuzz.sh all "${FUZZ_CI_SECONDS:-10}"
echo "== fuzz: $(($(date +%s) - start)) s in all"
