// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/executiongraph.h"

#include <stdexcept>
#include <vector>

namespace rapid::sim {

/// A graph that cannot complete: a dependency cycle or a stream waiting on a node that never runs. Names the stuck
/// nodes instead of returning a silently short time (the reference tool's pp = 1 bug).
class IncompleteExecution : public std::runtime_error {
public:
    IncompleteExecution(std::string message, std::vector<graph::NodeId> stuck);
    const std::vector<graph::NodeId>& stuckNodes() const { return m_stuck; }

private:
    std::vector<graph::NodeId> m_stuck;
};

/// When each node ran.
struct Schedule {
    std::vector<double> start; ///< seconds from the step's start, by node id
    std::vector<double> finish;
    double makespan = 0;
};

/// Runs @p graph: a node starts when all its dependencies have finished and the previous node of its stream (on its
/// rank) has finished. Every node must run; otherwise IncompleteExecution lists the nodes that could not.
/// O(nodes + dependencies).
Schedule executeGraph(const graph::ExecutionGraph& graph);

} // namespace rapid::sim
