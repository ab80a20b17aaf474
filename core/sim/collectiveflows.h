// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "network/analyticalnetwork.h"
#include "network/axismodel.h"
#include "network/collective.h"
#include "sim/flowprogram.h"
#include "sim/routecache.h"

#include <span>
#include <vector>

namespace rapid::sim {

/// Appends the point-to-point flows of @p request, carried out as @p phases (AnalyticalNetwork::time's choice, so
/// that both backends run the same algorithm), to @p program, each flow tagged @p tag. Flows that wait for nothing
/// start after @p launch (the per-collective launch cost). Returns the program indices of the collective's last
/// flows (when they have all finished, so has the collective).
///
/// The algorithms, on each line of members (all members, or those along one axis), in line order:
///  - ring: q-1 steps (all-reduce 2(q-1)) of bytes/q from each member to the next; a step waits for the chunk it
///    forwards to arrive and for the member's previous send to leave it (AxisCost::ringStepsTime). A ring
///    broadcast is one flow forwarded along the chain. A flat ring with channels (CollectivePhase::channels, across
///    nodes) is that many rings of bytes/channels at once, channel j entering each node at its j-th member.
///  - direct: every member sends bytes/q to every other at once (all-reduce: reduce-scatter, then all-gather).
///  - halving-doubling: log2 q pairwise exchanges of bytes/2, bytes/4, ... (all-gather: the reverse).
///  - tree: all-reduce over a double binary tree (NCCL's): each tree reduces half the bytes up and broadcasts it
///    down. The pipeline is modelled in the fluid limit: all tree edges stream at once, and the last byte needs
///    2*ceil(log2 q) hops (the first hop is in the flows, the rest is a completion delay). Broadcast: binomial rounds.
///  - point-to-point: one flow.
/// Successive phases chain per member: a member's flows of phase k+1 wait for all its flows of phase k.
/// A composed collective with CollectivePhase::pipelineChunks > 1 runs all its phases once per chunk on 1/chunks of
/// the bytes; every transfer of chunk c is also queued behind the same transfer (same sender, receiver, route) of
/// chunk c-1, starting when that one's last byte has left the sender, so the chunks cross each link in order and chunk
/// c-1 can be in a later phase while chunk c is in an earlier one. With @p after (a program index), every member's
/// first flows wait for that flow instead of paying @p launch.
std::vector<int> decomposeCollective(FlowProgram& program, RouteCache& routes, const std::vector<network::Axis>& axes,
    const network::CollectiveRequest& request, std::span<const network::CollectivePhase> phases, TimeNs launch, int tag,
    int after = -1);

} // namespace rapid::sim
