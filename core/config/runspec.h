// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hardwarespec.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rapid::config {

enum class RunMode { Training, Inference };
enum class PipelineSchedule { Gpipe, OneFOneB, Interleaved };
/// Selective: Megatron's (the attention core's S x S work is recomputed). OpSac: torchtitan's per-op selective
/// checkpointing (the outputs of every other linear GEMM and of the attention core are kept, all else recomputed; see
/// model/layeroperators.h). Full: only each layer's input is kept.
/// How FP8 GEMM operands are scaled and cast (see model/fp8quantization.h for the kernels each implies).
enum class Fp8Scaling { Tensorwise, Rowwise, Blockwise, Delayed, Block128, Static };
enum class Recompute { None, Selective, Full, OpSac };
enum class ShardingStrategy { Zero, Fsdp }; ///< FSDP behaves like ZeRO-3 with per-layer gather/free
/// How MoE tokens reach their experts across nodes. AllToAll: one copy per (token, expert) pair crosses the network
/// (NCCL all-to-all, Megatron's alltoall dispatcher). DeepEp: DeepSeek's DeepEP internode kernels send a token once
/// to each destination node over RDMA and fan it out to that node's experts over NVLink.
enum class ExpertDispatcher { AllToAll, DeepEp };
/// Which experts a token's router picks, as far as the network sees it. Spread: its top-k drawn evenly from all experts
/// (a trained router's balanced state; Megatron-Core's --moe-router-force-load-balancing draws random logits).
/// Consecutive: token t takes the k experts t k .. t k + k - 1 (mod E), so its experts sit on one or two neighbouring
/// GPUs (NeMo AutoModel's FakeBalancedGate with its default noise 0, nemo_automodel/components/moe/layers.py).
enum class ExpertRoutingPattern { Spread, Consecutive };
/// How context-parallel ranks exchange what attention needs from the others' sequence chunks (Megatron-Core's
/// --cp-comm-type). P2p: a ring passes K/V chunks on, each step hidden behind the previous step's attention (also
/// PyTorch's ring attention). AllGather: K and V all-gathered before the attention (and again in the backward, whose
/// dK/dV are reduce-scattered), none of it hidden (Transformer Engine's AttnFuncWithCPAndKVAllGather). AllToAll:
/// DeepSpeed-Ulysses: all-to-alls turn the sequence split into a head split before the attention core and back after
/// it, so the core runs over the whole sequence with heads / cp heads. AllToAllP2p: hierarchical (Megatron-Core's
/// a2a+p2p with --hierarchical-context-parallel-sizes; "USP", Fang and Zhao, arXiv:2405.07719): Ulysses all-to-alls
/// inside groups of cpA2a consecutive cp ranks, then a K/V ring over the cp / cpA2a groups.
enum class ContextComm { P2p, AllGather, AllToAll, AllToAllP2p };
/// The training or serving framework; selects documented memory conventions (core/memory/frameworkprofile.h).
enum class Framework { Megatron, Nanotron, DeepSpeed, PytorchFsdp, Vllm };
/// Which linear layers a LoRA adapter wraps. Projections: every linear of the transformer layers (Hugging Face PEFT's
/// "all-linear", NeMo AutoModel's default target_modules '*_proj'). AllLinear: those and the LM head (AutoModel's
/// match_all_linear, which matches every nn.Linear of the model).
enum class LoraTargets { Projections, AllLinear };
/// What runs the tensor- and data-parallel reductions and gathers (network::CollectiveLibrary). Nccl: NCCL's ring,
/// tree and in-network (NVLS) algorithms, as the training frameworks reduce. Custom: also the one-shot exchanges of
/// the serving engines' own all-reduce kernels inside an NVLink domain (vLLM's custom all-reduce, TensorRT-LLM's and
/// SGLang's).
enum class CollectiveImplementation { Nccl, Custom };

const char* toString(RunMode value);
const char* toString(PipelineSchedule value);
const char* toString(Recompute value);
const char* toString(Fp8Scaling value);
const char* toString(ExpertDispatcher value);
const char* toString(ExpertRoutingPattern value);
const char* toString(ContextComm value);
const char* toString(Framework value);
const char* toString(LoraTargets value);
const char* toString(CollectiveImplementation value);

/// Precision of each tensor family; `compute` selects the tensor-core rate used for GEMMs.
struct PrecisionSpec {
    Precision compute = Precision::Bf16;
    Precision weights = Precision::Bf16;
    /// The routed experts' weights where a checkpoint quantises them apart from the rest (gpt-oss: MXFP4 experts, all
    /// else bf16): a weight-only format (config::isWeightOnlyFormat). Absent: weights.
    std::optional<Precision> expertWeights;
    /// The routed experts' GEMM math where an engine runs it apart from the rest (gpt-oss under TensorRT-LLM on
    /// Blackwell: activations quantised to MXFP8 and multiplied with the MXFP4 experts on the FP8 tensor cores, all
    /// else bf16). Absent: compute.
    std::optional<Precision> expertCompute;
    Precision activations = Precision::Bf16;
    Precision gradients = Precision::Bf16;
    Precision optimizer = Precision::Fp32; ///< Adam moments and master weights
    Precision kvCache = Precision::Bf16;
    bool masterWeights = true; ///< keep an optimizer-precision copy of the weights
    Fp8Scaling fp8Scaling = Fp8Scaling::Tensorwise; ///< with compute fp8: how operands are quantised
    /// FSDP all-gathers the FP8 linears' weights already cast (torchao's float8 all-gather, torchtitan's
    /// float8.enable_fsdp_float8_all_gather): 1 byte per parameter on the wire and in the gathered copy, and no cast of
    /// the gathered weight before each GEMM.
    bool fp8AllGather = false;

    Precision routedExpertWeights() const { return expertWeights.value_or(weights); }
    Precision routedExpertCompute() const { return expertCompute.value_or(compute); }

    bool operator==(const PrecisionSpec&) const = default;
};

/// Degrees of each parallel axis; their product (tp*pp*dp*cp) is the number of GPUs used.
/// ep (with etp) shards experts over the tp*cp*dp ranks of a pipeline stage and does not multiply the GPU count.
struct ParallelismSpec {
    int tp = 1;
    bool sequenceParallel = false;
    int pp = 1;
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    int virtualStages = 1; ///< model chunks per pipeline rank (interleaved only)
    std::vector<int> layersPerStage; ///< uneven split; empty = even
    int dp = 1;
    int cp = 1;
    int ep = 1;
    /// Expert tensor parallelism: each routed expert's FFN is split over etp ranks (Megatron-Core's
    /// --expert-tensor-parallel-size). 0: tp (experts split like the dense MLP); a divisor of tp below it: the expert
    /// layers folded over the attention's tp, cp and dp ranks (MoE parallel folding; etp 1, whole experts, is vLLM's
    /// and SGLang's expert parallelism).
    int etp = 0;
    ExpertDispatcher expertDispatcher = ExpertDispatcher::AllToAll;
    /// Where a token's experts lie (what DeepEP's per-destination copies depend on).
    ExpertRoutingPattern expertRouting = ExpertRoutingPattern::Spread;
    ContextComm contextComm = ContextComm::P2p;
    /// cp_comm a2a+p2p: the consecutive cp ranks of one Ulysses all-to-all group (0 when the exchange is another).
    int cpA2a = 0;
    /// Routed tokens of the busiest expert-parallel rank over the average (1: balanced, a benchmark's balanced gate).
    double expertImbalance = 1.0;
    /// An expert's token capacity as a multiple of its average share; tokens beyond it are dropped (Megatron's
    /// --moe-expert-capacity-factor). 0: dropless.
    double expertCapacityFactor = 0.0;
    /// The shared experts run on a side stream beside the expert all-to-alls (Megatron-Core's
    /// --moe-shared-expert-overlap; sim/sharedexpertoverlap.h), instead of after the routed experts.
    bool expertSharedOverlap = false;
    /// Megatron-Core's --overlap-moe-expert-parallel-comm: in the 1F1B steady state one micro-batch's forward and
    /// another's backward run co-scheduled layer by layer, each one's expert all-to-alls beside the other's compute
    /// (sim/combinedonefoneb.h); one more warm-up forward.
    bool expertAllToAllOverlap = false;
    /// Megatron-Core's --delay-wgrad-compute (with expertAllToAllOverlap): the experts' weight gradients run after
    /// their input gradients, beside the backward dispatch, instead of before it.
    bool delayWeightGradients = false;
    /// SMs the expert dispatcher's kernels hold while they run beside compute (under expertSharedOverlap or
    /// expertAllToAllOverlap): Megatron-Core's --moe-deepep-num-sms / --moe-hybridep-num-sms. 0: the dispatcher's
    /// own (NCCL's 24 CTAs for alltoall, DeepEP's 20); sim::expertCollectiveSmShare.
    int expertCommSms = 0;
    /// NCCL (training's default) or the serving engines' custom all-reduce kernels (inference's default).
    CollectiveImplementation collectives = CollectiveImplementation::Nccl;
    int zeroStage = 0; ///< 0..3
    /// The data-parallel ranks one ZeRO/FSDP shard group spans; the shards are replicated over the dp / dpShard
    /// groups (hybrid sharding: torchtitan's data_parallel_shard_degree with dp_replicate = dp / dpShard, PyTorch
    /// FSDP's HYBRID_SHARD, Megatron-Core's --num-distributed-optimizer-instances = dp / dpShard). Context-parallel
    /// ranks always join the shard group. 0: every data-parallel rank (no replication).
    int dpShard = 0;
    ShardingStrategy sharding = ShardingStrategy::Zero;
    bool tpCommOverlap = false; ///< overlap TP collectives with GEMMs (Megatron tp-comm-overlap)
    bool dpOverlap = true; ///< overlap DP gradient reduction with backward (bucketed)
    /// Which network dimension(s) each axis uses ("tp" -> {"nvlink"}); empty = default placement.
    std::map<std::string, std::vector<std::string>> mapping;

    /// The data-parallel ranks of one shard group (dpShard, or dp when not given).
    int shardDegree() const { return dpShard > 0 ? dpShard : dp; }
    /// The cp ranks a context-parallel all-to-all spans (cp under a2a, cpA2a under a2a+p2p, else 1) and the ranks of
    /// the K/V ring (cp under p2p, cp / cpA2a under a2a+p2p, else 1).
    int contextAllToAllDegree() const
    {
        return contextComm == ContextComm::AllToAll ? cp : contextComm == ContextComm::AllToAllP2p ? cpA2a : 1;
    }
    int contextRingDegree() const
    {
        return contextComm == ContextComm::P2p                     ? cp
            : contextComm == ContextComm::AllToAllP2p && cpA2a > 0 ? cp / cpA2a
                                                                   : 1;
    }
    /// The ranks one routed expert's FFN is split over (etp, or tp when not given).
    int expertTensorDegree() const { return etp > 0 ? etp : tp; }
    /// tp*pp*dp*cp, saturating at INT64_MAX (the run reader refuses more than kMaxGpus).
    std::int64_t gpuCount() const;
    /// The busiest expert-parallel rank's routed tokens over the balanced share: the imbalance, capped by the
    /// capacity when tokens are dropped. Its grouped expert GEMMs, all-to-all and expert activations scale with it.
    double expertLoad() const
    {
        return expertCapacityFactor > 0 && expertCapacityFactor < expertImbalance ? expertCapacityFactor
                                                                                  : expertImbalance;
    }
    bool operator==(const ParallelismSpec&) const = default;
};

struct RunSpec {
    std::string name;
    RunMode mode = RunMode::Training;
    Framework framework = Framework::Megatron;
    // Training.
    int globalBatch = 0; ///< sequences per optimizer step
    int microBatch = 1; ///< sequences per micro-batch per data-parallel rank
    int seqLength = 0;
    int gradAccumSteps = 0; ///< 0 = derived: globalBatch / (microBatch * dp)
    /// The pipeline schedules a step runs its micro-batches in, one after another, each filling and draining the
    /// pipeline (gradient accumulation over separate schedule calls: NeMo AutoModel calls its pipeline schedule's
    /// step() once per accumulation batch of local_batch_size sequences). 1: one schedule of every micro-batch
    /// (Megatron, torchtitan). Divides the micro-batches per step.
    int pipelineFlushes = 1;
    /// PyTorch FSDP2 under pipeline parallelism with several schedules per step: each schedule reduce-scatters the
    /// stage's gradients and reshards its parameters after its last backward, so the next schedule gathers them again
    /// (torch.distributed.pipelining's stage, backward_maybe_with_nosync). False: both wait for the step's last
    /// schedule (NeMo AutoModel's patched backward for its MoE models since 2c236e081, 2025-10-08).
    bool reshardEachFlush = true;
    Recompute recompute = Recompute::None;
    bool dropout = false; ///< dropout layers active (GPT-era Megatron runs); adds their masks to activations
    /// LoRA fine-tuning (Hu et al. 2021, arXiv:2106.09685): the base weights are frozen and each targeted linear
    /// y = x W gains y += dropout(x A s B) with A [in x rank], B [rank x out] trainable (model/loraadapters.h). 0:
    /// every weight trains.
    int loraRank = 0;
    LoraTargets loraTargets = LoraTargets::Projections;
    double loraDropout = 0.0; ///< dropout probability on the adapter's output (PEFT's lora_dropout, position post)
    // Inference.
    int batch = 1; ///< concurrent requests
    int promptLength = 0;
    int decodeLength = 0;
    /// Decode attention splits each sequence's keys over the SMs when the batch's sequences x KV heads would leave
    /// the GPU under-filled (Flash-Decoding, compute/decodegrid.h); false: one CTA per sequence and KV head, as
    /// FlashAttention without its split-KV path.
    bool splitKv = true;
    bool flashAttention = true;
    /// pytorch-fsdp: torch.compile fuses each block's element-wise operators into single kernels; without it eager
    /// PyTorch runs norms, activations and rotary embeddings as chains of kernels (model/eagerkernels.h).
    bool torchCompile = false;
    /// pytorch-fsdp: the transformer blocks are built from Transformer Engine modules (NeMo AutoModel's "TE" kernel
    /// option): TE's fused RMSNorm kernels instead of eager PyTorch's chain, and TE's attention (cuDNN fused attention
    /// on Hopper and Blackwell, as Megatron). Rotary embeddings and the gated activation stay as the framework writes
    /// them (eager unless torch_compile).
    bool transformerEngine = false;
    /// pytorch-fsdp: Hugging Face's model code patched by Liger-Kernel (liger_kernel.transformers, applied by NeMo
    /// AutoModel's _patch_liger_kernel to every Hugging Face model unless use_liger_kernel is false): RMSNorm, the
    /// rotary embedding and SwiGLU each one Triton kernel forward and one backward; residual adds stay eager.
    bool ligerKernel = false;
    /// The loss as one fused kernel: Megatron-Core's --cross-entropy-loss-fusion, or a compiled loss under
    /// pytorch-fsdp. Off (the default), Megatron and nanotron run the vocabulary-parallel cross-entropy as separate
    /// PyTorch ops on fp32 logits and eager PyTorch runs log_softmax and nll_loss on them (model/eagerkernels.h).
    bool crossEntropyFusion = false;
    /// pytorch-fsdp: the loss casts the logits to fp32 before log_softmax (torchtitan's `.float()`, AutoModel's
    /// MaskedCrossEntropy default); off, log_softmax and nll_loss run on the logits in their own precision.
    bool lossFp32Upcast = true;
    /// Inference with tp > 1: the all-reduce after the attention output and the MLP down projections is one kernel
    /// with the residual add, the next RMSNorm and (fusedAllReduceQuantises) the quantisation of its output for the
    /// next FP8/NVFP4 GEMM (TensorRT-LLM's AllReduceFusionOp.RESIDUAL_RMS_NORM[_QUANT_FP8|_QUANT_NVFP4]). Set by the
    /// serving model for the engines and models that run it (serving::engineScenario); not a configuration key.
    bool fusedAllReduceNorm = false;
    /// Under fusedAllReduceNorm: the epilogue also quantises its output for the next FP8/NVFP4 GEMM (TensorRT-LLM's
    /// Llama layers, RESIDUAL_RMS_NORM_QUANT_*); off, it writes the normalised output in the activations' precision
    /// and the next GEMM's input cast stays (its Qwen3 MoE layers, RESIDUAL_RMS_NORM). Set by serving::engineScenario.
    bool fusedAllReduceQuantises = false;
    /// Whether that epilogue writes the next GEMM's input already quantised: fusedAllReduceQuantises with the
    /// checkpoint's weights in the compute format and that a quantised one (FP8, NVFP4); otherwise the GEMM's input
    /// cast stays, as it would quantise the weights too. The layer model and the serving report share this rule.
    bool allReduceWritesQuantisedInput() const
    {
        return fusedAllReduceQuantises && precision.weights == precision.compute
            && (precision.compute == Precision::Fp8 || precision.compute == Precision::Nvfp4);
    }
    /// Inference: each residual add runs in the kernel of the RMSNorm after it, one kernel that reads the sublayer's
    /// output and the residual, writes the new residual and the normalised output (vLLM's fused_add_rms_norm,
    /// SGLang's and TensorRT-LLM's FlashInfer fused_add_rmsnorm, called by their RMSNorm when given the residual).
    /// Set by the serving model for those engines (serving::engineScenario); not a configuration key.
    bool fusedResidualNorm = false;
    /// Decode attention reduces its key splits in the kernel's last CTA per sequence (TensorRT-LLM's XQA and masked
    /// multi-head attention in multi-block mode) rather than in a combine kernel of its own (FlashAttention-2/3,
    /// FlashInfer). Set by the serving model for TensorRT-LLM (serving::engineScenario); not a configuration key.
    bool decodeSplitsReducedInKernel = false;
    /// Inference: the routed experts run as one MoE runner (TensorRT-LLM's trtllm-gen MoE on Blackwell, which vLLM
    /// also calls through FlashInfer): the first grouped GEMM gathers the routed tokens itself (no permutation copy)
    /// and applies the gated activation and the second GEMM's input quantisation in its epilogue, and both GEMMs tile
    /// an expert's tokens in 8-64 rows. Set by the serving model (serving::engineScenario); not a configuration key.
    bool fusedMoeRunner = false;
    /// Which fused attention kernel runs it (Auto: the framework's choice on the GPU, config/attentionkernel.h).
    AttentionKernel attentionKernel = AttentionKernel::Auto;
    PrecisionSpec precision;
    ParallelismSpec parallelism;

    /// Micro-batches per pipeline per step: the explicit gradAccumSteps or the derived value.
    int microBatchesPerStep() const;
    bool operator==(const RunSpec&) const = default;
};

} // namespace rapid::config
