// SPDX-License-Identifier: GPL-3.0-or-later
#include "hfimport.h"
#include "yamlnode_p.h"

#include "config/diagnostic.h"
#include "config/yamledit.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace rapid::config {

using config::detail::isMapNode;
using config::detail::isNullNode;
using config::detail::isScalarNode;

using config::ConfigError;
using config::DiagnosticSink;
using config::SourceLocation;

namespace {

class JsonFields {
public:
    JsonFields(const YAML::Node& root, std::string path, DiagnosticSink& sink)
        : m_root(root)
        , m_path(std::move(path))
        , m_sink(sink)
    {
    }

    bool has(const std::string& key) const { return m_root[key].IsDefined() && !isNullNode(m_root[key]); }

    std::optional<std::int64_t> integer(const std::string& key, std::optional<std::int64_t> fallback)
    {
        if (!has(key)) {
            if (!fallback) {
                m_sink.add(where(m_root), key, "required field \"" + key + "\" is missing from the config");
            }
            return fallback;
        }
        const YAML::Node node = m_root[key];
        try {
            const std::int64_t value = node.as<std::int64_t>();
            if (value < 0) {
                throw YAML::Exception(node.Mark(), "negative");
            }
            return value;
        } catch (const YAML::Exception&) {
            m_sink.add(where(node), key, "expected a non-negative whole number, got \"" + scalar(node) + "\"");
            return fallback;
        }
    }

    std::string text(const std::string& key, const std::string& fallback) const
    {
        return has(key) && isScalarNode(m_root[key]) ? m_root[key].Scalar() : fallback;
    }

    bool boolean(const std::string& key, bool fallback)
    {
        if (!has(key)) {
            return fallback;
        }
        const std::string value = scalar(m_root[key]);
        if (value == "true" || value == "false") {
            return value == "true";
        }
        m_sink.add(where(m_root[key]), key, "expected true or false, got \"" + value + "\"");
        return fallback;
    }

    SourceLocation where(const YAML::Node& node) const
    {
        if (!node.IsDefined() || node.Mark().is_null()) {
            return { m_path, 0, 0 };
        }
        return { m_path, node.Mark().line + 1, node.Mark().column + 1 };
    }

private:
    static std::string scalar(const YAML::Node& node) { return isScalarNode(node) ? node.Scalar() : "(not a value)"; }

    YAML::Node m_root;
    std::string m_path;
    DiagnosticSink& m_sink;
};

int asInt(std::optional<std::int64_t> value)
{
    return static_cast<int>(value.value_or(0));
}

} // namespace

config::ModelSpec importHuggingFaceConfig(const std::string& path)
{
    DiagnosticSink sink;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        sink.add({ path, 0, 0 }, {}, "cannot read the file");
        sink.throwIfAny();
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    YAML::Node root;
    try {
        root = YAML::Load(buffer.str());
    } catch (const YAML::Exception& error) {
        sink.add({ path, error.mark.line + 1, error.mark.column + 1 }, {}, "malformed JSON: " + error.msg);
        sink.throwIfAny();
    }
    if (!isMapNode(root)) {
        sink.add({ path, 1, 1 }, {}, "expected a JSON object (a Hugging Face config.json)");
        sink.throwIfAny();
    }
    JsonFields json(root, path, sink);
    const std::string modelType = json.text("model_type", "");
    const bool deepseek = modelType == "deepseek_v3" || modelType == "deepseek_v2";
    const bool mixtral = modelType == "mixtral";
    const bool known = modelType == "llama" || modelType == "mistral" || modelType == "qwen2" || mixtral || deepseek;
    if (!known) {
        sink.add(json.where(root["model_type"]), "model_type",
            "unsupported model_type \"" + modelType
                + "\"; supported: llama, mistral, qwen2, mixtral, deepseek_v3 (deepseek_v2)");
        sink.throwIfAny();
    }

    config::ModelSpec model;
    const std::string stem = std::filesystem::path(path).parent_path().filename().string();
    model.name = json.text("_name_or_path", stem.empty() ? modelType : stem);
    if (const YAML::Node architectures = root["architectures"];
        architectures.IsSequence() && architectures.size() > 0 && architectures[0].IsScalar()) {
        model.architecture = architectures[0].Scalar();
    }
    model.numLayers = asInt(json.integer("num_hidden_layers", std::nullopt));
    model.hiddenSize = json.integer("hidden_size", std::nullopt).value_or(0);
    model.numHeads = asInt(json.integer("num_attention_heads", std::nullopt));
    model.numKvHeads = asInt(json.integer("num_key_value_heads", model.numHeads));
    model.headDim = asInt(json.integer("head_dim", model.numHeads > 0 ? model.hiddenSize / model.numHeads : 0));
    model.ffnSize = json.integer("intermediate_size", std::nullopt).value_or(0);
    model.ffnGated = true;
    const std::string act = json.text("hidden_act", "silu");
    if (act == "silu" || act == "swish") {
        model.activation = config::Activation::Silu;
    } else if (act.rfind("gelu", 0) == 0) {
        model.activation = config::Activation::Gelu;
    } else if (act == "relu") {
        model.activation = config::Activation::Relu;
    } else {
        sink.add(json.where(root["hidden_act"]), "hidden_act",
            "unsupported activation \"" + act + "\"; expected silu, gelu or relu");
    }
    model.norm = config::NormKind::RmsNorm;
    model.qkvBias = modelType == "qwen2" || json.boolean("attention_bias", false);
    model.vocabSize = json.integer("vocab_size", std::nullopt).value_or(0);
    model.tiedEmbeddings = json.boolean("tie_word_embeddings", false);
    model.positionEmbedding = config::PositionEmbedding::Rope;
    model.maxContext = json.integer("max_position_embeddings", std::nullopt).value_or(0);
    // Mistral and Mixtral configs give sliding_window (4096 in Mistral 7B v0.1, null from v0.2); Qwen2's applies only
    // with use_sliding_window and to some layers (max_window_layers) and is not read.
    if ((modelType == "mistral" || mixtral) && json.has("sliding_window")) {
        model.slidingWindow = json.integer("sliding_window", std::nullopt).value_or(0);
    }
    if (mixtral) {
        config::MoeSpec moe;
        moe.numExperts = asInt(json.integer("num_local_experts", std::nullopt));
        moe.topK = asInt(json.integer("num_experts_per_tok", std::nullopt));
        moe.expertFfnSize = model.ffnSize;
        model.moe = moe;
    }
    if (deepseek) {
        config::MoeSpec moe;
        moe.numExperts = asInt(json.integer("n_routed_experts", std::nullopt));
        moe.topK = asInt(json.integer("num_experts_per_tok", std::nullopt));
        moe.sharedExperts = asInt(json.integer("n_shared_experts", 0));
        moe.expertFfnSize = json.integer("moe_intermediate_size", std::nullopt).value_or(0);
        moe.denseLayers = asInt(json.integer("first_k_dense_replace", 0));
        // Group-limited routing (DeepSeek-V2 "group_limited_greedy", V3 "noaux_tc"); "greedy" routes over all experts.
        if (json.text("topk_method", "greedy") != "greedy") {
            moe.expertGroups = asInt(json.integer("n_group", 1));
            moe.groupsPerToken = asInt(json.integer("topk_group", moe.expertGroups));
        }
        model.moe = moe;
        config::MlaSpec mla;
        mla.qLoraRank = asInt(json.integer("q_lora_rank", 0));
        mla.kvLoraRank = asInt(json.integer("kv_lora_rank", std::nullopt));
        mla.qkRopeHeadDim = asInt(json.integer("qk_rope_head_dim", std::nullopt));
        mla.qkNopeHeadDim = asInt(json.integer("qk_nope_head_dim", std::nullopt));
        mla.vHeadDim = asInt(json.integer("v_head_dim", std::nullopt));
        model.mla = mla;
        model.headDim = mla.qkNopeHeadDim + mla.qkRopeHeadDim;
    }
    sink.throwIfAny();
    return model;
}

std::string modelToYaml(const config::ModelSpec& model, const std::string& sourceComment)
{
    std::ostringstream out;
    out << "# SPDX-License-Identifier: GPL-3.0-or-later\n";
    if (!sourceComment.empty()) {
        out << "# Source: " << sourceComment << "\n";
    }
    out << "model:\n";
    out << "  name: " << config::yamlQuoted(model.name) << "\n";
    if (!model.architecture.empty()) {
        out << "  architecture: " << config::yamlQuoted(model.architecture) << "\n";
    }
    out << "  num_layers: " << model.numLayers << "\n";
    out << "  hidden_size: " << model.hiddenSize << "\n";
    out << "  num_heads: " << model.numHeads << "\n";
    out << "  num_kv_heads: " << model.numKvHeads << "\n";
    out << "  head_dim: " << model.headDim << "\n";
    out << "  ffn_size: " << model.ffnSize << "\n";
    out << "  ffn_gated: " << (model.ffnGated ? "true" : "false") << "\n";
    out << "  activation: " << config::toString(model.activation) << "\n";
    out << "  norm: " << config::toString(model.norm) << "\n";
    out << "  linear_bias: " << (model.linearBias ? "true" : "false") << "\n";
    out << "  qkv_bias: " << (model.qkvBias ? "true" : "false") << "\n";
    out << "  vocab_size: " << model.vocabSize << "\n";
    out << "  tied_embeddings: " << (model.tiedEmbeddings ? "true" : "false") << "\n";
    out << "  position_embedding: " << config::toString(model.positionEmbedding) << "\n";
    out << "  max_context: " << model.maxContext << "\n";
    if (model.slidingWindow > 0) {
        out << "  sliding_window: " << model.slidingWindow << "\n";
        out << "  full_attention_every: " << model.fullAttentionEvery << "\n";
    }
    if (model.moe) {
        out << "  moe:\n";
        out << "    num_experts: " << model.moe->numExperts << "\n";
        out << "    top_k: " << model.moe->topK << "\n";
        out << "    shared_experts: " << model.moe->sharedExperts << "\n";
        out << "    expert_ffn_size: " << model.moe->expertFfnSize << "\n";
        out << "    dense_layers: " << model.moe->denseLayers << "\n";
        if (model.moe->groupsPerToken < model.moe->expertGroups) {
            out << "    expert_groups: " << model.moe->expertGroups << "\n";
            out << "    groups_per_token: " << model.moe->groupsPerToken << "\n";
        }
    }
    if (model.mla) {
        out << "  mla:\n";
        out << "    q_lora_rank: " << model.mla->qLoraRank << "\n";
        out << "    kv_lora_rank: " << model.mla->kvLoraRank << "\n";
        out << "    qk_rope_head_dim: " << model.mla->qkRopeHeadDim << "\n";
        out << "    qk_nope_head_dim: " << model.mla->qkNopeHeadDim << "\n";
        out << "    v_head_dim: " << model.mla->vHeadDim << "\n";
    }
    return out.str();
}

} // namespace rapid::config
