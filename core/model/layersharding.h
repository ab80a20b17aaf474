// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>

namespace rapid::model {

/// How one GPU's share of a transformer layer is cut, as numbers of shards. The layer builders divide by these and
/// never look at the run's parallel axes: core/parallel (parallel::layerSharding) is the one place that turns
/// tp/sp/cp/ep/etp into them.
struct LayerSharding {
    int tensor = 1; ///< heads, FFN columns, expert FFN width and vocabulary are split this many ways (Megatron TP)
    int context = 1; ///< each sequence's queries are split this many ways (context parallelism)
    int expert = 1; ///< routed experts are split this many ways (expert parallelism)
    /// Each routed expert's FFN is split this many ways (expert tensor parallelism; a divisor of tensor).
    int expertTensor = 1;
    /// Norms, residual adds and dropout run on tokens / tensor (Megatron sequence parallelism) instead of all tokens.
    bool sequenceSplit = false;

    bool operator==(const LayerSharding&) const = default;
};

/// Distinct tokens one expert block holds (the expertTensor x expert ranks a token's experts are among) when each
/// tensor-parallel group's layer sees @p groupTokens. Ranks are numbered tp innermost (Megatron-Core's order for the
/// attention and expert meshes): under sequence parallelism (or tensor 1) each rank holds groupTokens / tensor of its
/// own; otherwise a tensor-parallel group's ranks share theirs, and the block spans expertTensor x expert / tensor
/// groups or lies inside one. With expertTensor = tensor: expert x groupTokens either way.
inline double expertBlockTokens(const LayerSharding& sharding, double groupTokens)
{
    const double blockRanks = static_cast<double>(sharding.expertTensor) * sharding.expert;
    if (sharding.sequenceSplit || sharding.tensor == 1) {
        return blockRanks * groupTokens / sharding.tensor;
    }
    return std::max(1.0, blockRanks / sharding.tensor) * groupTokens;
}

} // namespace rapid::model
