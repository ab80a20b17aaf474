// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/checkedmath.h"
#include "config/hardwarespec.h"
#include "graph/executiongraph.h"
#include "graph/trainingstep.h"
#include "network/collective.h"
#include "network/topology.h"
#include "parallel/stepplan.h"
#include "report/stepresult.h"
#include "sim/combinedonefoneb.h"
#include "sim/graphexecutor.h"
#include "sim/sharedexpertoverlap.h"

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rapid::sim {

/// The time of one transformer layer's pass on one rank, with the parts an overlapped collective can hide behind.
struct LayerTimes {
    graph::TimeBreakdown forward {};
    graph::TimeBreakdown backward {};
    double forwardGemm = 0; ///< GEMM time a TP overlap can hide communication behind
    double backwardGemm = 0;
    double forwardAttention = 0; ///< attention core time a CP ring exchange can hide behind
    double backwardAttention = 0;
    /// The part of the ContextParallel time that is the ring steps the attention core did not hide; the rest is the
    /// collectives the pass waits for (a2a+p2p has both).
    double forwardContextRing = 0;
    double backwardContextRing = 0;
    /// Of the ring's part, the attention core slowed by the SMs the ring's kernels hold beside it
    /// (sim::collectiveContention): a backend that simulates the ring runs the core this much longer beside it.
    double forwardContextSlowdown = 0;
    double backwardContextSlowdown = 0;
    /// run.parallelism.ep_shared_expert_overlap: the shared expert's windows beside the expert all-to-alls (their
    /// exposure is the pass's ExpertParallel time but the expert-tensor pair's); inactive without the overlap.
    SharedExpertWindows forwardShared;
    SharedExpertWindows backwardShared;
    /// Combined 1F1B (run.parallelism.ep_a2a_overlap): the passes split as the co-scheduled step runs them; zeros
    /// without.
    LayerPassPieces forwardPieces;
    LayerPassPieces backwardPieces;
};

/// ZeRO-3/FSDP gathers of one chunk, per pass (forward, backward), in closed form: `exposed` is the seconds the pass
/// waits for them unit by unit (sim/shardedunits.h, already in the chunk's cost). A backend that simulates the chunk's
/// gather beside the whole pass replaces that exposure and delays the pass by `lead` first: what unit granularity
/// adds to a whole-chunk overlap (the first unit's gather when the network is fast, the last unit's compute after
/// the last gather when it is slow), so that on an idle network it takes the closed-form time.
/// `contention` is the part of `exposed` that is the units' compute slowed by the SMs the collectives hold beside it.
struct ChunkGatherCost {
    std::array<double, 2> exposed {};
    std::array<double, 2> lead {};
    std::array<double, 2> contention {};
};

/// What a backend executes a training step from: the plan, the per-stage costs and graph built from it, and the layer
/// times (for backends that split compute nodes around the collectives inside them).
struct TrainingStepInput {
    const parallel::StepPlan& plan;
    const config::ModelSpec& model;
    const config::RunSpec& run;
    const std::vector<graph::StageCost>& stages;
    const graph::ExecutionGraph& graph;
    std::function<const LayerTimes&(int stage, bool moe)> layerTimes;
    /// ZeRO-3/FSDP: per stage and chunk, forward and backward, what the gathers cost in closed form.
    const std::vector<std::vector<ChunkGatherCost>>& chunkGather;
};

/// How a backend ran a training step.
struct StepExecution {
    Schedule schedule;
    /// Per directed link of topology(): bytes carried over the step. Empty when the backend does not track links.
    std::vector<double> linkBytes;
    /// Compute nodes that ran longer than their closed-form seconds because collectives inside them were simulated
    /// (indexed by node id; empty when none), and per stage the breakdown classes of those collectives: the excess is
    /// exposed communication of those classes, not pipeline bubble.
    std::vector<char> stretchedNodes;
    std::vector<std::vector<graph::TimeClass>> stretchedClasses;
};

/// A network backend of the step model: times the plan's collectives and executes a step's graph. The step model
/// calls nothing else, so a new backend is a new implementation of this interface (and a line in makeStepBackend).
class StepBackend {
public:
    virtual ~StepBackend() = default;

    /// Seconds of one collective on the otherwise idle network (with its SPMD replicas where simulatesReplicas()).
    virtual double collectiveSeconds(const network::CollectiveRequest& request) = 0;
    /// Whether replicas change a collective's time here (then the step model passes them, StepPlan::withReplicas).
    virtual bool simulatesReplicas() const { return false; }
    /// Executes a training step's graph. The default runs it as a critical-path DAG with each node's seconds.
    virtual StepExecution executeTraining(const TrainingStepInput& input);
    /// Whether executeTraining() is that default: the schedule then follows from the graph alone, so the step model may
    /// time a long pipeline from two shorter ones (sim/steadystate.h). A backend that overrides it says false.
    virtual bool schedulesGraphAlone() const { return true; }
    /// The explicit network whose links StepExecution::linkBytes counts, or null.
    virtual const network::Topology* topology() const { return nullptr; }
    /// The most micro-batch passes (micro-batches x pipeline chunks, summed over the step graphs a training step
    /// runs) this backend evaluates; StepModel::training refuses more before it builds anything
    /// (config::InputLimitError). Defaults to kGraphPassBudget.
    virtual std::int64_t microBatchPassBudget() const { return kGraphPassBudget; }
    /// With link faults: the collectives costed so far whose slowest SPMD replica was slower than the representative
    /// group, slowest first (empty where replicas are alike or not costed one by one).
    virtual std::vector<report::FaultLimitedGroup> faultLimitedGroups() const { return {}; }
    /// The name users choose it by ("analytical", "congestion"), for messages.
    virtual const char* name() const { return "analytical"; }

    /// The critical-path executor's budget: 2^20 passes, about 0.5 GB and 0.7 s (measured: 32,768 micro-batches on 4
    /// stages of 5 interleaved chunks, the default workspace with global_batch 65,536, took 0.40 s and 333 MB; memory
    /// and time grow linearly).
    static constexpr std::int64_t kGraphPassBudget = config::kMaxMicroBatchPasses;

    /// Cancels a running executeTraining() from another thread (SimulationCancelled is thrown), where the backend
    /// takes long enough to need it.
    void setStopFlag(const std::atomic<bool>* stop) { m_stop = stop; }
    /// Receives the fraction done of a long executeTraining() now and then (on the calling thread).
    void setProgressCallback(std::function<void(double)> progress) { m_progress = std::move(progress); }

protected:
    const std::atomic<bool>* m_stop = nullptr;
    std::function<void(double)> m_progress;
};

/// How long a collective takes (a custom cost: tests, what-ifs).
using CollectiveCost = std::function<double(const network::CollectiveRequest&)>;

/// The backends a user can choose by name.
enum class NetworkBackend {
    Analytical, ///< closed-form collectives, critical-path DAG
    Congestion, ///< every collective simulated flow by flow, the step's traffic together (CongestionStepBackend)
    Ideal, ///< an infinitely fast network: the bound that compute and the pipeline schedule set alone
};
/// "analytical", "congestion", "ideal": the names `--backend` and the workbench use.
const char* toString(NetworkBackend backend);
/// One line saying what the backend does, for help texts.
const char* describe(NetworkBackend backend);
/// "analytical, congestion or ideal": the names, for help texts and error messages.
std::string networkBackendChoices();
std::optional<NetworkBackend> parseNetworkBackend(std::string_view name);
/// Every backend, in the order they are offered.
std::vector<NetworkBackend> networkBackends();

/// Closed-form collectives (network::AnalyticalNetwork) or @p cost when given, and the critical-path executor.
std::shared_ptr<StepBackend> makeAnalyticalBackend(const config::HardwareSpec& hardware, CollectiveCost cost = {});
/// The backend named @p backend on @p hardware.
std::shared_ptr<StepBackend> makeStepBackend(NetworkBackend backend, const config::HardwareSpec& hardware);

} // namespace rapid::sim
