// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compute/operatortimer.h"
#include "model/operator.h"
#include "parallel/stepplan.h"

#include <array>
#include <vector>

namespace rapid::sim {

struct LayerTimes;

/// Megatron-Core's --moe-shared-expert-overlap (run.parallelism.ep_shared_expert_overlap): the shared expert runs on
/// a side stream while the token dispatcher's all-to-alls are in flight, its gate/up projections and activation beside
/// the dispatch and its down projection beside the combine (megatron/core/transformer/moe/token_dispatcher.py,
/// MoEAlltoAllTokenDispatcher::token_dispatch and token_combine; shared_experts.py), instead of after the routed
/// experts. Autograd runs each backward kernel on its forward's stream, so a backward pass has the same two windows
/// with the gradients' all-to-alls (and, under full recomputation, the recomputed forward's). Window 0 is beside the
/// dispatches, window 1 beside the combines.
struct SharedExpertWindows {
    bool active = false;
    std::array<double, 2> compute {}; ///< the shared expert's seconds in each window, as it runs alone
    std::array<int, 2> allToAlls {}; ///< how many all-to-alls run beside each window
    /// What NCCL's SMs beside the window add to its compute (sim::collectiveContention).
    std::array<double, 2> slowdown {};
    /// The window's time beyond its unslowed compute: the all-to-alls it did not hide or, where larger, the slowdown
    /// (sim::besideCompute).
    std::array<double, 2> exposed {};

    double totalExposed() const { return exposed[0] + exposed[1]; }
};

/// The window an operator of a MoE layer's pass belongs to: 0 for the shared expert's gate/up projections and
/// activation (their gradients too), 1 for its down projection, -1 for any other operator.
int sharedExpertWindow(const model::Operator& op);

/// The windows of one pass of a MoE layer from its operators @p ops: @p runs forward passes' all-to-alls beside them
/// (1, or 2 in a backward under full recomputation, which reruns the forward), each run @p dispatches all-to-alls of
/// @p allToAll seconds beside window 0 and @p combines beside window 1.
SharedExpertWindows passSharedExpertWindows(compute::OperatorTimer& timer, const std::vector<model::Operator>& ops,
    double allToAll, int dispatches, int combines, int runs, double collectiveSmShare);

/// Charges a MoE layer's pass the expert all-to-alls of @p allToAll seconds each (LayerCollectives): beside the
/// shared expert's windows with @p overlap (LayerTimes::forwardShared), else one after another in the pass.
void chargeExpertAllToAlls(compute::OperatorTimer& timer, const parallel::LayerCollectives& layer, double allToAll,
    bool overlap, const std::vector<model::Operator>& forwardOps, const std::vector<model::Operator>& backwardOps,
    double collectiveSmShare, LayerTimes& pass);

} // namespace rapid::sim
