#!/usr/bin/env bash
# Before and after in the same run: builds the criterion benches of BASE (a commit) and of the
# working tree, each in its own target directory (one target would reuse the other's
# artifacts), then runs each bench's two binaries alternately, ROUNDS times, so that the
# machine's load falls on both alike. The peers (texting_robots, robotstxt, sitemapo) run
# inside each binary, so every line of the output is comparable with the others of its round.
#
#   scripts/bench-compare.sh BASE [BENCH ...]      # default benches: parse check
#   ROUNDS=3 MEASURE=3 scripts/bench-compare.sh HEAD~3 parse check sitemap
#
# Prints criterion's lines, prefixed with `before` or `after` and the round. Needs the corpus
# (`../shared/corpus/robots-bench` or `$CRAWLGATE_BENCH_CORPUS`) for parse and check.
set -euo pipefail

base=${1:?usage: scripts/bench-compare.sh BASE [BENCH ...]}
shift
benches=("$@")
[ ${#benches[@]} -gt 0 ] || benches=(parse check)
rounds=${ROUNDS:-2}
measure=${MEASURE:-3}

root=$(git rev-parse --show-toplevel)
cd "$root"
work="$root/target/bench-compare"
mkdir -p "$work"
rev=$(git rev-parse --verify "$base^{commit}")

# Both builds read the same corpus, wherever the base is checked out.
export CRAWLGATE_BENCH_CORPUS=${CRAWLGATE_BENCH_CORPUS:-$root/../shared/corpus/robots-bench}

# The base's sources, checked out for this run.
src="$work/src-$rev"
git worktree remove --force "$src" 2>/dev/null || true
git worktree add --detach "$src" "$rev" >/dev/null
trap 'git -C "$root" worktree remove --force "$src" 2>/dev/null || true' EXIT

# The bench binary of `bench` built from `dir` into `target`: its path, from cargo's JSON.
binary() {
    local dir=$1 target=$2 bench=$3
    (cd "$dir" && CARGO_TARGET_DIR=$target cargo bench --no-run --bench "$bench" \
        --message-format=json 2>/dev/null) |
        grep -o '"executable":"[^"]*"' | tail -1 | cut -d'"' -f4
}

for bench in "${benches[@]}"; do
    echo "== building $bench: before ($rev) and after (working tree)" >&2
    before=$(binary "$src" "$work/target-before" "$bench")
    after=$(binary "$root" "$root/target" "$bench")
    if [ -z "$before" ] || [ -z "$after" ]; then
        echo "bench-compare: could not build the $bench bench (before: '$before', after: '$after')" >&2
        exit 2
    fi
    for round in $(seq "$rounds"); do
        for side in before after; do
            bin=$before
            [ "$side" = after ] && bin=$after
            echo "== $bench, round $round, $side" >&2
            "$bin" --bench --discard-baseline --warm-up-time 1 --measurement-time "$measure" 2>&1 |
                awk -v tag="$side r$round  " '
                    # A bench name, then its first throughput line (the later ones are
                    # criterion comparing with whatever run it saved last).
                    /^[a-z].*\// { print tag $0; want = 1; next }
                    /thrpt:/ && want { print tag $0; want = 0 }'
        done
    done
done
