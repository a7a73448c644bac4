#!/usr/bin/env bash
# Build the Python package (python/) as an abi3 wheel and run its pytest suite:
#
#   scripts/python-test.sh [PYTEST ARGS...]
#
# - Creates python/.venv (or reuses it) with `python3 -m venv`; on a fresh Debian/Ubuntu where
#   that fails for want of ensurepip, installs python3-venv with apt-get (sudo when not root).
# - Installs the pinned minimum versions of maturin, pytest, Scrapy, Protego, mypy, ziglang
#   (zig, as a Python package: the C compiler and linker of the manylinux build), auditwheel,
#   and what crawlgate.batch's recipes run on (pyarrow, DuckDB, pandas, PySpark, Ray) into it;
#   a headless JRE with apt-get when there is no `java` (for the local Spark job).
# - Builds the wheel with `maturin build --zig --compatibility manylinux2014` (Rust and cargo
#   must be installed: the crate's rust-version is 1.90): linked against glibc 2.17's symbols
#   by zig, so that it installs on any Linux with glibc 2.17 or later (CentOS 7, Debian 9,
#   Amazon Linux 2: older Spark and crawler images), not only on a glibc as new as this
#   machine's. In the `wheel-test` profile (unoptimised: the release build of the engine's HTTP
#   and TLS stack took four times as long; WHEEL_PROFILE=release for a release wheel).
#   `auditwheel show` must find it manylinux_2_17 (manylinux2014) compatible. That wheel is
#   installed, so the tests run against the wheel, not the source tree.
# - Builds the sdist (`maturin sdist`) and installs it with pip into a fresh virtual
#   environment (python/.venv-sdist), which builds it from source with cargo and the system's
#   C compiler only (no zig; maturin comes from PyPI as the build backend; pip's wheel cache
#   off, so that it is built every time), in the wheel's cargo target directory, profile and
#   target triple: the crates that do not build C code are reused, those that do (and what
#   depends on them) are compiled again with the system's compiler. Then imports it and checks
#   one file. Bounded by SDIST_TIMEOUT seconds.
# - Builds the `crawlgate` binary (CRAWLGATE_BIN, unless set) for crawlgate.Client's tests.
# - Runs pytest on python/tests: the API, bad input, Google's 145 conformance cases in both
#   modes, and real Scrapy crawls of local HTTP servers. Nothing is skipped: a missing
#   dependency is an error.
# - Prints the time of each step; exits non-zero on any failure.
#
# Environment:
#   PYTHON       interpreter to build the venv from (default: python3); 3.10 or later.
#   CARGO_BUILD_JOBS  as for cargo (e.g. 1 when a CI run shares the machine).
#   WHEEL_PROFILE     the cargo profile of the wheel and the sdist build (default: wheel-test).
#   SDIST_TIMEOUT     seconds the sdist's build from source may take (default: 1800).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY_DIR="$ROOT/python"
VENV="$PY_DIR/.venv"
PYTHON="${PYTHON:-python3}"
REQUIREMENTS=("maturin>=1.7,<2" "pytest>=8" "scrapy>=2.13" "protego>=0.3" "mypy>=1.11"
    "ziglang>=0.13" "auditwheel>=6"
    # crawlgate.batch and its recipes: Arrow, DuckDB and pandas, a local Spark, Ray Data.
    "pyarrow>=16" "duckdb>=1" "pandas>=2" "pyspark>=3.5" "ray[data]>=2.9")
PROFILE="${WHEEL_PROFILE:-wheel-test}"

START=$(date +%s)
step_start=$START
step() {
    local now
    now=$(date +%s)
    printf '== %s (%ss; %ss total)\n' "$1" "$((now - step_start))" "$((now - START))"
    step_start=$now
}
die() {
    echo "python-test.sh: $*" >&2
    exit 1
}

command -v "$PYTHON" >/dev/null || die "$PYTHON not found: install Python 3.10 or later"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
    die "$PYTHON is $("$PYTHON" --version 2>&1); 3.10 or later is needed"
command -v cargo >/dev/null ||
    die "cargo not found: install Rust 1.90 or later (https://rustup.rs) to build the wheel"

# 1. The virtual environment.
if [[ -x "$VENV/bin/python" ]] && "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
    echo "reusing $VENV"
else
    rm -rf "$VENV"
    if ! "$PYTHON" -m venv "$VENV" 2>/dev/null; then
        rm -rf "$VENV"
        command -v apt-get >/dev/null ||
            die "'$PYTHON -m venv' failed and apt-get is not available to install python3-venv"
        SUDO=""
        [[ $(id -u) -eq 0 ]] || SUDO="sudo"
        ver=$("$PYTHON" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
        echo "'$PYTHON -m venv' failed: installing python3-venv with apt-get"
        $SUDO apt-get update -q
        $SUDO apt-get install -y -q "python$ver-venv" || $SUDO apt-get install -y -q python3-venv
        "$PYTHON" -m venv "$VENV" || die "'$PYTHON -m venv' still fails after installing python3-venv"
    fi
fi
step "virtual environment"

# 2. Tools and test dependencies; Java for the local Spark job.
if ! command -v java >/dev/null; then
    command -v apt-get >/dev/null || die "java not found and apt-get is not available to install it"
    SUDO=""
    [[ $(id -u) -eq 0 ]] || SUDO="sudo"
    echo "java not found: installing a headless JRE with apt-get (for PySpark)"
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q --no-install-recommends default-jre-headless
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "${REQUIREMENTS[@]}"
step "pip install ${REQUIREMENTS[*]}"

# 3. The manylinux2014 wheel, built and installed (replacing any editable install). maturin
# finds zig as `python -m ziglang` of the venv's python, on PATH.
rm -rf "$PY_DIR/dist"
(cd "$PY_DIR" && PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" build --profile "$PROFILE" --quiet \
    --zig --compatibility manylinux2014 --interpreter "$VENV/bin/python" --out dist)
shopt -s nullglob
wheels=("$PY_DIR"/dist/crawlgate-*-abi3-*.whl)
[[ ${#wheels[@]} -eq 1 ]] || die "expected one abi3 wheel in python/dist, found ${#wheels[@]}"
[[ $(basename "${wheels[0]}") == *manylinux2014_* ]] ||
    die "$(basename "${wheels[0]}") is not tagged manylinux2014"
audit=$("$VENV/bin/auditwheel" show "${wheels[0]}" 2>&1) || die "auditwheel show failed: $audit"
grep -q "consistent with the following platform tag:" <<<"$audit" &&
    tr -d '\n' <<<"$audit" | grep -q "\"manylinux_2_17_$(uname -m)\"" ||
    die "auditwheel does not find $(basename "${wheels[0]}") manylinux_2_17 compatible: $audit"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "${wheels[0]}"
# Stale build products of `maturin develop` in the source tree must not shadow the wheel.
rm -f "$PY_DIR"/crawlgate/_crawlgate*.so "$PY_DIR"/crawlgate/_crawlgate*.pyd
installed=$(cd / && "$VENV/bin/python" -c 'import crawlgate; print(crawlgate.__file__)')
[[ $installed == "$VENV"/* ]] || die "crawlgate imported from $installed, not from the venv"
step "wheel $(basename "${wheels[0]}") (auditwheel: manylinux_2_17)"

# 4. The sdist, built from source in a fresh venv, with cargo and the C compiler only.
(cd "$PY_DIR" && "$VENV/bin/maturin" sdist --out dist >/dev/null)
sdists=("$PY_DIR"/dist/crawlgate-*.tar.gz)
[[ ${#sdists[@]} -eq 1 ]] || die "expected one sdist in python/dist, found ${#sdists[@]}"
SDIST_VENV="$PY_DIR/.venv-sdist"
rm -rf "$SDIST_VENV"
"$PYTHON" -m venv "$SDIST_VENV"
# `--target` as maturin's zig build passes it, so that both builds share one directory: what
# does not depend on the C compiler is compiled once.
CARGO_TARGET_DIR="$PY_DIR/target" MATURIN_PEP517_ARGS="--profile $PROFILE --target $(uname -m)-unknown-linux-gnu" \
    timeout "${SDIST_TIMEOUT:-1800}" "$SDIST_VENV/bin/python" -m pip install -q --no-cache-dir \
    --disable-pip-version-check --no-deps "${sdists[0]}" ||
    die "the sdist did not build and install from source within ${SDIST_TIMEOUT:-1800}s"
(cd / && "$SDIST_VENV/bin/python" -c '
import crawlgate
r = crawlgate.Robots.parse(b"User-agent: *\nDisallow: /private\n")
assert not r.allowed("MyBot", "/private/x") and r.allowed("MyBot", "/public")
assert crawlgate.__file__.startswith("'"$SDIST_VENV"'"), crawlgate.__file__
') || die "the package built from the sdist does not work"
rm -rf "$SDIST_VENV"
step "sdist $(basename "${sdists[0]}"), built from source"

# 5. The `crawlgate` binary, for crawlgate.Client's tests against a real `crawlgate serve`
# (CRAWLGATE_BIN, unless given). Built as `scripts/test.sh` builds it for the command line's
# tests (the workspace's tests, every feature), so that after those tests it is already there:
# a plain `cargo build` unifies features differently (no dev-dependencies) and compiled the
# library and the tool again, almost 3 minutes in CI.
if [[ -z "${CRAWLGATE_BIN:-}" ]]; then
    (cd "$ROOT" && cargo test -q --workspace --all-features --no-run)
    export CRAWLGATE_BIN="$ROOT/target/debug/crawlgate"
fi
step "crawlgate binary"

# 6. The tests, against the installed wheel (`pytest`, not `python -m pytest`: the source tree
# is not put on sys.path).
(cd "$PY_DIR" && "$VENV/bin/pytest" -p no:cacheprovider "$@" tests)
step "pytest"
echo "python-test.sh: all passed in $(($(date +%s) - START))s"
