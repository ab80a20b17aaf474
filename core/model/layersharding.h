// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace rapid::model {

/// How one GPU's share of a transformer layer is cut, as numbers of shards. The layer builders divide by these and
/// never look at the run's parallel axes: core/parallel (parallel::layerSharding) is the one place that turns
/// tp/sp/cp/ep into them.
struct LayerSharding {
    int tensor = 1; ///< heads, FFN columns, expert FFN width and vocabulary are split this many ways (Megatron TP)
    int context = 1; ///< each sequence's queries are split this many ways (context parallelism)
    int expert = 1; ///< routed experts are split this many ways (expert parallelism)
    /// Norms, residual adds and dropout run on tokens / tensor (Megatron sequence parallelism) instead of all tokens.
    bool sequenceSplit = false;

    bool operator==(const LayerSharding&) const = default;
};

} // namespace rapid::model
