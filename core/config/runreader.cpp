// SPDX-License-Identifier: GPL-3.0-or-later
#include "checkedmath.h"
#include "documentreaders_p.h"
#include "yamlnode_p.h"

namespace rapid::config {

const char* toString(RunMode value)
{
    return detail::enumWord(value);
}

const char* toString(PipelineSchedule value)
{
    return detail::enumWord(value);
}

const char* toString(Framework value)
{
    return detail::enumWord(value);
}

const char* toString(LoraTargets value)
{
    return detail::enumWord(value);
}

const char* toString(Recompute value)
{
    return detail::enumWord(value);
}

const char* toString(Fp8Scaling value)
{
    return detail::enumWord(value);
}

const char* toString(ExpertDispatcher value)
{
    return detail::enumWord(value);
}

const char* toString(ExpertRoutingPattern value)
{
    return detail::enumWord(value);
}

const char* toString(ContextComm value)
{
    return detail::enumWord(value);
}

const char* toString(CollectiveImplementation value)
{
    return detail::enumWord(value);
}

int RunSpec::microBatchesPerStep() const
{
    if (gradAccumSteps > 0) {
        return gradAccumSteps;
    }
    const std::int64_t perStep = static_cast<std::int64_t>(microBatch) * parallelism.dp;
    return perStep > 0 ? static_cast<int>(globalBatch / perStep) : 0;
}

std::int64_t ParallelismSpec::gpuCount() const
{
    return saturatingProduct({ tp, pp, dp, cp });
}

namespace detail {

namespace {

void readPrecision(MapReader& reader, PrecisionSpec& spec)
{
    MapReader precision = reader.map("precision");
    if (!precision.valid()) {
        return;
    }
    spec.compute = precision.choice<Precision>("compute");
    spec.weights = precision.choice<Precision>("weights", spec.compute);
    const bool expertWeightsGiven = precision.has("expert_weights");
    const Precision expertWeights = precision.choice<Precision>("expert_weights", spec.weights);
    if (expertWeightsGiven) {
        spec.expertWeights = expertWeights;
    }
    const bool expertComputeGiven = precision.has("expert_compute");
    const Precision expertCompute = precision.choice<Precision>("expert_compute", spec.compute);
    if (expertComputeGiven) {
        spec.expertCompute = expertCompute;
    }
    // NVFP4 exists for weights and GEMM operands only, int4 and mxfp4 for weights only: what derives from them stays
    // in bf16.
    const auto storable = [](Precision format) {
        return format == Precision::Nvfp4 || isWeightOnlyFormat(format) ? Precision::Bf16 : format;
    };
    spec.activations = precision.choice<Precision>("activations", storable(spec.compute));
    spec.gradients = precision.choice<Precision>("gradients", storable(spec.weights));
    spec.optimizer = precision.choice<Precision>("optimizer");
    spec.kvCache = precision.choice<Precision>("kv_cache", spec.activations);
    spec.masterWeights = precision.boolean("master_weights");
    spec.fp8Scaling = precision.choice<Fp8Scaling>("fp8_scaling");
    spec.fp8AllGather = precision.boolean("fp8_all_gather");
    precision.finish();
}

void readMapping(ReadContext& context, MapReader& parallelism, ParallelismSpec& spec)
{
    MapReader mapping = parallelism.map("mapping");
    if (!mapping.valid()) {
        return;
    }
    for (const char* axis : { "tp", "pp", "dp", "cp", "ep" }) {
        if (!mapping.has(axis)) {
            mapping.raw(axis);
            continue;
        }
        const YAML::Node value = mapping.raw(axis);
        std::vector<std::string> names;
        if (isScalarNode(value)) {
            names.push_back(value.Scalar());
        } else if (isSequenceNode(value)) {
            for (const YAML::Node& item : value) {
                if (isScalarNode(item)) {
                    names.push_back(item.Scalar());
                } else {
                    context.error(
                        mapping.childPath(axis), item, "expected a network dimension name, got " + describeNode(item));
                }
            }
        } else {
            context.error(mapping.childPath(axis), value,
                "expected a network dimension name or a list of names, got " + describeNode(value));
        }
        spec.mapping[axis] = names;
    }
    mapping.finish();
}

void readParallelism(ReadContext& context, MapReader& reader, RunMode mode, ParallelismSpec& spec)
{
    MapReader parallelism = reader.map("parallelism");
    if (!parallelism.valid()) {
        return;
    }
    spec.tp = static_cast<int>(parallelism.integer("tp"));
    spec.sequenceParallel = parallelism.boolean("sp");
    spec.pp = static_cast<int>(parallelism.integer("pp"));
    spec.schedule = parallelism.choice<PipelineSchedule>("schedule");
    spec.virtualStages = static_cast<int>(parallelism.integer("virtual_stages"));
    for (const auto& [itemPath, item] : parallelism.list("layers_per_stage")) {
        spec.layersPerStage.push_back(static_cast<int>(readInteger(context, itemPath, item, 1, 1 << 20).value_or(1)));
    }
    spec.dp = static_cast<int>(parallelism.integer("dp"));
    spec.cp = static_cast<int>(parallelism.integer("cp"));
    spec.ep = static_cast<int>(parallelism.integer("ep"));
    spec.etp = static_cast<int>(parallelism.integer("etp", 0)); // 0 = tp
    spec.expertDispatcher = parallelism.choice<ExpertDispatcher>("ep_dispatcher");
    spec.expertRouting = parallelism.choice<ExpertRoutingPattern>("ep_routing");
    spec.contextComm = parallelism.choice<ContextComm>("cp_comm");
    spec.cpA2a = static_cast<int>(parallelism.integer("cp_a2a", 0)); // 0 = not given
    spec.expertImbalance = parallelism.number("ep_imbalance");
    spec.expertSharedOverlap = parallelism.boolean("ep_shared_expert_overlap");
    spec.expertAllToAllOverlap = parallelism.boolean("ep_a2a_overlap");
    spec.delayWeightGradients = parallelism.boolean("ep_delay_wgrad");
    spec.expertCommSms = static_cast<int>(parallelism.integer("ep_comm_sms", 0)); // 0 = the dispatcher's own
    spec.collectives = parallelism.choice<CollectiveImplementation>(
        "collectives", mode == RunMode::Inference ? CollectiveImplementation::Custom : CollectiveImplementation::Nccl);
    spec.expertCapacityFactor = parallelism.number("ep_capacity_factor");
    const bool zeroGiven = parallelism.has("zero_stage");
    spec.zeroStage = static_cast<int>(parallelism.integer("zero_stage"));
    if (parallelism.boolean("fsdp")) {
        spec.sharding = ShardingStrategy::Fsdp;
        if (zeroGiven && spec.zeroStage != 3) {
            context.error(parallelism.childPath("zero_stage"), parallelism.raw("zero_stage"),
                "FSDP shards parameters, gradients and optimizer states like ZeRO-3; remove zero_stage or "
                "set it to 3");
        }
        spec.zeroStage = 3;
    }
    spec.dpShard = static_cast<int>(parallelism.integer("dp_shard"));
    spec.tpCommOverlap = parallelism.boolean("tp_comm_overlap");
    spec.dpOverlap = parallelism.boolean("dp_overlap");
    readMapping(context, parallelism, spec);
    parallelism.finish();

    if (spec.gpuCount() > kMaxGpus) {
        context.error(parallelism.path(), parallelism.node(),
            "tp*pp*dp*cp = " + std::to_string(spec.gpuCount()) + " GPUs; at most " + std::to_string(kMaxGpus)
                + " are modelled");
    }
    if (spec.schedule == PipelineSchedule::Interleaved && spec.virtualStages < 2) {
        context.error(parallelism.childPath("virtual_stages"), parallelism.raw("virtual_stages"),
            "the interleaved schedule needs virtual_stages of 2 or more");
    }
    if (spec.schedule != PipelineSchedule::Interleaved && spec.virtualStages != 1) {
        context.error(parallelism.childPath("virtual_stages"), parallelism.raw("virtual_stages"),
            "virtual_stages applies only to schedule: interleaved");
    }
    if (!spec.layersPerStage.empty()
        && spec.layersPerStage.size() != static_cast<size_t>(spec.pp * spec.virtualStages)) {
        context.error(parallelism.childPath("layers_per_stage"), parallelism.raw("layers_per_stage"),
            "layers_per_stage lists " + std::to_string(spec.layersPerStage.size())
                + " stages; expected pp*virtual_stages = " + std::to_string(spec.pp * spec.virtualStages));
    }
}

} // namespace

RunSpec readRun(ReadContext& context, const YAML::Node& node, const std::string& path)
{
    RunSpec spec;
    MapReader reader(context, node, path, SchemaScope { schema::Document::Run, "" });
    if (!reader.valid()) {
        if (!node.IsDefined() || isNullNode(node)) {
            context.error(path, node,
                "the run document is empty; expected a mapping with mode, training or inference, "
                "parallelism");
        }
        return spec;
    }
    spec.name = reader.text("name");
    spec.mode = reader.choice<RunMode>("mode");
    spec.framework = reader.choice<Framework>(
        "framework", spec.mode == RunMode::Inference ? Framework::Vllm : Framework::Megatron);
    MapReader training = reader.mapRequiredIf("training", spec.mode == RunMode::Training);
    if (training.valid()) {
        spec.globalBatch = static_cast<int>(training.integer("global_batch"));
        spec.microBatch = static_cast<int>(training.integer("micro_batch"));
        spec.seqLength = static_cast<int>(training.integer("seq_length"));
        spec.gradAccumSteps = static_cast<int>(training.integer("grad_accum_steps", 0)); // 0 = derived
        spec.pipelineFlushes = static_cast<int>(training.integer("pipeline_flushes"));
        spec.reshardEachFlush = training.boolean("reshard_each_flush");
        spec.recompute = training.choice<Recompute>("recompute");
        spec.dropout = training.boolean("dropout");
        spec.loraRank = static_cast<int>(training.integer("lora_rank"));
        spec.loraTargets = training.choice<LoraTargets>("lora_targets");
        spec.loraDropout = training.number("lora_dropout");
        training.finish();
    }
    MapReader inference = reader.mapRequiredIf("inference", spec.mode == RunMode::Inference);
    if (inference.valid()) {
        spec.batch = static_cast<int>(inference.integer("batch"));
        spec.promptLength = static_cast<int>(inference.integer("prompt_length"));
        spec.decodeLength = static_cast<int>(inference.integer("decode_length"));
        spec.splitKv = inference.boolean("split_kv");
        inference.finish();
    }
    spec.flashAttention = reader.boolean("flash_attention");
    spec.attentionKernel = reader.choice<AttentionKernel>("attention_kernel");
    spec.torchCompile = reader.boolean("torch_compile");
    spec.transformerEngine = reader.boolean("transformer_engine");
    spec.ligerKernel = reader.boolean("liger_kernel");
    spec.crossEntropyFusion = reader.boolean("cross_entropy_fusion");
    spec.lossFp32Upcast = reader.boolean("loss_fp32_upcast");
    readPrecision(reader, spec.precision);
    readParallelism(context, reader, spec.mode, spec.parallelism);
    reader.finish();

    if (spec.mode == RunMode::Training && training.valid() && spec.globalBatch > 0) {
        const std::int64_t perStep = static_cast<std::int64_t>(spec.microBatch) * spec.parallelism.dp;
        if (perStep > 0 && spec.globalBatch % perStep != 0) {
            context.error(training.childPath("global_batch"), training.raw("global_batch"),
                "global_batch (" + std::to_string(spec.globalBatch) + ") must be a multiple of micro_batch*dp ("
                    + std::to_string(perStep) + ")");
        } else if (spec.gradAccumSteps > 0 && perStep > 0 && spec.gradAccumSteps != spec.globalBatch / perStep) {
            context.error(training.childPath("grad_accum_steps"), training.raw("grad_accum_steps"),
                "grad_accum_steps (" + std::to_string(spec.gradAccumSteps)
                    + ") disagrees with global_batch / (micro_batch*dp) = "
                    + std::to_string(spec.globalBatch / perStep));
        } else if (perStep > 0 && (spec.globalBatch / perStep) % spec.pipelineFlushes != 0) {
            context.error(training.childPath("pipeline_flushes"), training.raw("pipeline_flushes"),
                "pipeline_flushes (" + std::to_string(spec.pipelineFlushes)
                    + ") must divide the micro-batches per step, global_batch / (micro_batch*dp) = "
                    + std::to_string(spec.globalBatch / perStep));
        }
    }
    return spec;
}

} // namespace detail
} // namespace rapid::config
