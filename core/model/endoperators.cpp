// SPDX-License-Identifier: GPL-3.0-or-later
// The operators outside the transformer layers: the embedding lookup, and the final norm, LM head and loss.
#include "layeroperators.h"

#include "eagerkernels.h"
#include "gradientaccumulation.h"
#include "layerentry_p.h"
#include "layershape_p.h"
#include "loraentries_p.h"

namespace rapid::model {

using config::ModelSpec;
using config::RunSpec;
using detail::ceilDiv;
using detail::kLayerNormFlops;
using detail::kRmsNormFlops;
using detail::makeShape;
using detail::Shape;

namespace {
constexpr double kCrossEntropyFlops = 4; // max, subtract, exp, sum per logit
constexpr double kCrossEntropyBackwardFlops = 3; // exp, divide, subtract the one-hot target
} // namespace

std::vector<Operator> embeddingOperators(
    const ModelSpec& model, const RunSpec& run, const LayerSharding& sharding, Workload workload)
{
    // Decode embeds one token per sequence; its "KV length" only has to be valid.
    const Shape shape = makeShape(run, sharding, workload, 1);
    const double elements = static_cast<double>(shape.tokens) * static_cast<double>(model.hiddenSize);
    const bool learned = model.positionEmbedding == config::PositionEmbedding::Learned;
    Operator op;
    op.name = "embedding.lookup";
    op.kind = OperatorKind::Embedding;
    op.opClass = OperatorClass::Embedding;
    op.precision = run.precision.activations;
    // Reads a table row per token (and a position row), writes the activation.
    op.bytes = elements * ((learned ? 2 : 1) * shape.weight + shape.act);
    op.flops = learned ? elements : 0;
    std::vector<Operator> ops { op };
    // Under LoRA the table is frozen, and nothing before it needs a gradient.
    if (workload == Workload::Training && run.loraRank <= 0) {
        // Scatter-add of the output gradient into the table's gradient rows (read-modify-write).
        op.name += ".backward";
        op.phase = Phase::Backward;
        op.bytes = elements * (shape.act + (learned ? 4 : 2) * shape.grad);
        op.flops = (learned ? 2 : 1) * elements;
        ops.push_back(op);
    }
    return ops;
}

std::vector<Operator> lmHeadOperators(const ModelSpec& model, const RunSpec& run, const LayerSharding& sharding,
    Workload workload, const GradientSum& gradientSum)
{
    const Shape shape = makeShape(run, sharding, workload, 1);
    const bool training = workload == Workload::Training;
    // Inference needs the logits of each sequence's last token only.
    const std::int64_t rows = training ? shape.tokens : shape.batch;
    const std::int64_t normRows = training ? shape.normTokens : shape.batch;
    const std::int64_t vocab = ceilDiv(model.vocabSize, shape.tp);
    const std::int64_t h = model.hiddenSize;
    const bool layerNorm = model.norm == config::NormKind::LayerNorm;

    const double normElements = static_cast<double>(normRows) * static_cast<double>(h);
    const double normWeights = static_cast<double>(h) * (layerNorm ? 2 : 1);
    Operator norm;
    norm.name = "lm_head.final_norm";
    norm.kind = OperatorKind::Norm;
    norm.opClass = OperatorClass::LmHead;
    norm.precision = run.precision.activations;
    norm.bytes = 2 * normElements * shape.act + normWeights * shape.weight;
    norm.flops = normElements * (layerNorm ? kLayerNormFlops : kRmsNormFlops);

    Operator head;
    head.name = "lm_head.projection";
    head.kind = OperatorKind::Gemm;
    head.opClass = OperatorClass::LmHead;
    // The output layer stays in the activations' precision under FP8 training: torchtitan's float8 converter skips
    // it (filter_fqns default ["output"]) and Megatron builds it as a plain ColumnParallelLinear, not a Transformer
    // Engine layer; FP8 logits would also feed the loss through a 128k-wide softmax at E4M3 resolution.
    // Quantised inference checkpoints keep it in 16 bits too (config::isQuantizedWeightFormat).
    head.precision
        = run.precision.compute == config::Precision::Fp8 || run.precision.compute == config::Precision::Nvfp4
        ? run.precision.activations
        : run.precision.compute;
    head.gemm = { rows, h, vocab, 1 };
    head.flops = 2.0 * static_cast<double>(rows) * static_cast<double>(h) * static_cast<double>(vocab);

    if (!training) {
        return { norm, head };
    }
    // The head as an entry: its backward is dX and dW, or dX alone when LoRA freezes it; with lora_targets all_linear
    // an adapter runs beside it (loraadapters.h).
    detail::Entry headEntry;
    headEntry.op = head;
    headEntry.weights = static_cast<double>(h) * static_cast<double>(vocab);
    headEntry.frozen = run.loraRank > 0;
    std::vector<detail::Entry> headEntries { headEntry };
    if (run.loraRank > 0 && run.loraTargets == config::LoraTargets::AllLinear) {
        headEntries = detail::loraEntries(headEntry, run, shape);
        headEntries.insert(headEntries.begin() + 1, headEntry);
    }
    std::vector<Operator> ops = detail::forwardOf(headEntries, Phase::Forward);
    ops.insert(ops.begin(), norm);
    // Vocabulary-parallel cross-entropy: one pass for the row maxima, one for the sums of exponentials; the loss per
    // token is written in fp32. Its backward reads the logits once more and writes their gradient. Unless the loss is
    // fused (Megatron's loss fusion, a compiled loss under PyTorch), Megatron and nanotron run it as a chain of
    // PyTorch ops on fp32 logits and eager PyTorch as log_softmax and nll_loss on them (eagerkernels.h).
    const double logits = static_cast<double>(rows) * static_cast<double>(vocab);
    Operator loss;
    loss.name = "lm_head.cross_entropy";
    loss.kind = OperatorKind::CrossEntropy;
    loss.opClass = OperatorClass::Loss;
    loss.precision = run.precision.activations;
    loss.bytes = 2 * logits * shape.act + static_cast<double>(rows) * 4;
    loss.flops = kCrossEntropyFlops * logits;
    const bool unfused = run.framework == config::Framework::Nanotron
        || ((run.framework == config::Framework::Megatron || run.framework == config::Framework::PytorchFsdp)
            && !run.crossEntropyFusion);
    const EagerKernels chain = run.framework == config::Framework::PytorchFsdp
        ? pytorchCrossEntropyOps(shape.act, run.lossFp32Upcast ? 4.0 : shape.act)
        : vocabParallelCrossEntropyOps(shape.act);
    if (unfused) {
        loss.bytes = chain.forwardBytes * logits;
        loss.kernels = chain.forwardKernels;
    }
    ops.push_back(loss);

    loss.name += ".backward";
    loss.phase = Phase::Backward;
    loss.bytes = (unfused ? chain.backwardBytes : 2 * shape.act) * logits;
    loss.kernels = unfused ? chain.backwardKernels : 1;
    loss.flops = kCrossEntropyBackwardFlops * logits;
    ops.push_back(loss);
    detail::appendBackward(headEntries, ops, fusedWeightGradientAccumulation(run));
    if (auto accumulation
        = gradientAccumulation(run, detail::trainableWeights(headEntries), 0.0, gradientSum, OperatorClass::LmHead)) {
        ops.push_back(*accumulation);
    }
    norm.name += ".backward";
    norm.phase = Phase::Backward;
    norm.bytes = 3 * normElements * shape.act + normWeights * (shape.weight + shape.grad);
    norm.flops *= 2;
    ops.push_back(norm);
    return ops;
}

} // namespace rapid::model
