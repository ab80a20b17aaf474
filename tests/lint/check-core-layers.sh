#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# core/'s folders are layers. Each folder's CMakeLists.txt names the folders it may use (`DEPENDS ...` of
# rapid_core_folder); this check fails when those declarations form a cycle, when a file includes a header of a folder
# its folder does not declare, or when a private header (`*_p.h`) is included from another folder. Run from the
# project root; names every include that breaks a rule.
set -euo pipefail
declare -A allowed=()
for list in core/*/CMakeLists.txt; do
    folder=$(basename "$(dirname "$list")")
    allowed[$folder]=$(sed -nE 's/^\s*DEPENDS\s+(.*)$/\1/p' "$list" | tr '\n' ' ')
done
status=0

# The declared dependencies must be acyclic: peel off folders whose dependencies are all peeled.
declare -A peeled=()
while :; do
    progress=0
    for folder in "${!allowed[@]}"; do
        [[ -n ${peeled[$folder]+set} ]] && continue
        ready=1
        for dependency in ${allowed[$folder]}; do
            [[ -n ${peeled[$dependency]+set} ]] || ready=0
        done
        if [[ $ready -eq 1 ]]; then
            peeled[$folder]=1
            progress=1
        fi
    done
    [[ $progress -eq 1 ]] || break
done
for folder in "${!allowed[@]}"; do
    if [[ -z ${peeled[$folder]+set} ]]; then
        echo "core/$folder/CMakeLists.txt: its DEPENDS are part of a cycle (${allowed[$folder]})"
        status=1
    fi
done

for dir in core/*/; do
    folder=$(basename "$dir")
    if [[ -z ${allowed[$folder]+set} ]]; then
        echo "core/$folder: no CMakeLists.txt declaring it with rapid_core_folder"
        status=1
        continue
    fi
    while IFS=: read -r file line include; do
        target=$(sed -E 's/.*#include "([a-z]+)\/.*/\1/' <<< "$include")
        header=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<< "$include")
        [[ $target == "$folder" ]] && continue
        if [[ " ${allowed[$folder]} " != *" $target "* ]]; then
            echo "$file:$line: core/$folder may not include core/$target ($header): not in its DEPENDS"
            status=1
        fi
        if [[ $header == *_p.h ]]; then
            echo "$file:$line: private header $header used outside core/$target"
            status=1
        fi
    done < <(grep -rnE '#include "[a-z]+/' "$dir" --include=*.h --include=*.cpp || true)
done
if [[ $status -eq 0 ]]; then
    echo "core/ folders respect their layers (${#allowed[@]} folders, no cycle)"
fi
exit $status
