#!/usr/bin/env bash
# Fails when a module below SweepKit declares public what SweepKit does not re-export.
# `public` is SweepKit's surface: an app names only what Sources/SweepKit/Exports.swift lists,
# so any other top-level public declaration (a type, a free function, an extension of a type
# not listed) is a promise nobody can use; such declarations are `package`. The compiler
# already refuses a public signature that names a package type, so with this check every
# public signature names a type an app can name.
set -euo pipefail
cd "$(dirname "$0")/.."
exported=$(sed -nE 's/^@_exported import [a-z]+ [A-Za-z]+\.([A-Za-z0-9_]+)$/\1/p' Sources/SweepKit/Exports.swift)
bad=0
while IFS= read -r hit; do
    name=$(sed -E 's/^[^:]+:[0-9]+:.*public (final )?(struct|class|enum|protocol|typealias|actor|extension|func|var|let) ([A-Za-z0-9_]+).*/\3/' <<<"$hit")
    if ! grep -qx "$name" <<<"$exported"; then
        echo "$hit"
        bad=1
    fi
done < <(grep -rnE '^(@[A-Za-z]+ )*public (final )?(struct|class|enum|protocol|typealias|actor|extension|func|var|let) ' Sources \
    --include='*.swift' | grep -v '^Sources/SweepKit/' || true)
if [ "$bad" = 1 ]; then
    echo "public-surface: the declarations above are public but SweepKit does not re-export them: make them package, or list them in Sources/SweepKit/Exports.swift" >&2
    exit 1
fi
echo "public-surface: every public declaration below SweepKit is re-exported ($(wc -l <<<"$exported") types)"
