// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "gemmtile.h"

#include "config/hardwarespec.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace rapid::compute {

/// C[M x N] = A[M x K] . B[K x N], `batch` independent times (e.g. one per attention head). A and B are stored in
/// `precision`, except B when `storedWeights` names its format: a weight-only quantised GEMM
/// (W4A16: int4 weights with group scales) streams B in that format and dequantises it in registers before the
/// tensor cores multiply in `precision`; MXFP4 weights under fp8 on Blackwell go into the block-scaled MMA as they are
/// (MXFP8 x MXFP4 at the FP8 rate). C is stored in `precision` when that has 16 bits or more; a GEMM of 8-bit or
/// 4-bit operands writes a 16-bit C, dequantised in its epilogue, unless `quantisedOutput` (below): torchao's and
/// Transformer Engine's FP8 linears ask cuBLASLt and CUTLASS for bf16 outputs (torch._scaled_mm's out_dtype, TE's
/// activation dtype), as TensorRT-LLM's FP8 and NVFP4 GEMM plugins and vLLM's scaled_mm kernels write the model's
/// dtype.
struct GemmShape {
    std::int64_t m = 0;
    std::int64_t k = 0;
    std::int64_t n = 0;
    std::int64_t batch = 1;
    config::Precision precision = config::Precision::Bf16;
    std::optional<config::Precision> storedWeights;
    /// A MoE runner's grouped GEMM that also takes token tiles of 8-64 rows (gemmTokenTileCandidates), so an expert's
    /// few decode tokens are not padded to a 32-row tile (TensorRT-LLM's trtllm-gen MoE on Blackwell).
    bool tokenTiles = false;
    /// The epilogue writes C quantised in `precision` for the next GEMM (a MoE runner's first expert GEMM, which
    /// applies the activation and casts the second GEMM's input).
    bool quantisedOutput = false;
    /// The GEMM adds its result into a C stored in this format (beta = 1: C read and written in the epilogue):
    /// Megatron's gradient_accumulation_fusion, whose weight-gradient GEMMs accumulate into the fp32 main_grad.
    std::optional<config::Precision> accumulateInto {};

    bool operator==(const GemmShape&) const = default;
};

/// The largest GEMM modelled: each of m, k, n and batch at most 2^31 (cuBLAS takes 32-bit dimensions), and each
/// operand and the result at most 2^60 elements over the batch (an exabyte), so tile and CTA counts stay in 64 bits.
inline constexpr std::int64_t kMaxGemmDimension = std::int64_t(1) << 31;
inline constexpr double kMaxGemmElements = 1152921504606846976.0; // 2^60

/// Empty when @p shape is within the modelled range, else what exceeds it ("m x n x batch = ... elements ...").
std::string gemmShapeLimitProblem(const GemmShape& shape);

/// Which limit sets the time of a GEMM. Latency: too few K-slices in flight to cover the memory latency (Little's
/// law). Launch: the fixed kernel overheads (launch plus pipeline fill/drain) exceed every roof.
enum class GemmBound { Compute, Hbm, L2, Shared, Latency, Launch };
const char* toString(GemmBound bound);

/// The predicted execution of one GEMM kernel on one GPU. Bytes in bytes, times in seconds.
struct GemmEstimate {
    GemmTile tile; ///< the CTA configuration the model chose
    std::int64_t ctaCount = 0; ///< CTAs in the grid (all batches)
    int ctasPerSm = 0; ///< occupancy: CTAs resident on one SM at once
    double waves = 0; ///< ctaCount / (smCount x ctasPerSm), e.g. 37.93
    std::int64_t fullWaves = 0; ///< integer part of waves
    double lastWaveFraction = 0; ///< fractional part of waves: how full the last wave is (0 = no partial wave)
    double flops = 0; ///< useful FLOPs, 2 M N K batch (padding of edge tiles excluded)
    double hbmBytes = 0; ///< DRAM traffic: compulsory reads and writes plus re-reads when L2 overflows
    double l2Bytes = 0; ///< L2 -> SM traffic: every CTA reads its A and B panels; plus C writes
    double sharedBytes = 0; ///< shared-memory traffic: tile fills plus warp operand reads
    double computeSeconds = 0; ///< tensor-core time, quantised to whole CTAs per SM
    double hbmSeconds = 0;
    double l2Seconds = 0;
    double sharedSeconds = 0;
    /// Little's law: each CTA keeps stages - 1 K-slices in flight, so its main loop advances at most stages - 1 steps
    /// per memory latency (0 when the GPU has no latency figures).
    double latencySeconds = 0;
    double memoryLatency = 0; ///< seconds: mean load latency, L2 hits and DRAM misses weighted by their share
    double pipelineSeconds = 0; ///< exposed pipeline fill (first-slice latency plus prologue bytes) and C-tile drain
    double launchSeconds = 0;
    double totalSeconds = 0; ///< max(compute, hbm, l2, shared, latency) + pipeline + launch
    GemmBound bound = GemmBound::Compute;

    bool operator==(const GemmEstimate&) const = default;
};

/// Predicts one GEMM from first principles: chooses the CTA tile (from gemmTileCandidates) with the least estimated
/// time, counts waves of CTAs over the SMs, counts traffic at each memory level, and takes the roofline of compute,
/// HBM, L2, shared memory and memory latency (bytes in flight) plus exposed pipeline overheads and the launch. Every
/// hardware figure comes from @p gpu, including its calibration (computeEfficiency, memoryEfficiency) and derates
/// (clockScale scales the tensor rate and the on-chip bandwidths; hbmBandwidthScale scales HBM); HBM moves the operand
/// panels at the rate a read-only stream reaches (GpuSpec::achievedHbmRead). Pure and thread-safe.
/// Throws std::invalid_argument for a non-positive dimension, a precision the GPU has no peak for, or a GPU on which
/// no candidate tile fits.
GemmEstimate estimateGemm(const config::GpuSpec& gpu, const GemmShape& shape);

/// Number of GpuSpec values estimateGemm reads for one precision.
constexpr int kGemmModelInputCount = 17;

/// The GpuSpec values estimateGemm reads for @p precision (the architecture, the tensor peak of that precision, SM
/// count, clock, bandwidths, memory latencies, capacities, launch overhead, efficiencies, derates). Two specs with
/// equal inputs give equal estimates; GemmCache keys on this.
std::array<double, kGemmModelInputCount> gemmModelInputs(const config::GpuSpec& gpu, config::Precision precision);

} // namespace rapid::compute
