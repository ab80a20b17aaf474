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
# Under the sanitizer build, LeakSanitizer reports Open MPI's own allocations that MPI_Finalize never frees (~120 kB
# in ~3,300 blocks, all in libmpi, libopen-pal and the MCA components it loads); rapid's code is checked for leaks by
# the single-process run above and every other test, so leak checking is off for the MPI processes only.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    "$mpiexec" --oversubscribe -x ASAN_OPTIONS -np 2 "$rapid" "${args[@]}" --json "$dir/two.json" >"$dir/two.txt"
grep -q "on 2 processes" "$dir/two.txt" || { echo "mpirun did not share the trials:"; cat "$dir/two.txt"; exit 1; }
cmp "$dir/one.json" "$dir/two.json"
echo "identical: $(wc -c <"$dir/one.json") bytes of JSON from 1 and 2 processes"
