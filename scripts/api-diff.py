#!/usr/bin/env python3
"""Compares two symbol graphs of SweepKit (as `swift-symbolgraph-extract` writes them, with
the types SweepKit re-exports) and prints every public symbol of the baseline that is gone
or whose declaration changed: what an app written against the baseline could no longer
compile. Additions are fine. A line listed in the allow-list file (a reviewed break) is
reported but does not fail. Exit 1 on any other break.

usage: api-diff.py BASELINE.symbols.json CURRENT.symbols.json [ALLOWED.txt]
"""
import json
import sys


def symbols(path):
    graph = json.load(open(path))
    out = {}
    for s in graph["symbols"]:
        if s.get("accessLevel") not in ("public", "open"):
            continue
        name = ".".join(s["pathComponents"])
        declaration = "".join(f["spelling"] for f in s.get("declarationFragments", []))
        out[s["identifier"]["precise"]] = (name, " ".join(declaration.split()))
    return out


def main():
    baseline, current = symbols(sys.argv[1]), symbols(sys.argv[2])
    allowed = set()
    if len(sys.argv) > 3:
        allowed = {line.strip() for line in open(sys.argv[3]) if line.strip() and not line.startswith("#")}
    # A symbol whose declaration changed keeps its name but usually not its precise ID.
    by_name = {}
    for name, declaration in current.values():
        by_name.setdefault(name, set()).add(declaration)
    breaks = []
    for key, (name, declaration) in sorted(baseline.items(), key=lambda kv: kv[1]):
        if key in current:
            continue
        now = by_name.get(name)
        if now and declaration in now:
            continue
        if now:
            breaks.append(f"changed: {name}: {declaration} -> {' | '.join(sorted(now))}")
        else:
            breaks.append(f"removed: {name}: {declaration}")
    failing = [b for b in breaks if b not in allowed]
    for b in breaks:
        print(("allowed " if b in allowed else "") + b)
    print(f"{len(baseline)} public symbols in the baseline, {len(current)} now; "
          f"{len(breaks)} breaking ({len(breaks) - len(failing)} allowed)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
