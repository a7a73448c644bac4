"""The installed package is the manylinux2014 abi3 wheel that ``scripts/python-test.sh`` builds:
it installs on Linux with glibc 2.17 or later (older Spark and crawler images), not only where
it was built."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

import crawlgate
from crawlgate import _crawlgate


def wheel_tags() -> list[str]:
    dist = metadata.distribution("crawlgate")
    wheel = dist.read_text("WHEEL")
    assert wheel is not None, "crawlgate was not installed from a wheel"
    return [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]


def test_the_installed_wheel_is_abi3_for_manylinux2014() -> None:
    tags = wheel_tags()
    assert tags, "the wheel names no tag"
    for tag in tags:
        python, abi, platform = tag.split("-")
        assert (python, abi) == ("cp310", "abi3"), tag
        # manylinux2014 is glibc 2.17; maturin writes both spellings.
        assert platform.startswith(("manylinux2014_", "manylinux_2_17_")), tag
    assert any(t.split("-")[2].startswith("manylinux_2_17_") for t in tags), tags


def test_the_extension_needs_no_glibc_symbol_newer_than_2_17() -> None:
    so = Path(_crawlgate.__file__)
    assert so.is_relative_to(Path(sys.prefix)), f"{so} is not the installed wheel's"
    # The versions of the glibc symbols it links to, as the dynamic section names them.
    needed = {tuple(map(int, v)) for v in re.findall(rb"GLIBC_(\d+)\.(\d+)", so.read_bytes())}
    assert needed, "no versioned glibc symbol found: not a glibc extension?"
    assert max(needed) <= (2, 17), sorted(needed)


def test_it_imports_and_works() -> None:
    assert Path(crawlgate.__file__).is_relative_to(Path(sys.prefix))
    robots = crawlgate.Robots.parse(b"User-agent: *\nDisallow: /private\n")
    assert not robots.allowed("MyBot", "/private/x") and robots.allowed("MyBot", "/x")
