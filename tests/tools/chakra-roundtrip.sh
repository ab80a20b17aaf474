#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Re-measures the table of docs/chakra.md: for each scenario of the round-trip matrix (Llama-2-7B / Mixtral-8x7B on
# one HGX A100 node), each detail level and each backend, the step time of `rapid run --chakra-out` against the
# makespan of `rapid chakra simulate` replaying the traces it wrote, and the collectives the replay matched.
# A developer tool (tst_stepchakraexport checks the same matrix within 1% in CI).
# Usage: tests/tools/chakra-roundtrip.sh RAPID_BINARY
set -uo pipefail
rapid=$1
export RAPID_CONFIG_DIR=${RAPID_CONFIG_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../configs" && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
number() { grep -o "\"$1\": [0-9.e+-]*" | head -1 | awk '{ print $2 }'; }
# row NAME MODEL [--set ...]: a training step (step_time_s). With RUN=<run preset>, TIME=e2e_s and COLLECTIVES=custom: an inference
# request (end-to-end latency).
row() {
    local name=$1 model=$2
    shift 2
    for backend in analytical congestion; do
        for detail in chunk layer operator; do
            rm -rf "$work/traces"
            local run replay
            run=$("$rapid" run --model "$model" --hardware hgx-a100-8gpu --run "${RUN:-llama-2-7b-train-4xa100}" \
                "$@" --backend "$backend" --chakra-out "$work/traces" \
                --chakra-detail "$detail" --json - 2>/dev/null)
            # Training reduces with NCCL (run.parallelism.collectives), serving with the engines' own kernels.
            replay=$("$rapid" chakra simulate "$work/traces" --hardware hgx-a100-8gpu --backend "$backend" \
                --collectives "${COLLECTIVES:-nccl}" --json - 2>/dev/null)
            local step makespan collectives
            step=$(number "${TIME:-step_time_s}" <<<"$run")
            makespan=$(number makespan_s <<<"$replay")
            collectives=$(number collectives <<<"$replay")
            awk -v n="$name" -v b="$backend" -v d="$detail" -v s="$step" -v m="$makespan" -v c="$collectives" \
                'BEGIN { printf "| %s | %s | %s | %.4f | %.4f | %+.3f%% | %s |\n", n, b, d, s, m, (m / s - 1) * 100, c }'
        done
    done
}
echo "| scenario | backend | detail | rapid run (s) | replay (s) | difference | collectives |"
echo "|---|---|---|---|---|---|---|"
row "tp 4, sp, dp 2" llama-2-7b --set run.framework=megatron --set run.parallelism.tp=4 --set run.parallelism.dp=2 --set run.parallelism.sp=true \
    --set run.training.global_batch=8
row "tp 4, sp, tp_comm_overlap, dp 2" llama-2-7b --set run.framework=megatron --set run.parallelism.tp=4 --set run.parallelism.dp=2 \
    --set run.parallelism.sp=true --set run.parallelism.tp_comm_overlap=true --set run.training.global_batch=8
row "tp 2, pp 2 1F1B, dp 2" llama-2-7b --set run.framework=megatron --set run.parallelism.tp=2 --set run.parallelism.pp=2 --set run.parallelism.dp=2 \
    --set run.training.global_batch=16
row "tp 2, pp 4 interleaved x2" llama-2-7b --set run.framework=megatron --set run.parallelism.tp=2 --set run.parallelism.pp=4 \
    --set run.parallelism.schedule=interleaved --set run.parallelism.virtual_stages=2 --set run.parallelism.dp=1 \
    --set run.training.global_batch=8
row "dp 8, ZeRO-1" llama-2-7b --set run.framework=megatron --set run.parallelism.dp=8 --set run.parallelism.zero_stage=1 \
    --set run.training.global_batch=8
row "dp 8, ZeRO-2" llama-2-7b --set run.framework=megatron --set run.parallelism.dp=8 --set run.parallelism.zero_stage=2 \
    --set run.training.global_batch=8
row "dp 8, ZeRO-3 (DeepSpeed)" llama-2-7b --set run.framework=megatron --set run.parallelism.dp=8 --set run.parallelism.zero_stage=3 \
    --set run.framework=deepspeed --set run.training.global_batch=8
row "tp 2, dp 4, FSDP" llama-2-7b --set run.framework=megatron --set run.parallelism.tp=2 --set run.parallelism.dp=4 --set run.parallelism.fsdp=true \
    --set run.framework=pytorch-fsdp --set run.training.global_batch=8
row "dp 8, FSDP, dp_shard 2 (HSDP)" llama-2-7b --set run.framework=pytorch-fsdp --set run.parallelism.dp=8 \
    --set run.parallelism.fsdp=true --set run.parallelism.dp_shard=2 --set run.training.global_batch=8
row "cp 2, dp 4, ZeRO-1, dp_shard 2" llama-2-7b --set run.framework=megatron --set run.parallelism.cp=2 \
    --set run.parallelism.dp=4 --set run.parallelism.zero_stage=1 --set run.parallelism.dp_shard=2 \
    --set run.training.global_batch=4
row "cp 2, dp 4, ZeRO-1" llama-2-7b --set run.framework=megatron --set run.parallelism.cp=2 \
    --set run.parallelism.dp=4 --set run.parallelism.zero_stage=1 --set run.training.global_batch=4
row "tp 2, cp 2 all_gather, dp 2" llama-2-7b --set run.framework=megatron --set run.parallelism.tp=2 --set run.parallelism.cp=2 \
    --set run.parallelism.dp=2 --set run.parallelism.cp_comm=all_gather --set run.training.global_batch=4
row "tp 2, cp 2 a2a (Ulysses), dp 2" llama-2-7b --set run.framework=megatron --set run.parallelism.tp=2 --set run.parallelism.cp=2 \
    --set run.parallelism.dp=2 --set run.parallelism.cp_comm=a2a --set run.training.global_batch=4
row "cp 4 a2a+p2p (cp_a2a 2), dp 2, 4k" llama-2-7b --set run.framework=megatron --set run.parallelism.tp=1 \
    --set run.parallelism.cp=4 --set run.parallelism.dp=2 --set run.parallelism.cp_comm=a2a+p2p \
    --set run.parallelism.cp_a2a=2 --set run.training.seq_length=4096 --set run.training.global_batch=4
row "tp 2, cp 2, dp 2, 4k" llama-2-7b --set run.framework=megatron --set run.parallelism.tp=2 --set run.parallelism.cp=2 --set run.parallelism.dp=2 \
    --set run.training.seq_length=4096 --set run.training.global_batch=4
row "Mixtral, ep 8, dp 8" mixtral-8x7b --set run.framework=megatron --set run.parallelism.tp=1 --set run.parallelism.dp=8 --set run.parallelism.ep=8 \
    --set run.training.seq_length=1024 --set run.training.global_batch=8
row "Mixtral, tp 4, sp, ep 4, etp 2, dp 2" mixtral-8x7b --set run.framework=megatron --set run.parallelism.tp=4 \
    --set run.parallelism.sp=true --set run.parallelism.dp=2 --set run.parallelism.ep=4 --set run.parallelism.etp=2 \
    --set run.training.seq_length=1024 --set run.training.global_batch=8
RUN=llama-3.3-70b-serve-8xa100 TIME=e2e_s COLLECTIVES=custom row "inference tp 8, 200 + 32 tokens" llama-3.3-70b \
    --set run.parallelism.tp=8 --set run.parallelism.pp=1 --set 'run.parallelism.mapping={}' \
    --set run.inference.decode_length=32
RUN=llama-3.3-70b-serve-8xa100 TIME=e2e_s COLLECTIVES=custom row "inference tp 4, pp 2, 200 + 32 tokens" llama-3.3-70b \
    --set run.parallelism.tp=4 --set run.parallelism.pp=2 --set 'run.parallelism.mapping={}' \
    --set run.inference.decode_length=32
