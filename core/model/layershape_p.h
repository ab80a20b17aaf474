// SPDX-License-Identifier: GPL-3.0-or-later
// Private to core/model: the per-GPU shape the layer operator builders share.
#pragma once

#include "layeroperators.h"

#include <algorithm>
#include <cstdint>

namespace rapid::model::detail {

/// Vector operations per element of a norm (what a straightforward kernel executes).
constexpr double kRmsNormFlops = 4; // square-accumulate (2), scale by the reciprocal root, multiply by the weight
constexpr double kLayerNormFlops = 7; // mean (1), variance (2), subtract and scale (2), weight and bias (2)

inline std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return std::max<std::int64_t>(1, (a + b - 1) / b);
}

/// Whether a run's FP8 linears are torchao's Float8Linear: PyTorch FSDP (torchtitan, AutoModel) without Transformer
/// Engine (fp8quantization.h, opsacrecompute_p.h).
inline bool torchaoLinears(const config::RunSpec& run)
{
    return run.framework == config::Framework::PytorchFsdp && !run.transformerEngine;
}

/// The per-GPU shape of one layer invocation.
struct Shape {
    std::int64_t batch = 0; ///< sequences
    std::int64_t queries = 0; ///< queries per sequence on this GPU
    std::int64_t keys = 0; ///< keys each sequence attends to
    std::int64_t tokens = 0; ///< batch x queries
    std::int64_t normTokens = 0; ///< tokens of the sequence-parallel region
    std::int64_t tp = 1;
    std::int64_t ep = 1;
    std::int64_t etp = 1; ///< ranks each routed expert's FFN is split over
    std::int64_t cp = 1;
    /// Distinct tokens held by one expert block (model::expertBlockTokens).
    std::int64_t expertBlockTokens = 0;
    /// The attention core's queries per sequence and the share of a tensor-parallel rank's heads it runs: queries and
    /// 1, except under Ulysses (cp_comm a2a), whose all-to-alls give the core the whole sequence and heads / cp, or
    /// a2a+p2p, whose give it the queries of cp_a2a ranks and heads / cp_a2a.
    std::int64_t attentionQueries = 0;
    std::int64_t headSplit = 1;
    /// Training under PyTorch's context parallelism (torchtitan): the ring's merges and copies (ringattention.h).
    bool pytorchRing = false;
    bool causal = true;
    bool decode = false;
    bool flash = true;
    bool splitKv = true; ///< decode attention may split the keys over the SMs (RunSpec::splitKv)
    bool splitCombineKernel = true; ///< ... and reduces the splits in a kernel of its own
    bool fusedMoeRunner = false; ///< RunSpec::fusedMoeRunner, inference only
    bool eager = false; ///< element-wise blocks as eager PyTorch's kernel chains (eagerkernels.h)
    bool eagerNorms = false; ///< the norms too (not with Transformer Engine's or Liger-Kernel's fused RMSNorm)
    bool eagerRotary = false; ///< the rotary embedding too (not with Liger-Kernel's fused RoPE)
    /// The gated MLP's activation as eager PyTorch's two kernels: eager torchtitan, and nanotron, whose norms (Triton)
    /// and rotary embedding (flash-attn) are fused but whose GLUActivation is `act(gate) * up` (models/llama.py)
    bool eagerActivation = false;
    /// The model code's separate linears (torchtitan's wq, wk, wv and w1, w3; Hugging Face's q/k/v_proj and
    /// gate/up_proj under FSDP) instead of one fused QKV and one fused gate/up GEMM (Megatron, nanotron, vLLM).
    bool separateProjections = false;
    /// FP8 linears are torchao's Float8Linear (pytorch-fsdp without Transformer Engine), not TE's (fp8quantization.h).
    bool torchaoFloat8 = false;
    /// Inference at tp > 1 under RunSpec::fusedAllReduceNorm: residual add, RMSNorm and, under
    /// fusedAllReduceQuantises, the next GEMM's input quantisation run in the all-reduce's kernel
    /// (LayerBuilder::residualAndNorm).
    bool fusedAllReduceNorm = false;
    bool fusedAllReduceQuantises = false; ///< RunSpec::allReduceWritesQuantisedInput under fusedAllReduceNorm
    /// Inference under RunSpec::fusedResidualNorm: a residual add and the RMSNorm after it are one kernel
    /// (LayerBuilder::residualAndNorm).
    bool fusedResidualNorm = false;
    double expertLoad = 1; ///< the busiest expert-parallel rank's routed tokens over the balanced share
    config::PrecisionSpec precision;
    double act = 2; ///< bytes per activation element
    double weight = 2;
    double kv = 2;
    double grad = 2;
};

/// The shape of @p workload under @p run and @p sharding (decode attends to @p kvLength keys). Throws
/// std::invalid_argument for shard counts, batches or lengths below one.
Shape makeShape(const config::RunSpec& run, const LayerSharding& sharding, Workload workload, std::int64_t kvLength);

/// The routed expert work of one GPU in a MoE layer.
struct ExpertRows {
    std::int64_t local = 0; ///< experts the GPU holds
    std::int64_t active = 0; ///< of them, those that receive tokens (run, and have their weights read)
    std::int64_t rowsPerExpert = 0; ///< rows each active expert runs on the busiest rank
};

/// The GPU's local experts, those its block's tokens reach, and their rows (layershape.cpp says how).
ExpertRows expertRows(const Shape& shape, const config::MoeSpec& moe);

} // namespace rapid::model::detail
