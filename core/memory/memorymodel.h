// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"
#include "config/modelspec.h"
#include "config/runspec.h"
#include "memory/frameworkprofile.h"
#include "parallel/shardingplan.h"

#include <array>
#include <string>
#include <vector>

namespace rapid::memory {

/// Categories of per-GPU memory, in the order reports list them.
enum class MemoryCategory {
    Weights,
    Gradients,
    MasterWeights,
    OptimizerStates,
    GatheredParameters, ///< ZeRO-3/FSDP: the parameters of the layer being computed, gathered from the dp group
    CommunicationBuffers, ///< persistent DDP buckets and tensor-parallel gather buffers
    Activations, ///< saved for backward, all micro-batches in flight
    Logits, ///< LM-head output kept for the loss
    Transient, ///< the largest short-lived buffer at the peak (activation gradients, recomputation)
    KvCache,
    Overhead, ///< outside the allocator (CUDA context, workspaces) and allocator fragmentation
};
constexpr int kMemoryCategoryCount = 11;
const char* toString(MemoryCategory category);

/// Memory of the ranks of one pipeline stage over a training step (or an inference request).
struct StageMemory {
    int stage = 0;
    double staticBytes = 0; ///< weights, gradients, optimizer states, persistent buffers
    double computePeakBytes = 0; ///< allocated peak during forward and backward passes
    double optimizerPeakBytes = 0; ///< allocated peak during gradient synchronisation and the optimizer step
    double reservedPeakBytes = 0; ///< what the caching allocator holds at the peak (fragmentation included)
    int inFlightMicroBatches = 0; ///< micro-batches whose activations are held at the compute peak
    std::array<double, kMemoryCategoryCount> breakdown {}; ///< at the higher of the two allocated peaks
    double peakAllocatedBytes() const
    {
        return computePeakBytes > optimizerPeakBytes ? computePeakBytes : optimizerPeakBytes;
    }
    bool operator==(const StageMemory&) const = default;
};

/// Peak memory of the most loaded pipeline stage, with the breakdown at that peak, against the GPU's capacity.
struct MemoryEstimate {
    std::array<double, kMemoryCategoryCount> breakdown {}; ///< bytes per category at the peak
    double peakAllocatedBytes = 0; ///< what torch.cuda.max_memory_allocated would report (no Overhead)
    double peakBytes = 0; ///< everything the GPU must hold at the peak (Overhead included)
    double capacityBytes = 0;
    bool fits = false;
    double marginBytes = 0; ///< capacity - peak (negative when it does not fit)
    int peakStage = 0; ///< pipeline stage whose ranks peak highest
    int inFlightMicroBatches = 0; ///< micro-batches whose activations are held at that peak
    std::vector<StageMemory> stages; ///< every pipeline stage

    double bytes(MemoryCategory category) const { return breakdown[static_cast<size_t>(category)]; }
    bool operator==(const MemoryEstimate&) const = default;
};

/// Parameters held by one GPU of pipeline stage @p stage (its layers, the embedding on the first stage, the LM head
/// and final norm on the last; sharded by tp, experts by ep as well).
double parametersOnStage(const config::ModelSpec& model, const config::RunSpec& run, int stage);

/// Replays allocations and frees of every pipeline stage along its schedule (parallel::ShardingPlan) and
/// returns the worst stage's peak. Training: static weights, gradients and optimizer states (ZeRO/FSDP sharding)
/// and persistent communication buffers; then, step by step, activations saved per micro-batch until their
/// backward, the logits of the last stage, the backward transients; then the optimizer phase with its gather
/// buffers. The verdict compares what the GPU must hold — reserved memory of the allocator plus memory outside it —
/// with the capacity. Inference: weights, KV cache of the batch at full length, the prefill activations of one
/// layer.
MemoryEstimate estimateMemory(const config::ModelSpec& model, const config::GpuSpec& gpu, const config::RunSpec& run);
/// The same with the sharding already planned (the step model has it): nothing about the run's parallel degrees is
/// read but what @p plan says.
MemoryEstimate estimateMemory(const config::ModelSpec& model, const config::GpuSpec& gpu, const config::RunSpec& run,
    const parallel::ShardingPlan& plan);

} // namespace rapid::memory
