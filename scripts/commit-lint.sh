#!/usr/bin/env bash
# Checks the subjects of the commits made after a fixed base commit (older history is not
# judged): each subject is at most 72 characters, starts with a capital letter and does not
# end with a period (CONTRIBUTING.md). Prints every offender and exits 1 when there is one.
#
# Usage: scripts/commit-lint.sh [REV]   (REV: the last commit to check, default HEAD)
set -euo pipefail
cd "$(dirname "$0")/.."
# The main branch's tip when the rule was adopted.
base=172ba1db55f88dc3f2c11c68b119de3517d3a88e
head=${1:-HEAD}

if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
    echo "commit-lint: the base commit $base is not in this clone (a shallow clone? fetch with --unshallow or a greater --depth)" >&2
    exit 1
fi
if ! git merge-base --is-ancestor "$base" "$head"; then
    echo "commit-lint: the base commit $base is not an ancestor of $head; update the base in scripts/commit-lint.sh if history was rewritten" >&2
    exit 1
fi

export LC_ALL=C.UTF-8
bad=0
checked=0
while IFS=$'\t' read -r hash subject; do
    checked=$((checked + 1))
    problems=()
    # Characters, not bytes: "×" or "é" count once.
    (( ${#subject} > 72 )) && problems+=("${#subject} characters (at most 72)")
    [[ $subject == *. ]] && problems+=("ends with a period")
    [[ $subject =~ ^[[:upper:]] ]] || problems+=("does not start with a capital letter")
    if (( ${#problems[@]} )); then
        bad=$((bad + 1))
        printf '%s %s\n' "${hash:0:10}" "$subject"
        printf '    %s\n' "${problems[@]}"
    fi
done < <(git log --format='%H%x09%s' "$base..$head")

if (( bad )); then
    echo "commit-lint: $bad of $checked commit subjects after ${base:0:10} break the rules in CONTRIBUTING.md" >&2
    exit 1
fi
echo "commit-lint: $checked commit subjects after ${base:0:10} follow CONTRIBUTING.md"
