#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# rapid resilience under `mpirun -np 2` gives byte-identical JSON to one process: trial i's draw depends on i alone,
# the step times are gathered on rank 0 in trial order. Usage: resilience-mpi.sh RAPID MPIEXEC
set -euo pipefail
rapid=$1
mpiexec=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args=(resilience --backend analytical --faulty-links 1,3 --health 0,0.5 --trials 24 --seed 7 --threads 1)
"$rapid" "${args[@]}" --json "$dir/one.json" >/dev/null
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    "$mpiexec" --oversubscribe -np 2 "$rapid" "${args[@]}" --json "$dir/two.json" >"$dir/two.txt"
grep -q "on 2 processes" "$dir/two.txt" || { echo "mpirun did not share the trials:"; cat "$dir/two.txt"; exit 1; }
cmp "$dir/one.json" "$dir/two.json"
echo "identical: $(wc -c <"$dir/one.json") bytes of JSON from 1 and 2 processes"
