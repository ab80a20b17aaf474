#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Trial of the nanotron benchmark's multi-node runs (not a dataset of `rapid validate`; docs/calibration.md, "Misses").

The benchmark file records, beside each run's tokens/s per GPU, the bus bandwidth of an all-reduce over all of the
run's GPUs, measured on the same allocation ("AllReduce (GB/s)"). This script takes that measurement as the only
description of the network between the nodes: the DGX H100 SuperPOD preset with its InfiniBand dimension resized to
the run's nodes and its per-rail link bandwidth scaled until the model's own all-reduce of 1 GiB over every GPU has
the measured bus bandwidth (the model's bus bandwidth is linear in that link rate once the rail is the bottleneck, as
it is for every measurement of the file). Everything else is the mapping `rapid validate --dataset nanotron` applies
to the single-node runs. It prints the mean absolute and median signed error by node count, pipeline depth and
tensor parallelism.

usage: tests/tools/nanotron-multinode-trial.py [RAPID_BINARY] [SHARED_DIR]
       (defaults: build/ci/app/rapid and ../shared)
"""
import csv
import os
import re
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

RAPID = sys.argv[1] if len(sys.argv) > 1 else "build/ci/app/rapid"
SHARED = sys.argv[2] if len(sys.argv) > 2 else "../shared"
HARDWARE = "dgx-h100-superpod"

# The benchmark's model sizes (core/validation/memorydataset.cpp, modelForSize): layers, hidden, heads, ffn, tied.
SHAPES = {
    "1.34G": (16, 2048, 32, 8192, True),
    "3.57G": (28, 3072, 32, 8192, True),
    "8.86G": (32, 4096, 32, 14336, False),
    "80G": (80, 8192, 64, 28672, False),
    "469G": (126, 16384, 128, 53248, False),
}
NAME = re.compile(r"^([0-9.]+G)_dp(\d+)_tp(\d+)_pp(\d+)_acc(\d+)_mbs(\d+)_seq(\d+)_zero(\d)_tpmode(RED|ALL)\w*?"
                  r"_vocab(\d+)k(?:_gqa(\d+))?$")


def bus_bandwidth_per_unit_link(nodes):
    """The model's all-reduce bus bandwidth over every GPU of `nodes` nodes when each rail link carries 1 GB/s."""
    out = subprocess.run([RAPID, "collective", "--hardware", HARDWARE,
                          "--set", f"hardware.cluster.network[ib].size={nodes}",
                          "--set", "hardware.cluster.network[ib].link_bandwidth_GBps=1",
                          "--op", "allreduce", "--bytes", "1GiB", "--ranks", f"0-{8 * nodes - 1}"],
                         capture_output=True, text=True, check=True).stdout
    return float(re.search(r"bus bandwidth\s+([\d.]+) GB/s", out).group(1))


def overrides(match, nodes, rail_gbps):
    size, dp, tp, pp, acc, mbs, seq, zero, mode, vocab, gqa = match.groups()
    layers, hidden, heads, ffn, tied = SHAPES[size]
    sequence_parallel = "true" if mode == "RED" and int(tp) > 1 else "false"
    # Tensor groups stay on NVLink where they fit in a node (as on one node); wider ones span the nodes too.
    mapping = ", mapping: {tp: nvlink}" if int(tp) <= 8 else ""
    return [
        "model.name=" + size, f"model.num_layers={layers}", f"model.hidden_size={hidden}",
        f"model.num_heads={heads}", f"model.num_kv_heads={gqa or heads}", f"model.head_dim={hidden // heads}",
        f"model.ffn_size={ffn}", f"model.vocab_size={131072 if vocab == '131' else int(vocab) * 1024}",
        f"model.tied_embeddings={'true' if tied else 'false'}", f"model.max_context={seq}",
        f"run.training.seq_length={seq}", f"run.training.micro_batch={mbs}",
        f"run.training.global_batch={int(mbs) * int(acc) * int(dp)}",
        f"run.parallelism={{dp: {dp}, tp: {tp}, sp: {sequence_parallel}, pp: {pp}, schedule: 1f1b, "
        f"zero_stage: {zero}{mapping}}}",
        f"hardware.cluster.network[ib].size={nodes}", f"hardware.cluster.network[ib].link_bandwidth_GBps={rail_gbps:g}",
    ]


def main():
    csv_path = f"{SHARED}/validation/memory/hf_nanotron_h100_bench.csv"
    for path, what in ((RAPID, "the rapid binary"), (csv_path, "the nanotron benchmark file")):
        if not os.path.isfile(path):
            sys.exit(f"nanotron-multinode-trial: {what} not found at {path}\n"
                     "usage: tests/tools/nanotron-multinode-trial.py [RAPID_BINARY] [SHARED_DIR]")
    with open(csv_path, newline="") as f:
        rows = [r for r in csv.DictReader(f)
                if r["status"] == "Success" and r["after_pp_fix"] == "True" and r["nodes"] != "1.0"]
    per_unit = {n: bus_bandwidth_per_unit_link(n) for n in sorted({int(float(r["nodes"])) for r in rows})}

    def predict(row):
        match = NAME.match(row["name"])
        if not match or match.group(1) not in SHAPES:
            return None
        dp, tp, pp = (int(match.group(i)) for i in (2, 3, 4))
        nodes = int(float(row["nodes"]))
        rail = float(row["AllReduce (GB/s)"]) / per_unit[nodes]
        command = [RAPID, "run", "--model", "llama-3.1-8b", "--hardware", HARDWARE, "--run", "nanotron-llama-train"]
        for item in overrides(match, nodes, rail):
            command += ["--set", item]
        out = subprocess.run(command, capture_output=True, text=True)
        step = re.search(r"step\s+[\d.e+-]+ s\s+\(([\d.e+]+) tokens/s", out.stdout)
        if not step:
            return (row["name"], nodes, None, pp, tp, out.stderr.strip().splitlines()[-1:])
        predicted = float(step.group(1)) / (dp * tp * pp)
        measured = float(row["tok/s/gpu"])
        return (row["name"], nodes, (predicted - measured) / measured * 100, pp, tp, None)

    with ThreadPoolExecutor(2) as pool:
        results = [r for r in pool.map(predict, rows) if r]
    modelled = [r for r in results if r[2] is not None]
    print(f"{len(rows)} completed multi-node runs after the pipeline fix; {len(modelled)} modelled, "
          f"{len(results) - len(modelled)} refused by the loader, {len(rows) - len(results)} without a preset shape")
    refusals = {}
    for name, _, _, _, _, why in results:
        if why is not None:
            message = why[0] if why else "no output"
            reason = message[message.rfind("run."):] if "run." in message else message
            refusals.setdefault(reason, []).append(name)
    for reason, names in refusals.items():
        print(f"  refused ({len(names)}): {reason}; e.g. {names[0]}")

    def report(label, errors):
        if errors:
            within = sum(abs(e) <= 15 for e in errors)
            print(f"{label:16s} {len(errors):4d} runs  mean abs. {statistics.mean(abs(e) for e in errors):6.1f}%  "
                  f"median {statistics.median(errors):+6.1f}%  within 15%: {within}")

    report("all", [r[2] for r in modelled])
    for nodes in sorted(per_unit):
        report(f"{nodes} nodes", [r[2] for r in modelled if r[1] == nodes])
    report("pp 1", [r[2] for r in modelled if r[3] == 1])
    report("pp > 1", [r[2] for r in modelled if r[3] > 1])
    report("tp 1", [r[2] for r in modelled if r[4] == 1])
    report("tp > 1", [r[2] for r in modelled if r[4] > 1])
    report("tp 1, pp 1", [r[2] for r in modelled if r[3] == 1 and r[4] == 1])


if __name__ == "__main__":
    main()
