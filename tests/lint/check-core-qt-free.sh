#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# core/ is Qt-free: its target does not link Qt, and this check names any stray include before the compiler does.
set -euo pipefail
if grep -rnE '#\s*include\s*[<"](Q[A-Za-z]+|Qt[A-Za-z]*/)' core/; then
    echo "core/ must not include Qt headers (see core/README.md)"
    exit 1
fi
echo "core/ includes no Qt header"
