// SPDX-License-Identifier: GPL-3.0-or-later
#include "modelstats.h"

namespace rapid::model {

using config::ModelSpec;
using config::NormKind;

namespace {

std::int64_t normParameters(const ModelSpec& model, std::int64_t width)
{
    return model.norm == NormKind::LayerNorm ? 2 * width : width;
}

std::int64_t attentionParameters(const ModelSpec& model)
{
    const std::int64_t h = model.hiddenSize;
    if (model.mla) {
        const config::MlaSpec& mla = *model.mla;
        const std::int64_t qkHead = mla.qkNopeHeadDim + mla.qkRopeHeadDim;
        std::int64_t params = 0;
        if (mla.qLoraRank > 0) {
            params += h * mla.qLoraRank + mla.qLoraRank; // down-projection and its RMSNorm
            params += std::int64_t(mla.qLoraRank) * model.numHeads * qkHead;
        } else {
            params += h * model.numHeads * qkHead;
        }
        params += h * (mla.kvLoraRank + mla.qkRopeHeadDim) + mla.kvLoraRank; // compressed KV + shared rope key, norm
        params += std::int64_t(mla.kvLoraRank) * model.numHeads * (mla.qkNopeHeadDim + mla.vHeadDim);
        params += std::int64_t(model.numHeads) * mla.vHeadDim * h;
        return params;
    }
    const std::int64_t q = std::int64_t(model.numHeads) * model.headDim;
    const std::int64_t kv = std::int64_t(model.numKvHeads) * model.headDim;
    std::int64_t params = h * (q + 2 * kv) + q * h;
    if (model.linearBias) {
        params += q + 2 * kv + h;
    } else if (model.qkvBias) {
        params += q + 2 * kv;
    }
    return params;
}

std::int64_t mlpParameters(const ModelSpec& model, std::int64_t ffn)
{
    const std::int64_t h = model.hiddenSize;
    std::int64_t params = (model.ffnGated ? 3 : 2) * h * ffn;
    if (model.linearBias) {
        params += (model.ffnGated ? 2 * ffn : ffn) + h;
    }
    return params;
}

} // namespace

std::int64_t expertParameters(const ModelSpec& model)
{
    return model.moe ? mlpParameters(model, model.moe->expertFfnSize) : 0;
}

std::int64_t routerParameters(const ModelSpec& model)
{
    if (!model.moe) {
        return 0;
    }
    const std::int64_t experts = model.moe->numExperts;
    return model.hiddenSize * experts + (model.linearBias ? experts : 0);
}

std::int64_t ParameterCounts::activePerToken() const
{
    return denseLayers * denseLayer.active() + moeLayers * moeLayer.active() + embedding + positional + lmHead
        + finalNorm;
}

ParameterCounts countParameters(const ModelSpec& model)
{
    ParameterCounts counts;
    const std::int64_t h = model.hiddenSize;
    LayerParameters dense;
    dense.attention = attentionParameters(model);
    dense.mlp = mlpParameters(model, model.ffnSize);
    dense.mlpActive = dense.mlp;
    dense.norms = 2 * normParameters(model, h);
    counts.denseLayer = dense;
    if (model.moe) {
        const config::MoeSpec& moe = *model.moe;
        const std::int64_t expert = expertParameters(model);
        const std::int64_t router = routerParameters(model);
        LayerParameters layer = dense;
        layer.mlp = expert * (moe.numExperts + moe.sharedExperts) + router;
        layer.mlpActive = expert * (moe.topK + moe.sharedExperts) + router;
        counts.moeLayer = layer;
        counts.denseLayers = moe.denseLayers;
        counts.moeLayers = model.numLayers - moe.denseLayers;
    } else {
        counts.denseLayers = model.numLayers;
    }
    counts.embedding = model.vocabSize * h;
    counts.positional = model.positionEmbedding == config::PositionEmbedding::Learned ? model.maxContext * h : 0;
    counts.lmHead = model.tiedEmbeddings ? 0 : model.vocabSize * h;
    counts.finalNorm = normParameters(model, h);
    return counts;
}

double forwardFlopsPerToken(const ModelSpec& model, double contextLength)
{
    const ParameterCounts counts = countParameters(model);
    // Every weight of a projection the token passes through costs one multiply-add. Norm weights and biases are
    // element-wise, and the embedding is a lookup, so neither is a GEMM. The LM head is a GEMM even when tied.
    auto gemmWeights
        = [&](const LayerParameters& layer) { return static_cast<double>(layer.attention + layer.mlpActive); };
    double flops = 2.0
        * (counts.denseLayers * gemmWeights(counts.denseLayer) + counts.moeLayers * gemmWeights(counts.moeLayer)
            + static_cast<double>(model.vocabSize * model.hiddenSize));
    // Scores (q.k over the context) and weighted values, per head.
    double qkDim = model.headDim;
    double vDim = model.headDim;
    if (model.mla) {
        qkDim = model.mla->qkNopeHeadDim + model.mla->qkRopeHeadDim;
        vDim = model.mla->vHeadDim;
    }
    flops += 2.0 * model.numLayers * model.numHeads * model.attendedContext(contextLength) * (qkDim + vDim);
    return flops;
}

double kvCacheBytesPerToken(const ModelSpec& model, config::Precision precision)
{
    const double bytes = config::bytesPerElement(precision);
    if (model.mla) {
        return model.numLayers * (model.mla->kvLoraRank + model.mla->qkRopeHeadDim) * bytes;
    }
    return model.numLayers * 2.0 * model.numKvHeads * model.headDim * bytes;
}

} // namespace rapid::model
