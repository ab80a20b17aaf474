// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "operator.h"

namespace rapid::model {

/// Query-key pairs one head of one sequence scores. Non-causal: queryLength x keyLength. Causal: every query attends
/// to itself and the keys before it, counted once, i.e. queryLength x (keyLength + 1) / 2. With queryLength =
/// keyLength = s that is exactly s (s + 1) / 2; with context parallelism (queryLength = s / cp, keyLength = s, the
/// load-balanced "zig-zag" split) each GPU gets exactly 1/cp of the s (s + 1) / 2 pairs.
/// Sliding window (dims.window w in a dims.windowedShare of the layers): causal, a sequence of s keys has w (w + 1) / 2
/// + (s - w) w pairs when s > w (this GPU's queries their queryLength / s share); a decode query min(keys, w); the
/// result averages windowed and full layers by the share.
double attentionPairs(const AttentionDims& dims);

/// Forward FLOPs of attention (2 per multiply-add): scores Q K^T (headDimQk per pair) and weighted values P V
/// (headDimV per pair) over every head: 2 b h pairs (headDimQk + headDimV). Causal: 2 b h s (s + 1) / 2 (dqk + dv).
/// Softmax and masking are vector work and not counted.
double attentionForwardFlops(const AttentionDims& dims);

/// Backward FLOPs of attention. The gradients need four matrix products per pair: dV = P^T dO (headDimV),
/// dP = dO V^T (headDimV), dQ = dS K and dK = dS^T Q (headDimQk each): 2 b h pairs (2 dqk + 2 dv), twice the forward.
/// FlashAttention-2 also recomputes the scores S = Q K^T (@p recomputeScores), adding 2 b h pairs dqk: 2.5 x the
/// forward when dqk = dv.
double attentionBackwardFlops(const AttentionDims& dims, bool recomputeScores);

} // namespace rapid::model
