// SPDX-License-Identifier: GPL-3.0-or-later
#include "decodegrid.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace rapid::compute {

namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return (a + b - 1) / b;
}

// Waves of @p ctas on @p slots, as a fraction of the whole waves they occupy: 1 when the last wave is full.
double waveEfficiency(std::int64_t ctas, std::int64_t slots)
{
    const double waves = static_cast<double>(ctas) / static_cast<double>(slots);
    return waves / std::ceil(waves);
}

} // namespace

double effectiveDecodeKeys(const model::AttentionDims& attention)
{
    const auto keys = static_cast<double>(attention.keyLength);
    if (attention.causal || attention.window <= 0 || attention.windowedShare <= 0) {
        return keys;
    }
    const double windowed = std::min(keys, static_cast<double>(attention.window));
    return attention.windowedShare * windowed + (1 - attention.windowedShare) * keys;
}

DecodeKernel decodeKernelOf(config::AttentionKernel kernel)
{
    if (kernel == config::AttentionKernel::Fa3) {
        return { .ctasPerSm = 1, .fewestBlocksToSplit = 5, .distinctSplitsOnly = false, .blocksInFlight = 4 };
    }
    return {};
}

int kvSplits(std::int64_t workCtas, std::int64_t slots, std::int64_t keyBlocks, const DecodeKernel& kernel)
{
    if (workCtas < 1 || slots < 1 || keyBlocks < 1) {
        throw std::invalid_argument("split-KV: CTAs, CTA slots and key blocks must be at least 1");
    }
    // Enough work to nearly fill the GPU already: no split (each split costs a partial output and a combine).
    if (static_cast<double>(workCtas) >= 0.8 * static_cast<double>(slots) || keyBlocks < kernel.fewestBlocksToSplit) {
        return 1;
    }
    const auto most = static_cast<int>(std::min<std::int64_t>({ kMaxKvSplits, slots, keyBlocks }));
    // A split count is worth trying only if it changes the blocks per split (11 and 12 splits of 64 blocks are both
    // 6 blocks a split).
    const auto distinct = [keyBlocks, &kernel](int splits) {
        return !kernel.distinctSplitsOnly || splits == 1
            || ceilDiv(keyBlocks, splits) != ceilDiv(keyBlocks, splits - 1);
    };
    double best = 0;
    for (int splits = 1; splits <= most; ++splits) {
        if (distinct(splits)) {
            best = std::max(best, waveEfficiency(workCtas * splits, slots));
        }
    }
    for (int splits = 1; splits <= most; ++splits) {
        if (distinct(splits) && waveEfficiency(workCtas * splits, slots) >= 0.85 * best) {
            return splits;
        }
    }
    return 1;
}

DecodeGrid decodeGrid(const model::AttentionDims& attention, int smCount, bool splitKv, const DecodeKernel& kernel)
{
    if (attention.batch < 1 || attention.heads < 1 || attention.kvHeads < 1 || attention.queryLength < 1
        || attention.keyLength < 1 || attention.headDimQk < 1 || smCount < 1) {
        throw std::invalid_argument("decode attention grid: dimensions and SM count must be at least 1");
    }
    DecodeGrid grid;
    const std::int64_t rowsPerKvHead
        = attention.queryLength * std::max<std::int64_t>(1, attention.heads / attention.kvHeads);
    grid.workCtas = attention.batch * attention.kvHeads * ceilDiv(rowsPerKvHead, kDecodeRowsPerCta);
    grid.blockKeys = attention.headDimQk <= 64 ? 256 : attention.headDimQk <= 128 ? 128 : 64;
    grid.keyBlocks = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil(effectiveDecodeKeys(attention) / static_cast<double>(grid.blockKeys))));
    grid.splits = splitKv
        ? kvSplits(grid.workCtas, static_cast<std::int64_t>(smCount) * kernel.ctasPerSm, grid.keyBlocks, kernel)
        : 1;
    return grid;
}

} // namespace rapid::compute
