// SPDX-License-Identifier: GPL-3.0-or-later
#include "documentreaders_p.h"
#include "yamlnode_p.h"

#include <algorithm>
#include <cstdio>

namespace rapid::config {

const char* toString(Activation value)
{
    return detail::enumWord(value);
}

const char* toString(NormKind value)
{
    return detail::enumWord(value);
}

const char* toString(PositionEmbedding value)
{
    return detail::enumWord(value);
}

namespace detail {

namespace {

void readMoe(ReadContext& context, MapReader& reader, ModelSpec& model)
{
    MapReader moe = reader.map("moe");
    if (!moe.valid()) {
        return;
    }
    MoeSpec spec;
    spec.numExperts = static_cast<int>(moe.integer("num_experts"));
    spec.topK = static_cast<int>(moe.integer("top_k"));
    spec.sharedExperts = static_cast<int>(moe.integer("shared_experts"));
    spec.expertFfnSize = moe.integer("expert_ffn_size");
    spec.denseLayers = static_cast<int>(moe.integer("dense_layers"));
    spec.expertGroups = static_cast<int>(moe.integer("expert_groups"));
    spec.groupsPerToken = static_cast<int>(moe.integer("groups_per_token", spec.expertGroups));
    moe.finish();
    if (spec.numExperts % spec.expertGroups != 0) {
        context.error(moe.childPath("expert_groups"), moe.raw("expert_groups"),
            "expert_groups (" + std::to_string(spec.expertGroups) + ") must divide num_experts ("
                + std::to_string(spec.numExperts) + ")");
    } else if (spec.groupsPerToken > spec.expertGroups) {
        context.error(moe.childPath("groups_per_token"), moe.raw("groups_per_token"),
            "groups_per_token (" + std::to_string(spec.groupsPerToken) + ") cannot exceed expert_groups ("
                + std::to_string(spec.expertGroups) + ")");
    } else if (spec.topK > spec.groupsPerToken * (spec.numExperts / spec.expertGroups)) {
        context.error(moe.childPath("groups_per_token"), moe.raw("groups_per_token"),
            "top_k (" + std::to_string(spec.topK) + ") experts do not fit in " + std::to_string(spec.groupsPerToken)
                + " groups of " + std::to_string(spec.numExperts / spec.expertGroups) + " experts");
    }
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
    MapReader mla = reader.map("mla");
    if (!mla.valid()) {
        return;
    }
    MlaSpec spec;
    spec.qLoraRank = static_cast<int>(mla.integer("q_lora_rank"));
    spec.kvLoraRank = static_cast<int>(mla.integer("kv_lora_rank"));
    spec.qkRopeHeadDim = static_cast<int>(mla.integer("qk_rope_head_dim"));
    spec.qkNopeHeadDim = static_cast<int>(mla.integer("qk_nope_head_dim"));
    spec.vHeadDim = static_cast<int>(mla.integer("v_head_dim"));
    mla.finish();
    model.mla = spec;
}
/// An upper estimate of the model's parameters in floating point (every projection, all experts, both embeddings):
/// enough to refuse shapes whose counts would not fit the 64-bit integers the parameter and memory models use.
double roughParameterCount(const ModelSpec& model)
{
    const double h = static_cast<double>(model.hiddenSize);
    const double heads = static_cast<double>(model.numHeads) + model.numKvHeads;
    double headDim = model.headDim;
    if (model.mla) {
        const MlaSpec& mla = *model.mla;
        headDim = std::max({ headDim, static_cast<double>(mla.qkNopeHeadDim) + mla.qkRopeHeadDim,
            static_cast<double>(mla.vHeadDim), static_cast<double>(mla.kvLoraRank) + mla.qLoraRank });
    }
    const double attention = 2 * h * heads * headDim;
    double mlp = 3 * h * static_cast<double>(model.ffnSize);
    if (model.moe) {
        mlp = std::max(mlp,
            3 * h * static_cast<double>(model.moe->expertFfnSize) * (model.moe->numExperts + model.moe->sharedExperts));
    }
    const double embeddings = 2 * h * static_cast<double>(model.vocabSize) + h * static_cast<double>(model.maxContext);
    return static_cast<double>(model.numLayers) * (attention + mlp + 4 * h) + embeddings;
}

} // namespace

ModelSpec readModel(ReadContext& context, const YAML::Node& node, const std::string& path)
{
    ModelSpec model;
    MapReader reader(context, node, path, SchemaScope { schema::Document::Model, "" });
    if (!reader.valid()) {
        if (!node.IsDefined() || isNullNode(node)) {
            context.error(
                path, node, "the model document is empty; expected a mapping with num_layers, hidden_size, ...");
        }
        return model;
    }
    model.name = reader.text("name");
    model.architecture = reader.text("architecture");
    model.numLayers = static_cast<int>(reader.integer("num_layers"));
    model.hiddenSize = reader.integer("hidden_size");
    model.numHeads = static_cast<int>(reader.integer("num_heads"));
    model.numKvHeads = static_cast<int>(reader.integer("num_kv_heads", model.numHeads));
    const bool headDimGiven = reader.has("head_dim");
    const std::int64_t defaultHeadDim = model.numHeads > 0 ? model.hiddenSize / model.numHeads : 0;
    model.headDim = static_cast<int>(reader.integer("head_dim", defaultHeadDim));
    model.ffnSize = reader.integer("ffn_size");
    model.ffnGated = reader.boolean("ffn_gated");
    model.activation = reader.choice<Activation>("activation");
    model.norm = reader.choice<NormKind>("norm");
    model.linearBias = reader.boolean("linear_bias");
    model.qkvBias = reader.boolean("qkv_bias");
    model.vocabSize = reader.integer("vocab_size");
    model.tiedEmbeddings = reader.boolean("tied_embeddings");
    model.positionEmbedding = reader.choice<PositionEmbedding>("position_embedding");
    model.maxContext = reader.integer("max_context");
    model.slidingWindow = reader.integer("sliding_window");
    model.fullAttentionEvery = static_cast<int>(reader.integer("full_attention_every"));
    if (model.fullAttentionEvery > 0 && model.slidingWindow == 0) {
        context.error(reader.childPath("full_attention_every"), reader.raw("full_attention_every"),
            "full_attention_every chooses the full-attention layers among windowed ones; expected a sliding_window "
            "as well, or full_attention_every: 0");
    } else if (model.numLayers > 0 && model.fullAttentionEvery > model.numLayers) {
        context.error(reader.childPath("full_attention_every"), reader.raw("full_attention_every"),
            "full_attention_every (" + std::to_string(model.fullAttentionEvery) + ") exceeds num_layers ("
                + std::to_string(model.numLayers) + "); no layer would keep full attention");
    }
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
    // The largest published models have about 2 x 10^12 parameters; 10^15 keeps bytes of every per-GPU count (x 16
    // for weights, gradients and Adam states) far inside 64 bits.
    constexpr double kMaxParameters = 1e15;
    if (const double parameters = roughParameterCount(model); parameters > kMaxParameters) {
        char text[32];
        std::snprintf(text, sizeof text, "%.3g", parameters);
        context.error(reader.childPath("hidden_size"), reader.raw("hidden_size"),
            std::string("the model's shape gives about ") + text
                + " parameters; at most 10^15 are modelled (lower hidden_size, ffn_size, num_layers or num_experts)");
    }
    return model;
}

} // namespace detail
} // namespace rapid::config
