// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/runspec.h"

namespace rapid::memory {

/// Memory conventions of a training or serving framework that the model shape and the run do not determine. Every
/// value is documented with its source in frameworkprofile.cpp.
struct FrameworkProfile {
    /// Autograd's gradient in the weight precision exists until it is accumulated into the run.precision.gradients
    /// buffer at the end of each micro-batch's backward (a transient of one stage's parameters).
    bool weightPrecisionGradientTransient = false;
    /// A persistent data-parallel gradient bucket in the weight precision (PyTorch DDP) when ZeRO is off and dp > 1.
    bool ddpBucketWithoutZero = false;
    /// Full-sequence hidden-size buffers kept for tensor-parallel all-gathers (sequence parallelism) when tp > 1.
    int tpGatherBuffers = 0;
    /// Extra copies of K and V kept by the rotary embedding implementation (one per tensor).
    bool rotaryKeyValueCopies = false;
    /// FFN-wide tensors a gated MLP keeps per token: 3 = fused gate|up input (2) + activation output (1);
    /// 4 = gate|up output (2), activation output and the gated product kept separately.
    int gatedMlpSavedTensors = 3;
    /// Bytes per vocabulary element the loss keeps for its backward (fp32 softmax) and needs transiently beside them
    /// (the larger of its forward's and its backward's).
    double logitsSavedBytes = 4;
    double logitsTransientBytes = 6;
    /// Compiled blocks: AOTAutograd partitions each block's joint forward-backward graph and saves only the tensors
    /// its backward reads, even those a selective-checkpoint policy marks must-save (model/opsacrecompute.cpp).
    bool savesOnlyWhatBackwardReads = false;
    /// Parameter-sized buffers of the ZeRO-1/2 all-gather after the optimizer step, in bytes per local parameter
    /// (plus 1/dp of that for the flattened input shard).
    double zeroGatherBytesPerParameter = 0;
    /// FSDP2 under a mixed-precision policy keeps each sharded parameter in its original (optimizer) precision and
    /// casts it to the compute precision only for the all-gather: the master copy is the only sharded weight.
    bool shardedParametersAreMaster = false;
    /// Bytes per element of the input each linear layer keeps for its weight-gradient GEMM when its GEMMs run in FP8
    /// through Transformer Engine, which keeps the quantised copy it made for the forward GEMM (with its block scales)
    /// instead of the high-precision input; 0 when linears keep their input at the activation precision.
    double quantizedLinearInputBytes = 0;
    /// Memory outside the caching allocator: CUDA context, NCCL and cuBLAS workspaces.
    double nonAllocatorBytes = 0;
    /// The caching allocator's fragmentation ratio, 1 - peak active / peak reserved over its whole pool (GMLake's
    /// definition): the share of the reserved peak that no live tensor holds at the allocator's peak. 0 to below 1.
    double poolFragmentation = 0;

    bool operator==(const FrameworkProfile&) const = default;
};

/// The profile of the run's framework under the run's compile and loss options.
FrameworkProfile frameworkProfile(const config::RunSpec& run);

} // namespace rapid::memory
