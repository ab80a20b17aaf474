#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The folders of core/ form layers: each may include only the folders listed for it below (and itself), so the
# dependency graph has no cycle and the architecture in core/README.md stays true. A private header (`*_p.h`) may only
# be included from its own folder. Run from the project root; names every include that breaks a rule.
set -euo pipefail
declare -A allowed=(
    [config]=""
    [model]="config"
    [network]="config"
    [compute]="config model"
    [parallel]="config model network"
    [memory]="config model parallel"
    [graph]="config parallel"
    [report]="config graph memory"
    [sim]="config model network compute parallel memory graph report"
    [sweep]="config model network compute parallel memory graph report sim"
    [validation]="config model network compute parallel memory graph report sim"
    [analysis]="config model network compute parallel memory graph report sim"
)
status=0
for dir in core/*/; do
    folder=$(basename "$dir")
    if [[ -z ${allowed[$folder]+set} ]]; then
        echo "core/$folder: not in the layer table of tests/lint/check-core-layers.sh (add it with its dependencies)"
        status=1
        continue
    fi
    while IFS=: read -r file line include; do
        target=$(sed -E 's/.*#include "([a-z]+)\/.*/\1/' <<< "$include")
        header=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<< "$include")
        if [[ $target != "$folder" && " ${allowed[$folder]} " != *" $target "* ]]; then
            echo "$file:$line: core/$folder may not include core/$target ($header)"
            status=1
        fi
        if [[ $target != "$folder" && $header == *_p.h ]]; then
            echo "$file:$line: private header $header used outside core/$target"
            status=1
        fi
    done < <(grep -rnE '#include "[a-z]+/' "$dir" --include=*.h --include=*.cpp || true)
done
if [[ $status -eq 0 ]]; then
    echo "core/ folders respect their layers"
fi
exit $status
