#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every malformed program in DIR must make ns3-flowreplay exit with status 2 and print the text of the program's
# "# expect-error: " comment (which names the file and the line) on standard error.
# usage: check-errors.sh NS3_FLOWREPLAY DIR
set -uo pipefail
replay=$1
dir=$2
failures=0
count=0
for program in "$dir"/*.txt; do
    count=$((count + 1))
    expected=$(sed -n 's/^# expect-error: //p' "$program")
    if [[ -z "$expected" ]]; then
        echo "FAIL $program: no '# expect-error: ' comment"
        failures=$((failures + 1))
        continue
    fi
    stderr=$("$replay" "$program" 2>&1 >/dev/null)
    status=$?
    if [[ $status -ne 2 || "$stderr" != *"$expected"* ]]; then
        echo "FAIL $(basename "$program"): exit $status, expected 2 and a message containing"
        echo "       $expected"
        echo "     got"
        echo "       $stderr"
        failures=$((failures + 1))
    else
        echo "ok   $(basename "$program"): $stderr"
    fi
done
if [[ $count -eq 0 ]]; then
    echo "no program in $dir"
    exit 1
fi
echo "$((count - failures)) of $count malformed programs rejected as expected"
[[ $failures -eq 0 ]]
