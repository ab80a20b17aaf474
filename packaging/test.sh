#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The README's second command (and CI's): install what is missing, build with warnings as errors, run every test
# (unit, gui, validation, lint; benchmarks excluded), then build core and its tests under ASan+UBSan and run those.
# RAPID_SKIP_ASAN=1 skips the sanitizer stage for a quicker local run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash packaging/install-deps.sh
jobs=$(nproc)

echo "== build (ci preset: warnings are errors)"
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$jobs"
echo "== tests"
(cd build/ci && ctest --output-on-failure --no-tests=error -LE "bench|fuzz-long" -j "$jobs")

if [[ "${RAPID_SKIP_ASAN:-0}" != "1" ]]; then
    echo "== core under AddressSanitizer + UndefinedBehaviorSanitizer"
    # Line tables only (-g1): the sanitizers' reports still name function, file and line, and the tree is far smaller
    # than with full debug information (each test links the core libraries statically).
    cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DRAPID_SANITIZE=ON \
        -DRAPID_WARNINGS_AS_ERRORS=ON -DRAPID_BUILD_GUI=OFF >/dev/null
    cmake --build build/asan -j "$jobs"
    (cd build/asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --output-on-failure --no-tests=error -L "^(unit|fuzz|validation)$" -j "$jobs")
fi
