// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"
#include "model/operator.h"

#include <cstdint>

namespace rapid::compute {

/// How a decode attention kernel spreads one iteration's KV-cache reads over the GPU, after FlashAttention-2's
/// split-KV path (Dao-AILab/flash-attention, csrc/flash_attn/flash_api.cpp: set_params_splitkv and
/// num_splits_heuristic; "Flash-Decoding for long-context inference", T. Dao, D. Haziza, F. Massa, G. Sizov, 2023),
/// which FlashAttention-3, FlashInfer and TensorRT-LLM's multi-block mode follow in their own ways:
/// - one CTA of 128 threads owns up to 64 query rows of one KV head: under grouped-query attention the heads / kvHeads
///   query heads that share a KV head are packed into those rows (`seqlenq_ngroups_swapped`), so a decode batch has
///   batch x kvHeads x ceil(queries x heads / kvHeads / 64) CTAs of work;
/// - each CTA streams its keys and values in blocks of 256 keys for head dimensions up to 64, 128 up to 128, 64 above;
/// - when that work would fill less than 80% of the GPU's CTA slots (two per SM), the keys are split into as many
///   ranges as make the last wave fullest (the fewest splits within 85% of the best wave efficiency, at most 128 and
///   at most one per key block); each split writes an fp32 partial output and its log-sum-exp, which a combine pass
///   rescales and sums.
/// FlashAttention-3 (Hopper; vLLM's decode there) differs where DecodeKernel says: one CTA per SM, no split of 4 key
/// blocks or fewer, every split count tried (its tile scheduler retires empty splits), and a two-stage pipeline of
/// key and value blocks (hopper/heuristics.h, num_splits_heuristic; hopper/tile_size.h).
struct DecodeKernel {
    int ctasPerSm = 2;
    std::int64_t fewestBlocksToSplit = 1;
    bool distinctSplitsOnly = true;
    int blocksInFlight = 1; ///< key or value blocks each CTA has requested before it waits for one
};

/// FlashAttention-3's on Hopper, FlashAttention-2's for every other kernel (whose split rules are not published in a
/// form as plain: FlashInfer and TensorRT-LLM follow the same idea).
DecodeKernel decodeKernelOf(config::AttentionKernel kernel);

struct DecodeGrid {
    std::int64_t workCtas = 0; ///< CTAs before the split: batch x kvHeads x query-row blocks
    std::int64_t blockKeys = 0; ///< keys per streamed block
    std::int64_t keyBlocks = 0; ///< blocks of one sequence's (effective) keys
    int splits = 1; ///< key ranges per CTA of work
    std::int64_t ctas() const { return workCtas * splits; }
};

/// Query rows one split-KV CTA owns.
constexpr std::int64_t kDecodeRowsPerCta = 64;
/// FlashAttention-2's bound on the splits (its partial-output buffers are sized for at most 128).
constexpr int kMaxKvSplits = 128;

/// Keys one decode query reads: the key length, averaged with the window in a sliding-window model's windowed layers
/// (their windowedShare; a prefill operator, causal, always keyLength).
double effectiveDecodeKeys(const model::AttentionDims& attention);

/// The split count the heuristic of @p kernel picks for @p workCtas CTAs of work on @p slots CTA slots (SMs x CTAs
/// per SM) when each sequence has @p keyBlocks key blocks. Throws std::invalid_argument for a count below 1.
int kvSplits(std::int64_t workCtas, std::int64_t slots, std::int64_t keyBlocks, const DecodeKernel& kernel = {});

/// The grid of a decode attention operator (op.attention, keys averaged over windowed layers as its bytes are) on a
/// GPU of @p smCount SMs; @p splitKv false keeps one CTA per unit of work (FlashAttention without Flash-Decoding).
DecodeGrid decodeGrid(
    const model::AttentionDims& attention, int smCount, bool splitKv, const DecodeKernel& kernel = {});

} // namespace rapid::compute
