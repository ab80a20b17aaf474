// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rapid::config {

enum class Activation { Gelu, Silu, Relu, SquaredRelu };
enum class NormKind { LayerNorm, RmsNorm };
enum class PositionEmbedding { Rope, Learned, Alibi, None };

/// Mixture-of-experts layers (Mixtral, DeepSeek). Absent for dense models.
struct MoeSpec {
    int numExperts = 0; ///< routed experts per MoE layer
    int topK = 0; ///< routed experts each token visits
    int sharedExperts = 0; ///< always-active experts (DeepSeek)
    std::int64_t expertFfnSize = 0; ///< intermediate size of one expert
    int denseLayers = 0; ///< the first denseLayers layers use the dense FFN (ffnSize) instead
    /// Group-limited routing (DeepSeek-V3: n_group 8, topk_group 4): the experts form expertGroups equal groups and a
    /// token's topK experts come from at most groupsPerToken of them. expertGroups == groupsPerToken: no limit.
    int expertGroups = 1;
    int groupsPerToken = 1;

    bool operator==(const MoeSpec&) const = default;
};

/// Multi-head latent attention (DeepSeek-V2/V3). Absent for standard attention.
struct MlaSpec {
    int qLoraRank = 0; ///< 0 = queries projected directly from the hidden state
    int kvLoraRank = 0; ///< width of the compressed KV latent that the cache stores
    int qkRopeHeadDim = 0; ///< decoupled rotary part of each query/key head (shared key across heads)
    int qkNopeHeadDim = 0; ///< non-rotary part of each query/key head
    int vHeadDim = 0;

    bool operator==(const MlaSpec&) const = default;
};

/// Architecture of a decoder-only transformer: shape only, nothing about batch, hardware or parallelism.
struct ModelSpec {
    std::string name;
    /// The Hugging Face architecture (config.json `architectures[0]`, e.g. LlamaForCausalLM): which modeling code a
    /// serving engine runs for it, where an engine's fused kernels differ by model (TensorRT-LLM's all-reduce
    /// fusion, core/serving). Empty: unknown, no model-specific fusion.
    std::string architecture;
    int numLayers = 0;
    std::int64_t hiddenSize = 0;
    int numHeads = 0;
    int numKvHeads = 0; ///< = numHeads for MHA, fewer for GQA, 1 for MQA
    int headDim = 0; ///< usually hiddenSize / numHeads
    std::int64_t ffnSize = 0; ///< intermediate size of the dense MLP
    bool ffnGated = false; ///< SwiGLU/GeGLU: gate and up projections (3 matrices instead of 2)
    Activation activation = Activation::Gelu;
    NormKind norm = NormKind::LayerNorm;
    bool linearBias = false; ///< biases on QKV/output/MLP projections (GPT-2/3, OPT)
    bool qkvBias = false; ///< bias on QKV only (Qwen2)
    std::int64_t vocabSize = 0;
    bool tiedEmbeddings = false;
    PositionEmbedding positionEmbedding = PositionEmbedding::Rope;
    std::int64_t maxContext = 0;
    /// Sliding-window attention (Mistral 7B v0.1, Gemma 2/3, gpt-oss): a query attends to itself and the
    /// slidingWindow - 1 keys before it; 0 = full causal attention in every layer.
    std::int64_t slidingWindow = 0;
    /// With a window: layers fullAttentionEvery, 2 x fullAttentionEvery, ... (1-based) keep full attention (Gemma 2
    /// and gpt-oss: 2, Gemma 3: 6); 0 = every layer is windowed.
    int fullAttentionEvery = 0;
    std::optional<MoeSpec> moe;
    std::optional<MlaSpec> mla;

    /// The layers that attend through the window (0 without one): all but every fullAttentionEvery-th.
    int windowedLayerCount() const
    {
        if (slidingWindow <= 0 || numLayers <= 0) {
            return 0;
        }
        return numLayers - (fullAttentionEvery > 0 ? numLayers / fullAttentionEvery : 0);
    }
    /// The share of the layers that attend through the window (0 without one).
    double windowedLayerShare() const
    {
        return numLayers > 0 ? static_cast<double>(windowedLayerCount()) / numLayers : 0.0;
    }
    /// Keys a token at @p context tokens of context attends to (or its KV cache holds), averaged over the layers:
    /// min(context, window) in windowed layers, the whole context in the others.
    double attendedContext(double context) const
    {
        const double share = windowedLayerShare();
        if (share <= 0) {
            return context;
        }
        const double window = static_cast<double>(slidingWindow);
        return share * (context < window ? context : window) + (1 - share) * context;
    }

    /// Parameters of the two norms (before attention and before the MLP) of @p layers layers: a weight per hidden
    /// element, and a bias too for LayerNorm. Quantised checkpoints and FP8 all-gathers keep them in 16 bits.
    double layerNormParameters(int layers) const
    {
        const double perNorm = (norm == NormKind::LayerNorm ? 2.0 : 1.0) * static_cast<double>(hiddenSize);
        return 2 * perNorm * layers;
    }

    bool operator==(const ModelSpec&) const = default;
};

const char* toString(Activation value);
const char* toString(NormKind value);
const char* toString(PositionEmbedding value);

} // namespace rapid::config
