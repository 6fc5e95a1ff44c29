#!/usr/bin/env bash
# Writes SweepKit's symbol graph to OUTDIR/SweepKit.symbols.json: what `import SweepKit` gives
# an app, the types it re-exports included. The one way both `make docs` (DocC) and
# `make api-check` (against the release's graph in docs/api) get it: extracted from the
# module the tests build, so neither builds the package again.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/symbol-graph.sh OUTDIR}
source scripts/module-flags.sh
mkdir -p "$out"
swift-symbolgraph-extract -module-name SweepKit -target "$(uname -m)-unknown-linux-gnu" -output-dir "$out" \
    -experimental-allowed-reexported-modules=SweepImaging,SweepTimeline,SweepPipeline,SweepMedia,SweepSupport,SweepWorker "${flags[@]}"
