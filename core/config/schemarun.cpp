// SPDX-License-Identifier: GPL-3.0-or-later
// The run document's keys (configs/README.md, "run").
#include "schemabuilder_p.h"

namespace rapid::config::schema::detail {

namespace {
constexpr std::int64_t kMaxDegree = 1 << 20;
constexpr std::int64_t kMaxTokens = 1 << 30;

void addTrainingAndInference(std::vector<Key>& keys)
{
    keys.push_back(mapping("training", derived("required when mode is training"), "the training step"));
    keys.push_back(integer("training.global_batch", 1, kMaxTokens, required(),
        "sequences per optimizer step; a multiple of micro_batch * dp"));
    keys.push_back(
        integer("training.micro_batch", 1, kMaxDegree, value("1"), "sequences per micro-batch per data-parallel rank"));
    keys.push_back(integer("training.seq_length", 1, kMaxTokens, required(), "tokens per sequence"));
    keys.push_back(integer("training.grad_accum_steps", 1, kMaxTokens, derived("global_batch / (micro_batch * dp)"),
        "micro-batches per step; when given, must equal the derived value"));
    keys.push_back(integer("training.pipeline_flushes", 1, kMaxTokens, value("1"),
        "pipeline schedules per step, run one after another, each filling and draining the pipeline with its share "
        "of the micro-batches (NeMo AutoModel: one per gradient-accumulation batch); divides the micro-batches per "
        "step"));
    keys.push_back(boolean("training.reshard_each_flush", value("true"),
        "pytorch-fsdp under pipeline parallelism with pipeline_flushes > 1: each schedule reduce-scatters the stage's "
        "gradients and reshards its parameters after its last backward, and the next gathers them again "
        "(torch.distributed.pipelining's stage); false: once per step, after the last schedule (NeMo AutoModel's MoE "
        "models since 2025-10-08)"));
    keys.push_back(choice<Recompute>("training.recompute", value("none"),
        "activation recomputation: selective = Megatron's (attention core), op-sac = torchtitan's per-op SAC "
        "(every other bf16 linear and the attention output kept; torchao float8 linears all rerun), full = each "
        "layer's input only"));
    keys.push_back(
        boolean("training.dropout", value("false"), "dropout layers active: their masks add to activation memory"));
    keys.push_back(integer("training.lora_rank", 0, 1 << 16, value("0"),
        "LoRA fine-tuning: the adapters' rank; the base weights are frozen (no weight gradients, reductions or "
        "optimizer states) and each targeted linear gains x A [in x rank] B [rank x out]; 0 = every weight trains"));
    keys.push_back(choice<LoraTargets>("training.lora_targets", value("projections"),
        "with lora_rank: the linears adapted: projections = every linear of the transformer layers (PEFT's "
        "all-linear, AutoModel's '*_proj'), all_linear = those and the LM head (AutoModel's match_all_linear)"));
    keys.push_back(number("training.lora_dropout", 0.0, 0.99, value("0"),
        "with lora_rank: dropout probability on each adapter's output (PEFT's lora_dropout); above 0 adds the dropout "
        "kernel, its backward and its one-byte mask per output element"));
    keys.push_back(mapping("inference", derived("required when mode is inference"), "the served batch"));
    keys.push_back(integer("inference.batch", 1, 1 << 24, value("1"), "concurrent requests"));
    keys.push_back(integer("inference.prompt_length", 1, kMaxTokens, required(), "prompt tokens per request"));
    keys.push_back(integer("inference.decode_length", 0, kMaxTokens, required(), "generated tokens per request"));
    keys.push_back(boolean("inference.split_kv", value("true"),
        "decode attention splits each sequence's keys over the SMs when sequences x KV heads leave the GPU "
        "under-filled (Flash-Decoding); false: one CTA per sequence and KV head"));
}

void addPrecision(std::vector<Key>& keys)
{
    keys.push_back(mapping("precision", optional(), "numeric format of each tensor family"));
    keys.push_back(choice<Precision>("precision.compute", value("bf16"),
        "tensor-core math of the GEMMs (nvfp4: inference on Blackwell, with nvfp4 weights)"));
    keys.push_back(choice<Precision>("precision.weights", derived("compute"),
        "stored weights (int4: AWQ/GPTQ weight-only checkpoints served with bf16 or fp16 compute)"));
    keys.push_back(choice<Precision>("precision.expert_weights", derived("weights"),
        "the routed experts' weights where a checkpoint quantises them apart (mxfp4: gpt-oss, its experts in MXFP4 "
        "and all else bf16), a weight-only format (int4 or mxfp4) multiplied with bf16 or fp16 compute (mxfp4 also "
        "with expert_compute fp8 on Blackwell)"));
    keys.push_back(choice<Precision>("precision.expert_compute", derived("compute"),
        "the routed experts' GEMM math where an engine runs it apart (fp8: gpt-oss under TensorRT-LLM on Blackwell, "
        "MXFP8 activations into the MXFP4 experts on the FP8 tensor cores); bf16, fp16 or fp8"));
    keys.push_back(
        choice<Precision>("precision.activations", derived("compute (bf16 when that is nvfp4)"), "stored activations"));
    keys.push_back(choice<Precision>("precision.gradients", derived("weights (bf16 when that is nvfp4)"), "gradients"));
    keys.push_back(choice<Precision>("precision.optimizer", value("fp32"), "Adam moments and master weights"));
    keys.push_back(choice<Precision>("precision.kv_cache", derived("activations"), "inference KV cache"));
    keys.push_back(
        boolean("precision.master_weights", value("true"), "keep an optimizer-precision copy of the weights"));
    keys.push_back(choice<Fp8Scaling>("precision.fp8_scaling", value("tensorwise"),
        "with fp8 compute, how GEMM operands are scaled: tensorwise/rowwise (torchao dynamic), blockwise (MXFP8, "
        "Blackwell), delayed (Transformer Engine amax history), block128 (DeepSeek-V3's fine-grained FP8: 1x128 "
        "activation tiles and 128x128 weight blocks with fp32 scales, Hopper and Blackwell), static (inference: the "
        "per-tensor activation scales calibrated into an FP8 checkpoint, NVIDIA ModelOpt's input_scale, as "
        "TensorRT-LLM, vLLM and SGLang serve it: one quantisation pass, no amax)"));
    keys.push_back(boolean("precision.fp8_all_gather", value("false"),
        "pytorch-fsdp with fp8 compute and tensorwise scaling: FSDP all-gathers the linears' weights in fp8 (torchao's "
        "float8 all-gather, torchtitan's enable_fsdp_float8_all_gather): 1 byte per parameter gathered and no weight "
        "cast before each GEMM"));
}

void addParallelism(std::vector<Key>& keys)
{
    keys.push_back(mapping("parallelism", optional(), "how the model is split over the GPUs; tp*pp*dp*cp = GPU count"));
    keys.push_back(integer("parallelism.tp", 1, kMaxDegree, value("1"), "tensor-parallel degree; divides num_heads"));
    keys.push_back(boolean("parallelism.sp", value("false"), "sequence parallelism over the tp group"));
    keys.push_back(integer("parallelism.pp", 1, kMaxDegree, value("1"), "pipeline stages"));
    keys.push_back(choice<PipelineSchedule>("parallelism.schedule", value("1f1b"), "pipeline schedule"));
    keys.push_back(integer("parallelism.virtual_stages", 1, 1024, value("1"),
        "model chunks per pipeline rank; 2 or more with the interleaved schedule, else 1"));
    keys.push_back(list("parallelism.layers_per_stage", derived("even split"),
        "layers of each of the pp*virtual_stages stages; sums to num_layers"));
    keys.push_back(integer("parallelism.dp", 1, kMaxDegree, value("1"), "data-parallel replicas"));
    keys.push_back(integer("parallelism.cp", 1, kMaxDegree, value("1"), "context-parallel degree; divides seq_length"));
    keys.push_back(choice<ContextComm>("parallelism.cp_comm", value("p2p"),
        "how context-parallel ranks exchange K/V (Megatron --cp-comm-type): p2p ring hidden behind attention; "
        "all_gather of K/V before attention; a2a (Ulysses) all-to-alls to a head split, heads divisible by tp*cp; "
        "a2a+p2p "
        "Ulysses inside groups of cp_a2a ranks and a ring over the groups"));
    keys.push_back(integer("parallelism.cp_a2a", 2, kMaxDegree, optional(),
        "cp_comm a2a+p2p only: consecutive cp ranks of one all-to-all group (Megatron "
        "--hierarchical-context-parallel-sizes cp_a2a cp/cp_a2a); divides cp, heads divisible by tp*cp_a2a"));
    keys.push_back(integer("parallelism.ep", 1, kMaxDegree, value("1"),
        "expert-parallel degree; divides num_experts, and dp (etp = tp) or tp*cp*dp / etp (etp below tp)"));
    keys.push_back(integer("parallelism.etp", 1, kMaxDegree, derived("tp"),
        "expert tensor parallelism (Megatron-Core --expert-tensor-parallel-size): ranks each routed expert's FFN is "
        "split over, a divisor of tp; tp (experts split like the MLP, ep over dp ranks) or below it (experts folded "
        "over the tp, cp and dp ranks, etp innermost: needs sequence_parallel in training, the routed tokens "
        "all-gathered over the etp ranks; etp 1 is vLLM/SGLang expert parallelism in inference)"));
    keys.push_back(choice<ExpertDispatcher>("parallelism.ep_dispatcher", value("alltoall"),
        "how routed tokens cross nodes: alltoall sends one copy per token and expert; deepep (DeepEP's internode "
        "kernels) one copy per token and destination node, fanned out over NVLink there"));
    keys.push_back(choice<ExpertRoutingPattern>("parallelism.ep_routing", value("spread"),
        "where a token's top-k experts lie, for deepep's copies per destination: spread (drawn evenly from all "
        "experts, a trained router) or consecutive (token t takes experts t*k .. t*k+k-1 mod E: NeMo AutoModel's "
        "FakeBalancedGate)"));
    keys.push_back(number("parallelism.ep_imbalance", 1.0, 64.0, value("1"),
        "routed tokens of the busiest expert-parallel rank over the average; 1 = balanced (a benchmark's balanced "
        "gate); its expert GEMMs, all-to-all and expert activations scale with it"));
    keys.push_back(number("parallelism.ep_capacity_factor", 0.0, 64.0, value("0"),
        "an expert's token capacity over its average share, tokens beyond it dropped (Megatron's "
        "--moe-expert-capacity-factor); caps ep_imbalance; 0 = dropless"));
    keys.push_back(boolean("parallelism.ep_shared_expert_overlap", value("false"),
        "training: the shared experts run beside the expert all-to-alls, their gate/up GEMMs beside the dispatch and "
        "their down projection beside the combine (Megatron-Core's --moe-shared-expert-overlap); needs shared experts "
        "and ep > 1"));
    keys.push_back(boolean("parallelism.ep_a2a_overlap", value("false"),
        "Megatron training: in the 1F1B steady state one micro-batch's forward and another's backward run "
        "co-scheduled layer by layer, each one's expert all-to-alls beside the other's compute, with one more warm-up "
        "forward (Megatron-Core's --overlap-moe-expert-parallel-comm); needs ep > 1, no full recomputation, no "
        "ep_shared_expert_overlap, and the interleaved schedule when pp > 1"));
    keys.push_back(boolean("parallelism.ep_delay_wgrad", value("false"),
        "with ep_a2a_overlap: the experts' weight gradients run after their input gradients, beside the backward "
        "dispatch (Megatron-Core's --delay-wgrad-compute)"));
    keys.push_back(integer("parallelism.ep_comm_sms", 1, kMaxDegree, derived("24; 20 with deepep"),
        "with ep_a2a_overlap or ep_shared_expert_overlap: SMs the expert all-to-alls hold while they run beside "
        "compute, which computes on the rest meanwhile (Megatron-Core's moe_flex_dispatcher_num_sms); by default the "
        "dispatcher's own: NCCL's 24 CTAs, DeepEP's 20 SMs; below the GPU's sm_count"));
    keys.push_back(choice<CollectiveImplementation>("parallelism.collectives",
        derived("nccl for training, custom for inference"),
        "what runs the all-reduces, reduce-scatters and all-gathers: nccl = NCCL's ring, tree and in-network (NVLS) "
        "algorithms, as Megatron, DeepSpeed, nanotron and PyTorch reduce; custom = also one-shot exchanges, as the "
        "all-reduce kernels of vLLM, SGLang and TensorRT-LLM run inside an NVLink domain (vLLM's "
        "--disable-custom-all-reduce: nccl)"));
    keys.push_back(integer("parallelism.zero_stage", 0, 3, value("0"),
        "ZeRO: 1 shards optimizer states, 2 also gradients, 3 also parameters"));
    keys.push_back(boolean("parallelism.fsdp", value("false"), "PyTorch FSDP: shards like ZeRO-3"));
    keys.push_back(integer("parallelism.dp_shard", 0, kMaxDegree, value("0"),
        "data-parallel ranks per ZeRO/FSDP shard group, replicated over dp / dp_shard groups (HSDP); 0 = dp"));
    keys.push_back(boolean("parallelism.tp_comm_overlap", value("false"), "overlap TP collectives with GEMMs"));
    keys.push_back(boolean("parallelism.dp_overlap", value("true"),
        "reduce gradients in buckets under the backward (the framework's bucket size); with megatron also gather "
        "ZeRO-1/2's updated parameters under the next forward"));
    keys.push_back(mapping("parallelism.mapping", derived("default placement"),
        "axis to network dimension name or list of names: `{tp: nvlink, dp: ib}`"));
    for (const char* axis : { "tp", "pp", "dp", "cp", "ep" }) {
        keys.push_back(list(std::string("parallelism.mapping.") + axis, optional(),
            std::string("network dimension(s) the ") + axis + " groups use"));
    }
}
} // namespace

std::vector<Key> runKeys()
{
    std::vector<Key> keys = {
        text("name", value(""), "display name"),
        choice<RunMode>("mode", required(), "train a step or serve requests"),
        choice<Framework>("framework", derived("megatron for training, vllm for inference"),
            "selects documented memory conventions (optimizer state layout, logits, allocator overhead)"),
    };
    addTrainingAndInference(keys);
    keys.push_back(boolean("flash_attention", value("true"), "fused attention that never stores the score matrix"));
    keys.push_back(boolean("torch_compile", value("false"),
        "pytorch-fsdp: torch.compile fuses each block's element-wise operators; false = eager PyTorch, whose norms, "
        "activations and rotary embeddings run as chains of kernels with fp32 intermediates"));
    keys.push_back(boolean("transformer_engine", value("false"),
        "pytorch-fsdp: blocks built from Transformer Engine modules (NeMo AutoModel's TE option): fused RMSNorm "
        "kernels and cuDNN attention on Hopper and Blackwell; false = PyTorch modules"));
    keys.push_back(boolean("liger_kernel", value("false"),
        "pytorch-fsdp: Hugging Face model code patched by Liger-Kernel (NeMo AutoModel's default for Hugging Face "
        "models): RMSNorm, rotary embedding and SwiGLU as one Triton kernel each; the rest stays eager"));
    keys.push_back(boolean("cross_entropy_fusion", value("false"),
        "the loss as one fused kernel: Megatron-Core's --cross-entropy-loss-fusion, or under pytorch-fsdp a compiled "
        "loss (torchtitan compiles it with its blocks since April 2025), which keeps only the bf16 logits for its "
        "backward; false = Megatron's vocabulary-parallel cross-entropy as separate PyTorch ops on fp32 logits (as "
        "nanotron always runs it), or eager PyTorch's log_softmax and nll_loss on them"));
    keys.push_back(boolean("loss_fp32_upcast", value("true"),
        "pytorch-fsdp: the loss casts the logits to fp32 before log_softmax (torchtitan; AutoModel's "
        "MaskedCrossEntropy default); false = log_softmax and nll_loss on the logits in the activations' precision "
        "(MaskedCrossEntropy fp32_upcast: false)"));
    keys.push_back(choice<AttentionKernel>("attention_kernel", value("auto"),
        "the fused attention kernel (with flash_attention): auto = the framework's own choice on the GPU's "
        "architecture (megatron: cudnn on hopper and blackwell, else fa2; pytorch-fsdp: cudnn on blackwell, else fa2; "
        "vllm: fa3 on hopper, cudnn on blackwell, else fa2; nanotron, deepspeed: fa2); fa3 needs a hopper GPU"));
    addPrecision(keys);
    addParallelism(keys);
    return keys;
}

} // namespace rapid::config::schema::detail
