#!/usr/bin/env python3
"""Functions of a Rust source tree longer than N lines (default 100), from the `fn` line to
its closing brace by brace matching (strings, chars and `//` comments left out).

    scripts/long-fns.py cli/src [N]
"""
import os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else "src"
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 100
FN = re.compile(r"\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)")

def code(line):
    line = re.sub(r'r#*"[^"]*"#*', '""', line)
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])'", "''", line)
    return line.split("//")[0]

long, total = [], 0
for d, _, fs in os.walk(root):
    for f in sorted(fs):
        if not f.endswith(".rs"):
            continue
        path = os.path.join(d, f)
        lines = open(path).read().split("\n")
        for i, line in enumerate(lines):
            m = FN.match(line)
            if not m:
                continue
            total += 1
            depth, started, j = 0, False, i
            while j < len(lines):
                c = code(lines[j])
                if not started and ";" in c and "{" not in c:
                    break  # a declaration without a body
                for ch in c:
                    if ch == "{":
                        depth, started = depth + 1, True
                    elif ch == "}":
                        depth -= 1
                if started and depth == 0:
                    break
                j += 1
            if started and j - i + 1 > limit:
                long.append((j - i + 1, f"{path}:{i + 1}", m.group(6)))
for n, where, name in sorted(long, reverse=True):
    print(f"{n:5}  {where}  {name}")
print(f"{len(long)} of {total} functions over {limit} lines")
