// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/runspec.h"
#include "graph/executiongraph.h"
#include "parallel/shardingplan.h"

#include <vector>

namespace rapid::graph {

/// Time of one pass of one micro-batch through one model chunk of a stage, by class. Includes the collectives that
/// run inline with the compute (tensor, context and expert parallel) and, with ZeRO-3/FSDP, the exposed part of the
/// parameter gathers.
struct ChunkCost {
    TimeBreakdown forward {};
    TimeBreakdown backward {}; ///< recomputation included
};

/// Costs of the ranks of one pipeline stage over one training step.
struct StageCost {
    std::vector<ChunkCost> chunks; ///< per virtual chunk on this stage (1 unless interleaved)
    /// Combined 1F1B (ShardingPlan::combinedOneFOneB): a co-scheduled pair's forward of chunk cf and backward of chunk
    /// cb take coScheduled[cf x chunks + cb].forward and .backward instead (sim/combinedonefoneb.h); empty without.
    std::vector<ChunkCost> coScheduled;
    double sendActivationSeconds = 0; ///< one micro-batch's activations to the next model chunk
    double sendGradientSeconds = 0; ///< one micro-batch's input gradients to the previous model chunk
    /// Gradient reduction per chunk (empty or zeros when dp = 1). When the chunk's last bucket is given below, this is
    /// the part before it: reduced bucket by bucket while the chunk's last backward runs.
    std::vector<double> dataParallelSeconds;
    /// Overlapped reduction: the chunk's last gradient bucket, which can leave only after the last backward (empty or
    /// zeros: the whole reduction waits for the last backward).
    std::vector<double> dataParallelLastBucketSeconds;
    std::vector<double> dataParallelLastBucketBytes;
    /// Hybrid sharding: each reduction's shard then all-reduced over its replicas, per chunk, in the same two parts
    /// (a ReplicaReduction node after each DataParallel node); empty or zeros without.
    std::vector<double> replicaReductionSeconds;
    std::vector<double> replicaReductionBytes;
    std::vector<double> replicaReductionLastBucketSeconds;
    std::vector<double> replicaReductionLastBucketBytes;
    /// The routed experts' gradient reduction over their expert-data-parallel group, per chunk (empty or zeros when
    /// they are reduced with the rest): one node on the data-parallel stream after the chunk's other reduction, from
    /// the same compute node on.
    std::vector<double> expertDataParallelSeconds;
    std::vector<double> expertDataParallelBytes;
    /// Compute lost to the SMs that overlapped data-parallel collectives hold beside it (network::kCollectiveCtas), per
    /// chunk: what the reductions leaving under the chunk's last backward cost that backward (empty or zeros: none).
    /// The graph runs it as a compute node of its own right after that backward (data-parallel time, no chunk: the same
    /// duration on every network backend and in Chakra traces), which the reductions' last bucket waits for too.
    std::vector<double> reductionContentionSeconds;
    /// The same for the overlapped parameter gather beside the step's first forward (ZeRO-1/2's, or FSDP2's when the
    /// stage stays gathered): a node right after the stage's first compute node.
    double gatherContentionSeconds = 0;
    double optimizerSeconds = 0;
    double parameterGatherSeconds = 0; ///< ZeRO-1/2 all-gather of updated parameters after the step
    /// Overlapped ZeRO-1/2 gather: the part the next step's forward hides, bucket by bucket (in a one-step graph it
    /// runs beside this step's forward); parameterGatherSeconds is then the first bucket, which the forward waits for.
    double parameterGatherHiddenSeconds = 0;
    double parameterGatherHiddenBytes = 0;
    /// The routed experts' part of the ZeRO-1/2 gather, over their shard group (after the rest's, same split).
    double expertParameterGatherSeconds = 0;
    double expertParameterGatherBytes = 0;
    double expertParameterGatherHiddenSeconds = 0;
    double expertParameterGatherHiddenBytes = 0;
    // What the communication nodes move per rank, for trace export (bytes).
    double sendBytes = 0; ///< one pipeline message (activations or input gradients)
    std::vector<double> dataParallelBytes; ///< gradient buffer reduced per chunk
    double parameterGatherBytes = 0; ///< parameters gathered after the step
};

/// Builds the execution graph of one training step: one representative rank per pipeline stage (ranks of a stage
/// behave alike), its compute nodes in the pipeline schedule's order (parallel::pipelineSteps), point-to-point
/// sends between model chunks on the pipeline stream, gradient reductions on the data-parallel stream — each after
/// its chunk's last backward when ShardingPlan::overlapGradientReduction, else after the stage's last backward — then
/// the optimizer and the parameter gather.
ExecutionGraph buildTrainingStep(const parallel::ShardingPlan& plan, const std::vector<StageCost>& stages);

} // namespace rapid::graph
