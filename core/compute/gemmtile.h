// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"

#include <vector>

namespace rapid::compute {

/// One CTA (thread block) configuration of a tiled tensor-core GEMM kernel, as cuBLAS/CUTLASS build them: each CTA
/// owns a ctaM x ctaN block of C and walks K in steps of ctaK, with `stages` K-slices of A and B buffered in shared
/// memory (a cp.async pipeline). Its warps each own a warpM x warpN sub-block of C.
struct GemmTile {
    int ctaM = 0;
    int ctaN = 0;
    int ctaK = 0; ///< elements of K per main-loop step
    int stages = 0; ///< K-slices of A and B held in shared memory at once
    int threads = 0;
    int warpM = 0;
    int warpN = 0;
    int registersPerThread = 0; ///< live 32-bit registers: accumulators plus one k-slice of operand fragments
    double sharedBytes = 0; ///< shared memory per CTA, bytes

    bool operator==(const GemmTile&) const = default;
};

/// The candidate tiles for @p precision: CTA shapes {256x128, 128x256, 128x128, 128x64, 64x128, 64x64, 64x32, 32x64}
/// x K-steps of 64 or 128 bytes per row x 3 or 4 stages, largest first. Resource figures assume the CUDA limits
/// common to every tensor-core GPU (32-thread warps, 4 tensor-core sub-partitions per SM, fp32/int32 accumulators).
const std::vector<GemmTile>& gemmTileCandidates(config::Precision precision);

/// The token tiles of a MoE runner that puts the weights on the MMA's M side and an expert's few tokens on its N side
/// (GemmShape::tokenTiles): 8, 16 or 32 token rows by 128 weight columns (64 x 128 is a usual tile), with the same
/// K-steps and stages.
const std::vector<GemmTile>& gemmTokenTileCandidates(config::Precision precision);

/// CTAs of @p tile resident on one SM at once, limited by shared memory, registers and threads; 0 if the tile does not
/// fit at all (more than 255 registers per thread, or more shared memory than the SM has).
int ctasPerSm(const config::GpuSpec& gpu, const GemmTile& tile);

} // namespace rapid::compute
