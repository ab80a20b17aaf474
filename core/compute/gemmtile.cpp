// SPDX-License-Identifier: GPL-3.0-or-later
#include "gemmtile.h"

#include <algorithm>
#include <array>
#include <utility>

namespace rapid::compute {

namespace {

// CUDA constants shared by every tensor-core generation (Volta to Hopper), not properties of one GPU.
constexpr int kWarpSize = 32;
constexpr int kMinWarpsPerCta = 4; // one per SM sub-partition, so all four tensor cores of the SM get work
constexpr int kMaxWarpTileArea = 64 * 64; // 128 fp32 accumulators per thread: the largest warp tile CUTLASS uses
constexpr int kMaxRegistersPerThread = 255;
constexpr int kFragmentSliceBytes
    = 32; // operand fragments for one MMA k-step: 16 fp16 / 32 fp8 / 64 fp4 / 8 fp32 elements

// cuBLAS/CUTLASS-style CTA blocks of C, largest first.
constexpr std::array<std::pair<int, int>, 8> kCtaShapes
    = { { { 256, 128 }, { 128, 256 }, { 128, 128 }, { 128, 64 }, { 64, 128 }, { 64, 64 }, { 64, 32 }, { 32, 64 } } };
// Token tiles of a MoE runner that swaps A and B (TensorRT-LLM's trtllm-gen batched GEMMs, also behind FlashInfer's
// trtllm_*_moe): 128 weight columns per CTA on the MMA's M side, the expert's tokens on its N side in 8 to 64 rows,
// the next power of two of the tokens per expert (FlashInfer's and vLLM's get_tile_tokens_dim, clamped to 8..64).
// 64 x 128 is one of kCtaShapes already.
constexpr std::array<std::pair<int, int>, 3> kTokenTileShapes = { { { 8, 128 }, { 16, 128 }, { 32, 128 } } };

template <size_t N>
std::vector<GemmTile> buildCandidates(config::Precision precision, const std::array<std::pair<int, int>, N>& shapes)
{
    // K-steps are chosen in bytes so that one row of a slice is one or two 64-byte cp.async bursts at any precision.
    constexpr std::array<int, 2> kStepBytes = { 64, 128 };
    constexpr std::array<int, 2> kStages = { 3, 4 };
    // K-slices count the packed values; NVFP4's block scales travel beside them (one byte per 16 values).
    const double elementBytes = config::packedBytesPerElement(precision);
    const double storedBytes = config::bytesPerElement(precision);

    std::vector<GemmTile> candidates;
    for (const auto& [ctaM, ctaN] : shapes) {
        const int warps = std::max(kMinWarpsPerCta, ctaM * ctaN / kMaxWarpTileArea);
        // Split the CTA block between warps by halving its longer side, as CUTLASS warp layouts do.
        int warpM = ctaM;
        int warpN = ctaN;
        for (int split = warps; split > 1; split /= 2) {
            (warpM >= warpN ? warpM : warpN) /= 2;
        }
        const int threads = warps * kWarpSize;
        const int accumulators = ctaM * ctaN / threads;
        const int fragments = (warpM + warpN) * kFragmentSliceBytes / (kWarpSize * 4);
        for (int stepBytes : kStepBytes) {
            const int ctaK = static_cast<int>(stepBytes / elementBytes);
            for (int stages : kStages) {
                GemmTile tile;
                tile.ctaM = ctaM;
                tile.ctaN = ctaN;
                tile.ctaK = ctaK;
                tile.stages = stages;
                tile.threads = threads;
                tile.warpM = warpM;
                tile.warpN = warpN;
                tile.registersPerThread = accumulators + fragments;
                tile.sharedBytes = stages * static_cast<double>(ctaM + ctaN) * ctaK * storedBytes;
                candidates.push_back(tile);
            }
        }
    }
    return candidates;
}

/// The candidates of @p shapes for every precision, built once.
template <size_t N>
std::array<std::vector<GemmTile>, config::kPrecisionCount> buildTable(const std::array<std::pair<int, int>, N>& shapes)
{
    std::array<std::vector<GemmTile>, config::kPrecisionCount> all;
    for (int index = 0; index < config::kPrecisionCount; ++index) {
        all[index] = buildCandidates(static_cast<config::Precision>(index), shapes);
    }
    return all;
}

} // namespace

const std::vector<GemmTile>& gemmTileCandidates(config::Precision precision)
{
    static const auto table = buildTable(kCtaShapes);
    return table[static_cast<int>(precision)];
}

const std::vector<GemmTile>& gemmTokenTileCandidates(config::Precision precision)
{
    static const auto table = buildTable(kTokenTileShapes);
    return table[static_cast<int>(precision)];
}

int ctasPerSm(const config::GpuSpec& gpu, const GemmTile& tile)
{
    if (tile.registersPerThread > kMaxRegistersPerThread || tile.sharedBytes > gpu.sharedMemPerSmBytes) {
        return 0;
    }
    const int bySharedMemory = static_cast<int>(gpu.sharedMemPerSmBytes / tile.sharedBytes);
    const int byRegisters = gpu.registersPerSm / (tile.registersPerThread * tile.threads);
    const int byThreads = gpu.maxThreadsPerSm / tile.threads;
    return std::max(0, std::min({ bySharedMemory, byRegisters, byThreads }));
}

} // namespace rapid::compute
