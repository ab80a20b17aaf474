// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "operator.h"

#include "config/modelspec.h"
#include "config/runspec.h"

#include <cstdint>
#include <vector>

namespace rapid::model {

/// LoRA fine-tuning (E. Hu et al., "LoRA: Low-Rank Adaptation of Large Language Models", arXiv:2106.09685) as NeMo
/// AutoModel's LinearLoRA runs it in eager PyTorch (nemo_automodel/components/_peft/lora.py at 2013a4dd, 2026-04-10;
/// its Triton path is off whenever Transformer Engine is installed, patch_linear_module): each targeted linear
/// y = x W keeps its frozen weight and adds y += dropout(lora_B(lora_A(x) * scale)), A [in x rank] and B [rank x out]
/// the only weights that train. Per linear on one GPU (its local shard: under tensor parallelism a column-parallel
/// linear's A is whole and B split, a row-parallel one's A split and B whole, its partial sums reduced with the base
/// output's):
/// - forward: the base GEMM; lora_A [T x in] . [in x rank]; the scale on T x rank; lora_B [T x rank] . [rank x out];
///   with dropout, the dropout kernel on T x out (writes a one-byte mask); the add of the two outputs (reads two,
///   writes one);
/// - backward: dropout's backward (reads the gradient and the mask); lora_B's dX and dW; the scale's backward;
///   lora_A's dX and dW; the base GEMM's dX only (no dW: its weight is frozen); autograd's sum of the two gradients
///   of x (reads two, writes one). The add passes its gradient through (no kernel).
/// - saved for the backward beyond the base linear's input: lora_B's input (T x rank) and the dropout mask.
/// Every other parameter of the model (norms, embedding, an untargeted LM head) is frozen too: no weight gradient,
/// reduction or optimizer state.

/// The model FLOPs of training one token over sequences of @p run's length (the Megatron/PaLM convention: attention
/// over the full sequence, no recomputation): forward and backward, 3 x the forward; under LoRA the frozen weights'
/// gradients are no work, so the forward, the input gradients (2 x the forward less its GEMM FLOPs, plus the
/// attention's backward) and the adapters' forward, input and weight gradients (6 per adapter parameter).
double trainingModelFlopsPerToken(const config::ModelSpec& model, const config::RunSpec& run);

/// The trainable parameters LoRA adds to a linear of @p in inputs and @p out outputs (one GPU's shard).
double loraAdapterParameters(std::int64_t in, std::int64_t out, int rank);

/// Bytes the LoRA adapters of a training layer's forward @p ops save for its backward, beyond what the base linears
/// save (their inputs, which lora_A reads too): each lora_B GEMM's input (m x rank at @p activationBytes) and, with
/// dropout, its one-byte mask per output (m x out). 0 without adapters.
double loraSavedBytes(const std::vector<Operator>& ops, const config::RunSpec& run, double activationBytes);

} // namespace rapid::model
