// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sim/flowsimulator.h"
#include "sim/routecache.h"

#include <iosfwd>
#include <span>
#include <vector>

namespace rapid::sim {

/// A DAG of point-to-point flows, with dependencies as indices into the same program (always lower than the
/// dependant's). Collectives are decomposed into programs (collectiveflows.h); a program is then added to a
/// FlowSimulator, or written out for the ns-3 cross-check (docs/flow-program.md).
struct FlowProgram {
    struct Flow {
        int src = 0; ///< GPU
        int dst = 0; ///< GPU
        int route = 0; ///< RouteCache route id
        double bytes = 0;
        TimeNs delay = 0;
        int tag = 0;
        std::uint32_t firstDependency = 0; ///< into dependencies
        std::uint32_t dependencyCount = 0;
        /// Flows (after the dependencyCount above in dependencies) this one may start after once their last byte has
        /// left the sender: the next message on the same connection, sent FIFO behind them (always the same sender,
        /// receiver and route).
        std::uint32_t sentDependencyCount = 0;
        std::int32_t chain = -1; ///< a forwarding chain's GPUs (src .. dst) start here in chains, else -1
        std::uint32_t chainLength = 0;
    };
    std::vector<Flow> flows;
    std::vector<int> dependencies;
    std::vector<int> chains;

    /// Appends a flow that starts when the flows @p dependsOn have finished (their last byte arrived) and the flows
    /// @p afterSent have been sent (their last byte left the sender); returns its index.
    int add(const Flow& flow, std::span<const int> dependsOn, std::span<const int> afterSent = {});
    std::span<const int> dependenciesOf(int flow) const
    {
        const Flow& f = flows[static_cast<size_t>(flow)];
        return { dependencies.data() + f.firstDependency, f.dependencyCount };
    }
    std::span<const int> sentDependenciesOf(int flow) const
    {
        const Flow& f = flows[static_cast<size_t>(flow)];
        return { dependencies.data() + f.firstDependency + f.dependencyCount, f.sentDependencyCount };
    }
    int size() const { return static_cast<int>(flows.size()); }
};

/// The explicit paths of flow @p flow of @p program: its route (or forwarding chain) as whole src -> dst link
/// sequences, each with the fraction of the flow's bytes it carries. A multi-dimensional route is a sequence of
/// segments, each with its ECMP paths; the full paths are their combinations (fractions multiply). A flow from a GPU
/// to itself has one path without links. Throws network::UnreachableError like the router.
std::vector<network::WeightedPath> flowPaths(const FlowProgram& program, int flow, const network::Router& router);

/// Adds every flow of @p program to @p simulator; returns the simulator's id of each (by program index).
std::vector<FlowId> addProgram(FlowSimulator& simulator, const FlowProgram& program);

/// Writes @p program in the `rapid-flow-program 2` text format (docs/flow-program.md): every usable directed link
/// of the topology, then the flows with their compiled routes.
void writeFlowProgram(std::ostream& out, const FlowProgram& program, const RouteCache& routes);

} // namespace rapid::sim
