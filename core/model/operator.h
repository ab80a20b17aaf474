// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"

#include <cstdint>
#include <optional>
#include <string>

namespace rapid::model {

/// What an operator is, for choosing its timing model.
enum class OperatorKind {
    Gemm, ///< dense matrix multiply (batched when gemm.batch > 1)
    FlashAttention, ///< fused, tiled attention (scores never written to HBM)
    NaiveAttention, ///< scores QK^T, softmax and PV as separate kernels with the S x S matrix in HBM
    DecodeAttention, ///< one new query per sequence against the KV cache (memory bound)
    Elementwise, ///< activations, residual adds, rotary embedding, dropout
    Norm, ///< LayerNorm / RMSNorm
    Softmax,
    Embedding, ///< token (and position) lookup
    CrossEntropy, ///< loss over the vocabulary
    OptimizerUpdate, ///< Adam step over the local parameters
};

/// The class an operator's time is reported under in step-time breakdowns.
enum class OperatorClass { Attention, Mlp, Moe, Norm, Embedding, LmHead, Loss, Optimizer, Other };

enum class Phase { Forward, Backward, Recompute, Optimizer };

const char* toString(OperatorKind kind);
const char* toString(OperatorClass opClass);
const char* toString(Phase phase);

/// C[m x n] = A[m x k] B[k x n], `batch` times.
struct GemmDims {
    std::int64_t m = 0;
    std::int64_t k = 0;
    std::int64_t n = 0;
    std::int64_t batch = 1;
    bool operator==(const GemmDims&) const = default;
};

/// Attention of `batch` sequences: `heads` query heads sharing `kvHeads` key/value heads (GQA), `queryLength` queries
/// against `keyLength` keys each (prefill: both the sequence length; decode: 1 query against the cache).
struct AttentionDims {
    std::int64_t batch = 0;
    std::int64_t heads = 0;
    std::int64_t kvHeads = 0;
    std::int64_t queryLength = 0;
    std::int64_t keyLength = 0;
    std::int64_t headDimQk = 0;
    std::int64_t headDimV = 0;
    bool causal = true;
    /// Keys and values are one stored tensor (MLA's latent cache: the values are the first headDimV elements of each
    /// key), so the cache holds headDimQk elements per token and KV head rather than headDimQk + headDimV.
    bool sharedKv = false;
    /// Training with dropout: the attention probabilities go through dropout. Naive attention runs it as a separate
    /// kernel that also writes a one-byte keep-mask per score; FlashAttention fuses it (no extra traffic).
    bool probabilityDropout = false;
    /// Sliding-window attention: keys a query attends to (itself included), in windowedShare of the layers; the
    /// operator stands for the average layer (model::attentionPairs). 0 = full attention.
    std::int64_t window = 0;
    double windowedShare = 0;
    /// Decode only: the kernel may split each sequence's keys over the SMs (Flash-Decoding, compute/decodegrid.h),
    /// and reduces the splits in a combine kernel of its own (false: in the kernel's last CTA per sequence).
    bool splitKv = true;
    bool splitCombineKernel = true;
    bool operator==(const AttentionDims&) const = default;
};

/// One kernel (or fused group of kernels) on one GPU, with the shapes its timing model needs. FLOPs are the useful
/// work (2 per multiply-add; causal attention counts each query-key pair once); bytes are the HBM traffic of
/// memory-bound operators (reads + writes), informational for GEMMs and attention whose models count their own.
struct Operator {
    std::string name; ///< "attention.qkv_projection", "mlp.down_projection", ...
    OperatorKind kind = OperatorKind::Elementwise;
    OperatorClass opClass = OperatorClass::Other;
    Phase phase = Phase::Forward;
    config::Precision precision = config::Precision::Bf16;
    /// GEMMs only: the format the weights (operand B) are stored in when the kernel dequantises them to `precision`
    /// first (weight-only quantisation, int4); none: B is stored in `precision` like A.
    std::optional<config::Precision> storedWeights;
    /// GEMMs only: a MoE runner's grouped GEMM that tiles an expert's tokens in 8-64 rows (compute::GemmShape).
    bool tokenTiles = false;
    /// GEMMs only: the epilogue writes the output quantised for the next GEMM (compute::GemmShape).
    bool quantisedOutput = false;
    /// GEMMs only: the output is added into a buffer in this format (compute::GemmShape::accumulateInto).
    std::optional<config::Precision> accumulateInto {};
    GemmDims gemm;
    AttentionDims attention;
    double flops = 0;
    double bytes = 0;
    /// Kernels the operator stands for (eager PyTorch runs a norm as a chain of them); each pays the launch overhead.
    /// 0: an epilogue fused into a collective's kernel (TensorRT-LLM's all-reduce + residual + RMSNorm), no launch.
    int kernels = 1;
    bool operator==(const Operator&) const = default;
};

} // namespace rapid::model
