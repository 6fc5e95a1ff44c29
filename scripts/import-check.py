#!/usr/bin/env python3
"""Fails when a target imports a module of this package it does not list as a direct dependency.

SwiftPM's --explicit-target-dependency-import-check accepts a module reached through another
dependency; this check asks for the direct edge, so a target's dependencies say what it uses.
Reads `swift package dump-package` and each target's `import` lines (test targets included).
"""
import json, pathlib, re, subprocess, sys

root = pathlib.Path(__file__).resolve().parent.parent
package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True).stdout)
modules = {t["name"] for t in package["targets"]}
importLine = re.compile(r"^\s*(?:@[\w]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)", re.M)
problems = []
for t in package["targets"]:
    if t["type"] == "system":
        continue
    path = root / (t.get("path") or ("Tests" if t["type"] == "test" else "Sources") + "/" + t["name"])
    declared = set()
    for d in t["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in d:
                declared.add(d[kind][0])
    for f in sorted(path.rglob("*.swift")):
        for m in importLine.finditer(f.read_text()):
            name = m.group(1)
            if name in modules and name != t["name"] and name not in declared:
                problems.append(f"{f.relative_to(root)}: imports {name}, which target {t['name']} does not list in Package.swift")
for p in sorted(set(problems)):
    print(p)
if problems:
    print(f"{len(set(problems))} imports of undeclared targets: add each to the target's dependencies in Package.swift", file=sys.stderr)
    sys.exit(1)
