// SPDX-License-Identifier: GPL-3.0-or-later
#include "activationmemory.h"

#include "model/layeroperators.h"
#include "model/loraadapters.h"

#include <algorithm>

namespace rapid::memory {

using config::ModelSpec;
using config::Recompute;
using config::RunSpec;

double SavedActivations::total() const
{
    double sum = 0;
    for (const SavedTensor& tensor : tensors) {
        sum += tensor.bytes;
    }
    return sum;
}

double localSequence(const RunSpec& run, const model::LayerSharding& sharding)
{
    if (run.mode == config::RunMode::Inference) {
        return run.promptLength;
    }
    return static_cast<double>(run.seqLength) / sharding.context;
}

namespace {

struct Shape {
    double s; ///< tokens of the sequence on this GPU
    double b; ///< micro-batch
    double h; ///< hidden size
    double e; ///< bytes per activation element
    double linearInput; ///< bytes per element of the input a linear keeps for its backward (FP8 under TE, else e)
    double tp; ///< divisor inside the tensor-parallel region
    double sp; ///< divisor outside it (tp with sequence parallelism, else 1)
    double expertLoad; ///< the busiest expert-parallel rank's routed tokens over the balanced share
    double etp; ///< divisor of a routed expert's FFN width (expert tensor parallelism)
    double expertRows; ///< tokens whose routed copies this GPU's experts take, balanced: s b with etp = tp
    double expertInputSplit; ///< divisor of the experts' saved inputs (sp with etp = tp; folded: whole rows, 1)
};

Shape shapeOf(const ModelSpec& model, const RunSpec& run, const model::LayerSharding& sharding)
{
    Shape shape;
    shape.s = localSequence(run, sharding);
    shape.b = run.mode == config::RunMode::Inference ? run.batch : run.microBatch;
    shape.h = static_cast<double>(model.hiddenSize);
    shape.e = config::bytesPerElement(run.precision.activations);
    shape.linearInput = shape.e;
    shape.tp = sharding.tensor;
    shape.sp = sharding.sequenceSplit ? sharding.tensor : 1;
    shape.expertLoad = run.parallelism.expertLoad();
    shape.etp = sharding.expertTensor;
    shape.expertRows = model::expertBlockTokens(sharding, shape.s * shape.b) / sharding.expert;
    shape.expertInputSplit = sharding.expertTensor == sharding.tensor ? shape.sp : 1;
    return shape;
}

void attentionTensors(const ModelSpec& model, const RunSpec& run, const Shape& x, const FrameworkProfile& profile,
    std::vector<SavedTensor>& out)
{
    const double tokens = x.s * x.b;
    double qDim = static_cast<double>(model.numHeads) * model.headDim;
    double kDim = static_cast<double>(model.numKvHeads) * model.headDim;
    double vDim = kDim;
    double oDim = qDim;
    if (model.mla) {
        // MLA keeps the per-head up-projected queries, keys and values for attention.
        qDim = static_cast<double>(model.numHeads) * (model.mla->qkNopeHeadDim + model.mla->qkRopeHeadDim);
        kDim = qDim;
        vDim = static_cast<double>(model.numHeads) * model.mla->vHeadDim;
        oDim = vDim;
    }
    out.push_back({ "attention norm input", tokens * x.h * x.e / x.sp });
    out.push_back({ "QKV projection input", tokens * x.h * x.linearInput / x.sp });
    out.push_back({ "Q and K", tokens * (qDim + kDim) * x.e / x.tp });
    out.push_back({ "V", tokens * vDim * x.e / x.tp });
    if (profile.rotaryKeyValueCopies && model.positionEmbedding == config::PositionEmbedding::Rope) {
        out.push_back({ "K and V after rotary embedding", tokens * (kDim + vDim) * x.e / x.tp });
    }
    const double heads = model.numHeads / x.tp;
    if (run.flashAttention) {
        // FlashAttention keeps its output (also the output projection's input) and the row-wise log-sum-exp.
        out.push_back({ "attention output (out-projection input)", tokens * oDim * x.e / x.tp });
        if (x.linearInput != x.e) {
            // The fused attention keeps its output for its own backward; the out-projection keeps its FP8 copy.
            out.push_back({ "out-projection input (FP8 copy)", tokens * oDim * x.linearInput / x.tp });
        }
        out.push_back({ "softmax statistics (fp32)", tokens * heads * 4 });
    } else {
        const bool keepScores = run.recompute == Recompute::None;
        if (keepScores) {
            const double scores = x.s * x.s * x.b * heads;
            out.push_back({ "softmax output", scores * x.e });
            if (run.dropout) {
                out.push_back({ "attention dropout mask", scores * 1 });
                out.push_back({ "attention dropout output", scores * x.e });
            }
        }
        out.push_back({ "out-projection input", tokens * oDim * x.linearInput / x.tp });
    }
    if (run.dropout) {
        out.push_back({ "attention residual dropout mask", tokens * x.h * 1 / x.sp });
    }
}

void mlpTensors(const ModelSpec& model, const RunSpec& run, const Shape& x, bool moeLayer,
    const FrameworkProfile& profile, std::vector<SavedTensor>& out)
{
    const double tokens = x.s * x.b;
    out.push_back({ "MLP norm input", tokens * x.h * x.e / x.sp });
    auto mlp = [&](const std::string& prefix, double routedTokens, double ffn, double inputSplit, double ffnSplit) {
        out.push_back({ prefix + "up-projection input", routedTokens * x.h * x.linearInput / inputSplit });
        if (model.ffnGated) {
            // Gate and up outputs feed the gated activation; its output is the down-projection input.
            out.push_back({ prefix + "gate and up outputs", routedTokens * 2 * ffn * x.e / ffnSplit });
            if (profile.gatedMlpSavedTensors > 3) {
                out.push_back({ prefix + "activated gate", routedTokens * ffn * x.e / ffnSplit });
            }
        } else {
            out.push_back({ prefix + "activation input", routedTokens * ffn * x.e / ffnSplit });
        }
        out.push_back({ prefix + "down-projection input", routedTokens * ffn * x.linearInput / ffnSplit });
    };
    if (moeLayer && model.moe) {
        const config::MoeSpec& moe = *model.moe;
        out.push_back({ "router logits (fp32)", tokens * moe.numExperts * 4 / x.sp });
        mlp("experts: ", x.expertRows * moe.topK * x.expertLoad, static_cast<double>(moe.expertFfnSize),
            x.expertInputSplit, x.etp);
        if (moe.sharedExperts > 0) {
            mlp("shared experts: ", tokens, static_cast<double>(moe.expertFfnSize) * moe.sharedExperts, x.sp, x.tp);
        }
    } else {
        mlp("", tokens, static_cast<double>(model.ffnSize), x.sp, x.tp);
    }
    if (run.dropout) {
        out.push_back({ "MLP residual dropout mask", tokens * x.h * 1 / x.sp });
    }
}

/// torchtitan's per-op SAC (model/opsacrecompute.cpp has the rule and its source): the checkpoint keeps the layer's
/// input and the outputs of the saved ops, the 1st, 3rd, ... linear in call order and the attention kernel (output and
/// fp32 log-sum-exp); everything else is rebuilt in the backward. Llama: wq, wv, w1 and w2 outputs. A column-parallel
/// linear's output is its tp shard; a row-parallel one's (wo, w2) is the full-width partial sum before the
/// reduce-scatter. MoE layers take the routed tokens for the expert linears. Compiled blocks drop what no backward
/// reads: a dense layer's w2 output only feeds the residual sum, whose gradient needs no input (a MoE layer's expert
/// outputs stay: the gradient of the routing weights reads them).
void opSacTensors(const ModelSpec& model, const Shape& x, bool moeLayer, const FrameworkProfile& profile,
    std::vector<SavedTensor>& out)
{
    const double tokens = x.s * x.b;
    const double d = static_cast<double>(model.headDim);
    const double qDim = model.numHeads * d;
    const double kvDim = model.numKvHeads * d;
    struct Linear {
        const char* name;
        double elements; ///< output elements per GPU
    };
    std::vector<Linear> linears = { { "wq output", tokens * qDim / x.tp }, { "wk output", tokens * kvDim / x.tp },
        { "wv output", tokens * kvDim / x.tp }, { "wo output (partial sum)", tokens * x.h } };
    double mlpTokens = tokens;
    double ffn = static_cast<double>(model.ffnSize);
    double ffnSplit = x.tp;
    if (moeLayer && model.moe) {
        mlpTokens = x.expertRows * model.moe->topK * x.expertLoad;
        ffn = static_cast<double>(model.moe->expertFfnSize);
        ffnSplit = x.etp;
    }
    if (model.ffnGated) {
        linears.push_back({ "w1 (gate) output", mlpTokens * ffn / ffnSplit });
    }
    linears.push_back({ "w3 (up) output", mlpTokens * ffn / ffnSplit });
    linears.push_back({ "w2 (down) output (partial sum)", mlpTokens * x.h });
    const bool backwardReadsDownOutput = moeLayer && model.moe;
    out.push_back({ "layer input (checkpoint)", tokens * x.h * x.e / x.sp });
    for (size_t i = 0; i < linears.size(); i += 2) {
        const bool downOutput = i + 1 == linears.size();
        if (downOutput && profile.savesOnlyWhatBackwardReads && !backwardReadsDownOutput) {
            continue;
        }
        out.push_back({ linears[i].name, linears[i].elements * x.e });
    }
    out.push_back({ "attention output", tokens * qDim * x.e / x.tp });
    out.push_back({ "softmax statistics (fp32)", tokens * model.numHeads / x.tp * 4 });
}

} // namespace

SavedActivations savedActivationsPerLayer(const ModelSpec& model, const RunSpec& run,
    const model::LayerSharding& sharding, bool moeLayer, const FrameworkProfile& profile)
{
    Shape x = shapeOf(model, run, sharding);
    if (profile.quantizedLinearInputBytes > 0) {
        x.linearInput = profile.quantizedLinearInputBytes;
    }
    SavedActivations saved;
    if (run.mode == config::RunMode::Training && run.recompute == Recompute::Full) {
        saved.tensors.push_back({ "layer input (checkpoint)", x.s * x.b * x.h * x.e / x.sp });
        return saved;
    }
    if (run.mode == config::RunMode::Training && run.recompute == Recompute::OpSac) {
        opSacTensors(model, x, moeLayer, profile, saved.tensors);
    } else {
        attentionTensors(model, run, x, profile, saved.tensors);
        mlpTensors(model, run, x, moeLayer, profile, saved.tensors);
    }
    if (run.mode == config::RunMode::Training && run.loraRank > 0) {
        saved.tensors.push_back({ "LoRA adapters (lora_B inputs, dropout masks)",
            model::loraSavedBytes(model::trainingForward(model, run, sharding, moeLayer), run, x.e) });
    }
    return saved;
}

double backwardTransientPerLayer(const ModelSpec& model, const RunSpec& run, const model::LayerSharding& sharding,
    bool moeLayer, const FrameworkProfile& profile)
{
    // The widest gradients of a layer's backward are those of the MLP intermediates (gate, up and their product)
    // and of its full-sequence input; under full recomputation the layer's activations are rebuilt first.
    const Shape x = shapeOf(model, run, sharding);
    const double tokens = x.s * x.b;
    // FFN-wide elements per GPU: routed rows over the expert-tensor split, shared experts' over the tensor split.
    const double ffnElements = moeLayer && model.moe ? static_cast<double>(model.moe->expertFfnSize)
            * (x.expertRows * model.moe->topK * x.expertLoad / x.etp + tokens * model.moe->sharedExperts / x.tp)
                                                     : tokens * static_cast<double>(model.ffnSize) / x.tp;
    double transient = ((model.ffnGated ? 3 : 2) * ffnElements + 2 * tokens * x.h) * x.e;
    if (run.mode == config::RunMode::Training
        && (run.recompute == Recompute::Full || run.recompute == Recompute::OpSac)) {
        RunSpec rebuilt = run;
        rebuilt.recompute = Recompute::Selective;
        const double all = savedActivationsPerLayer(model, rebuilt, sharding, moeLayer, profile).total();
        // Per-op SAC rebuilds what it did not keep.
        const double kept = run.recompute == Recompute::OpSac
            ? savedActivationsPerLayer(model, run, sharding, moeLayer, profile).total()
            : 0.0;
        transient += std::max(0.0, all - kept);
    }
    return transient;
}

} // namespace rapid::memory
