#!/usr/bin/env bash
# Every test:  bash scripts/test.sh [cargo test arguments]
#
# Installs what the tests need beyond Rust when it is missing, then runs `cargo test` on the
# workspace (the library and the command line, `cli/`) with every feature (the embedded and
# Redis stores and the non-default `middleware`). Nothing is skipped: a test whose tool is
# missing fails and says how to get it.
#
# - redis-server (Debian/Ubuntu package `redis-server`): the Redis store, fleet and outage tests
#   start their own servers on 127.0.0.1 (random port, temp dir) and stop them. Installed with
#   apt-get (as root, or through sudo) when `redis-server` is not on PATH.
# - chromium (Debian package `chromium`): cli/tests/it/report_html.rs opens the HTML report in headless
#   Chromium and drives it over the DevTools protocol. Installed the same way when no
#   `chromium` (nor `chromium-browser`, `google-chrome`, `$CHROMIUM`) is found (with
#   fonts-liberation, for readable screenshots).
# - Then the Python package (python/): scripts/python-test.sh builds its wheel and runs its
#   pytest suite in python/.venv, installing python3 (apt-get), maturin, pytest, Scrapy, Protego
#   and mypy when they are missing.
# - Then the Node package (node/): scripts/node-test.sh installs node and npm (apt-get) when
#   missing, runs `npm ci`, builds the addon and runs its node --test suites, real Crawlee
#   crawls included.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3 python3-venv)
if [ -z "${CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1 \
    && ! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then
    need_apt+=(chromium fonts-liberation)  # fonts: recommended, not installed with --no-install-recommends
fi

if [ ${#need_apt[@]} -gt 0 ]; then
    echo "== installing ${need_apt[*]} (apt-get)" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: ${need_apt[*]} missing and apt-get not available: install it by hand" >&2
        exit 2
    fi
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
    # The package starts a system service; the tests start their own servers.
    if command -v systemctl >/dev/null 2>&1; then "${sudo[@]}" systemctl stop redis-server 2>/dev/null || true; fi
fi
echo "== redis-server: $(redis-server --version | cut -d' ' -f3)" >&2
echo "== chromium: $("${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome)}" --version 2>/dev/null | head -1)" >&2

cargo test --workspace --all-features "$@"
bash scripts/python-test.sh
bash scripts/node-test.sh
