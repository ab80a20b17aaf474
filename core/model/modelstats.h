// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"
#include "config/modelspec.h"

#include <cstdint>

namespace rapid::model {

/// Parameters of one transformer block, by part.
struct LayerParameters {
    std::int64_t attention = 0; ///< projections (and MLA down/up projections with their norms), with biases
    std::int64_t mlp = 0; ///< dense MLP, or all experts + shared experts + router of an MoE block
    std::int64_t mlpActive = 0; ///< the MLP parameters one token uses (top-k + shared experts + router)
    std::int64_t norms = 0; ///< the two pre-norms
    std::int64_t total() const { return attention + mlp + norms; }
    std::int64_t active() const { return attention + mlpActive + norms; }
    bool operator==(const LayerParameters&) const = default;
};

/// Parameter counts of a model, computed from its shape alone.
struct ParameterCounts {
    LayerParameters denseLayer; ///< a block with the dense MLP
    LayerParameters moeLayer; ///< a block with the MoE MLP (zero for dense models)
    int denseLayers = 0;
    int moeLayers = 0;
    std::int64_t embedding = 0; ///< input token embedding
    std::int64_t positional = 0; ///< learned position table
    std::int64_t lmHead = 0; ///< output projection; 0 when tied to the embedding
    std::int64_t finalNorm = 0;

    std::int64_t layers() const { return denseLayers * denseLayer.total() + moeLayers * moeLayer.total(); }
    std::int64_t total() const { return layers() + embedding + positional + lmHead + finalNorm; }
    /// Parameters a token touches: all but the routed experts it does not visit (embeddings included).
    std::int64_t activePerToken() const;
    bool operator==(const ParameterCounts&) const = default;
};

ParameterCounts countParameters(const config::ModelSpec& model);
/// One routed (or shared) expert of an MoE model: its MLP's weights, with biases where the model has them (0 for a
/// dense model).
std::int64_t expertParameters(const config::ModelSpec& model);
/// An MoE layer's router: hidden x experts, and a bias per expert where the model has linear biases (gpt-oss).
std::int64_t routerParameters(const config::ModelSpec& model);

/// Forward FLOPs for one token at position @p contextLength (2 per multiply-add): every GEMM the token passes
/// through (active experts only, the LM head included) plus attention scores and weighted values against
/// @p contextLength keys (in sliding-window layers at most the window: ModelSpec::attendedContext). Training over a
/// sequence of S tokens averages to context S/2 with a causal mask.
double forwardFlopsPerToken(const config::ModelSpec& model, double contextLength);

/// Bytes one token adds to the KV cache of the whole model (all layers): 2 * kv_heads * head_dim per layer for
/// standard attention, kv_lora_rank + qk_rope_head_dim per layer for MLA's latent cache.
double kvCacheBytesPerToken(const config::ModelSpec& model, config::Precision precision);

} // namespace rapid::model
