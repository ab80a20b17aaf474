// SPDX-License-Identifier: GPL-3.0-or-later
#include "loraentries_p.h"

#include "layeroperators.h"
#include "modelstats.h"

#include <string>
#include <utility>

namespace rapid::model {

namespace {
constexpr double kMaskBytes = 1; ///< PyTorch's fused dropout keeps a bool per element
constexpr double kDropoutFlops = 2; ///< compare the draw, scale the kept element

detail::Entry makeEntry(const detail::Entry& linear, std::string suffix, OperatorKind kind)
{
    detail::Entry entry;
    entry.op.name = linear.op.name + std::move(suffix);
    entry.op.kind = kind;
    entry.op.opClass = linear.op.opClass;
    entry.op.phase = Phase::Forward;
    entry.op.precision = linear.op.precision;
    return entry;
}

detail::Entry adapterGemm(const detail::Entry& linear, std::string suffix, std::int64_t k, std::int64_t n)
{
    detail::Entry entry = makeEntry(linear, std::move(suffix), OperatorKind::Gemm);
    const GemmDims& base = linear.op.gemm;
    entry.op.gemm = { base.m, k, n, base.batch };
    entry.op.flops = 2.0 * static_cast<double>(base.m) * static_cast<double>(k) * static_cast<double>(n)
        * static_cast<double>(base.batch);
    entry.weights = static_cast<double>(k) * static_cast<double>(n) * static_cast<double>(base.batch);
    return entry;
}
} // namespace

double loraAdapterParameters(std::int64_t in, std::int64_t out, int rank)
{
    return static_cast<double>(rank) * (static_cast<double>(in) + static_cast<double>(out));
}

double trainingModelFlopsPerToken(const config::ModelSpec& model, const config::RunSpec& run)
{
    const double forward = forwardFlopsPerToken(model, run.seqLength);
    if (run.loraRank <= 0) {
        return 3 * forward;
    }
    const double frozenWeightGradients = forwardFlopsPerToken(model, 0); // 2 per GEMM weight
    // The whole model's adapters: one layer's at tensor parallelism 1, the LM head's with lora_targets all_linear.
    config::RunSpec whole = run;
    whole.parallelism.tp = 1;
    double adapters = model.numLayers * localLayerTrainableParameters(model, whole, LayerSharding {}, false);
    if (run.loraTargets == config::LoraTargets::AllLinear) {
        adapters += loraAdapterParameters(model.hiddenSize, model.vocabSize, run.loraRank);
    }
    return 3 * forward - frozenWeightGradients + 6 * adapters;
}

double loraSavedBytes(const std::vector<Operator>& ops, const config::RunSpec& run, double activationBytes)
{
    double bytes = 0;
    for (const Operator& op : ops) {
        if (op.kind != OperatorKind::Gemm || !op.name.ends_with(".lora_b")) {
            continue;
        }
        const double rows = static_cast<double>(op.gemm.m) * static_cast<double>(op.gemm.batch);
        bytes += rows * static_cast<double>(op.gemm.k) * activationBytes;
        if (run.loraDropout > 0) {
            bytes += rows * static_cast<double>(op.gemm.n) * kMaskBytes;
        }
    }
    return bytes;
}

namespace detail {

std::vector<Entry> loraEntries(const Entry& linear, const config::RunSpec& run, const Shape& shape)
{
    const GemmDims& base = linear.op.gemm;
    const double batch = static_cast<double>(base.batch);
    const double rows = static_cast<double>(base.m) * batch;
    const double inputs = rows * static_cast<double>(base.k);
    const double outputs = rows * static_cast<double>(base.n);
    const double ranks = rows * run.loraRank;
    const double act = shape.act;
    std::vector<Entry> entries;

    // Eager, each element-wise step is a kernel of its own. Compiled (torch.compile around the layer), the GEMMs stay
    // cuBLAS calls, so the scale between them stays a kernel, but the dropout, the add and the gradient sum fuse
    // into the neighbouring element-wise kernels (the rotary embedding, the activation, the residual add, the norm's
    // backward): each costs the read of its extra operand and the mask, no launch.
    const bool eager = shape.eager;
    Entry sum = makeEntry(linear, ".lora_input_grad_sum", OperatorKind::Elementwise);
    sum.hasForward = false;
    sum.op.kernels = 0;
    sum.backwardBytes = (eager ? 3 : 1) * inputs * act;
    sum.backwardFlops = inputs;
    sum.backwardKernels = eager ? 1 : 0;
    entries.push_back(std::move(sum));

    entries.push_back(adapterGemm(linear, ".lora_a", base.k, run.loraRank));
    Entry scale = makeEntry(linear, ".lora_scale", OperatorKind::Elementwise);
    scale.op.bytes = 2 * ranks * act;
    scale.op.flops = ranks;
    scale.backwardBytes = 2 * ranks * act;
    scale.backwardFlops = ranks;
    entries.push_back(std::move(scale));
    entries.push_back(adapterGemm(linear, ".lora_b", run.loraRank, base.n));

    if (run.loraDropout > 0) {
        Entry dropout = makeEntry(linear, ".lora_dropout", OperatorKind::Elementwise);
        dropout.op.bytes = outputs * ((eager ? 2 : 1) * act + kMaskBytes);
        dropout.op.flops = kDropoutFlops * outputs;
        dropout.op.kernels = eager ? 1 : 0;
        dropout.backwardBytes = outputs * ((eager ? 2 : 1) * act + kMaskBytes);
        dropout.backwardKernels = eager ? 1 : 0;
        dropout.backwardFlops = outputs;
        entries.push_back(std::move(dropout));
    }
    Entry add = makeEntry(linear, ".lora_add", OperatorKind::Elementwise);
    add.op.bytes = (eager ? 3 : 1) * outputs * act;
    add.op.flops = outputs;
    add.op.kernels = eager ? 1 : 0;
    add.hasBackward = false; // the sum hands its gradient to both operands unchanged
    entries.push_back(std::move(add));
    return entries;
}

void addLoraAdapters(std::vector<Entry>& entries, const config::RunSpec& run, const Shape& shape)
{
    if (run.loraRank <= 0) {
        return;
    }
    std::vector<Entry> adapted;
    adapted.reserve(entries.size() * 3);
    for (Entry& entry : entries) {
        entry.frozen = true;
        if (entry.op.kind != OperatorKind::Gemm || entry.weights <= 0 || !entry.hasForward) {
            adapted.push_back(std::move(entry));
            continue;
        }
        std::vector<Entry> adapter = loraEntries(entry, run, shape);
        adapted.push_back(
            std::move(adapter.front())); // the gradient sum runs after both dX, so before in forward order
        adapted.push_back(std::move(entry));
        for (std::size_t i = 1; i < adapter.size(); ++i) {
            adapted.push_back(std::move(adapter[i]));
        }
    }
    entries = std::move(adapted);
}

} // namespace detail
} // namespace rapid::model
