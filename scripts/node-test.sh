#!/usr/bin/env bash
# Build the Node package (node/) and run its node --test suites:
#
#   scripts/node-test.sh [NODE --test ARGS...]
#
# - Installs Node.js and npm with apt-get (sudo when not root) when `node` or `npm` is missing,
#   and redis-server, which the engine and Crawlee suites start on random ports.
# - `npm ci` in node/ (the lock file pins @napi-rs/cli, robots-parser and Crawlee).
# - Builds the addon with `napi build --platform` in the `node-test` cargo profile (the dev
#   build without debug info; NODE_PROFILE=release for a release build), which also writes
#   node/binding.js and the TypeScript declarations node/binding.d.ts from the Rust.
# - Runs node/test/*.test.js: the API, bad input, Google's conformance cases in both modes,
#   robots-parser side by side, the engine on its three stores, real Crawlee crawls of a local
#   site, and docs/node.md's examples. Nothing is skipped: a missing tool is an error.
# - Prints the time of each step; exits non-zero on any failure.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NODE_DIR="$ROOT/node"
START=$(date +%s)
step_start=$START
step() {
    local now
    now=$(date +%s)
    printf '== %s (%ss; %ss total)\n' "$1" "$((now - step_start))" "$((now - START))"
    step_start=$now
}
die() {
    echo "node-test.sh: $*" >&2
    exit 1
}

command -v cargo >/dev/null || die "cargo not found: install Rust 1.90 or later (https://rustup.rs)"

need_apt=()
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    need_apt+=(nodejs npm)
fi
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
if [ ${#need_apt[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || die "${need_apt[*]} missing and apt-get not available: install them by hand"
    SUDO=""
    [[ $(id -u) -eq 0 ]] || SUDO="sudo"
    echo "installing ${need_apt[*]} (apt-get)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
    # The package starts a system service; the tests start their own servers.
    if command -v systemctl >/dev/null 2>&1; then $SUDO systemctl stop redis-server 2>/dev/null || true; fi
fi
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' ||
    die "node $(node --version) is too old: 18 or later is needed"
step "node $(node --version), npm $(npm --version)"

(cd "$NODE_DIR" && npm ci --no-audit --no-fund --loglevel=error)
step "npm ci"

(cd "$NODE_DIR" && npx napi build --platform --profile "${NODE_PROFILE:-node-test}" --js binding.js --dts binding.d.ts)
step "addon ($(cd "$NODE_DIR" && ls crawlgate.*.node))"

(cd "$NODE_DIR" && node --test "$@" test/*.test.js)
step "node --test"
echo "node-test.sh: all passed in $(($(date +%s) - START))s"
