#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes what a `rapid` binary predicts for a fixed set of scenarios into a folder, so that two builds (before and
# after a refactoring) can be compared with compare-snapshots.py: `rapid validate`, `rapid run --json` for every run
# preset on a matching model and cluster (training and inference; TP/SP, CP, EP/MoE, ZeRO-1/3, interleaved pipelines,
# faults; analytical and congestion backends) and the Chakra traces of one training step and one inference request.
# Usage: tests/tools/behaviour-snapshot.sh RAPID_BINARY OUT_DIR   (run from the project root)
set -uo pipefail
rapid=$1
out=$2
mkdir -p "$out"
# Wall times and the checkout's path are not predictions: masked.
"$rapid" validate 2>&1 | sed -E '/evaluation time/d; s/ in [0-9.]+ s$/ in <t> s/; s|^(memory: [0-9]+ runs of ).*/shared/|\1<shared>/|' \
    > "$out/validate.txt"

scenarios=(
    "default|"
    "gpt3|--model gpt-3-175b --hardware dgx-a100 --run gpt-3-175b-train-1024 --set hardware.cluster.network[ib].size=128"
    "llama2-7b-uci|--model llama-2-7b --hardware hgx-a100-8gpu --run llama-2-7b-train-4xa100 --set run.parallelism.dp=8"
    "llama70b-64|--model llama-3.1-70b --hardware dgx-h100-superpod --run llama-3.1-70b-train-64"
    "llama70b-cp|--model llama-3.1-70b --hardware dgx-h100-superpod --run llama-3.1-70b-train-64 --set run.parallelism.cp=2 --set run.parallelism.dp=1"
    "llama70b-interleaved|--model llama-3.1-70b --hardware dgx-h100-superpod --run llama-3.1-70b-train-64 --set run.parallelism.schedule=interleaved --set run.parallelism.virtual_stages=2"
    "llama70b-zero1|--model llama-3.1-70b --hardware dgx-h100-superpod --run llama-3.1-70b-train-64 --set run.parallelism.zero_stage=1"
    "llama7b-zero3|--model llama-2-7b --hardware hgx-a100-8gpu --run llama-2-7b-train-4xa100 --set run.parallelism.dp=8 --set run.parallelism.tp=1 --set run.parallelism.pp=1 --set run.parallelism.zero_stage=3"
    "megatron-22b|--model megatron-gpt-22b --hardware dgx-a100 --run megatron-gpt-train --set run.parallelism.tp=8 --set run.parallelism.pp=1 --set run.parallelism.dp=8 --set run.training.global_batch=32"
    "mixtral-ep|--model mixtral-8x7b --hardware hgx-h100-8gpu --run llama-2-7b-train-4xa100 --set run.parallelism.tp=2 --set run.parallelism.dp=4 --set run.parallelism.ep=4 --set run.training.global_batch=32"
    "decode-1gpu|--model llama-3.1-8b --hardware a100-sxm4-80gb --run llama-3.1-8b-decode-1gpu"
    "serve-8xa100|--model llama-3.3-70b --hardware hgx-a100-8gpu --run llama-3.3-70b-serve-8xa100"
    "serve-pp2|--model llama-3.3-70b --hardware hgx-a100-8gpu --run llama-3.3-70b-serve-8xa100 --set run.parallelism.tp=4 --set run.parallelism.pp=2"
)
for entry in "${scenarios[@]}"; do
    name=${entry%%|*}
    read -r -a args <<< "${entry#*|}"
    "$rapid" run "${args[@]}" --json "$out/$name.json" > "$out/$name.txt" 2>&1
    echo "exit $?" >> "$out/$name.txt"
done
# The congestion backend on the training scenarios that finish in seconds.
for name in default llama2-7b-uci llama70b-64 llama70b-cp llama7b-zero3 mixtral-ep; do
    for entry in "${scenarios[@]}"; do
        [[ ${entry%%|*} == "$name" ]] || continue
        read -r -a args <<< "${entry#*|}"
        "$rapid" run "${args[@]}" --backend congestion --json "$out/$name-congestion.json" \
            > "$out/$name-congestion.txt" 2>&1
        echo "exit $?" >> "$out/$name-congestion.txt"
    done
done
"$rapid" run --chakra-out "$out/chakra-train" --chakra-detail layer > /dev/null 2>&1
"$rapid" run --model llama-3.3-70b --hardware hgx-a100-8gpu --run llama-3.3-70b-serve-8xa100 \
    --set run.parallelism.tp=4 --set run.parallelism.pp=2 --chakra-out "$out/chakra-serve" > /dev/null 2>&1
"$rapid" collective --hardware dgx-a100 --op allreduce --size 1GiB --backend congestion --json \
    "$out/collective.json" > "$out/collective.txt" 2>&1
echo "snapshot written to $out"
