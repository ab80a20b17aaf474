// SPDX-License-Identifier: GPL-3.0-or-later
#include "resultjson.h"

#include "graph/executiongraph.h"

namespace rapid::analysis {

namespace {

using report::Json;

Json placementJson(const parallel::Placement& placement)
{
    Json axes = Json::array();
    for (const parallel::AxisPlacement& axis : placement.axes) {
        axes.push_back(
            { { "axis", parallel::toString(axis.axis) }, { "degree", axis.degree }, { "stride", axis.stride } });
    }
    return axes;
}

Json memoryJson(const memory::MemoryEstimate& memory)
{
    Json breakdown = Json::object();
    for (int i = 0; i < memory::kMemoryCategoryCount; ++i) {
        breakdown[memory::toString(static_cast<memory::MemoryCategory>(i))] = memory.breakdown[static_cast<size_t>(i)];
    }
    return { { "peak_bytes", memory.peakBytes }, { "peak_allocated_bytes", memory.peakAllocatedBytes },
        { "capacity_bytes", memory.capacityBytes }, { "fits", memory.fits }, { "peak_stage", memory.peakStage },
        { "breakdown_bytes", breakdown } };
}

/// Every directed link the step's simulated traffic used, in link order.
Json linksJson(const network::Topology& topology, const std::vector<double>& utilisation)
{
    Json links = Json::array();
    for (size_t link = 0; link < utilisation.size(); ++link) {
        if (utilisation[link] <= 0) {
            continue;
        }
        const network::Link& directed = topology.link(static_cast<int>(link));
        links.push_back({ { "id", topology.linkId(static_cast<int>(link)) }, { "link", link },
            { "from", directed.from }, { "to", directed.to }, { "utilisation", utilisation[link] } });
    }
    return links;
}

void addTraining(Json& document, const report::TrainingResult& training, const sim::StepBackend& backend)
{
    document["step_time_s"] = training.stepTimeSeconds;
    Json breakdown = Json::object();
    for (int i = 0; i < graph::kTimeClassCount; ++i) {
        breakdown[graph::toString(static_cast<graph::TimeClass>(i))] = training.breakdown.parts[static_cast<size_t>(i)];
    }
    breakdown["pipeline_bubble"] = training.breakdown.bubbleSeconds;
    document["breakdown_s"] = breakdown;
    document["throughput"]
        = { { "tokens_per_s", training.tokensPerSecond }, { "model_flops_per_gpu", training.modelFlopsPerGpu } };
    document["mfu"] = training.mfu;
    if (!training.linkUtilisation.empty() && backend.topology()) {
        document["links"] = linksJson(*backend.topology(), training.linkUtilisation);
    }
    if (!training.limitingStragglers.empty()) {
        document["limiting_stragglers"] = training.limitingStragglers;
    }
    if (!training.faultLimitedGroups.empty()) {
        Json groups = Json::array();
        for (const report::FaultLimitedGroup& group : training.faultLimitedGroups) {
            groups.push_back({ { "collective", group.collective }, { "gpus", group.gpus },
                { "representative_gpus", group.representative }, { "seconds", group.seconds },
                { "representative_seconds", group.representativeSeconds } });
        }
        document["fault_limited_groups"] = groups;
    }
}

} // namespace

report::Json runResultJson(
    const config::Scenario& scenario, const ScenarioEvaluation& evaluation, const memory::MemoryEstimate& memory)
{
    Json document = { { "scenario", scenario.name }, { "gpus", evaluation.plan.placement.ranks },
        { "placement", placementJson(evaluation.plan.placement) }, { "memory", memoryJson(memory) } };
    if (evaluation.training) {
        addTraining(document, *evaluation.training, *evaluation.backend);
    }
    const report::EnergyEstimate& energy
        = evaluation.training ? evaluation.training->energy : evaluation.inference->energy;
    if (energy.known()) {
        document["energy"] = { { "joules", energy.joules }, { "busy_joules", energy.busyJoules },
            { "average_power_w_per_gpu", energy.averageWattsPerGpu }, { "joules_per_token", energy.joulesPerToken } };
    }
    if (const auto& inference = evaluation.inference) {
        document["ttft_s"] = inference->ttftSeconds;
        document["itl_s"] = inference->itlSeconds;
        document["e2e_s"] = inference->e2eSeconds;
        document["throughput"] = { { "tokens_per_s", inference->tokensPerSecond } };
        if (!inference->limitingStragglers.empty()) {
            document["limiting_stragglers"] = inference->limitingStragglers;
        }
    }
    return document;
}

} // namespace rapid::analysis
