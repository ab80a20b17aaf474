// SPDX-License-Identifier: GPL-3.0-or-later
#include "configloader.h"

#include "attentionkernel.h"

#include "checkedmath.h"

#include "configtree_p.h"
#include "documentreaders_p.h"
#include "parallelismchecks_p.h"
#include "precisionchecks_p.h"
#include "yamlnode_p.h"

#include <algorithm>

namespace rapid::config {

namespace {

/// Reads whichever documents the tree holds. Any problem anywhere ends in one ConfigError listing all of them.
struct ReadResult {
    ModelSpec model;
    HardwareSpec hardware;
    RunSpec run;
    SourceMap locations;
};

ReadResult readTree(const detail::ConfigTree& tree, DiagnosticSink& sink, bool model, bool hardware, bool run)
{
    ReadResult result;
    detail::ReadContext context { sink, tree.origins(), result.locations };
    const YAML::Node& root = tree.root();
    for (const char* key : { "model", "hardware", "run" }) {
        result.locations.record(key, tree.origins().locate(key, root[key]));
    }
    if (model) {
        result.model = detail::readModel(context, root["model"], "model");
    }
    if (hardware) {
        result.hardware = detail::readHardware(context, root["hardware"], "hardware");
    }
    if (run) {
        result.run = detail::readRun(context, root["run"], "run");
    }
    return result;
}

Scenario finishScenario(const detail::ConfigTree& tree, DiagnosticSink& sink)
{
    if (!sink.empty()) {
        sink.throwIfAny(); // missing files or syntax errors: reading further would only repeat them
    }
    ReadResult read = readTree(tree, sink, true, true, true);
    sink.throwIfAny();
    for (Diagnostic& diagnostic : checkScenario(read.model, read.hardware, read.run, read.locations)) {
        sink.add(std::move(diagnostic));
    }
    sink.throwIfAny();
    Scenario scenario;
    scenario.name = tree.workspaceName().empty() ? read.run.name : tree.workspaceName();
    scenario.model = std::move(read.model);
    scenario.hardware = std::move(read.hardware);
    scenario.run = std::move(read.run);
    scenario.locations = std::move(read.locations);
    return scenario;
}

std::string gcdHint(int a, int b)
{
    return "(" + std::to_string(a) + " is not divisible by " + std::to_string(b) + ")";
}

/// Last line of defence: whatever escapes the readers (a yaml-cpp exception on input nobody foresaw) still reaches
/// the user as a ConfigError naming the input, never as a crash. The mutation test fails on any such message, so
/// each one is a bug to fix at its source.
template <typename Load> auto guarded(const std::string& input, Load&& load) -> decltype(load())
{
    try {
        return load();
    } catch (const ConfigError&) {
        throw;
    } catch (const std::exception& error) {
        throw ConfigError({ { { input, 0, 0 }, {},
            std::string("internal error while reading the configuration: ") + error.what() } });
    }
}

} // namespace

ConfigLoader::ConfigLoader(PresetLibrary library)
    : m_library(std::move(library))
{
}

ModelSpec ConfigLoader::loadModel(const std::string& reference, const std::vector<std::string>& overrides) const
{
    return guarded(reference, [&] {
        DiagnosticSink sink;
        detail::ConfigTree tree(m_library, sink);
        tree.addReference("model", PresetKind::Model, reference, {}, { reference, 0, 0 });
        tree.applyOverrides(overrides);
        sink.throwIfAny();
        ReadResult read = readTree(tree, sink, true, false, false);
        sink.throwIfAny();
        return read.model;
    });
}

HardwareSpec ConfigLoader::loadHardware(const std::string& reference, const std::vector<std::string>& overrides) const
{
    return guarded(reference, [&] {
        DiagnosticSink sink;
        detail::ConfigTree tree(m_library, sink);
        tree.addReference("hardware", PresetKind::Hardware, reference, {}, { reference, 0, 0 });
        tree.expandGpuReference();
        tree.applyOverrides(overrides);
        sink.throwIfAny();
        ReadResult read = readTree(tree, sink, false, true, false);
        sink.throwIfAny();
        return read.hardware;
    });
}

RunSpec ConfigLoader::loadRun(const std::string& reference, const std::vector<std::string>& overrides) const
{
    return guarded(reference, [&] {
        DiagnosticSink sink;
        detail::ConfigTree tree(m_library, sink);
        tree.addReference("run", PresetKind::Run, reference, {}, { reference, 0, 0 });
        tree.applyOverrides(overrides);
        sink.throwIfAny();
        ReadResult read = readTree(tree, sink, false, false, true);
        sink.throwIfAny();
        return read.run;
    });
}

Scenario ConfigLoader::loadScenario(const std::string& model, const std::string& hardware, const std::string& run,
    const std::vector<std::string>& overrides) const
{
    return guarded(run, [&] {
        DiagnosticSink sink;
        detail::ConfigTree tree(m_library, sink);
        tree.addReference("model", PresetKind::Model, model, {}, { "--model " + model, 0, 0 });
        tree.addReference("hardware", PresetKind::Hardware, hardware, {}, { "--hardware " + hardware, 0, 0 });
        tree.addReference("run", PresetKind::Run, run, {}, { "--run " + run, 0, 0 });
        tree.expandGpuReference();
        tree.applyOverrides(overrides);
        return finishScenario(tree, sink);
    });
}

Scenario ConfigLoader::loadWorkspace(const std::string& reference, const std::vector<std::string>& overrides) const
{
    return guarded(reference, [&] {
        DiagnosticSink sink;
        detail::ConfigTree tree(m_library, sink);
        tree.addWorkspace(reference);
        tree.applyOverrides(overrides);
        return finishScenario(tree, sink);
    });
}

Scenario ConfigLoader::loadTexts(const DocumentText& model, const DocumentText& hardware, const DocumentText& run,
    const std::vector<std::string>& overrides) const
{
    return guarded(run.sourceName, [&] {
        DiagnosticSink sink;
        detail::ConfigTree tree(m_library, sink);
        tree.addText("model", model.text, model.sourceName, model.baseDir);
        tree.addText("hardware", hardware.text, hardware.sourceName, hardware.baseDir);
        tree.addText("run", run.text, run.sourceName, run.baseDir);
        tree.expandGpuReference();
        tree.applyOverrides(overrides);
        return finishScenario(tree, sink);
    });
}

namespace {

/// Sizes the step model cannot take whatever the hardware: more micro-batch passes than the step graph's budget, more
/// tokens in one batch than a GEMM dimension holds.
template <typename Report> void checkWorkSize(const RunSpec& run, const Report& report)
{
    const ParallelismSpec& parallel = run.parallelism;
    if (run.mode == RunMode::Training) {
        const std::int64_t passes
            = saturatingProduct({ run.microBatchesPerStep(), parallel.pp, parallel.virtualStages });
        if (passes > kMaxMicroBatchPasses) {
            report("run.training.global_batch",
                std::to_string(run.microBatchesPerStep())
                    + " micro-batches per step x pp x virtual_stages = " + std::to_string(passes)
                    + " micro-batch passes; the step graph takes at most " + std::to_string(kMaxMicroBatchPasses)
                    + " (raise micro_batch or dp, or lower global_batch: once the pipeline is full the step time grows "
                      "linearly with the micro-batches)");
        }
        if (saturatingProduct({ run.microBatch, run.seqLength }) > kMaxTokensPerBatch) {
            report(
                "run.training.micro_batch", "micro_batch x seq_length is beyond 2^31 tokens, the most one GEMM holds");
        }
    } else if (saturatingProduct({ run.batch, std::int64_t(run.promptLength) + run.decodeLength })
        > kMaxTokensPerBatch) {
        report("run.inference.batch",
            "batch x (prompt_length + decode_length) is beyond 2^31 tokens, the most one GEMM "
            "holds");
    }
}

/// The fused attention kernel must exist on the GPU (FlashAttention-3 on Hopper only) and needs flash_attention.
template <typename Report> void checkAttentionKernel(const GpuSpec& gpu, const RunSpec& run, const Report& report)
{
    if (run.flashAttention) {
        const std::string kernelProblem = attentionKernelProblem(resolvedAttentionKernel(run, gpu), gpu);
        if (!kernelProblem.empty()) {
            report("run.attention_kernel", kernelProblem);
        }
    } else if (run.attentionKernel != AttentionKernel::Auto) {
        report("run.attention_kernel",
            std::string("attention_kernel ") + toString(run.attentionKernel)
                + " names a fused attention kernel but flash_attention is false; expected auto, or flash_attention: "
                  "true");
    }
}

/// Transformer Engine modules are a choice inside PyTorch FSDP training only.
template <typename Report> void checkTransformerEngine(const RunSpec& run, const Report& report)
{
    if (run.ligerKernel && run.framework != Framework::PytorchFsdp) {
        report("run.liger_kernel",
            std::string("liger_kernel patches Hugging Face model code inside PyTorch FSDP training; the framework is ")
                + toString(run.framework) + "; expected liger_kernel: false or framework: pytorch-fsdp");
    }
    if (run.transformerEngine && run.framework != Framework::PytorchFsdp) {
        report("run.transformer_engine",
            std::string("transformer_engine selects Transformer Engine modules inside PyTorch FSDP training; the "
                        "framework is ")
                + toString(run.framework)
                + (run.framework == Framework::Megatron ? ", which always runs them" : ", which does not use them")
                + "; expected transformer_engine: false or framework: pytorch-fsdp");
    }
}

/// A fused loss is Megatron's option or PyTorch's compiled loss, the fp32 upcast a PyTorch loop's; the other
/// frameworks' losses are what their code runs.
template <typename Report> void checkLossOptions(const RunSpec& run, const Report& report)
{
    if (run.crossEntropyFusion && run.framework != Framework::Megatron && run.framework != Framework::PytorchFsdp) {
        report("run.cross_entropy_fusion",
            std::string("cross_entropy_fusion is Megatron-Core's --cross-entropy-loss-fusion or a compiled PyTorch "
                        "loss; the framework is ")
                + toString(run.framework)
                + "; expected cross_entropy_fusion: false or framework: megatron or pytorch-fsdp");
    }
    if (run.precision.fp8AllGather
        && (run.framework != Framework::PytorchFsdp || run.precision.compute != Precision::Fp8
            || run.precision.fp8Scaling != Fp8Scaling::Tensorwise || run.parallelism.zeroStage < 3
            || run.mode != RunMode::Training)) {
        report("run.precision.fp8_all_gather",
            "fp8_all_gather is torchao's float8 all-gather of FSDP training; expected framework: pytorch-fsdp, "
            "training, precision.compute: fp8 with fp8_scaling: tensorwise and FSDP (fsdp: true or zero_stage: 3), or "
            "fp8_all_gather: false");
    }
    if (!run.lossFp32Upcast && run.framework != Framework::PytorchFsdp) {
        report("run.loss_fp32_upcast",
            std::string("loss_fp32_upcast describes a PyTorch training loop's loss; the framework is ")
                + toString(run.framework) + " (its loss always works on fp32 logits); expected loss_fp32_upcast: true "
                + "or framework: pytorch-fsdp");
    }
}

/// LoRA adapters as modelled: on the dense linears of a training step (model/loraadapters.h). AutoModel and PEFT adapt
/// MoE experts with grouped adapters of their own, which are not modelled.
template <typename Report> void checkLora(const ModelSpec& model, const RunSpec& run, const Report& report)
{
    if (run.loraRank > 0 && model.moe) {
        report("run.training.lora_rank",
            "LoRA is modelled for dense models; " + model.name
                + " has MoE layers, whose grouped expert adapters are not modelled; expected lora_rank: 0");
    }
    if (run.loraRank == 0 && run.loraDropout > 0) {
        report("run.training.lora_dropout", "lora_dropout applies to LoRA adapters; expected lora_rank above 0");
    }
}

/// Scalings that exist only on some GPUs or in some modes.
template <typename Report> void checkFp8Scaling(const GpuSpec& gpu, const RunSpec& run, const Report& report)
{
    // MXFP8 (fp8_scaling: blockwise, a scale per 32 elements) is a tensor-core format of Blackwell (tcgen05's
    // block-scaled MMA kinds, PTX ISA); Hopper's and Ampere's tensor cores take one scale per operand.
    const bool fp8Gemms = run.precision.compute == Precision::Fp8 || run.precision.expertCompute == Precision::Fp8;
    if (fp8Gemms && run.precision.fp8Scaling == Fp8Scaling::Blockwise
        && (gpu.architecture == GpuArchitecture::Hopper || gpu.architecture == GpuArchitecture::Ampere)) {
        report("run.precision.fp8_scaling",
            std::string("fp8_scaling: blockwise is MXFP8, which needs Blackwell's block-scaled tensor cores; the GPU ")
                + gpu.name + " is " + toString(gpu.architecture)
                + "; expected tensorwise, rowwise, delayed or block128");
    }
    // Static scales are calibrated into an inference checkpoint; training takes its scales from the tensors (dynamic)
    // or from their amax history (delayed).
    if (run.precision.compute == Precision::Fp8 && run.precision.fp8Scaling == Fp8Scaling::Static
        && run.mode == RunMode::Training) {
        report("run.precision.fp8_scaling",
            "fp8_scaling: static is the calibrated per-tensor activation scale of an FP8 inference checkpoint; "
            "expected tensorwise, rowwise, delayed, block128 or blockwise for a training run");
    }
}
} // namespace

std::vector<Diagnostic> checkScenario(
    const ModelSpec& model, const HardwareSpec& hardware, const RunSpec& run, const SourceMap& locations)
{
    std::vector<Diagnostic> problems;
    auto report = [&](const std::string& keyPath, std::string message) {
        problems.push_back({ locations.locate(keyPath), keyPath, std::move(message) });
    };
    const ParallelismSpec& parallel = run.parallelism;
    if (model.numHeads > 0 && model.numHeads % parallel.tp != 0) {
        report("run.parallelism.tp",
            "tp (" + std::to_string(parallel.tp) + ") must divide the model's num_heads ("
                + std::to_string(model.numHeads) + ") " + gcdHint(model.numHeads, parallel.tp));
    } else if (model.numKvHeads > 0 && model.numKvHeads % parallel.tp != 0 && parallel.tp % model.numKvHeads != 0) {
        report("run.parallelism.tp",
            "tp (" + std::to_string(parallel.tp) + ") and num_kv_heads (" + std::to_string(model.numKvHeads)
                + ") must divide one another so KV heads are split or replicated evenly");
    }
    const int gpus = hardware.cluster.totalGpus();
    if (parallel.gpuCount() != gpus) {
        report("run.parallelism",
            "tp*pp*dp*cp = " + std::to_string(parallel.tp) + "*" + std::to_string(parallel.pp) + "*"
                + std::to_string(parallel.dp) + "*" + std::to_string(parallel.cp) + " = "
                + std::to_string(parallel.gpuCount()) + " GPUs, but the hardware \"" + hardware.name + "\" has "
                + std::to_string(gpus)
                + (hardware.cluster.dimensions.empty()
                        ? std::string(" (a single GPU)")
                        : "; change the degrees or resize the network (e.g. --set hardware.cluster.network["
                            + hardware.cluster.dimensions.back().name + "].size=N)"));
    }
    detail::checkExpertParallelism(model, run, report);
    detail::checkShardGroup(parallel, report);
    detail::checkContextComm(model, run, parallel, report);
    const int chunks = parallel.pp * parallel.virtualStages;
    if (model.numLayers > 0 && chunks > model.numLayers) {
        report("run.parallelism.pp",
            "pp*virtual_stages = " + std::to_string(chunks) + " exceeds the model's " + std::to_string(model.numLayers)
                + " layers");
    }
    const int perSchedule = run.microBatchesPerStep() / std::max(1, run.pipelineFlushes);
    if (run.mode == RunMode::Training && parallel.schedule == PipelineSchedule::Interleaved
        && perSchedule % parallel.pp != 0) {
        report("run.parallelism.schedule",
            "the interleaved schedule needs the micro-batches of each pipeline schedule (" + std::to_string(perSchedule)
                + ") to be a multiple of pp (" + std::to_string(parallel.pp) + ")");
    }
    if (!parallel.layersPerStage.empty()) {
        int sum = 0;
        for (int layers : parallel.layersPerStage) {
            sum += layers;
        }
        if (sum != model.numLayers) {
            report("run.parallelism.layers_per_stage",
                "layers_per_stage adds up to " + std::to_string(sum) + "; the model has "
                    + std::to_string(model.numLayers) + " layers");
        }
    }
    checkWorkSize(run, report);
    if (run.mode == RunMode::Training) {
        if (run.seqLength > 0 && run.seqLength % parallel.cp != 0) {
            report("run.parallelism.cp",
                "cp (" + std::to_string(parallel.cp) + ") must divide seq_length (" + std::to_string(run.seqLength)
                    + ")");
        }
        if (model.maxContext > 0 && run.seqLength > model.maxContext) {
            report("run.training.seq_length",
                "seq_length " + std::to_string(run.seqLength) + " exceeds the model's max_context of "
                    + std::to_string(model.maxContext));
        }
    } else {
        if (parallel.cp != 1) {
            report("run.parallelism.cp", "context parallelism is modelled for training only; use cp: 1 for inference");
        }
        const std::int64_t total = std::int64_t(run.promptLength) + run.decodeLength;
        if (model.maxContext > 0 && total > model.maxContext) {
            report("run.inference.prompt_length",
                "prompt_length + decode_length = " + std::to_string(total) + " exceeds the model's max_context of "
                    + std::to_string(model.maxContext));
        }
    }
    if (!isWeightOnlyFormat(run.precision.compute) && hardware.gpu.tensorPeak(run.precision.compute) <= 0) {
        std::string available;
        for (int i = 0; i < kPrecisionCount; ++i) {
            if (hardware.gpu.tensorFlops[static_cast<size_t>(i)] > 0) {
                available += std::string(available.empty() ? "" : ", ") + toString(static_cast<Precision>(i));
            }
        }
        report("run.precision.compute",
            std::string("the GPU ") + hardware.gpu.name + " has no " + toString(run.precision.compute)
                + " tensor rate in its preset; expected one it has: " + available);
    }
    checkFp8Scaling(hardware.gpu, run, report);
    checkAttentionKernel(hardware.gpu, run, report);
    checkTransformerEngine(run, report);
    checkLossOptions(run, report);
    detail::checkNvfp4(run, report);
    detail::checkWeightOnlyFormats(model, run, hardware.gpu, report);
    detail::checkExpertCommSms(run, hardware.gpu, report);
    checkLora(model, run, report);
    for (const auto& [axis, names] : parallel.mapping) {
        for (const std::string& name : names) {
            const auto& dims = hardware.cluster.dimensions;
            if (std::none_of(dims.begin(), dims.end(), [&](const NetworkDimension& d) { return d.name == name; })) {
                std::string known;
                for (const NetworkDimension& d : dims) {
                    known += (known.empty() ? "" : ", ") + d.name;
                }
                report("run.parallelism.mapping." + axis,
                    "no network dimension named \"" + name
                        + "\" (the hardware has: " + (known.empty() ? std::string("none") : known) + ")");
            }
        }
    }
    return problems;
}

} // namespace rapid::config

namespace rapid::config {

namespace {

/// Whether an override assignment writes below document @p key ("run.parallelism.tp=4" touches "run").
bool touches(const std::string& assignment, const std::string& key)
{
    return assignment.compare(0, key.size(), key) == 0
        && (assignment.size() == key.size() || assignment[key.size()] == '.' || assignment[key.size()] == '['
            || assignment[key.size()] == '=');
}

} // namespace

/// The model and hardware documents read once (with the template's overrides that write to them), or why they could
/// not be.
struct ScenarioTemplate::ReadOnce {
    ModelSpec model;
    HardwareSpec hardware;
    SourceMap locations;
    bool usable = false;
};

ScenarioTemplate::ScenarioTemplate(ConfigLoader loader, DocumentText model, DocumentText hardware, DocumentText run,
    std::vector<std::string> overrides)
    : m_loader(std::move(loader))
    , m_model(std::move(model))
    , m_hardware(std::move(hardware))
    , m_run(std::move(run))
    , m_overrides(std::move(overrides))
{
}

ScenarioTemplate::~ScenarioTemplate() = default;

const ScenarioTemplate::ReadOnce& ScenarioTemplate::readOnce() const
{
    std::call_once(m_readOnceFlag, [this] {
        m_readOnce = std::make_unique<ReadOnce>();
        std::vector<std::string> overrides;
        for (const std::string& assignment : m_overrides) {
            if (!touches(assignment, "run")) {
                overrides.push_back(assignment);
            }
        }
        try {
            DiagnosticSink sink;
            detail::ConfigTree tree(m_loader.library(), sink);
            tree.addText("model", m_model.text, m_model.sourceName, m_model.baseDir);
            tree.addText("hardware", m_hardware.text, m_hardware.sourceName, m_hardware.baseDir);
            tree.expandGpuReference();
            tree.applyOverrides(overrides);
            if (!sink.empty()) {
                return;
            }
            ReadResult read = readTree(tree, sink, true, true, false);
            if (!sink.empty()) {
                return;
            }
            m_readOnce->model = std::move(read.model);
            m_readOnce->hardware = std::move(read.hardware);
            m_readOnce->locations = std::move(read.locations);
            m_readOnce->usable = true;
        } catch (const std::exception&) {
            // The full load of every point reports it.
        }
    });
    return *m_readOnce;
}

Scenario ScenarioTemplate::load(const std::vector<std::string>& overrides) const
{
    std::vector<std::string> all = m_overrides;
    all.insert(all.end(), overrides.begin(), overrides.end());
    const ReadOnce& once = readOnce();
    const bool runOnly
        = std::all_of(overrides.begin(), overrides.end(), [](const std::string& a) { return touches(a, "run"); });
    if (!once.usable || !runOnly) {
        return m_loader.loadTexts(m_model, m_hardware, m_run, all);
    }
    // Only the run document changes from point to point: read it alone, then check it against the model and the
    // hardware read once. Same result as loadTexts, for a fraction of the parsing.
    return guarded(m_run.sourceName, [&] {
        std::vector<std::string> runOverrides;
        for (const std::string& assignment : all) {
            if (touches(assignment, "run")) {
                runOverrides.push_back(assignment);
            }
        }
        DiagnosticSink sink;
        detail::ConfigTree tree(m_loader.library(), sink);
        tree.addText("run", m_run.text, m_run.sourceName, m_run.baseDir);
        tree.applyOverrides(runOverrides);
        sink.throwIfAny();
        ReadResult read = readTree(tree, sink, false, false, true);
        sink.throwIfAny();
        SourceMap locations = once.locations;
        locations.merge(read.locations);
        for (Diagnostic& diagnostic : checkScenario(once.model, once.hardware, read.run, locations)) {
            sink.add(std::move(diagnostic));
        }
        sink.throwIfAny();
        Scenario scenario;
        scenario.name = read.run.name;
        scenario.model = once.model;
        scenario.hardware = once.hardware;
        scenario.run = std::move(read.run);
        scenario.locations = std::move(locations);
        return scenario;
    });
}

} // namespace rapid::config
