#!/usr/bin/env bash
# The command line's layout: no import circle among cli/src's modules, no module importing a
# floor above it, and commands that never import each other (ripgrep's rule). The floors, from
# the bottom, separated by commas; then the commands. The library's floors are checked by
# `cargo test` (tests/it/layout.rs). Needs python3 (scripts/test.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/import-graph.py cli/src \
    'args/status/input/clock/schema,output/progress,urls/crawler/tally/records/explained/state/verdicts,engine,live' \
    'audit,batch,check,diff,explain,fetch,history,lint,mcp,page,recrawl,report,serve,sitemap,test,url' | tail -2
