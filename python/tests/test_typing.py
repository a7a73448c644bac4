"""The stubs agree with the compiled module (mypy's stubtest), and the package type-checks
under ``mypy --strict``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    # From a neutral directory, so that the installed package is the one checked.
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          cwd="/", timeout=300)


def test_stubs_match_the_native_module():
    p = run("mypy.stubtest", "crawlgate", "--allowlist", str(HERE / "stubtest-allowlist.txt"))
    assert p.returncode == 0, p.stdout + p.stderr


def test_package_type_checks_strictly():
    p = run("mypy", "--strict", "-p", "crawlgate")
    assert "no issues found" in p.stdout, p.stdout + p.stderr
    assert p.returncode == 0, p.stdout + p.stderr
