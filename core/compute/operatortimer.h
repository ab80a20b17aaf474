// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "gemmcache.h"
#include "operatortiming.h"

#include "config/hardwarespec.h"
#include "model/operator.h"

#include <optional>
#include <vector>

namespace rapid::compute {

/// Times operators on one GPU, memoising every GEMM shape in its own GemmCache: a step repeats each layer's handful of
/// shapes many times, and they are estimated once. Attention and memory-bound operators are closed forms and cheap.
///
/// Not thread-safe (the cache inserts on lookup): use one timer per evaluation thread. A timer may be kept across
/// evaluations on the same thread; the cache keys include every GPU value the GEMM model reads, but the timer's GPU is
/// fixed, so a derated GPU needs a timer of its own (or a new one).
class OperatorTimer {
public:
    /// @p attentionKernel: the fused attention kernel the run uses on this GPU (config::resolvedAttentionKernel).
    explicit OperatorTimer(config::GpuSpec gpu, config::AttentionKernel attentionKernel = config::AttentionKernel::Fa2);

    const config::GpuSpec& gpu() const { return m_gpu; }
    config::AttentionKernel attentionKernel() const { return m_attentionKernel; }
    const GemmCache& cache() const { return m_cache; }

    /// timeOperator(gpu(), op, cache, attentionKernel()).
    OperatorTime time(const model::Operator& op);

    /// Sum of the seconds of @p ops, or of those in @p phase only.
    double layerTime(const std::vector<model::Operator>& ops, std::optional<model::Phase> phase = std::nullopt);

    /// Forgets the memoised GEMMs (and the hit/miss counts).
    void clear() { m_cache.clear(); }

private:
    config::GpuSpec m_gpu;
    config::AttentionKernel m_attentionKernel;
    GemmCache m_cache;
};

} // namespace rapid::compute
