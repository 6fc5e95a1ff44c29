#!/usr/bin/env bash
# Fails when SweepKit's public API breaks what the last release offered.
#
# Two checks, both against files kept in docs/api (so the old release is never rebuilt):
# 1. SweepKit's own declarations (Comparison, OutputSize, …): with the release tag in the
#    checkout, `swift package diagnose-api-breaking-changes` against docs/api/<commit>/; in a
#    checkout without history (a shallow CI clone), swift-api-digester on the same file.
# 2. The types SweepKit re-exports one declaration at a time (Animation, SliderStyle, …),
#    which the digester does not see: their public symbols, from SweepKit's symbol graph,
#    against docs/api/<release>.symbols.json (scripts/api-diff.py; reviewed breaks are listed
#    in docs/api/allowed-breaks.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
release=v0.2.0
commit=2f01e8add47eff3f64c6eb862567745e6b4a2681
build=(-c release -Xswiftc -enable-testing --build-path .build/test)

source scripts/module-flags.sh

if git rev-parse -q --verify "$release^{commit}" >/dev/null; then
    swift package "${build[@]}" diagnose-api-breaking-changes "$release" --products SweepKit --baseline-dir "$PWD/docs/api"
else
    echo "api-check: $release is not in this checkout; comparing with docs/api/$commit/SweepKit.json"
    report=$(swift-api-digester -diagnose-sdk -module SweepKit -baseline-path "docs/api/$commit/SweepKit.json" "${flags[@]}" 2>&1)
    breaks=$(grep -v -e '^$' -e '^/\*' <<<"$report" || true)
    if [ -n "$breaks" ]; then
        echo "API breakage in SweepKit against $release:"
        echo "$breaks"
        exit 1
    fi
    echo "No breaking changes detected in SweepKit"
fi

graph=$(mktemp -d)
trap 'rm -rf "$graph"' EXIT
scripts/symbol-graph.sh "$graph"
scripts/api-diff.py "docs/api/$release.symbols.json" "$graph/SweepKit.symbols.json" docs/api/allowed-breaks.txt

# Nothing public below SweepKit that SweepKit does not re-export.
scripts/public-surface.sh
