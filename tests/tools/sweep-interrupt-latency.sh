#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Measures how fast `rapid sweep` stops on SIGINT: a 998,976-point sweep (the largest rapid accepts is 10^6) of the default workspace (every tp/pp/dp
# split of 64 GPUs x 4 micro-batches x 3 recompute modes x 4 sequence lengths x 946 global batches) streaming to a
# CSV, sent SIGINT after 2, 4, ... seconds (ROUNDS times, so the signal lands at different points of the work).
# For each round: the time from the signal to the process's exit, the exit code (expected 130), the rows written,
# whether the CSV ends with the "# interrupted" line, and the peak resident memory (/usr/bin/time, when installed).
# A developer tool: CI does not run it (tst_sweepinterrupt checks the behaviour).
# Usage: tests/tools/sweep-interrupt-latency.sh RAPID_BINARY [ROUNDS]
set -uo pipefail
rapid=$1
rounds=${2:-5}
configs=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../configs" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
timer=()
[[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f "%M" -o "$work/rss")
printf '%-6s %-10s %-12s %-5s %-12s %-12s %s\n' round signal_s latency_ms exit rows interrupted peak_rss_MB
for ((round = 1; round <= rounds; ++round)); do
    wait_s=$((2 * round))
    # set -m gives the job its own process group, so the test's own shell never sees the signal.
    set -m
    RAPID_CONFIG_DIR=$configs "${timer[@]}" "$rapid" sweep --set 'run.parallelism.mapping={}' --splits tp,pp,dp \
        --vary run.training.micro_batch=1..8:x2 --vary run.training.recompute=none,selective,full \
        --vary run.training.seq_length=1024..8192:x2 --vary run.training.global_batch=64..1009 \
        --csv "$work/sweep.csv" >/dev/null 2>"$work/err" &
    job=$!
    set +m
    sleep "$wait_s"
    # /usr/bin/time forwards nothing: signal rapid itself (the child of time, or the job when time is absent).
    target=$(pgrep -P "$job" -x rapid || echo "$job")
    sent=$(date +%s.%N)
    kill -INT "$target"
    wait "$job"
    code=$?
    if [[ $code -ne 130 && $code -ne 0 ]] && ! grep -q interrupted "$work/err"; then
        echo "rapid sweep failed (exit $code):" >&2
        cat "$work/err" >&2
        exit 1
    fi
    done_at=$(date +%s.%N)
    latency=$(awk -v a="$sent" -v b="$done_at" 'BEGIN { printf "%.0f", (b - a) * 1000 }')
    rows=$(grep -vc '^#' "$work/sweep.csv")
    interrupted=$(tail -n 1 "$work/sweep.csv" | grep -q '^# interrupted' && echo yes || echo no)
    rss=$([[ -s "$work/rss" ]] && tail -n 1 "$work/rss" | awk '{ printf "%.1f", $1 / 1024 }' || echo "-")
    printf '%-6s %-10s %-12s %-5s %-12s %-12s %s\n' "$round" "$wait_s" "$latency" "$code" "$((rows - 1))" \
        "$interrupted" "$rss"
done
