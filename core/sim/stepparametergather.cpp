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
    // The routed experts' part, when gathered apart, follows the rest's over its own group and is exposed alike.
    const double dense = collectiveOrZero(stage.parameterGather);
    const double experts = collectiveOrZero(stage.expertParameterGather);
    const double whole = dense + experts;
    const FirstForwardGather overlapped = m_plan.sharding.overlapParameterGather
        ? firstForwardGatherDelay(stage, chunkUnits, m_plan.sharding.stages)
        : FirstForwardGather { whole, 0.0 };
    const double wait = overlapped.wait;
    const double exposedShare = whole > 0 ? std::min(1.0, wait / whole) : 1.0;
    const double denseBytes = stage.parameterGather ? stage.parameterGather->bytes : 0.0;
    cost.parameterGatherSeconds = dense * exposedShare;
    cost.parameterGatherBytes = denseBytes * exposedShare;
    cost.parameterGatherHiddenSeconds = dense * (1 - exposedShare);
    cost.parameterGatherHiddenBytes = denseBytes * (1 - exposedShare);
    cost.gatherContentionSeconds = overlapped.contention;
    if (stage.expertParameterGather) {
        cost.expertParameterGatherSeconds = experts * exposedShare;
        cost.expertParameterGatherBytes = stage.expertParameterGather->bytes * exposedShare;
        cost.expertParameterGatherHiddenSeconds = experts * (1 - exposedShare);
        cost.expertParameterGatherHiddenBytes = stage.expertParameterGather->bytes * (1 - exposedShare);
    }
}

double StepModel::unitGather(const parallel::StagePlan& stage, const ForwardUnit& unit)
{
    // The routed experts' share travels in the experts' own gather when there is one.
    const double expertsApart = stage.expertParameterGather ? stage.expertParameters : 0.0;
    const double unitExperts = stage.expertParameterGather ? unit.expertParameters : 0.0;
    const double rest = stage.parameters - expertsApart;
    double seconds = unit.parameters - unitExperts > 0 && rest > 0
        ? collectiveOrZero(part(stage.parameterGather, (unit.parameters - unitExperts) / rest))
        : 0.0;
    if (unitExperts > 0 && expertsApart > 0) {
        seconds += collective(part(*stage.expertParameterGather, unitExperts / expertsApart));
    }
    return seconds;
}

StepModel::FirstForwardGather StepModel::firstForwardGatherDelay(
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
                lastGather = unitGather(stage, unit);
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
    // The gathers hold NCCL's CTAs beside the units, which compute slower while they run (shardedunits.h): what that
    // adds to the waits, unit by unit, slows the stage's first forward.
    const double headStart = stage.stage * firstChunkForward;
    const double wait = prefetchedGatherDelay(compute, gathers, headStart);
    const double slowed
        = prefetchedGatherDelay(compute, gathers, headStart, detail::collectiveSmShare(m_scenario.hardware.gpu));
    return { wait, std::max(0.0, slowed - wait) };
}

} // namespace rapid::sim
