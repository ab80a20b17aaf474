// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "operator.h"

#include "config/runspec.h"

#include <optional>

namespace rapid::model {

/// How a pipeline stage's gradients are summed over a step's micro-batches outside the GEMMs that produce them
/// (parallel::ShardingPlan::gradientSum builds it from the run).
struct GradientSum {
    int passes = 1; ///< backward passes (micro-batches) per step
    /// FSDP's gradients stay unsharded over the passes and are reduced once, after the last: PyTorch FSDP2 with
    /// gradient sync off for all but the last (torch.distributed.pipelining's backward_maybe_with_nosync under
    /// pipeline parallelism). Otherwise each pass's gradients are reduce-scattered as they come.
    bool unshardedUntilLast = false;
    /// The routed experts are outside FSDP (NeMo AutoModel's apply_fsdp passes them as ignored_params when their
    /// expert shard group is one rank): autograd sums their gradients in place, in their own dtype, whatever FSDP
    /// does with the rest.
    bool expertsOutsideFsdp = false;
    /// Reductions of the FSDP gradients per step: with several (one per pipeline schedule when each schedule reshards,
    /// parallel::ShardingPlan::gathersEachFlush), the unsharded sums restart after each, over passes / syncs passes.
    int syncs = 1;
    bool operator==(const GradientSum&) const = default;
};

/// The memory-bound pass that sums one micro-batch's gradients of @p parameters on this GPU (@p expertParameters of
/// them routed experts) into what the step has accumulated, or nothing. Two causes:
/// - nanotron with accumulate_grad_in_fp32 (its FP32GradientAccumulator, optim/gradient_accumulator.py and the DDP
///   hook get_fp32_accum_hook) adds each parameter's gradient into an fp32 buffer after every micro-batch's
///   backward: reads the bf16 gradient and the fp32 sum, writes the sum, 2 + 4 + 4 bytes per parameter. Megatron
///   fuses the accumulation into the weight-gradient GEMM (gradient_accumulation_fusion): no pass there, the GEMM's
///   epilogue reads and writes the sum instead (fusedWeightGradientAccumulation).
/// - PyTorch FSDP2 without gradient sync (@p sum.unshardedUntilLast, m = @p sum.passes > 1). Its post-backward
///   (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py, post_backward; _fsdp_param.py,
///   to_accumulated_grad_if_needed and accumulate_unsharded_grad_if_needed) keeps each unsharded gradient: when the
///   reduce dtype (precision.gradients) differs from the parameter dtype (precision.weights), the first pass casts it
///   (g + r bytes per parameter) and every later one adds the new gradient into it (g + 2 r); in the same dtype
///   autograd adds in place from the second pass on (3 g).
/// - PyTorch parameters outside FSDP (@p sum.expertsOutsideFsdp): autograd's AccumulateGrad adds each later pass's
///   gradient into .grad in place (3 g).
///   With @p sum.syncs > 1 reductions per step the FSDP sums restart after each: syncs periods of m / syncs passes.
/// The pass is charged as its mean over the m passes of the step.
/// The operator is named for @p opClass (a layer's or the LM head's).
std::optional<Operator> gradientAccumulation(const config::RunSpec& run, double parameters, double expertParameters,
    const GradientSum& sum, OperatorClass opClass);

/// The format of the buffer a training run's weight-gradient GEMMs add into, or nothing when they write a fresh
/// gradient. Megatron (its default gradient_accumulation_fusion: the wgrad GEMM of APEX's
/// fused_weight_gradient_mlp_cuda, or Transformer Engine's with accumulate=True, for every linear, the grouped expert
/// GEMMs and the output layer) adds each micro-batch's dW into the parameter's main_grad with beta = 1 from the first
/// micro-batch on (the buffer is zeroed at the step's start): main_grad holds precision.gradients (fp32 whenever
/// gradients are reduced in fp32, the r0.8.0 default for bf16).
std::optional<config::Precision> fusedWeightGradientAccumulation(const config::RunSpec& run);

} // namespace rapid::model
