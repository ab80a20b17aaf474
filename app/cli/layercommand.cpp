// SPDX-License-Identifier: GPL-3.0-or-later
#include "arguments.h"
#include "clioutput.h"
#include "commands.h"
#include "config/attentionkernel.h"
#include "format.h"

#include "compute/operatortimer.h"
#include "config/configloader.h"
#include "model/hostdispatch.h"
#include "model/layeroperators.h"
#include "parallel/shardingplan.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <ostream>

namespace rapid::cli {

namespace {

std::string shapeOf(const model::Operator& op)
{
    char text[128];
    switch (op.kind) {
    case model::OperatorKind::Gemm:
        if (op.gemm.batch > 1) {
            std::snprintf(text, sizeof text, "%lldx[%lldx%lldx%lld]", static_cast<long long>(op.gemm.batch),
                static_cast<long long>(op.gemm.m), static_cast<long long>(op.gemm.k),
                static_cast<long long>(op.gemm.n));
        } else {
            std::snprintf(text, sizeof text, "%lldx%lldx%lld", static_cast<long long>(op.gemm.m),
                static_cast<long long>(op.gemm.k), static_cast<long long>(op.gemm.n));
        }
        return text;
    case model::OperatorKind::FlashAttention:
    case model::OperatorKind::NaiveAttention:
    case model::OperatorKind::DecodeAttention: {
        const model::AttentionDims& a = op.attention;
        std::snprintf(text, sizeof text, "b%lld h%lld/%lld q%lld k%lld d%lld/%lld%s", static_cast<long long>(a.batch),
            static_cast<long long>(a.heads), static_cast<long long>(a.kvHeads), static_cast<long long>(a.queryLength),
            static_cast<long long>(a.keyLength), static_cast<long long>(a.headDimQk),
            static_cast<long long>(a.headDimV), a.causal ? " causal" : "");
        return text;
    }
    default:
        return "-";
    }
}

struct Row {
    model::Operator op;
    compute::OperatorTime time;
};

std::string fixed(double value, int decimals)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string padRight(std::string text, size_t width)
{
    if (text.size() < width) {
        text.resize(width, ' ');
    }
    return text;
}

std::string padLeft(const std::string& text, size_t width)
{
    return text.size() < width ? std::string(width - text.size(), ' ') + text : text;
}

/// The run whose shapes the phase reads. A training run timed as prefill or decode serves its micro-batch of
/// sequences as prompts (decode then attends to a whole sequence); an inference run timed as training trains on its
/// batch of prompts. The header line prints the shapes used.
config::RunSpec runForPhase(const config::RunSpec& run, const std::string& phase)
{
    config::RunSpec shaped = run;
    const bool training = run.mode == config::RunMode::Training;
    if (training && phase != "training") {
        shaped.batch = run.microBatch;
        shaped.promptLength = run.seqLength;
        shaped.decodeLength = 0;
    } else if (!training && phase == "training") {
        shaped.microBatch = run.batch;
        shaped.seqLength = run.promptLength;
    }
    return shaped;
}

/// The phases' total GPU times, and the framework's host-side dispatch per pass where one is derived.
void printTotals(std::ostream& out, const std::map<model::Phase, double>& totals, const model::LayerHostDispatch& host,
    config::Framework framework)
{
    for (const auto& [layerPhase, seconds] : totals) {
        out << "  total " << padRight(model::toString(layerPhase), 10) << padLeft(fixed(seconds * 1e6, 1), 11)
            << " us\n";
    }
    if (host.forwardSeconds > 0 || host.backwardSeconds > 0) {
        out << "  host dispatch " << padLeft(fixed(host.forwardSeconds * 1e6, 1), 11) << " us forward, "
            << fixed(host.backwardSeconds * 1e6, 1) << " us backward: the " << config::toString(framework)
            << " runtime's calls per pass; the GPU waits for them where they take longer than its work\n";
    }
}

} // namespace

int layerCommand(const Invocation& invocation)
{
    Arguments arguments("layer",
        "Per-operator time of one transformer layer on one GPU (Megatron shards of the run's parallelism): FLOPs, "
        "HBM bytes, time and the limiting roof of every kernel, with totals per phase. Training shows forward, "
        "recompute and backward and the layer's optimizer step separately. No communication is included.",
        scenarioOptions({ { "phase", "training|prefill|decode",
                              "what to time (default: training or prefill, from the run mode; a training run's "
                              "micro-batch serves as the prompts)",
                              false },
            { "kv-length", "TOKENS", "keys each decode query attends to, 1 to 2^30 (default: prompt + decode length)",
                false },
            { "dense", "", "time a dense layer of an MoE model (default: an MoE layer)", false },
            { "json", "FILE", "also write the table as JSON (- for standard output)", false } }),
        "[WORKSPACE]");
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    const config::Scenario scenario = loadScenario(arguments, loader);
    const config::ModelSpec& model = scenario.model;
    const std::string phase
        = arguments.value("phase").value_or(scenario.run.mode == config::RunMode::Training ? "training" : "prefill");
    const config::RunSpec run = runForPhase(scenario.run, phase);
    const bool moeLayer = model.moe.has_value() && !arguments.flag("dense");
    std::vector<model::Operator> ops;
    long long kvLength = 0;
    const parallel::ShardingPlan sharding = parallel::planSharding(model, run);
    if (phase == "training") {
        ops = model::trainingForward(model, run, sharding.layer, moeLayer);
        const auto backward = model::trainingBackward(model, run, sharding.layer, moeLayer);
        ops.insert(ops.end(), backward.begin(), backward.end());
        // ZeRO stage 1 and above shard the optimizer state over the data-parallel ranks (routed experts over the
        // expert-data-parallel ones).
        ops.push_back(model::optimizerUpdate(sharding.parametersPerShard(sharding.layerParameters[moeLayer ? 1 : 0],
                                                 moeLayer ? sharding.moeLayerExpertParameters : 0.0, 1),
            run));
    } else if (phase == "prefill") {
        ops = model::prefillLayer(model, run, sharding.layer, moeLayer);
    } else if (phase == "decode") {
        kvLength = arguments.integer("kv-length", static_cast<long long>(run.promptLength) + run.decodeLength);
        if (kvLength < 1 || kvLength > (1LL << 30)) {
            throw UsageError("--kv-length must be from 1 to 2^30, as run.training.seq_length (or give the run a prompt "
                             "length)");
        }
        ops = model::decodeLayer(model, run, sharding.layer, moeLayer, kvLength);
    } else {
        throw UsageError("--phase must be training, prefill or decode");
    }

    compute::OperatorTimer timer(
        scenario.hardware.gpu, config::resolvedAttentionKernel(scenario.run, scenario.hardware.gpu));
    std::vector<Row> rows;
    std::map<model::Phase, double> totals;
    for (const model::Operator& op : ops) {
        rows.push_back({ op, timer.time(op) });
        totals[op.phase] += rows.back().time.seconds;
    }

    std::ostream& out = invocation.out;
    out << model.name << (moeLayer ? " (MoE layer)" : "") << " on " << scenario.hardware.gpu.name << ": " << phase
        << ", tp " << run.parallelism.tp << (run.parallelism.sequenceParallel ? " +sp" : "") << ", cp "
        << run.parallelism.cp << ", ep " << run.parallelism.ep;
    if (phase == "decode") {
        out << ", batch " << run.batch << ", KV length " << kvLength;
    } else if (phase == "prefill") {
        out << ", batch " << run.batch << ", prompt " << run.promptLength;
    } else {
        out << ", micro-batch " << run.microBatch << ", sequence " << run.seqLength;
    }
    if (run.flashAttention) {
        out << ", attention " << config::toString(timer.attentionKernel());
    }
    if (run.framework == config::Framework::PytorchFsdp) {
        out << (run.torchCompile ? ", torch.compile" : ", eager PyTorch");
    }
    out << "\n\n"
        << padRight("phase", 10) << padRight("operator", 42) << padRight("shape", 34) << padLeft("FLOPs", 14)
        << padLeft("bytes", 12) << padLeft("time us", 11) << "  bound\n";
    for (const Row& row : rows) {
        out << padRight(model::toString(row.op.phase), 10) << padRight(row.op.name, 42) << padRight(shapeOf(row.op), 34)
            << padLeft(formatFlops(row.time.flops), 14) << padLeft(formatBytes(row.time.bytes), 12)
            << padLeft(fixed(row.time.seconds * 1e6, 1), 11) << "  " << compute::toString(row.time.bound) << "\n";
    }
    out << "\n";
    const model::LayerHostDispatch host
        = phase == "training" ? model::layerHostDispatch(run, moeLayer) : model::LayerHostDispatch {};
    printTotals(out, totals, host, run.framework);
    const compute::GemmCache& cache = timer.cache();
    out << "  (" << cache.size() << " distinct GEMM shapes, " << cache.hits() << " cache hits)\n";

    if (auto jsonPath = arguments.value("json")) {
        std::ofstream file;
        std::ostream* json = openOutput(*jsonPath, file, invocation);
        if (!json) {
            invocation.err << "rapid layer: cannot write " << *jsonPath << "\n";
            return InputError;
        }
        report::Json operators = report::Json::array();
        for (const Row& row : rows) {
            operators.push_back({ { "phase", model::toString(row.op.phase) }, { "name", row.op.name },
                { "kind", toString(row.op.kind) }, { "class", toString(row.op.opClass) }, { "shape", shapeOf(row.op) },
                { "flops", row.time.flops }, { "bytes", row.time.bytes }, { "seconds", row.time.seconds },
                { "bound", compute::toString(row.time.bound) } });
        }
        report::Json totalSeconds = report::Json::object();
        for (const auto& [layerPhase, seconds] : totals) {
            totalSeconds[model::toString(layerPhase)] = seconds;
        }
        report::writeJson(*json,
            { { "model", model.name }, { "gpu", scenario.hardware.gpu.name }, { "phase", phase },
                { "moe_layer", moeLayer }, { "operators", operators }, { "totals_seconds", totalSeconds },
                { "host_dispatch_seconds",
                    { { "forward", host.forwardSeconds }, { "backward", host.backwardSeconds } } } });
    }
    return Success;
}

} // namespace rapid::cli
