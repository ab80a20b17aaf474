// SPDX-License-Identifier: GPL-3.0-or-later
// The ZeRO-1/2 gather of the updated parameters between two steps (Megatron's --overlap-param-gather).
#include "stepmodel.h"
#include "stepparts_p.h"

#include "sim/shardedunits.h"

#include <algorithm>

namespace rapid::sim {

using detail::part;

void StepModel::placeParameterGather(
    const parallel::StagePlan& stage, const std::vector<std::vector<ForwardUnit>>& chunkUnits, graph::StageCost& cost)
{
    // Not overlapped, the gather runs between the optimizer and the next step. Overlapped, it runs one unit
    // ahead of the next step's first forward, which waits where the gathers fall behind; the rest of the
    // gather is hidden under that forward.
    const double whole = collective(*stage.parameterGather);
    const double wait = m_plan.sharding.overlapParameterGather
        ? firstForwardGatherDelay(stage, chunkUnits, m_plan.sharding.stages)
        : whole;
    const double exposedShare = whole > 0 ? std::min(1.0, wait / whole) : 1.0;
    cost.parameterGatherSeconds = wait;
    cost.parameterGatherBytes = stage.parameterGather->bytes * exposedShare;
    if (exposedShare < 1) {
        cost.parameterGatherHiddenSeconds = whole - wait;
        cost.parameterGatherHiddenBytes = stage.parameterGather->bytes * (1 - exposedShare);
    }
}

double StepModel::firstForwardGatherDelay(
    const parallel::StagePlan& stage, const std::vector<std::vector<ForwardUnit>>& chunkUnits, int pipelineStages)
{
    std::vector<double> compute;
    std::vector<double> gathers;
    double previousChunkForward = 0;
    double firstChunkForward = 0;
    // Layers of one kind hold the same parameters: their gathers cost the same.
    double lastParameters = -1;
    double lastGather = 0;
    for (const std::vector<ForwardUnit>& units : chunkUnits) {
        if (!compute.empty()) {
            // Interleaved: the previous chunk's forward of the other micro-batches of the warm-up runs first.
            compute.push_back(static_cast<double>(pipelineStages - 1) * previousChunkForward);
            gathers.push_back(0);
        }
        previousChunkForward = 0;
        for (const ForwardUnit& unit : units) {
            if (unit.parameters != lastParameters) {
                lastParameters = unit.parameters;
                lastGather = unit.parameters > 0 && stage.parameters > 0
                    ? collective(part(*stage.parameterGather, unit.parameters / stage.parameters))
                    : 0.0;
            }
            compute.push_back(unit.seconds);
            gathers.push_back(lastGather);
            previousChunkForward += unit.seconds;
        }
        if (&units == &chunkUnits.front()) {
            firstChunkForward = previousChunkForward;
        }
    }
    // A later pipeline stage's first forward waits for its input anyway: the earlier stages' first forwards.
    return prefetchedGatherDelay(compute, gathers, stage.stage * firstChunkForward);
}

} // namespace rapid::sim
