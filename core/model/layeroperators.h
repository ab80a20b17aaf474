// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "gradientaccumulation.h"
#include "layersharding.h"
#include "operator.h"

#include "config/modelspec.h"
#include "config/runspec.h"

#include <cstdint>
#include <vector>

namespace rapid::model {

/// The kernels of one transformer layer (and of the model's ends) on ONE GPU, with the per-GPU shapes of the shards
/// @p sharding gives (tp, cp and ep below are its tensor, context and expert counts). No communication appears here:
/// the collectives that tensor, sequence, context and expert parallelism imply are added by `parallel/`.
///
/// Shapes (b sequences, s = the sequence length, T = tokens computed on this GPU):
/// - Training: b = run.microBatch, queries per sequence s / cp (rounded up), keys per sequence s (the whole sequence,
///   as ring/all-gather context parallelism attends to every key), T = b s / cp.
/// - Prefill: b = run.batch at run.promptLength, otherwise as training. Decode: b = run.batch, one new query per
///   sequence against the KV cache, T = b.
/// - Megatron tensor parallelism over tp GPUs: the QKV, gate/up projections (and MLA's up-projections) are
///   column-parallel (n / tp), the output and down projections row-parallel (k / tp); query heads are divided by tp
///   and KV heads too, but never below one per GPU (replicated when tp > KV heads). MLA's down-projections and the
///   MoE router are replicated. Non-divisible shards round up.
/// - Norms, residual adds and dropout run on T / tp tokens with sequence parallelism
/// (LayerSharding::sequenceSplit),
///   else on all T tokens; everything between the column- and row-parallel GEMMs runs on T tokens and the local shard.
/// - MoE layers: the router GEMM [T_norm x h] . [h x E] and its softmax/top-k in fp32; every token visits topK of E
///   experts; expert parallelism over ep GPUs puts E / ep experts on each GPU and sends each the tokens of all ep
///   ranks that chose them: T topK routed rows per GPU when routing is balanced, so each local expert gets
///   ceil(T ep topK / E) tokens. The experts run as one batched GEMM (batch E / ep) whose FFN width is divided by tp
///   (expert tensor parallelism = tp, Megatron's default). When there are fewer routed rows than local experts
///   (small-batch decode) only that many experts run, one row each, and only their weights are read. Shared experts are
///   a dense MLP of width sharedExperts x expertFfnSize, divided by tp.
/// - MLA (DeepSeek-V2/V3): training and prefill run the explicit path: q_down (h -> qLoraRank) + q_norm + q_up
///   (-> heads x (nope + rope)), or a direct q projection when qLoraRank = 0; kv_down (h -> kvLoraRank + rope) +
///   kv_norm + kv_up (kvLoraRank -> heads x (nope + v)); attention with heads x heads "KV heads" of dqk = nope + rope,
///   dv = vHeadDim. Decode runs the absorbed path: queries are mapped into the latent space (q_absorb:
///   nope -> kvLoraRank per head), attention reads the latent cache of kvLoraRank + rope elements per token, shared
///   by all heads (AttentionDims::sharedKv), and the latent output is mapped back per head (v_up: kvLoraRank -> v).
///
/// Naming: "<block>.<operator>" ("attention.qkv_projection", "attention.core", "mlp.gate_up_projection",
/// "moe.expert_down_projection", ...). Backward operators append ".dx" (input gradient dX = dY W^T, GemmDims
/// m, k = n, n = k) and ".dw" (weight gradient dW = X^T dY, GemmDims m = k, k = m, n = n) to the forward GEMM's name,
/// and ".backward" to every other operator's name. Backward operators come in reverse forward order.
///
/// FLOPs count 2 per multiply-add for GEMMs and attention (model/attentionflops.h); for memory-bound operators they
/// are the vector operations per element named in layeroperators.cpp. Bytes are filled for memory-bound operators
/// (HBM reads + writes at the run's activation, weight, gradient and KV-cache precisions); GEMMs and attention leave
/// them 0 as their timing models count their own traffic. Biases are folded into GEMM epilogues (no operator).
/// GEMMs run at run.precision.compute; the attention core at run.precision.activations (FP8 training keeps
/// FlashAttention in BF16 unless the activations are FP8 too), decode attention at the KV-cache precision.
///
/// All functions are pure and thread-safe. They throw std::invalid_argument for a non-positive batch, sequence or
/// parallel degree, or for moeLayer on a model without MoE.

/// A training layer's forward pass (phase Forward).
std::vector<Operator> trainingForward(
    const config::ModelSpec& model, const config::RunSpec& run, const LayerSharding& sharding, bool moeLayer);

/// A training layer's backward pass: first what run.recompute re-runs (phase Recompute: the attention core for
/// selective, the whole forward for full recomputation; for op-sac, torchtitan's per-op SAC, every norm and
/// element-wise operator and every second linear in call order, the fused QKV and gate/up GEMMs counted as their
/// separate linears: for Llama wk, wo and w3, named attention.k_projection, attention.output_projection and
/// mlp.up_projection), then the gradients (phase Backward) in reverse order: each
/// GEMM as its dX and dW GEMMs, attention backward (FlashAttention recomputing its scores, naive attention reading the
/// stored ones), and the backward of every norm and element-wise operator; last, the pass summing the layer's
/// gradients over the step's micro-batches where @p gradientSum or the framework runs one (gradientaccumulation.h).
std::vector<Operator> trainingBackward(const config::ModelSpec& model, const config::RunSpec& run,
    const LayerSharding& sharding, bool moeLayer, const GradientSum& gradientSum = {});

/// One layer of inference prefill at run.promptLength for run.batch sequences (phase Forward), including the write of
/// the prompt's keys and values into the KV cache at run.precision.kvCache.
std::vector<Operator> prefillLayer(
    const config::ModelSpec& model, const config::RunSpec& run, const LayerSharding& sharding, bool moeLayer);

/// One layer of one decode step (phase Forward): run.batch sequences each add one token and attend to @p kvLength
/// keys (the cache including the new token's entry, which "attention.kv_cache_write" appends).
std::vector<Operator> decodeLayer(const config::ModelSpec& model, const config::RunSpec& run,
    const LayerSharding& sharding, bool moeLayer, std::int64_t kvLength);

/// What the non-layer operators are built for.
enum class Workload { Training, Prefill, Decode };

/// Token embedding lookup of the first pipeline stage ("embedding.lookup", plus the learned positions when the model
/// has them); for Training also its backward (gradient scatter-add into the table).
std::vector<Operator> embeddingOperators(
    const config::ModelSpec& model, const config::RunSpec& run, const LayerSharding& sharding, Workload workload);

/// The last pipeline stage's head: final norm, LM head GEMM over the vocabulary shard (n = vocab / tp) and, for
/// Training, the vocabulary-parallel cross-entropy followed by the backward of all three. Inference computes logits of
/// the last token of each sequence only (m = batch) and no loss; in training, the pass summing the head's gradients
/// over the step's micro-batches where @p gradientSum or the framework runs one (gradientaccumulation.h).
std::vector<Operator> lmHeadOperators(const config::ModelSpec& model, const config::RunSpec& run,
    const LayerSharding& sharding, Workload workload, const GradientSum& gradientSum = {});

/// Parameters of one layer held by one GPU: the weights of its local GEMM shards (experts: E / ep of them, each
/// divided by tp; replicated projections whole) plus its norm weights. Biases are ignored (< 0.01% of a layer).
double localLayerParameters(
    const config::ModelSpec& model, const config::RunSpec& run, const LayerSharding& sharding, bool moeLayer);

/// Of localLayerParameters, those that train: all of them, or under LoRA (run.loraRank > 0) the adapters' only
/// (loraadapters.h); 0 outside training.
double localLayerTrainableParameters(
    const config::ModelSpec& model, const config::RunSpec& run, const LayerSharding& sharding, bool moeLayer);

/// Bytes one parameter costs in an Adam step: with master weights it reads the optimizer-precision master weight and
/// both moments and the gradient, writes master and moments back and writes the working weight (6 o + g + w);
/// without, it reads and writes the weight and both moments and reads the gradient (2 w + 4 o + g).
double adamBytesPerParameter(const config::PrecisionSpec& precision);

/// FLOPs of one parameter's Adam step: moment updates (3 + 4), bias corrections (2), the update quotient with sqrt
/// and epsilon (3), weight decay and learning-rate step (2).
constexpr double kAdamFlopsPerParameter = 14;

/// The Adam update over @p localParameters parameters ("optimizer.adam_update", phase Optimizer): a memory-bound
/// operator of adamBytesPerParameter bytes per parameter. The caller chooses the count (one layer, a stage, a ZeRO
/// shard of it).
Operator optimizerUpdate(double localParameters, const config::RunSpec& run);

} // namespace rapid::model
