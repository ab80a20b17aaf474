// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compute/operatortimer.h"
#include "graph/trainingstep.h"
#include "model/operator.h"

#include <span>
#include <vector>

namespace rapid::sim {

/// One transformer layer's pass as Megatron-Core's combined 1F1B schedule splits it (--overlap-moe-expert-parallel-
/// comm; megatron/core/models/common/model_chunk_schedule_plan.py, TransformerLayerSchedulePlan): compute on the
/// compute stream, the expert collectives on a communication stream of their own. Seconds; a dense layer has only
/// `attention` (its whole pass).
///   forward:  attention (attention block, router, permutation) | dispatch | experts (and unpermutation) | combine
///   backward: combine | experts (input gradients) | expertWeights (delayed weight gradients) | dispatch | attention
struct LayerPassPieces {
    double attention = 0;
    double dispatch = 0; ///< the dispatch all-to-all and, with etp > 1, the expert-tensor all-gather
    double experts = 0;
    double expertWeights = 0; ///< backward with --delay-wgrad-compute: the experts' weight gradients; else 0
    double combine = 0;

    double total() const { return attention + dispatch + experts + expertWeights + combine; }
    double collectives() const { return dispatch + combine; }
};

/// A MoE layer operator's part of a pass: true for the routed and shared experts, the unpermutation and the MLP
/// block's residual add (what runs between the dispatch and the combine), false for the rest (attention block,
/// norms, router, permutation).
bool isExpertPiece(const model::Operator& op);

/// Splits a pass of @p passSeconds whose expert collectives take @p expertCollectives seconds (half before the
/// experts, half after) into pieces, timing @p ops (the pass's operators) for the expert part. @p delayWeightGradients
/// moves the experts' weight gradients (".dw" operators) of a backward into LayerPassPieces::expertWeights.
LayerPassPieces passPieces(compute::OperatorTimer& timer, const std::vector<model::Operator>& ops, double passSeconds,
    double expertCollectives, bool delayWeightGradients);

/// Seconds of one combined 1F1B step over the layers of a model chunk's forward (@p forwardLayers, in the order the
/// forward runs them) and another's backward (@p backwardLayers, in the order the backward runs them: last layer
/// first), layer i of one beside layer i of the other, then the layers one of them has left, alone (Megatron-Core's
/// TransformerModelChunkSchedulePlan.run). Each layer pair issues, in this order (TransformerLayerSchedulePlan.run):
///   communication stream: backward combine | forward dispatch, backward dispatch | forward combine
///   compute stream:       forward attention | backward experts, backward expert weights, forward experts |
///                         backward attention
/// each piece waiting for what it consumes (a dispatch for its pass's attention, experts for their dispatch or, in
/// backward, the combine; a combine for its experts; the backward attention for the backward dispatch), the next
/// layer's forward attention for this layer's forward combine and its backward combine for this layer's backward
/// attention. While a collective is in flight the compute advances at 1 - @p collectiveSmShare of its rate (the SMs
/// NCCL holds, sim::collectiveContention). Throws std::invalid_argument for a negative piece or a share outside
/// [0, 1).
double coScheduledSeconds(std::span<const LayerPassPieces> forwardLayers,
    std::span<const LayerPassPieces> backwardLayers, double collectiveSmShare);

/// The passes of a stage's model chunks when Megatron-Core's combined 1F1B pairs them: for every forward chunk cf and
/// backward chunk cb (index cf x chunks + cb), the forward's and the backward's breakdowns in the pair. The pair takes
/// coScheduledSeconds over the chunks' layers (@p forwardPieces per chunk in forward order, @p backwardPieces in
/// backward order) plus what the chunks have outside their layers (embedding, LM head, loss, gathers), run alone; the
/// time saved against the two passes one after the other comes off their expert-parallel time, in proportion to each
/// pass's (it is at most their collectives: the compute alone never runs faster).
std::vector<graph::ChunkCost> coScheduledPairs(const std::vector<graph::ChunkCost>& chunks,
    const std::vector<std::vector<LayerPassPieces>>& forwardPieces,
    const std::vector<std::vector<LayerPassPieces>>& backwardPieces, double collectiveSmShare);

} // namespace rapid::sim
