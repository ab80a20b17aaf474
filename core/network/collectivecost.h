// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "network/axismodel.h"
#include "network/collective.h"

#include <optional>
#include <string>

namespace rapid::network {

/// Time of one collective phase along one axis (or a flat group), excluding the per-collective launch cost.
struct PhaseEstimate {
    double seconds = 0;
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
    const std::string* bottleneck = nullptr; ///< points into the AxisCost it was computed from
};

// Alpha-beta costs of the algorithms on a group of q members (cost = AxisCost; S = bytes as in CollectiveRequest).
// Each function evaluates the algorithms that apply and returns the fastest, or @p forced when it applies:
//   ring             reduce-scatter / all-gather (q-1)/q*S/B_ring + (q-1)*a_ring; all-reduce twice that;
//                    broadcast (pipelined chain) S/B_ring + a_chain (the hops between consecutive members)
//   direct           (q-1)/q*S/B_direct + a_direct (all-reduce: twice; reductions only on switch-like axes and
//                    for CollectiveLibrary::Custom)
//   halving-doubling (q-1)/q*S/B_pair + a_steps (all-reduce: twice; power-of-two groups, switched axes), where
//                    a_steps sums each exchange step's own pair latency (near partners are fewer hops apart);
//                    CollectiveLibrary::Custom only
//   tree             all-reduce as a double binary tree: 2*S/B_pair + 2*ceil(log2 q)*a_pair;
//   in-network       all-reduce reduced in a switch (NVLS): S/B_innetwork + 2*a_direct, where the axis offers it
//                    broadcast as a binomial tree: ceil(log2 q)*S/B_pair + a_steps
PhaseEstimate reduceScatterPhase(
    const AxisCost& cost, double bytes, std::optional<CollectiveAlgorithm> forced, CollectiveLibrary library);
PhaseEstimate allReducePhase(
    const AxisCost& cost, double bytes, std::optional<CollectiveAlgorithm> forced, CollectiveLibrary library);
PhaseEstimate broadcastPhase(const AxisCost& cost, double bytes, std::optional<CollectiveAlgorithm> forced);
/// All-to-all is always direct: (q-1)/q*S/B_direct + a_direct.
PhaseEstimate allToAllPhase(const AxisCost& cost, double bytes);

/// The port traffic per byte reduced that stands for an in-switch reduction in a flow model
/// (CollectivePhase::inNetworkPortShare); 0 unless @p phase runs in the network.
double inNetworkPortShare(const AxisCost& cost, const PhaseEstimate& phase);
/// What NCCL's protocol adds to each step of @p phase beyond the path's latency (CollectivePhase::protocolStepSeconds):
/// a ring step lasts at least AxisCost::ncclStepLatency, and so does a tree step; 0 for other algorithms and for
/// CollectiveLibrary::Custom.
double protocolStepSeconds(const AxisCost& cost, const PhaseEstimate& phase, CollectiveLibrary library);

} // namespace rapid::network
