// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "iterationcost.h"
#include "servingspec.h"

#include "sim/stepmodel.h"

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>

namespace rapid::serving {

/// Iteration times of one replica from the step model's operator model. An iteration of a mixed batch computes
/// T = sum of new tokens:
/// - every layer's operators but the attention core over T tokens, as one prompt of T tokens would (GEMMs with
///   M = T, norms, element-wise, the KV-cache write, MoE routing), plus two tensor-parallel all-reduces of T tokens;
/// - attention per sequence: decode sequences as one decode batch at their mean KV length (decode attention is
///   affine in the KV length); prompt chunks of q tokens after c cached ones, n alike, as the attention core of n
///   fresh prompts of L = c + q tokens scaled by the causal work of their q last queries, q (2c + q) / L^2;
/// - the embedding of T tokens and the LM head of the sequences that sample; with pipeline stages, the batch's
///   hand-overs between them (stages run one after another, as StepModel::inference has them).
/// - speculative decoding: a verification of q = 1 + drafts tokens is a decode attention of q queries per sequence
///   (verifications of equal q batched at their mean KV length); a draft head (SpeculativeDecoding::Head) then
///   proposes the next drafts of the sequences that sampled: draftTokens passes of its layers and the LM head, the
///   first over every token of the iteration (its attention the target layers' average), the others over one token per
///   sequence; prompt lookup costs the GPU nothing.
/// One prompt alone is exactly StepModel::inference's prefill; decode steps alone are its decode steps.
/// Parts are memoised by their shapes (token counts, KV lengths), so long simulations reuse them.
class StepIterationCost final : public IterationCost {
public:
    explicit StepIterationCost(sim::StepModel& stepModel, const SpeculativeDecoding& speculative = {});
    double seconds(const std::vector<SequenceWork>& batch) override;

private:
    double tokenWork(std::int64_t tokens);
    /// One decoder layer of the draft head over @p tokens tokens: its operators but the attention core and its two
    /// tensor-parallel all-reduces.
    double draftLayerWork(std::int64_t tokens);
    /// The draft head's passes after an iteration of @p tokens tokens whose target attention took @p attention, with
    /// @p sampling sequences sampling at a mean KV length of @p samplingKv.
    double draftSeconds(std::int64_t tokens, double attention, std::int64_t sampling, std::int64_t samplingKv);
    double decodeAttention(std::int64_t sequences, std::int64_t kvLength, std::int64_t queries = 1);
    double promptAttention(std::int64_t sequences, std::int64_t length);
    double lmHead(std::int64_t sequences);
    double layersOf(const std::vector<model::Operator>& dense, const std::vector<model::Operator>& moe);

    sim::StepModel& m_stepModel;
    SpeculativeDecoding m_speculative;
    std::unordered_map<std::int64_t, double> m_tokenWork;
    std::unordered_map<std::int64_t, double> m_draftLayerWork;
    std::map<std::pair<std::int64_t, std::int64_t>, double> m_decodeAttention; ///< (sequences, KV length), one query
    /// Verifications: by their queries, (sequences, KV length).
    std::unordered_map<std::int64_t, std::map<std::pair<std::int64_t, std::int64_t>, double>> m_verifyAttention;
    std::map<std::pair<std::int64_t, std::int64_t>, double> m_promptAttention;
    std::unordered_map<std::int64_t, double> m_lmHead;
};

} // namespace rapid::serving
