// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compute/operatortimer.h"
#include "config/configloader.h"
#include "graph/inferencerequest.h"
#include "graph/trainingstep.h"
#include "network/collective.h"
#include "parallel/stepplan.h"
#include "report/stepresult.h"
#include "sim/stepbackend.h"

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace rapid::sim {

/// The performance model of one scenario. It reads the step plan (parallel::planStep: every sharded operator's
/// collectives, their groups and where they run), times every operator of a pipeline stage's chunks on its GPU
/// (compute::OperatorTimer), costs the plan's collectives on its backend (StepBackend: analytical closed forms, or the
/// congestion simulation), builds the training step's execution graph and has the backend execute it.
/// An ordinary value: evaluations of different scenarios can run side by side on different threads.
class StepModel {
public:
    /// The analytical backend of the scenario's hardware, or @p collective as the cost of every collective.
    explicit StepModel(config::Scenario scenario, CollectiveCost collective = {});
    /// The backend named @p backend on the scenario's hardware.
    StepModel(config::Scenario scenario, NetworkBackend backend);
    StepModel(config::Scenario scenario, std::shared_ptr<StepBackend> backend);

    /// Cancels a long training() from another thread (SimulationCancelled is thrown).
    void setStopFlag(const std::atomic<bool>* stop) { m_backend->setStopFlag(stop); }
    /// Receives the fraction done of a long training() now and then (on the calling thread).
    void setProgressCallback(std::function<void(double)> progress)
    {
        m_backend->setProgressCallback(std::move(progress));
    }
    StepBackend& backend() { return *m_backend; }

    /// One training step. @p timeline fills TrainingResult::timeline (costs a little time for large graphs). Throws
    /// config::InputLimitError, before building anything, for more micro-batch passes than the backend's budget.
    report::TrainingResult training(bool timeline = true);
    /// Prefill of the batch, then decode steps with the growing KV cache: @p decodeSamples evenly spaced KV lengths
    /// integrated with the trapezoid rule (0 = time every decode step).
    report::InferenceResult inference(int decodeSamples = 9);
    /// The per-stage costs the training graph is built from (exposed for tests and the layer table).
    std::vector<graph::StageCost> trainingStageCosts() { return stageCosts(nullptr); }
    /// One inference request batch per pipeline stage, for its execution graph and Chakra export: inference()'s
    /// prefill and mean decode step without their pipeline sends, split over the stages by their layer counts, the
    /// stage-to-stage sends, and the hand-back of the sampled tokens (4 bytes per sequence) from the last stage.
    graph::InferenceRequestCosts inferenceRequestCosts();

    const config::Scenario& scenario() const { return m_scenario; }
    const parallel::StepPlan& plan() const { return m_plan; }
    const parallel::Placement& placement() const { return m_plan.placement; }
    /// The model layers (global indices) of each virtual chunk of pipeline stage @p stage.
    std::vector<std::vector<int>> chunkLayersOfStage(int stage) const;
    /// One dense (or MoE) layer's forward and backward time per class on pipeline stage @p stage, with the exposed part
    /// of its tensor-, context- and expert-parallel collectives on that stage's groups (cached; without link faults
    /// every stage shares stage 0's).
    const LayerTimes& layerTimes(int stage, bool moe);
    /// @p ops timed on this scenario's GPU, per breakdown class (the serving model composes iterations from them).
    graph::TimeBreakdown operatorSeconds(const std::vector<model::Operator>& ops)
    {
        return timeOperators(ops, nullptr, nullptr);
    }
    /// Seconds of @p collective on this model's backend (0 when it moves nothing).
    double collectiveSeconds(const parallel::PlannedCollective& collective) { return this->collective(collective); }

    /// ZeRO-3/FSDP: per stage and chunk, what the unit gathers cost each pass in closed form (empty chunks without).
    using ExposedGathers = std::vector<std::vector<ChunkGatherCost>>;
    ExposedGathers chunkGatherCosts()
    {
        ExposedGathers gathers;
        stageCosts(&gathers);
        return gathers;
    }

private:
    void checkMicroBatchBudget() const;
    void applyStragglers(report::InferenceResult& result, int steps) const;
    std::vector<graph::StageCost> stageCosts(ExposedGathers* exposedGathers);
    /// One parameter unit of a chunk's forward: its compute and the parameters it needs (one GPU's, before ZeRO).
    struct ForwardUnit {
        double seconds = 0;
        double parameters = 0;
        double expertParameters = 0; ///< of them, routed experts'
    };
    /// How long an overlapped ZeRO-1/2 gather of @p stage's updated parameters delays the next step's first forward
    /// (Megatron's --overlap-param-gather; sim/shardedunits.h, prefetchedGatherDelay).
    /// The ZeRO-1/2 gather of one forward unit's updated parameters (the experts' over their own group).
    double unitGather(const parallel::StagePlan& stage, const ForwardUnit& unit);
    /// What the first forward waits for the gathers, and what the slower compute beside them adds to that.
    struct FirstForwardGather {
        double wait = 0;
        double contention = 0;
    };
    FirstForwardGather firstForwardGatherDelay(
        const parallel::StagePlan& stage, const std::vector<std::vector<ForwardUnit>>& chunkUnits, int pipelineStages);
    /// The ZeRO-1/2 gather of @p stage's updated parameters: what the next step waits for, and what runs beside it.
    /// A chunk's gradient reduction into @p cost (its bucketed parts, replica and expert reductions, and what the
    /// buckets beside the last backward slow it by): stepgradientreduction.cpp.
    void placeGradientReduction(
        const parallel::ChunkPlan& chunk, const graph::ChunkCost& chunkCost, graph::StageCost& cost);
    void placeParameterGather(const parallel::StagePlan& stage, const std::vector<std::vector<ForwardUnit>>& chunkUnits,
        graph::StageCost& cost);
    graph::TimeBreakdown timeOperators(
        const std::vector<model::Operator>& ops, double* gemmSeconds, double* attentionSeconds);
    /// Seconds of @p collective on the backend (0 when it moves nothing).
    double collective(const parallel::PlannedCollective& collective);
    /// ZeRO-3/FSDP: charges @p chunkCost the waits for the chunk's unit-by-unit gathers and the compute their SMs slow
    /// (sim/shardedunits.h) and returns them in closed form for the backends.
    ChunkGatherCost chargeUnitGathers(const parallel::ChunkPlan& chunk, std::span<const double> unitForward,
        std::span<const double> unitBackward, graph::ChunkCost& chunkCost);
    double collectiveOrZero(const std::optional<parallel::PlannedCollective>& collective);
    /// Moves the stretch of compute nodes whose collectives the backend simulated from the bubble to those classes.
    static void attributeStretch(const StepExecution& execution, const graph::ExecutionGraph& graph,
        const Schedule& schedule, report::StepBreakdown& breakdown);
    /// GPU-seconds of the step's compute streams: every GPU of a stage runs what its representative rank runs.
    double busyGpuSeconds(const graph::ExecutionGraph& graph) const;
    void addThroughputAndEnergy(report::TrainingResult& result, double busyGpuSeconds) const;
    /// training() of a long pipeline timed from two shorter ones when the backend schedules the graph alone and the
    /// schedule is shown to repeat itself (sim/steadystate.h, stepsteadystate.cpp); nullopt where that does not apply,
    /// and training() runs the whole graph.
    std::optional<report::TrainingResult> steadyStateTraining(
        const std::vector<graph::StageCost>& stages, const ExposedGathers& exposedGathers);
    /// One step graph of @p stages with @p microBatches per pipeline, executed on the backend.
    struct StepRun {
        graph::ExecutionGraph graph;
        StepExecution execution;
    };
    StepRun runStep(
        const std::vector<graph::StageCost>& stages, const ExposedGathers& exposedGathers, int microBatches);

    config::Scenario m_scenario;
    parallel::StepPlan m_plan;
    std::shared_ptr<StepBackend> m_backend;
    compute::OperatorTimer m_timer;
    /// Per stage (only stage 0 without link faults), dense and MoE layers.
    std::vector<std::array<std::unique_ptr<LayerTimes>, 2>> m_layerTimes;
};

/// Maps an operator's class to the breakdown class it is reported under.
graph::TimeClass timeClassOf(model::OperatorClass opClass);

} // namespace rapid::sim
