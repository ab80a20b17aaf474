// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/executiongraph.h"
#include "sim/graphexecutor.h"

#include <optional>

namespace rapid::sim {

/// The time @p period more micro-batches add to a training step whose executed graph is @p graph (scheduled as
/// @p schedule), when its schedule is shown to repeat itself in the middle of the pipeline; nullopt when it is not
/// (or cannot be shown to).
///
/// Why it is exact where it answers: a training step of identical micro-batches is built from one pattern per
/// micro-batch, so the graph is the same when every micro-batch index is moved by @p period (away from the warm-up
/// and the drain). Let R be the largest difference of micro-batch index along any dependency or stream order of the
/// graph. If, over a window of W >= max(R, period) consecutive micro-batches, every node starts and finishes exactly
/// D later than its twin @p period micro-batches earlier, with the same labels, duration and dependencies (moved by
/// @p period), then every later node does too: it starts when its predecessors finish, and they lie at most R back,
/// in the window or after it (induction in the order the executor runs them). So each further period of micro-batches
/// adds D to everything after the window, the drain included, and the step of m + k x period micro-batches lasts
/// k x D longer. The check compares every micro-batch from a window before the middle with its twin until the pattern
/// stops repeating (the drain; a node waiting for one no micro-batch owns, such as a reduction at the step's end, stops
/// it too), and answers only when at least W micro-batches compared, all shifted by one D. What it cannot see, the
/// drain's own pattern, the step model checks by timing one period more (StepModel::steadyStateTraining).
std::optional<double> steadyPeriodSeconds(const graph::ExecutionGraph& graph, const Schedule& schedule, int period);

} // namespace rapid::sim
