#!/usr/bin/env python3
"""Which modules of a Rust crate's src/ import which (`crate::…` paths in `use` and in code,
`use super::…` from file submodules), the import circles among them, and, given the floors,
the imports that point up or from one command to another.

    scripts/import-graph.py cli/src
    scripts/import-graph.py cli/src 'args/status/input/clock/schema,output/progress,urls/crawler/tally/records/state,engine' \
        'check,explain,fetch,history,lint,recrawl,report,sitemap,url'

Floors are lowest first, separated by `,`, modules of one floor by `/`; a submodule belongs to
its top module's floor. Commands sit above the floors; `main` (`crate`) above all. Exit 1 when
there is a circle or an import up. Textual (no macro or cfg awareness): a check, not a proof.
"""
import os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else "src"
files = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith(".rs"):
            rel = os.path.relpath(os.path.join(d, f), root)[:-3].replace(os.sep, "::")
            mod = rel[:-5] if rel.endswith("::mod") else rel
            files["crate" if mod in ("main", "lib") else mod] = os.path.join(d, f)
mods = set(files)

def resolve(path):
    """The longest module prefix of a crate path (`a::b::C` -> `a::b`), else `crate`."""
    parts = path.split("::")
    for i in range(len(parts), 0, -1):
        if "::".join(parts[:i]) in mods:
            return "::".join(parts[:i])
    return "crate"

edges = {m: set() for m in mods}
for m, p in files.items():
    src = re.sub(r"//[^\n]*", "", open(p).read())
    for g in re.finditer(r"\bcrate::\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}", src):
        for item in re.split(r",(?![^{]*\})", g.group(1)):
            item = re.sub(r"::\{.*", "", item.split(" as ")[0], flags=re.S).strip()
            if item:
                edges[m].add(resolve(item))
    for g in re.finditer(r"\bcrate::([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)", src):
        edges[m].add(resolve(g.group(1)))
    # `use super::…` at the top of a file submodule (not of an inline `mod` in it).
    if "::" in m and not p.endswith("mod.rs"):
        parent = m.rsplit("::", 1)[0]
        for g in re.finditer(r"(?m)^use super::(\{[^}]*\}|[A-Za-z_][A-Za-z0-9_:]*)", src):
            for n in g.group(1).strip("{}").split(","):
                n = n.strip().split("::")[0]
                cand = f"{parent}::{n}"
                edges[m].add(cand if cand in mods else parent)
    edges[m] = {e for e in edges[m] if e in mods and e != m}

# Tarjan's strongly connected components: a component of more than one module is a circle.
index, low, stack, on, sccs = {}, {}, [], set(), []
def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        sccs.append(comp)
sys.setrecursionlimit(10000)
for v in sorted(mods):
    if v not in index:
        visit(v)

for m in sorted(edges):
    print(f"{m:24} -> {', '.join(sorted(edges[m]))}")
circles = [c for c in sccs if len(c) > 1]
print(f"\n{len(circles)} circle(s), {sum(map(len, circles))} module(s) in circles")
for c in circles:
    print("   ", ", ".join(sorted(c)))
bad = len(circles)
if len(sys.argv) > 2:
    floors = sys.argv[2].split(",")
    level = {x: i for i, floor in enumerate(floors) for x in floor.split("/")}
    commands = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else set()
    top = lambda x: x.split("::")[0]
    def lvl(x):
        if x == "crate":
            return len(floors) + 1
        return len(floors) if top(x) in commands else level.get(x, level.get(top(x), len(floors)))
    up = sorted((a, b) for a in edges for b in edges[a]
                if lvl(b) > lvl(a) or (top(a) in commands and top(b) in commands and top(a) != top(b)))
    print(f"{len(up)} import(s) up or between commands")
    for a, b in up:
        print(f"    {a} -> {b}")
    bad += len(up)
sys.exit(1 if bad else 0)
