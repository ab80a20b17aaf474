// SPDX-License-Identifier: GPL-3.0-or-later
#include "frameworkprofile.h"

#include "model/fp8quantization.h"

#include <algorithm>

namespace rapid::memory {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kFp32 = 4;

/// PyTorch's caching allocator keeps freed blocks for reuse and splits cached segments between tensors of different
/// sizes and lifetimes, so at its peak part of what it has reserved holds no live tensor. CITED, not fitted: GMLake
/// (Guo et al., ASPLOS 2024, arXiv 2401.08156) measured the fragmentation ratio, 1 - peak active / peak reserved over
/// the whole pool (its README, "fragmentation ratio"), on eight LLM fine-tuning workloads on A100-80GB (DeepSpeed
/// ZeRO-3, FSDP, Colossal-AI; recomputation, LoRA, offload): virtual-memory stitching removed 15% of it on average
/// (up to 33%), its own allocator keeping 5-10%. The published average, 0.15, is taken: when a run nears the
/// capacity the allocator releases its cached segments and retries before it reports out of memory, so a run at the
/// edge fragments less than the roomy runs measured. One value for the allocator, not per run (docs/calibration.md,
/// "caching-allocator fragmentation").
constexpr double kPytorchPoolFragmentation = 0.15;

/// CUDA context, cuBLAS workspaces and NCCL buffers, outside torch's allocator: about 1 GiB on an 8-GPU H100 node
/// (context ~0.5 GiB, NCCL channels and proxy buffers ~0.5 GiB).
constexpr double kCudaContextAndLibraries = 1.0 * kGiB;
/// The loss of a PyTorch training loop, `F.cross_entropy(logits.float(), labels)` (torchtitan, AutoModel). Eager,
/// ATen runs log_softmax and nll_loss on an fp32 copy of the logits: the forward holds the bf16 logits, their fp32
/// copy and the fp32 log-softmax it keeps (2 + 4 + 4 bytes per logit); torchtitan deletes the logits before the
/// backward ("need to free to before bwd to avoid peaking memory", train.py), whose nll_loss_backward allocates an
/// fp32 gradient and log_softmax's backward another beside the kept output (4 + 4 + 4). Compiled (the inductor
/// fuses the cast, the log-softmax and the loss; its partitioner saves the cheapest inputs of the backward, the bf16
/// logits and a per-token log-sum-exp, and recomputes the rest), the loss keeps the bf16 logits and its backward
/// writes their bf16 gradient beside them. Without the upcast (AutoModel's fp32_upcast: false) the eager loss works
/// in the logits' precision: it keeps their log-softmax and its backward needs two gradients of that size.
void pytorchLoss(const config::RunSpec& run, FrameworkProfile& profile)
{
    const double logit = config::bytesPerElement(run.precision.activations);
    if (run.crossEntropyFusion) {
        profile.logitsSavedBytes = logit;
        profile.logitsTransientBytes = logit;
        return;
    }
    const double loss = run.lossFp32Upcast ? kFp32 : logit;
    profile.logitsSavedBytes = loss;
    profile.logitsTransientBytes = std::max(logit + (run.lossFp32Upcast ? loss : 0.0), 2 * loss);
}
} // namespace

FrameworkProfile frameworkProfile(const config::RunSpec& run)
{
    const config::Framework framework = run.framework;
    FrameworkProfile profile;
    profile.nonAllocatorBytes = kCudaContextAndLibraries;
    profile.poolFragmentation = kPytorchPoolFragmentation;
    switch (framework) {
    case config::Framework::Nanotron:
        // Read from huggingface/nanotron (late 2024): FP32GradientAccumulator frees each bf16 .grad after the
        // micro-batch backward (optim/gradient_accumulator.py); DDP wraps the model only without ZeRO
        // (trainer.py, make_ddp); column-parallel linears re-gather their sharded input into a persistent
        // "allgather" MemoryBuffer (parallel/tensor_parallel/functional.py, tp_recompute_allgather); the rotary
        // embedding concatenates K and V; the gated MLP keeps gate_up, the activation and the product; the sharded
        // cross entropy casts bf16 logits to fp32, subtracts the max into a new fp32 tensor and keeps the softmax;
        // ZeroDistributedOptimizer all-gathers the updated bf16 parameters through flat buffers after the step.
        profile.weightPrecisionGradientTransient = true;
        profile.ddpBucketWithoutZero = true;
        profile.tpGatherBuffers = 2;
        profile.rotaryKeyValueCopies = true;
        profile.gatedMlpSavedTensors = 4;
        profile.logitsSavedBytes = 4;
        profile.logitsTransientBytes = 2 + 4 + 4;
        profile.zeroGatherBytesPerParameter = 4;
        break;
    case config::Framework::Megatron:
        // Megatron-LM: fp32 main gradients accumulate directly (no bf16 .grad transient); the fused SwiGLU keeps its
        // 2*ffn input and recomputes the product; vocab-parallel cross entropy keeps fp32 softmax; the distributed
        // optimizer all-gathers parameters in place (no extra buffer).
        profile.gatedMlpSavedTensors = 3;
        // Megatron-Core runs FP8 through Transformer Engine, whose linears keep the quantised copy of their input
        // for the weight-gradient GEMM and drop the high-precision one (transformer_engine/pytorch/module/linear.py,
        // "Discard row-wise data since it is not needed in backward pass": the column-wise FP8 copy is saved;
        // layernorm_linear.py saves the quantised norm output, row-wise when sequence parallelism re-gathers it).
        if (run.mode == config::RunMode::Training && run.precision.compute == config::Precision::Fp8) {
            profile.quantizedLinearInputBytes = model::fp8ActivationBytes(run.precision.fp8Scaling);
        }
        break;
    case config::Framework::DeepSpeed:
    case config::Framework::PytorchFsdp:
        profile.weightPrecisionGradientTransient = true;
        profile.ddpBucketWithoutZero = framework == config::Framework::PytorchFsdp;
        // FSDP2's FSDPParam keeps the sharded parameter in its original dtype and casts it to param_dtype into the
        // all-gather input (_fsdp_param.py, init_dtype_attrs / all_gather_inputs): no low-precision shard persists.
        profile.shardedParametersAreMaster = framework == config::Framework::PytorchFsdp;
        if (framework == config::Framework::PytorchFsdp) {
            pytorchLoss(run, profile);
            profile.savesOnlyWhatBackwardReads = run.torchCompile;
        }
        break;
    case config::Framework::Vllm:
        // vLLM pre-allocates its KV cache and runs the forward on a profiled workspace: no training churn.
        profile.poolFragmentation = 0;
        break;
    }
    return profile;
}

} // namespace rapid::memory
