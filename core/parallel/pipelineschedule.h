// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/runspec.h"

#include <vector>

namespace rapid::parallel {

enum class Pass { Forward, Backward };

/// One step a pipeline stage takes: the forward or backward pass of one micro-batch through one of its model chunks.
struct PipelineStep {
    Pass pass = Pass::Forward;
    int microBatch = 0;
    int chunk = 0; ///< virtual stage on this rank (0 unless interleaved); the model chunk is chunk * stages + stage
    /// Combined 1F1B: this forward and the backward right after it (or this backward and the forward right before it)
    /// run co-scheduled as one step, layer by layer (sim/combinedonefoneb.h).
    bool coScheduled = false;

    bool operator==(const PipelineStep&) const = default;
};

/// The order in which pipeline stage @p stage (0-based, of @p stages) runs the forward and backward passes of
/// @p microBatches micro-batches over @p virtualStages model chunks per rank:
/// - GPipe (all forward, then all backward): every micro-batch is in flight at once.
/// - 1F1B: stage s runs min(stages - s - 1, m) warm-up forwards, then alternates one forward and one backward, then
///   drains; at most min(stages - s, m) micro-batches are in flight.
/// - Interleaved 1F1B (Megatron): forwards walk the chunks in groups of `stages` micro-batches; warm-up is
///   (stages - s - 1) * 2 + (virtualStages - 1) * stages steps.
/// Every (micro-batch, chunk) appears exactly once as Forward and once as Backward, each Backward after its Forward.
/// @p combinedOneFOneB (Megatron-Core's --overlap-moe-expert-parallel-comm, 1F1B and interleaved 1F1B): one more
/// warm-up forward, so that each steady-state forward is independent of the backward it is paired with, and every
/// such forward and the backward after it are marked PipelineStep::coScheduled (schedules.py,
/// get_pp_rank_microbatches: "we schedule one extra micro-batch forward step before the 1f1b stages"; for pp = 1,
/// combined_1f1b_schedule_for_no_pipelining: the first forward alone, then each forward with the previous backward).
std::vector<PipelineStep> pipelineSteps(config::PipelineSchedule schedule, int stages, int stage, int microBatches,
    int virtualStages, bool combinedOneFOneB = false);

/// A micro-batch count, at most @p microBatches, whose schedule (pipelineSteps with the same arguments) holds, on every
/// stage, each amount of memory that @p microBatches' schedule holds, in the same order of warm-up, steady state and
/// drain: what a replay of held activations needs (memory/memorymodel.cpp). 1F1B and interleaved 1F1B repeat one
/// pattern of model chunks every stages * virtualStages forward-backward pairs, and over one such period every chunk
/// enters and leaves `stages` times, so the activations held return to the same value each period; a schedule as many
/// micro-batches modulo `stages` has the same warm-up and drain, and from 3 * stages micro-batches on its steady state
/// spans at least one whole period (warm-up at most (virtualStages + 1) * stages - 1 of 3 * stages * virtualStages
/// steps). GPipe, and interleaving over a count that is not a multiple of `stages` (which falls back to GPipe's order),
/// hold more the more micro-batches there are: @p microBatches itself.
int memoryEquivalentMicroBatches(config::PipelineSchedule schedule, int stages, int microBatches, int virtualStages);

/// Number of layers of each model chunk (stages * virtualStages chunks, in model order): the explicit split if
/// given, otherwise as even as possible with the remainder on the earliest chunks.
std::vector<int> layersPerChunk(int numLayers, int stages, int virtualStages, const std::vector<int>& explicitSplit);

/// Layers per pipeline stage when a framework balances stages by cost (nanotron's build_model): blocks in model order
/// (embedding at no cost, each layer at @p layerCost, then the LM head at @p headCost) go to the current stage until
/// the running total reaches that stage's share total * (stage + 1) / stages. The LM head's cost makes the last
/// stage take fewer layers.
std::vector<int> costBalancedLayersPerStage(int numLayers, int stages, double layerCost, double headCost);

} // namespace rapid::parallel
