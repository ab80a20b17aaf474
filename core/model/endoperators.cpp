// SPDX-License-Identifier: GPL-3.0-or-later
// The operators outside the transformer layers: the embedding lookup, and the final norm, LM head and loss.
#include "layeroperators.h"

#include "eagerkernels.h"
#include "gradientaccumulation.h"
#include "layershape_p.h"

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
    if (workload == Workload::Training) {
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

    std::vector<Operator> ops { norm, head };
    if (!training) {
        return ops;
    }
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
    Operator dx = head;
    dx.phase = Phase::Backward;
    dx.name += ".dx";
    dx.gemm = { rows, vocab, h, 1 };
    ops.push_back(dx);
    Operator dw = head;
    dw.phase = Phase::Backward;
    dw.name += ".dw";
    dw.gemm = { h, rows, vocab, 1 };
    ops.push_back(dw);
    if (auto accumulation = gradientAccumulation(
            run, static_cast<double>(h) * static_cast<double>(vocab), 0.0, gradientSum, OperatorClass::LmHead)) {
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
