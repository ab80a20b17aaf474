#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Unseen check of long-context training on H100 (not a dataset of `rapid validate`; docs/calibration.md, "Misses").

NVIDIA's NeMo 24.12 documentation, "Long Sequence Performance" (docs.nvidia.com/nemo-framework/user-guide/24.12/
nemotoolkit/performance/performance_long_sequence.html), publishes the model TFLOP/s per GPU of Llama 2 7B pre-training
in FP8 on H100 at sequence lengths of 4K to 1M tokens, with the tensor-, pipeline-, data- and context-parallel split of
each run. The page does not give the global batch, the recomputation or the FLOP formula; this script fixes them:
- the FLOP count is NeMo's own (nemo/utils/flops_formulas.py, llama2: 12 + 12 groups/heads + 18 ffn/hidden +
  12 seq/hidden + 6 vocab/(layers hidden) times batch, sequence, layers and hidden squared: the attention counted
  without the causal half);
- four million tokens per step (the global batch the B200 table of the same page uses: 512 sequences of 8K);
- micro-batch 1, sequence parallelism with tp, Megatron-Core's TP comm overlap and overlapped gradient reduction,
  the distributed optimizer; the recomputation is the first argument (none, selective or full; default none).
It prints the model's TFLOP/s per GPU in NeMo's count against the published figure for each row.

usage: tests/tools/nemo-long-sequence-check.py [RECOMPUTE] [RAPID_BINARY]
       (defaults: none and build/ci/app/rapid)
"""
import json
import os
import subprocess
import sys
import tempfile

RECOMPUTE = sys.argv[1] if len(sys.argv) > 1 else "none"
RAPID = sys.argv[2] if len(sys.argv) > 2 else "build/ci/app/rapid"

# Sequence length in K tokens, GPUs, published TFLOP/s per GPU with the split given, tp, pp, dp, cp.
ROWS = [
    (4, 4, 768, 1, 1, 4, 1),
    (16, 16, 660, 2, 1, 8, 1),
    (32, 32, 610, 2, 1, 8, 2),
    (64, 64, 574, 4, 1, 8, 2),
    (128, 128, 555, 4, 1, 8, 4),
    (256, 256, 549, 4, 1, 8, 8),
]
HIDDEN, LAYERS, FFN, HEADS, GROUPS, VOCAB = 4096, 32, 11008, 32, 32, 32000
TOKENS_PER_STEP = 4 * 1024 * 1024


def nemo_flops_per_token(seq):
    """NeMo's llama2 formula for one token of a sequence of `seq` tokens (forward and backward)."""
    return LAYERS * HIDDEN * HIDDEN * (12 + 12 * GROUPS / HEADS + 18 * FFN / HIDDEN + 12 * seq / HIDDEN
                                       + 6 * VOCAB / (LAYERS * HIDDEN))


def modelled(seq, gpus, tp, pp, dp, cp):
    """The model's tokens per second per GPU, or an error message."""
    batch = max(dp, TOKENS_PER_STEP // seq)
    if gpus <= 8:
        hardware = ["--hardware", "hgx-h100-8gpu", "--set", f"hardware.cluster.gpus_per_node={gpus}",
                    "--set", f"hardware.cluster.network[nvlink].size={gpus}"]
    else:
        hardware = ["--hardware", "dgx-h100-superpod", "--set", f"hardware.cluster.network[ib].size={gpus // 8}"]
    split = (f"{{tp: {tp}, sp: {'true' if tp > 1 else 'false'}, pp: {pp}, dp: {dp}, cp: {cp}, zero_stage: 1, "
             f"tp_comm_overlap: true, dp_overlap: true, mapping: {{tp: nvlink}}}}")
    with tempfile.TemporaryDirectory() as directory:
        result = os.path.join(directory, "run.json")
        command = [RAPID, "run", "--model", "llama-2-7b", "--run", "megatron-gpt-train"] + hardware + [
            "--set", f"model.max_context={seq}",
            "--set", "run.precision={compute: fp8, weights: bf16, activations: bf16, gradients: fp32, optimizer: fp32}",
            "--set", "run.flash_attention=true", "--set", f"run.training.seq_length={seq}",
            "--set", "run.training.micro_batch=1", "--set", f"run.training.global_batch={batch}",
            "--set", f"run.training.recompute={RECOMPUTE}", "--set", "run.training.dropout=false",
            "--set", f"run.parallelism={split}", "--json", result]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            return run.stderr.strip()
        with open(result) as file:
            step = json.load(file)["step_time_s"]
    return batch * seq / step / gpus


def main():
    print(f"Llama 2 7B FP8 on H100, recompute {RECOMPUTE}: model TFLOP/s per GPU in NeMo's count")
    for seq_k, gpus, published, tp, pp, dp, cp in ROWS:
        seq = seq_k * 1024
        tokens = modelled(seq, gpus, tp, pp, dp, cp)
        if isinstance(tokens, str):
            print(f"  {seq_k}K: {tokens}")
            continue
        tflops = tokens * nemo_flops_per_token(seq) / 1e12
        print(f"  {seq_k:4d}K tp {tp} pp {pp} dp {dp} cp {cp}: {tflops:6.0f} against {published} "
              f"({(tflops - published) / published * 100:+.1f}%)")


if __name__ == "__main__":
    main()
