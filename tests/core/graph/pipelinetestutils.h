// SPDX-License-Identifier: GPL-3.0-or-later
// Synthetic pipelines for the tests of the training-step graph and its execution: a sharding plan that carries only
// the pipeline, and stage costs of fixed forward and backward seconds.
#pragma once

#include "graph/trainingstep.h"
#include "parallel/shardingplan.h"

#include <vector>

namespace rapid::test {

/// The pipeline part of a sharding plan: what the training-step graph reads.
inline parallel::ShardingPlan pipelineRun(
    int pp, int microBatches, config::PipelineSchedule schedule, int virtualStages = 1)
{
    parallel::ShardingPlan plan;
    plan.stages = pp;
    plan.schedule = schedule;
    plan.virtualStages = virtualStages;
    plan.microBatches = microBatches;
    return plan;
}

/// Every stage: @p forward and @p backward seconds per chunk (all attributed to the MLP class), nothing else;
/// @p slowStage's passes take @p slowdown times as long.
inline std::vector<graph::StageCost> uniformCosts(
    int pp, int chunks, double forward, double backward, int slowStage = -1, double slowdown = 1.0)
{
    std::vector<graph::StageCost> stages(static_cast<size_t>(pp));
    for (int s = 0; s < pp; ++s) {
        const double scale = s == slowStage ? slowdown : 1.0;
        graph::ChunkCost chunk;
        chunk.forward[static_cast<size_t>(graph::TimeClass::Mlp)] = forward * scale;
        chunk.backward[static_cast<size_t>(graph::TimeClass::Mlp)] = backward * scale;
        stages[static_cast<size_t>(s)].chunks.assign(static_cast<size_t>(chunks), chunk);
    }
    return stages;
}

} // namespace rapid::test
