#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Fails listing every C++ file of the project that clang-format (root .clang-format) would change.
# Files go to clang-format in batches on every core: one process per file took 80-110 s of CI's 2 cores, close to the
# test's timeout, and grew with the code.
set -euo pipefail
formatter=${1:-clang-format}
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
mapfile -t listed < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.h' 2>/dev/null || find app core widgets tests -name '*.cpp' -o -name '*.h')
files=()
for f in "${listed[@]}"; do
    [[ -f "$f" ]] && files+=("$f")
done
jobs=$(nproc 2>/dev/null || echo 2)
status=0
report=$(printf '%s\0' "${files[@]}" \
    | xargs -0 -n 48 -P "$jobs" "$formatter" --style=file --dry-run -Werror 2>&1 >/dev/null) || status=$?
if [[ $status -eq 0 ]]; then
    echo "all ${#files[@]} C++ files are formatted"
    exit 0
fi
# clang-format names each violation "<file>:<line>:<column>: error: code should be clang-formatted".
mapfile -t bad < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error: code should be clang-formatted' <<<"$report" | cut -d: -f1 | sort -u)
if [[ ${#bad[@]} -eq 0 ]]; then
    echo "clang-format failed:"
    echo "$report"
    exit 1
fi
for f in "${bad[@]}"; do
    echo "not formatted: $f   (fix: $formatter -i --style=file $f)"
done
exit 1
