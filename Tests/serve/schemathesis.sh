#!/usr/bin/env bash
# Runs schemathesis (PyPI) against a fresh `sweep serve`: every operation of
# /v1/openapi.json, a bounded number of examples, every check but positive_data_acceptance
# (the schema states each value's range and words, from the option table, but not the rules
# between values, e.g. an end after the start or a codec the extension holds, nor a number
# given as a string, so a "valid" random spec may be refused with 400, as it should be). A
# value out of its stated range must be refused (negative_data_rejection); no 5xx, and every
# response must match the schema.
#
# One worker: with two, hypothesis describes strategies with ast.parse from two threads, and
# CPython before 3.11.8 can fail that with "SystemError: AST constructor recursion depth
# mismatch" (CPython gh-106905), which failed a CI run on 3.11.7.
#
# Usage: Tests/serve/schemathesis.sh [path/to/sweep] [max examples per operation]
# Tests/browser/run.sh (so `make test` and CI) runs it with 8 examples, in the browser tests'
# virtual environment (VENV), deterministic, capped at SCHEMATHESIS_TIMEOUT seconds (240).
set -euo pipefail
cd "$(dirname "$0")/../.."
SWEEP=${1:-.build/test/release/sweep}
EXAMPLES=${2:-30}
VENV=${VENV:-.build/schemathesis-venv}
if [ ! -x "$VENV/bin/schemathesis" ] || ! cmp -s Tests/browser/requirements.txt "$VENV/requirements.txt"; then
  python3 -m venv --clear "$VENV"
  "$VENV/bin/pip" install -q -r Tests/browser/requirements.txt
  cp Tests/browser/requirements.txt "$VENV/requirements.txt"
fi
VENV=$(cd "$VENV" && pwd)
STORE=$(mktemp -d)
OUT=$(mktemp)
# schemathesis keeps a cache (.schemathesis/) in its working folder: a scratch one, so that
# a run leaves the checkout as it was.
WORK=$(mktemp -d)
"$SWEEP" serve --port 0 --store "$STORE" --jobs 2 >"$OUT" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$STORE" "$OUT" "$WORK"' EXIT
for _ in $(seq 100); do grep -q "listening on" "$OUT" && break; sleep 0.1; done
URL=$(sed -n 's/^listening on //p' "$OUT")
cd "$WORK"
timeout "${SCHEMATHESIS_TIMEOUT:-240}" "$VENV/bin/schemathesis" run "$URL/v1/openapi.json" --url "$URL" --checks all \
    --exclude-checks positive_data_acceptance --max-examples "$EXAMPLES" --workers 1 --generation-deterministic
