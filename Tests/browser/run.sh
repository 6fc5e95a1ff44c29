#!/usr/bin/env bash
# The interactive page and the studio (sweep serve's /) in a real browser: Debian's chromium driven by Playwright (PyPI) in a
# virtual environment under .build, pages rendered by the sweep binary from the test
# fixtures. Playwright's own browser download is skipped: the tests launch the system
# chromium through executable_path. `make test` runs this after `swift test`.
set -euo pipefail
cd "$(dirname "$0")/../.."
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
missing=""
command -v chromium >/dev/null || missing="$missing chromium"
python3 -c "import ensurepip" 2>/dev/null || missing="$missing python3-venv"
if [ -n "$missing" ]; then
  echo "installing:$missing"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
VENV=.build/browser-venv
# The venv is (re)made when its pinned list differs from Tests/browser/requirements.txt.
if [ ! -x "$VENV/bin/pytest" ] || ! cmp -s Tests/browser/requirements.txt "$VENV/requirements.txt"; then
  python3 -m venv --clear "$VENV"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$VENV/bin/pip" install -q -r Tests/browser/requirements.txt
  cp Tests/browser/requirements.txt "$VENV/requirements.txt"
fi
# `make test` passes the binary it built (SWEEP_BIN); run alone, this builds the debug one.
if [ -z "${SWEEP_BIN:-}" ]; then
  swift build --product sweep
  SWEEP_BIN="$PWD/.build/debug/sweep"
fi
rm -f .build/browser-report.txt
status=0
SWEEP_BIN="$SWEEP_BIN" "$VENV/bin/pytest" -q -p no:cacheprovider Tests/browser "$@" || status=$?
if [ -f .build/browser-report.txt ]; then cat .build/browser-report.txt; fi
# The API against its OpenAPI document (schemathesis from the same venv): 8 examples per
# operation, deterministic, at most 4 minutes; no 5xx, every response as the schema says.
# SWEEP_SKIP_SCHEMATHESIS=1 leaves it out (e.g. while iterating on the browser tests alone).
if [ -z "${SWEEP_SKIP_SCHEMATHESIS:-}" ]; then
  VENV="$VENV" Tests/serve/schemathesis.sh "$SWEEP_BIN" 8 || status=$?
fi
exit $status
