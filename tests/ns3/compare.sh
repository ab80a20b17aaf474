#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# rapid's simulators against ns-3: for every case of CASES (see cases/cases.txt), `rapid collective --backend
# congestion --flow-program F` simulates one collective with the flow-level model and writes its flows, `rapid
# collective --backend packet` simulates the same flows packet by packet, ns3-flowreplay replays F at packet level,
# and each of rapid's completion times must agree with ns-3's within the case's tolerance for that model.
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

# The packet backend's packets are ns-3's: a 9,000-byte MTU carries 8,960 payload bytes after 40 bytes of TCP/IP
# header, and the point-to-point link adds 2 bytes (the cases' --packet-bytes 9002B is the size on the wire).
packet_header=42B

# Completion of rapid's run: "seconds" (or "time_s"), not "makespan_s", which is the simulator's last event.
rapid_seconds() {
    local seconds
    seconds=$(json_number seconds "$1")
    [[ -z "$seconds" ]] && seconds=$(json_number time_s "$1")
    echo "$seconds"
}

printf '%-26s %12s %12s %12s %8s %6s %8s %6s %9s %12s\n' case flow_us packet_us ns3_us flow_err limit \
    packet_err limit ns3_wall events/s
failures=0
count=0
while read -r name hardware op bytes flow_tolerance packet_tolerance extra; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    if [[ ${#only[@]} -gt 0 ]] && [[ ! " ${only[*]} " == *" $name "* ]]; then
        continue
    fi
    count=$((count + 1))
    program="$work/$name.txt"
    flow_json="$work/$name.flow.json"
    packet_json="$work/$name.packet.json"
    replay_json="$work/$name.ns3.json"
    # shellcheck disable=SC2086 # extra arguments are meant to split
    if ! "$rapid" collective --hardware "$case_dir/$hardware" --op "$op" --bytes "$bytes" "${backend[@]}" \
        --flow-program "$program" --json "$flow_json" $extra >"$work/$name.flow.out" 2>&1; then
        echo "FAIL $name: rapid collective failed:"
        cat "$work/$name.flow.out"
        failures=$((failures + 1))
        continue
    fi
    packet_seconds=""
    if [[ "$packet_tolerance" != "-" ]]; then
        # shellcheck disable=SC2086
        if ! "$rapid" collective --hardware "$case_dir/$hardware" --op "$op" --bytes "$bytes" --backend packet \
            --header-bytes "$packet_header" --json "$packet_json" $extra >"$work/$name.packet.out" 2>&1; then
            echo "FAIL $name: rapid collective --backend packet failed:"
            cat "$work/$name.packet.out"
            failures=$((failures + 1))
            continue
        fi
        packet_seconds=$(rapid_seconds "$packet_json")
    fi
    flow_seconds=$(rapid_seconds "$flow_json")
    if [[ -z "$flow_seconds" || ("$packet_tolerance" != "-" && -z "$packet_seconds") ]]; then
        echo "FAIL $name: no \"seconds\" or \"time_s\" in rapid's JSON ($work)"
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
    verdict=$(awk -v flow="$flow_seconds" -v packet="${packet_seconds:--1}" -v ns3="$ns3_ns" \
        -v flow_limit="$flow_tolerance" -v packet_limit="$packet_tolerance" -v wall="$wall" -v rate="$rate" \
        -v name="$name" 'BEGIN {
            flow_error = (flow * 1e9 - ns3) / ns3 * 100
            ok = (flow_error <= flow_limit && flow_error >= -flow_limit)
            if (packet >= 0) {
                packet_error = (packet * 1e9 - ns3) / ns3 * 100
                ok = ok && (packet_error <= packet_limit && packet_error >= -packet_limit)
                packet_text = sprintf("%12.3f", packet * 1e6)
                packet_error_text = sprintf("%+7.2f%% %5s%%", packet_error, packet_limit)
            } else {
                packet_text = sprintf("%12s", "-")
                packet_error_text = sprintf("%8s %6s", "-", "-")
            }
            printf "%-26s %12.3f %s %12.3f %+7.2f%% %5s%% %s %8.1fs %12.0f %s\n", name, flow * 1e6, packet_text,
                ns3 / 1e3, flow_error, flow_limit, packet_error_text, wall, rate, ok ? "" : "  <-- DISAGREE"
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
