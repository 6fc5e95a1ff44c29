#!/usr/bin/env bash
# Fails when SweepKit's public API breaks what the last release offered.
#
# The release's API is kept in docs/api/<commit>/SweepKit.json (made by `swift package
# diagnose-api-breaking-changes --regenerate-baseline` at the release tag), so the check never
# rebuilds the old release. With the tag in the checkout, SwiftPM compares (against that
# file); in a checkout without history (a shallow CI clone) swift-api-digester compares the
# built module with the same file directly.
set -euo pipefail
cd "$(dirname "$0")/.."
release=v0.2.0
commit=2f01e8add47eff3f64c6eb862567745e6b4a2681
build=(-c release -Xswiftc -enable-testing --build-path .build/test)

if git rev-parse -q --verify "$release^{commit}" >/dev/null; then
    swift package "${build[@]}" diagnose-api-breaking-changes "$release" --products SweepKit --baseline-dir "$PWD/docs/api"
    exit
fi
echo "api-check: $release is not in this checkout; comparing with docs/api/$commit/SweepKit.json"
swift build "${build[@]}" --target SweepKit
flags=(-I .build/test/release/Modules)
for map in Sources/C*/module.modulemap; do flags+=(-Xcc "-fmodule-map-file=$PWD/$map"); done
for dir in $(pkg-config --cflags-only-I pangocairo libheif libwebpdemux libavformat); do flags+=(-Xcc "$dir"); done
report=$(swift-api-digester -diagnose-sdk -module SweepKit -baseline-path "docs/api/$commit/SweepKit.json" "${flags[@]}" 2>&1)
breaks=$(grep -v -e '^$' -e '^/\*' <<<"$report" || true)
if [ -n "$breaks" ]; then
    echo "API breakage in SweepKit against $release:"
    echo "$breaks"
    exit 1
fi
echo "No breaking changes detected in SweepKit"
