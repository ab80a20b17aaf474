// SPDX-License-Identifier: GPL-3.0-or-later
// A chunk's gradient reduction as the training-step graph places it: bucketed under the last backward or after it.
#include "stepmodel.h"
#include "stepparts_p.h"

#include "sim/shardedunits.h"

#include <algorithm>

namespace rapid::sim {

using detail::collectiveSmShare;
using detail::part;
using detail::sum;

void StepModel::placeGradientReduction(
    const parallel::ChunkPlan& chunk, const graph::ChunkCost& chunkCost, graph::StageCost& cost)
{
    // Overlapped, the chunk's gradients leave bucket by bucket while its last backward runs; only the last
    // bucket waits for its end (the training-step graph places the two parts).
    // FSDP2 under pipeline parallelism reduce-scatters a stage's gradients only after its last backward has
    // finished: torch.distributed.pipelining runs FSDP's post-backward by hand then (stage.py,
    // backward_maybe_with_nosync), so no bucket leaves under that backward.
    const bool bucketed = m_plan.sharding.overlapGradientReduction && !m_plan.sharding.keepsStageGathered;
    // The share of the gradient buffer the last bucket carries.
    const double bucketParameters = m_plan.sharding.gradientBucketParameters;
    const double bucket
        = bucketed && chunk.trainableParameters > 0 ? std::min(1.0, bucketParameters / chunk.trainableParameters) : 1.0;
    const double bytes = chunk.gradientReduction.onNetwork() ? chunk.gradientReduction.bytes : 0.0;
    const bool split = bucket < 1 && bytes > 0;
    cost.dataParallelSeconds.push_back(collective(part(chunk.gradientReduction, split ? 1 - bucket : 1.0)));
    cost.dataParallelBytes.push_back(bytes * (split ? 1 - bucket : 1.0));
    cost.dataParallelLastBucketSeconds.push_back(split ? collective(part(chunk.gradientReduction, bucket)) : 0);
    cost.dataParallelLastBucketBytes.push_back(split ? bytes * bucket : 0);
    const double replicaBytes = chunk.replicaReduction ? chunk.replicaReduction->bytes : 0.0;
    cost.replicaReductionSeconds.push_back(collectiveOrZero(part(chunk.replicaReduction, split ? 1 - bucket : 1)));
    cost.replicaReductionBytes.push_back(replicaBytes * (split ? 1 - bucket : 1.0));
    cost.replicaReductionLastBucketSeconds.push_back(
        split ? collectiveOrZero(part(chunk.replicaReduction, bucket)) : 0);
    cost.replicaReductionLastBucketBytes.push_back(split ? replicaBytes * bucket : 0);
    const bool expertsApart = chunk.expertGradientReduction && chunk.expertGradientReduction->onNetwork();
    cost.expertDataParallelSeconds.push_back(expertsApart ? collective(*chunk.expertGradientReduction) : 0.0);
    cost.expertDataParallelBytes.push_back(expertsApart ? chunk.expertGradientReduction->bytes : 0.0);
    // The buckets that leave under the last backward hold NCCL's CTAs beside it, which computes slower while
    // they run (shardedunits.h). FSDP's units already count their reductions beside each unit.
    const bool shardedUnits = chunk.parameterGather || chunk.expertParameterGather;
    cost.reductionContentionSeconds.push_back(split && !shardedUnits ? collectiveContention(sum(chunkCost.backward),
                                                  cost.dataParallelSeconds.back() + cost.replicaReductionSeconds.back()
                                                      + cost.expertDataParallelSeconds.back(),
                                                  collectiveSmShare(m_scenario.hardware.gpu))
                                                                     : 0.0);
}

} // namespace rapid::sim
