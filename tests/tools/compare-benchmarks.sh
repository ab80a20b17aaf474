#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Times the benchmarks of two builds side by side: old and new binaries alternate, ROUNDS rounds each, so both see
# the same machine load. Prints each benchmark's timing lines (QTest's per-iteration figures and the QINFO lines
# with wall times). A developer tool: CI does not run it.
# Usage: tests/tools/compare-benchmarks.sh OLD_BUILD_DIR NEW_BUILD_DIR [ROUNDS] [BENCHMARKS...]
#   e.g. tests/tools/compare-benchmarks.sh ../old/build build/ci 3 bench_stepmodel bench_sweep bench_congestion
set -uo pipefail
old=$1
new=$2
rounds=${3:-3}
shift $(( $# >= 3 ? 3 : $# ))
benchmarks=("$@")
[[ ${#benchmarks[@]} -gt 0 ]] || benchmarks=(bench_stepmodel bench_sweep bench_congestion)
configs=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../configs" && pwd)
for ((round = 1; round <= rounds; ++round)); do
    for side in old new; do
        build=${!side}
        for bench in "${benchmarks[@]}"; do
            echo "== round $round, $side ($build): $bench"
            (cd "$build/tests/benchmarks" && QT_QPA_PLATFORM=offscreen RAPID_CONFIG_DIR=$configs "./$bench" 2>&1 \
                | grep -E "msecs per iteration|QINFO" | cut -c1-240)
        done
    done
done
