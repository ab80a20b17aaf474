// SPDX-License-Identifier: GPL-3.0-or-later
// The model document's keys (configs/README.md, "model").
#include "schemabuilder_p.h"

namespace rapid::config::schema::detail {

namespace {
// Widths (hidden, FFN, vocabulary): the largest published are hidden 2^15, FFN 2^17, vocabulary 2^18 (Gemma's 256k);
// 2^24 leaves room for what-ifs while every product of two widths and a count stays far inside 64 bits.
constexpr std::int64_t kMaxDimension = std::int64_t(1) << 24;
constexpr std::int64_t kMaxCount = 1 << 20;
constexpr std::int64_t kMaxContext = std::int64_t(1) << 30; // as run.training.seq_length
constexpr std::int64_t kMaxHeadDim = 1 << 16;

void addMixtureOfExperts(std::vector<Key>& keys)
{
    keys.push_back(mapping("moe", optional(), "mixture-of-experts layers; absent for dense models"));
    keys.push_back(integer("moe.num_experts", 1, kMaxCount, required(), "routed experts per MoE layer"));
    keys.push_back(
        integer("moe.top_k", 1, kMaxCount, required(), "routed experts each token visits; at most num_experts"));
    keys.push_back(integer("moe.shared_experts", 0, kMaxCount, value("0"), "always-active experts (DeepSeek)"));
    keys.push_back(integer("moe.expert_ffn_size", 1, kMaxDimension, required(), "intermediate size of one expert"));
    keys.push_back(integer("moe.dense_layers", 0, kMaxCount, value("0"),
        "the first N layers keep the dense MLP (ffn_size); less than num_layers"));
    keys.push_back(integer("moe.expert_groups", 1, kMaxCount, value("1"),
        "groups of the group-limited router (DeepSeek-V3's n_group); divides num_experts"));
    keys.push_back(integer("moe.groups_per_token", 1, kMaxCount, derived("expert_groups"),
        "groups a token's experts may come from (DeepSeek-V3's topk_group); at most expert_groups"));
}

void addLatentAttention(std::vector<Key>& keys)
{
    keys.push_back(
        mapping("mla", optional(), "multi-head latent attention (DeepSeek-V2/V3); absent for standard attention"));
    keys.push_back(integer("mla.q_lora_rank", 0, kMaxCount, value("0"),
        "rank of the query compression; 0 = queries projected directly from the hidden state"));
    keys.push_back(
        integer("mla.kv_lora_rank", 1, kMaxCount, required(), "width of the compressed KV latent the cache stores"));
    keys.push_back(
        integer("mla.qk_rope_head_dim", 1, kMaxHeadDim, required(), "decoupled rotary part of each query/key head"));
    keys.push_back(
        integer("mla.qk_nope_head_dim", 1, kMaxHeadDim, required(), "non-rotary part of each query/key head"));
    keys.push_back(integer("mla.v_head_dim", 1, kMaxHeadDim, required(), "value head size"));
}
} // namespace

std::vector<Key> modelKeys()
{
    std::vector<Key> keys = {
        text("name", required(), "display name"),
        text("architecture", optional(),
            "Hugging Face architecture (config.json architectures[0], e.g. LlamaForCausalLM): which modeling code a "
            "serving engine runs, where its fused kernels differ by model (TensorRT-LLM's all-reduce fusion)"),
        integer("num_layers", 1, kMaxCount, required(), "transformer blocks"),
        integer("hidden_size", 1, kMaxDimension, required(), "model width"),
        integer("num_heads", 1, kMaxCount, required(), "query heads"),
        integer("num_kv_heads", 1, kMaxCount, derived("num_heads"), "key/value heads (GQA); divides num_heads"),
        integer("head_dim", 1, kMaxCount, derived("hidden_size / num_heads"), "size of one attention head"),
        integer("ffn_size", 1, kMaxDimension, required(), "dense MLP intermediate size"),
        boolean("ffn_gated", required(), "gated MLP (SwiGLU/GeGLU: gate, up and down projections)"),
        choice<Activation>("activation", required(), "MLP activation"),
        choice<NormKind>("norm", required(), "normalisation (LayerNorm has a bias, RMSNorm not)"),
        boolean("linear_bias", value("false"), "biases on every projection (GPT-3, OPT)"),
        boolean("qkv_bias", value("false"), "bias on the QKV projection only (Qwen2)"),
        integer("vocab_size", 1, kMaxDimension, required(), "vocabulary size"),
        boolean("tied_embeddings", required(), "input embedding shared with the LM head"),
        choice<PositionEmbedding>("position_embedding", required(), "`learned` adds a max_context x hidden_size table"),
        integer("max_context", 1, kMaxContext, required(), "longest sequence the model supports"),
        integer("sliding_window", 0, kMaxContext, value("0"),
            "sliding-window attention: a query attends to itself and the window - 1 keys before it (Mistral 7B "
            "v0.1: 4096); 0 = full attention"),
        integer("full_attention_every", 0, kMaxCount, value("0"),
            "with sliding_window: every N-th layer (N, 2N, ...) keeps full attention (Gemma 2, gpt-oss: 2; Gemma 3: "
            "6); 0 = every layer is windowed"),
    };
    addMixtureOfExperts(keys);
    addLatentAttention(keys);
    return keys;
}

} // namespace rapid::config::schema::detail
