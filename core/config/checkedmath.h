// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>

namespace rapid::config {

/// The product of @p factors, or INT64_MAX when it would overflow (or a factor is negative). For counts formed from
/// several inputs (GPUs = product of network sizes, tp*pp*dp*cp), so a reader can compare the result with its limit
/// and report the key instead of wrapping into a wrong number.
inline std::int64_t saturatingProduct(std::initializer_list<std::int64_t> factors)
{
    std::int64_t product = 1;
    for (std::int64_t factor : factors) {
        if (factor < 0 || __builtin_mul_overflow(product, factor, &product)) {
            return std::numeric_limits<std::int64_t>::max();
        }
    }
    return product;
}

/// The most GPUs a cluster or a run may have: 2^20, ten times the largest training clusters built (about 10^5 GPUs).
/// Every count of GPUs, ranks or replicas fits an int below it, and products of two stay inside 64 bits.
inline constexpr std::int64_t kMaxGpus = std::int64_t(1) << 20;

/// The most micro-batch passes (micro-batches per step x pp x virtual_stages) a training step may have: the step
/// graph's budget (sim::StepBackend::kGraphPassBudget, where its cost is measured). The run is refused here, before
/// the memory model lays out the pipeline schedule, which grows with it too.
inline constexpr std::int64_t kMaxMicroBatchPasses = std::int64_t(1) << 20;

/// The most tokens one micro-batch (or one inference batch) may hold: GEMM dimensions are 32-bit in cuBLAS, and the
/// GEMM model (compute::kMaxGemmDimension) takes no more.
inline constexpr std::int64_t kMaxTokensPerBatch = std::int64_t(1) << 31;

} // namespace rapid::config
