#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Flow-level simulator against ns-3: for every case of CASES (see cases/cases.txt), `rapid collective --backend
# congestion --flow-program F --json J` simulates one collective and writes its flows, ns3-flowreplay replays F at
# packet level, and the two completion times must agree within the case's tolerance.
#
# usage: compare.sh RAPID NS3_FLOWREPLAY CASES [CASE_NAME...]     (names: run only those cases)
# Exit: 0 all agree, 1 a case disagrees or fails, 77 skipped (rapid missing or without --flow-program).
set -uo pipefail

if [[ $# -lt 3 ]]; then
    echo "usage: $0 RAPID NS3_FLOWREPLAY CASES [CASE_NAME...]" >&2
    exit 2
fi
rapid=$1
replay=$2
cases=$3
shift 3
only=("$@")
case_dir=$(cd "$(dirname "$cases")" && pwd)

if [[ ! -x "$rapid" ]]; then
    echo "SKIPPED: $rapid does not exist (build the rapid target first); nothing to compare"
    exit 77
fi
help=$("$rapid" collective --help 2>&1)
if ! grep -q -- '--flow-program' <<<"$help"; then
    echo "SKIPPED: 'rapid collective' has no --flow-program option yet; nothing to compare"
    exit 77
fi
backend=()
if grep -q -- '--backend' <<<"$help"; then
    backend=(--backend congestion)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ns3-compare.XXXXXX")

# First number after "key": in a JSON file (no JSON parser needed for these flat outputs).
json_number() {
    grep -o "\"$1\"[[:space:]]*:[[:space:]]*[-+0-9.eE]*" "$2" | head -n 1 | sed 's/.*:[[:space:]]*//'
}

printf '%-26s %14s %14s %8s %7s %9s %12s\n' case flow_model_us ns3_us error limit ns3_wall events/s
failures=0
count=0
while read -r name hardware op bytes tolerance extra; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    if [[ ${#only[@]} -gt 0 ]] && [[ ! " ${only[*]} " == *" $name "* ]]; then
        continue
    fi
    count=$((count + 1))
    program="$work/$name.txt"
    rapid_json="$work/$name.rapid.json"
    replay_json="$work/$name.ns3.json"
    # shellcheck disable=SC2086 # extra arguments are meant to split
    if ! "$rapid" collective --hardware "$case_dir/$hardware" --op "$op" --bytes "$bytes" "${backend[@]}" \
        --flow-program "$program" --json "$rapid_json" $extra >"$work/$name.rapid.out" 2>&1; then
        echo "FAIL $name: rapid collective failed:"
        cat "$work/$name.rapid.out"
        failures=$((failures + 1))
        continue
    fi
    # The collective's completion: "seconds" (or "time_s"), not "makespan_s", which is the simulator's last event.
    flow_seconds=$(json_number seconds "$rapid_json")
    [[ -z "$flow_seconds" ]] && flow_seconds=$(json_number time_s "$rapid_json")
    if [[ -z "$flow_seconds" ]]; then
        echo "FAIL $name: no \"seconds\" or \"time_s\" in $rapid_json"
        failures=$((failures + 1))
        continue
    fi
    if ! "$replay" "$program" --json >"$replay_json" 2>"$work/$name.ns3.err"; then
        echo "FAIL $name: ns3-flowreplay failed:"
        cat "$work/$name.ns3.err"
        failures=$((failures + 1))
        continue
    fi
    ns3_ns=$(json_number completion_ns "$replay_json")
    wall=$(json_number wall_seconds "$replay_json")
    rate=$(json_number events_per_second "$replay_json")
    verdict=$(awk -v flow="$flow_seconds" -v ns3="$ns3_ns" -v limit="$tolerance" -v wall="$wall" -v rate="$rate" \
        -v name="$name" 'BEGIN {
            error = (flow * 1e9 - ns3) / ns3 * 100
            ok = (error <= limit && error >= -limit)
            printf "%-26s %14.3f %14.3f %+7.2f%% %6s%% %8.1fs %12.0f %s\n", name, flow * 1e6, ns3 / 1e3, error, limit,
                wall, rate, ok ? "" : "  <-- DISAGREE"
            exit ok ? 0 : 1
        }')
    status=$?
    echo "$verdict"
    if [[ $status -ne 0 ]]; then
        failures=$((failures + 1))
    fi
done <"$cases"

if [[ $count -eq 0 ]]; then
    echo "no case matched"
    rm -rf "$work"
    exit 1
fi
if [[ $failures -gt 0 ]]; then
    echo "$failures of $count cases failed; programs and outputs kept in $work"
    exit 1
fi
rm -rf "$work"
echo "all $count cases agree"
