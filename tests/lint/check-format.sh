#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Fails listing every C++ file of the project that clang-format (root .clang-format) would change.
set -euo pipefail
formatter=${1:-clang-format}
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.h' 2>/dev/null || find app core widgets tests -name '*.cpp' -o -name '*.h')
bad=0
for f in "${files[@]}"; do
    [[ -f "$f" ]] || continue
    if ! "$formatter" --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "not formatted: $f   (fix: $formatter -i --style=file $f)"
        bad=1
    fi
done
if [[ $bad -eq 0 ]]; then
    echo "all ${#files[@]} C++ files are formatted"
fi
exit $bad
