// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "gemmcache.h"

#include "config/hardwarespec.h"
#include "model/operator.h"

namespace rapid::compute {

/// Which limit sets an operator's time. Compute: tensor cores (GEMM, attention) or the vector FP32 units (memory-bound
/// kinds whose arithmetic dominates); Hbm, L2, Shared: that memory level's bandwidth; Launch: the fixed per-kernel
/// overheads exceed every roof; Latency: reserved for operators limited by a chain of dependent memory accesses (no
/// current model produces it, as GpuSpec has no memory latency).
enum class OperatorBound { Compute, Hbm, L2, Shared, Launch, Latency };
const char* toString(OperatorBound bound);

/// The predicted execution of one operator on one GPU.
struct OperatorTime {
    double seconds = 0; ///< wall time, kernel launches included
    OperatorBound bound = OperatorBound::Compute;
    double flops = 0; ///< useful FLOPs (causal attention counts each query-key pair once)
    double bytes = 0; ///< HBM bytes read + written
    bool operator==(const OperatorTime&) const = default;
};

/// Times @p op on @p gpu from the GPU's preset constants alone. With d = the HBM bandwidth streams that read and
/// write reach (GpuSpec::achievedHbmReadWrite: measured, derated, calibrated), d_r = that of read-only streams
/// (GpuSpec::achievedHbmRead), v = vectorFp32Flops x clockScale, t = tensor peak of the precision x computeEfficiency x
/// clockScale, and L = kernelLaunchSeconds per kernel:
/// - Gemm: estimateGemm of op.gemm at op.precision, through @p cache when given (memoised by shape and GPU).
/// - FlashAttention (@p attentionKernel; Auto = Fa2): forward CTAs own 128 query rows of one head, backward CTAs own
///   128 keys of one head; the busiest SM runs ceil(CTAs / SMs) CTAs, each the average CTA's FLOPs at t / SMs times
///   the kernel's efficiency on this GPU (GpuSpec::attentionEfficiency, per pass) and its softmax (one exp2 per
///   score on the special-function units, four FP32 instructions): added for FlashAttention-2, the longer of the two
///   for FlashAttention-3 and cuDNN, which overlap them. HBM moves
///   Q, K, V (each KV head once, GQA), O and the fp32 log-sum-exp; backward also dO, dQ, dK, dV (per query head), the
///   fp32 dQ accumulator and the dO.O row sums. L2 carries the K/V (forward) or Q/dO/dQ (backward) rows every CTA
///   streams, causal tiles skipped. Time = max(compute, HBM / d, L2 / (l2Bandwidth x clockScale)) + L. The recompute
///   phase is timed as the forward.
/// - NaiveAttention: S = Q K^T and O = P V as batched GEMMs (batch = b x heads) plus a softmax that reads S and
///   writes P; backward dV = P^T dO, dP = dO V^T, the softmax backward (reads P, dP, writes dS), dQ = dS K and
///   dK = dS^T Q. Causal work is counted once, as in FlashAttention: each score GEMM runs over the average number of
///   keys per query (or queries per key), ceil(pairs / length), and the softmax touches pairs elements.
/// - DecodeAttention: reads the KV cache once per KV head (shared by heads / kvHeads queries under GQA; MLA's latent
///   cache, sharedKv, once for all heads) at op.precision, plus the queries and outputs, on the grid of
///   compute/decodegrid.h (split-KV unless attention.splitKv is false): max(bytes / d_r, FLOPs / t,
///   waves x key blocks per CTA x DRAM latency) + L, the last when too few CTAs keep too few bytes in flight; with
///   splits, their fp32 partial outputs, and unless the splits are reduced in the kernel (attention.splitCombineKernel
///   false: TensorRT-LLM) a combine kernel (its bytes / d + L).
/// - Elementwise, Norm, Softmax, Embedding, CrossEntropy, OptimizerUpdate: max(op.bytes / d, op.flops / v) + L.
/// Derates: hbmBandwidthScale changes only the HBM roof, clockScale only the compute and on-chip roofs.
/// Pure apart from @p cache (may be null). Throws std::invalid_argument for non-positive GPU rates or shapes.
OperatorTime timeOperator(const config::GpuSpec& gpu, const model::Operator& op, GemmCache* cache,
    config::AttentionKernel attentionKernel = config::AttentionKernel::Fa2);

/// Rows (queries, or keys in the backward) one FlashAttention CTA owns: FlashAttention-2's block size for head
/// dimensions up to 128 (a software constant, the same on every GPU).
constexpr int kFlashAttentionBlockRows = 128;

} // namespace rapid::compute
