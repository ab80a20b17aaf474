// SPDX-License-Identifier: GPL-3.0-or-later
#include "documentreaders_p.h"
#include "yamlnode_p.h"

namespace rapid::config {

const char* toString(Activation value)
{
    switch (value) {
    case Activation::Gelu:
        return "gelu";
    case Activation::Silu:
        return "silu";
    case Activation::Relu:
        return "relu";
    case Activation::SquaredRelu:
        return "squared_relu";
    }
    return "?";
}

const char* toString(NormKind value)
{
    return value == NormKind::LayerNorm ? "layernorm" : "rmsnorm";
}

const char* toString(PositionEmbedding value)
{
    switch (value) {
    case PositionEmbedding::Rope:
        return "rope";
    case PositionEmbedding::Learned:
        return "learned";
    case PositionEmbedding::Alibi:
        return "alibi";
    case PositionEmbedding::None:
        return "none";
    }
    return "?";
}

namespace detail {

namespace {
constexpr std::int64_t kMaxDimension = std::int64_t(1) << 40;

void readMoe(ReadContext& context, MapReader& reader, ModelSpec& model)
{
    MapReader moe = reader.map("moe", false);
    if (!moe.valid()) {
        return;
    }
    MoeSpec spec;
    spec.numExperts = static_cast<int>(moe.integer("num_experts", std::nullopt, 1, 1 << 20));
    spec.topK = static_cast<int>(moe.integer("top_k", std::nullopt, 1, 1 << 20));
    spec.sharedExperts = static_cast<int>(moe.integer("shared_experts", 0, 0, 1 << 20));
    spec.expertFfnSize = moe.integer("expert_ffn_size", std::nullopt, 1, kMaxDimension);
    spec.denseLayers = static_cast<int>(moe.integer("dense_layers", 0, 0, 1 << 20));
    moe.finish();
    if (spec.topK > spec.numExperts) {
        context.error(moe.childPath("top_k"), moe.raw("top_k"),
            "top_k (" + std::to_string(spec.topK) + ") cannot exceed num_experts (" + std::to_string(spec.numExperts)
                + ")");
    }
    if (model.numLayers > 0 && spec.denseLayers >= model.numLayers) {
        context.error(moe.childPath("dense_layers"), moe.raw("dense_layers"),
            "dense_layers must be less than num_layers (" + std::to_string(model.numLayers) + ")");
    }
    model.moe = spec;
}

void readMla(MapReader& reader, ModelSpec& model)
{
    MapReader mla = reader.map("mla", false);
    if (!mla.valid()) {
        return;
    }
    MlaSpec spec;
    spec.qLoraRank = static_cast<int>(mla.integer("q_lora_rank", 0, 0, 1 << 20));
    spec.kvLoraRank = static_cast<int>(mla.integer("kv_lora_rank", std::nullopt, 1, 1 << 20));
    spec.qkRopeHeadDim = static_cast<int>(mla.integer("qk_rope_head_dim", std::nullopt, 1, 1 << 16));
    spec.qkNopeHeadDim = static_cast<int>(mla.integer("qk_nope_head_dim", std::nullopt, 1, 1 << 16));
    spec.vHeadDim = static_cast<int>(mla.integer("v_head_dim", std::nullopt, 1, 1 << 16));
    mla.finish();
    model.mla = spec;
}
} // namespace

ModelSpec readModel(ReadContext& context, const YAML::Node& node, const std::string& path)
{
    ModelSpec model;
    MapReader reader(context, node, path);
    if (!reader.valid()) {
        if (!node.IsDefined() || isNullNode(node)) {
            context.error(
                path, node, "the model document is empty; expected a mapping with num_layers, hidden_size, ...");
        }
        return model;
    }
    model.name = reader.text("name", std::nullopt);
    model.numLayers = static_cast<int>(reader.integer("num_layers", std::nullopt, 1, 1 << 20));
    model.hiddenSize = reader.integer("hidden_size", std::nullopt, 1, kMaxDimension);
    model.numHeads = static_cast<int>(reader.integer("num_heads", std::nullopt, 1, 1 << 20));
    model.numKvHeads = static_cast<int>(reader.integer("num_kv_heads", model.numHeads, 1, 1 << 20));
    const bool headDimGiven = reader.has("head_dim");
    const std::int64_t defaultHeadDim = model.numHeads > 0 ? model.hiddenSize / model.numHeads : 0;
    model.headDim = static_cast<int>(reader.integer("head_dim", defaultHeadDim, 1, 1 << 20));
    model.ffnSize = reader.integer("ffn_size", std::nullopt, 1, kMaxDimension);
    model.ffnGated = reader.boolean("ffn_gated", std::nullopt);
    model.activation = reader.choice<Activation>("activation",
        { { "gelu", Activation::Gelu }, { "silu", Activation::Silu }, { "relu", Activation::Relu },
            { "squared_relu", Activation::SquaredRelu } },
        std::nullopt);
    model.norm = reader.choice<NormKind>(
        "norm", { { "layernorm", NormKind::LayerNorm }, { "rmsnorm", NormKind::RmsNorm } }, std::nullopt);
    model.linearBias = reader.boolean("linear_bias", false);
    model.qkvBias = reader.boolean("qkv_bias", false);
    model.vocabSize = reader.integer("vocab_size", std::nullopt, 1, kMaxDimension);
    model.tiedEmbeddings = reader.boolean("tied_embeddings", std::nullopt);
    model.positionEmbedding = reader.choice<PositionEmbedding>("position_embedding",
        { { "rope", PositionEmbedding::Rope }, { "learned", PositionEmbedding::Learned },
            { "alibi", PositionEmbedding::Alibi }, { "none", PositionEmbedding::None } },
        std::nullopt);
    model.maxContext = reader.integer("max_context", std::nullopt, 1, kMaxDimension);
    readMoe(context, reader, model);
    readMla(reader, model);
    reader.finish();

    if (model.numHeads > 0 && model.numKvHeads > 0 && model.numHeads % model.numKvHeads != 0) {
        context.error(reader.childPath("num_kv_heads"), reader.raw("num_kv_heads"),
            "num_kv_heads (" + std::to_string(model.numKvHeads) + ") must divide num_heads ("
                + std::to_string(model.numHeads) + ")");
    }
    if (!headDimGiven && model.numHeads > 0 && model.hiddenSize % model.numHeads != 0) {
        context.error(reader.childPath("hidden_size"), reader.raw("hidden_size"),
            "hidden_size (" + std::to_string(model.hiddenSize) + ") is not a multiple of num_heads ("
                + std::to_string(model.numHeads) + "); give head_dim explicitly");
    }
    return model;
}

} // namespace detail
} // namespace rapid::config
