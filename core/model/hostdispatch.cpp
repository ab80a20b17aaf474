// SPDX-License-Identifier: GPL-3.0-or-later
#include "hostdispatch.h"

#include <array>

namespace rapid::model {

namespace {

// Calls of nanotron's LlamaDecoderLayer (src/nanotron/models/llama.py and the tensor-parallel modules it uses,
// parallel/tensor_parallel/{nn,functional,distributed_differentiable_primitives}.py; nanotron main 9055c664,
// 2025-01, the same code as the Ultra-Scale Playbook's benchmark branch) in REDUCE_SCATTER mode with
// tp_linear_async_communication, counted from the source: the forward's RMSNorms (flash-attn's Triton layer_norm_fn
// behind @triton.autotune), the column-parallel QKV and gate-up linears (an asynchronous all-gather, then the local
// and the remaining shards' matmuls), the rotary embedding (Triton), the cu_seqlens built on the GPU, flash-attn's
// varlen kernel, the row-parallel output and down projections (matmul, then a reduce-scatter) and the residual adds;
// the backward's autograd nodes for them. No call in the layer makes the host wait for the GPU (no .item(), .cpu()
// or synchronize; handle.wait() only orders streams), so the host runs ahead until it is the slower side.
//
// Per-call host costs, published:
// - an ATen call that launches nothing (view, reshape, allocation): 3 us; PyTorch's own overrides benchmark
//   (benchmarks/overrides_benchmark/README.md) puts the Python-to-ATen call at about 2 us;
// - an ATen op that launches a kernel, with autograd recording: 10 us; pytorch/pytorch#41383 (2020) measures 7 us
//   for `2 * x` with requires_grad on a CPU tensor, and cuLaunchKernel itself takes 3.5 us (JuliaGPU/CUDA.jl#2162,
//   2023: 3.48 +- 0.62 us);
// - a Triton kernel launched from Python: 45 us; triton-lang/triton#1431 (2023, the Triton of PyTorch 2.1, which the
//   benchmark ran) measured 42 us with that change and 55 us without on its CI host; #3503 (2024) 40-62 us for the
//   Triton shipped with PyTorch 2.2;
// - a custom autograd.Function's apply: 12 us, between the 8.3 us (few arguments, H200 host) and 17 us (13 inputs)
//   of pytorch/pytorch#189573;
// - an NCCL collective call through ProcessGroupNCCL: 35 us, the host overhead pytorch/pytorch#147820 (2025)
//   measured for c10d's all_reduce after its fix (70 us before; RCCL, the only published per-call figure found).
// Estimates without a measurement of their own (stated as such in docs/calibration.md): an nn.Module call 4 us, a
// C++ autograd node 5 us and a kernel launch inside one 5 us (one dispatch and cuLaunchKernel), a Python backward
// node 15 us (an apply's cost and its Python frame).
constexpr std::array<HostCall, 11> kNanotronLayerCalls { {
    { 60, 0, 3, false, "ATen calls that launch nothing (views, reshapes, allocations)" },
    { 22, 0, 10, false, "ATen ops that launch a kernel (GEMMs, element-wise, copies, flash-attn)" },
    { 4, 4, 45, false, "Triton launches (two RMSNorms, two rotary embeddings; their backwards)" },
    { 11, 0, 12, false, "custom autograd.Function applies (tensor-parallel linears and primitives)" },
    { 4, 6, 35, true, "NCCL collective calls (all-gathers, reduce-scatters)" },
    { 14, 0, 4, false, "nn.Module calls" },
    { 0, 26, 5, false, "C++ autograd nodes (AccumulateGrad among them)" },
    { 0, 28, 5, false, "kernel launches by C++ autograd nodes" },
    { 0, 9, 15, false, "Python backward nodes of the custom Functions" },
    { 0, 100, 3, false, "ATen calls inside the Python backward nodes" },
    { 0, 6, 10, false, "fp32 gradient accumulation (add_ per parameter, gradient_accumulator.py)" },
} };

} // namespace

std::span<const HostCall> nanotronLayerCalls()
{
    return kNanotronLayerCalls;
}

LayerHostDispatch layerHostDispatch(const config::RunSpec& run, bool moe)
{
    LayerHostDispatch host;
    if (run.framework != config::Framework::Nanotron || moe) {
        return host;
    }
    const bool tensorParallel = run.parallelism.tp > 1;
    for (const HostCall& call : nanotronLayerCalls()) {
        if (call.collective && !tensorParallel) {
            continue;
        }
        host.forwardSeconds += call.forward * call.microseconds * 1e-6;
        host.backwardSeconds += call.backward * call.microseconds * 1e-6;
    }
    if (run.recompute == config::Recompute::Full) {
        host.backwardSeconds += host.forwardSeconds; // the recomputed forward issues its calls again
    }
    return host;
}

} // namespace rapid::model
