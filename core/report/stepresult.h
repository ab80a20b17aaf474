// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/executiongraph.h"
#include "memory/memorymodel.h"
#include "report/energy.h"

#include <string>
#include <vector>

namespace rapid::report {

/// One node of the executed graph, for timelines (seconds from the start of the step).
struct TimelineEvent {
    int rank = 0;
    graph::Stream stream = graph::Stream::Compute;
    graph::NodeKind kind = graph::NodeKind::Compute;
    double start = 0;
    double finish = 0;
    int microBatch = -1;
    int chunk = -1;
    bool backward = false;
    bool operator==(const TimelineEvent&) const = default;
};

/// Where a step's time goes on its busiest pipeline stage: compute by operator class and communication by kind that
/// was not hidden behind compute, the pipeline bubble (idle time waiting for other stages, point-to-point waits
/// included) and the optimizer. The parts sum to the step time.
struct StepBreakdown {
    graph::TimeBreakdown parts {}; ///< exposed seconds per class
    double bubbleSeconds = 0;
    int stage = 0; ///< the stage the breakdown describes
    double total() const;
    bool operator==(const StepBreakdown&) const = default;
};

/// A group whose link faults make it the slowest replica of one of the step's collectives.
struct FaultLimitedGroup {
    std::string collective; ///< "all-reduce of 256.00 MiB" (the kind and bytes of the collective)
    std::vector<int> gpus; ///< the slowest replica's GPUs
    std::vector<int> representative; ///< the group the healthy model costs (rank 0's)
    double seconds = 0; ///< the slowest replica's time
    double representativeSeconds = 0;
};

/// Result of evaluating one training step.
struct TrainingResult {
    double stepTimeSeconds = 0;
    StepBreakdown breakdown;
    double tokensPerSecond = 0;
    double modelFlopsPerGpu = 0; ///< FLOP/s per GPU of the model's work (6N per token plus attention, no recompute)
    double mfu = 0; ///< modelFlopsPerGpu / dense peak at the compute precision
    EnergyEstimate energy; ///< one step, every GPU (joulesPerToken: per token trained)
    memory::MemoryEstimate memory;
    std::vector<TimelineEvent> timeline;
    int graphNodes = 0;
    /// 0 when the whole step graph ran; else the micro-batches per pipeline of the shorter of the two graphs the step
    /// was timed from (a long pipeline whose schedule repeats itself: sim/steadystate.h).
    int steadyStateFrom = 0;
    /// Congestion backend only (empty otherwise): per directed link of network::Topology, the bytes the step's
    /// simulated traffic (pipeline sends, gradient reductions, parameter gathers, with every replica) carried over it
    /// divided by what the link could carry in the step (bandwidth x step time).
    std::vector<double> linkUtilisation;
    /// With stragglers: the slow GPUs of the data-parallel replica whose step set the step time (empty otherwise).
    std::vector<int> limitingStragglers;
    /// With link faults (analytical backend): the collectives whose slowest SPMD replica is slower than the
    /// representative group of its axis, slowest first (at most 5). Every rank waits for its own group, so those
    /// replicas set the time of the collective.
    std::vector<FaultLimitedGroup> faultLimitedGroups;
};

/// Result of evaluating inference: prefill of the batch, then every decode step with the growing KV cache.
struct InferenceResult {
    double ttftSeconds = 0; ///< prefill of the whole batch (requests arrive together)
    double itlSeconds = 0; ///< mean time between output tokens of one request
    double e2eSeconds = 0; ///< ttft + itl * (decode_length - 1)
    double tokensPerSecond = 0; ///< output tokens per second, all requests and replicas
    graph::TimeBreakdown prefill {}; ///< of the slowest data-parallel replica
    graph::TimeBreakdown decodeStep {}; ///< the mean decode step of the slowest replica
    /// With stragglers: the slow GPUs of the replica whose latency is reported (its requests are the slowest served;
    /// every other replica runs at the healthy speed and adds its own throughput). Empty otherwise.
    std::vector<int> limitingStragglers;
    EnergyEstimate energy; ///< the whole request batch on every GPU (joulesPerToken: per output token)
    memory::MemoryEstimate memory;
};

/// The breakdown of @p stage from an executed graph (see StepBreakdown).
StepBreakdown breakdownOfStage(const graph::ExecutionGraph& graph, const std::vector<double>& start,
    const std::vector<double>& finish, double makespan, int stage);

} // namespace rapid::report
