// SPDX-License-Identifier: GPL-3.0-or-later
#include "sim/combinedonefoneb.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace rapid::sim {

namespace {

enum StreamIndex { ComputeStream = 0, CommunicationStream = 1 };

/// One kernel sequence on a stream: @p seconds of work (at the full rate) after the pieces @p after have ended.
struct StreamPiece {
    StreamIndex stream = ComputeStream;
    double seconds = 0;
    std::array<int, 2> after { -1, -1 };
};

/// Runs @p pieces on their two streams, each stream in the order the pieces are listed, a piece starting when its
/// stream is free and the pieces it waits for have ended; compute advances at 1 - @p share of its rate while a
/// collective runs. Returns the end of the last piece.
double makespan(const std::vector<StreamPiece>& pieces, double share)
{
    constexpr double kNotEnded = std::numeric_limits<double>::infinity();
    std::vector<double> ends(pieces.size(), kNotEnded);
    std::array<std::vector<int>, 2> queues;
    for (size_t i = 0; i < pieces.size(); ++i) {
        queues[static_cast<size_t>(pieces[i].stream)].push_back(static_cast<int>(i));
    }
    std::array<size_t, 2> next { 0, 0 };
    std::array<int, 2> running { -1, -1 };
    std::array<double, 2> remaining { 0, 0 };
    double now = 0;
    size_t ended = 0;
    while (ended < pieces.size()) {
        for (size_t s = 0; s < 2; ++s) {
            if (running[s] >= 0 || next[s] >= queues[s].size()) {
                continue;
            }
            const int candidate = queues[s][next[s]];
            const auto& after = pieces[static_cast<size_t>(candidate)].after;
            const bool ready = std::all_of(
                after.begin(), after.end(), [&](int p) { return p < 0 || ends[static_cast<size_t>(p)] <= now; });
            if (ready) {
                running[s] = candidate;
                remaining[s] = pieces[static_cast<size_t>(candidate)].seconds;
                ++next[s];
            }
        }
        if (running[0] < 0 && running[1] < 0) {
            throw std::logic_error("combined 1F1B: a piece waits for one that never runs");
        }
        const std::array<double, 2> rate { running[CommunicationStream] >= 0 ? 1.0 - share : 1.0, 1.0 };
        double step = kNotEnded;
        for (size_t s = 0; s < 2; ++s) {
            if (running[s] >= 0) {
                step = std::min(step, remaining[s] / rate[s]);
            }
        }
        now += step;
        for (size_t s = 0; s < 2; ++s) {
            if (running[s] < 0) {
                continue;
            }
            remaining[s] -= step * rate[s];
            if (remaining[s] <= 1e-15 * std::max(1.0, pieces[static_cast<size_t>(running[s])].seconds)) {
                ends[static_cast<size_t>(running[s])] = now;
                running[s] = -1;
                ++ended;
            }
        }
    }
    return now;
}

void checkPieces(const LayerPassPieces& pieces)
{
    for (double seconds : { pieces.attention, pieces.dispatch, pieces.experts, pieces.expertWeights, pieces.combine }) {
        if (!(seconds >= 0) || !std::isfinite(seconds)) {
            throw std::invalid_argument("combined 1F1B: a layer piece of " + std::to_string(seconds) + " s");
        }
    }
}

} // namespace

bool isExpertPiece(const model::Operator& op)
{
    return op.name.starts_with("moe.expert_") || op.name.starts_with("moe.shared_expert")
        || op.name.starts_with("moe.unpermute") || op.name.starts_with("mlp.residual_add");
}

LayerPassPieces passPieces(compute::OperatorTimer& timer, const std::vector<model::Operator>& ops, double passSeconds,
    double expertCollectives, bool delayWeightGradients)
{
    LayerPassPieces pieces;
    if (expertCollectives <= 0) {
        pieces.attention = passSeconds; // a dense layer: no collective for the other pass to hide behind
        return pieces;
    }
    for (const model::Operator& op : ops) {
        if (!isExpertPiece(op)) {
            continue;
        }
        const double seconds = timer.time(op).seconds;
        const bool weights = delayWeightGradients && op.phase == model::Phase::Backward && op.name.ends_with(".dw");
        (weights ? pieces.expertWeights : pieces.experts) += seconds;
    }
    pieces.dispatch = expertCollectives / 2;
    pieces.combine = expertCollectives / 2;
    // Everything else of the pass (attention block, router, permutation, tensor-parallel collectives) runs on the
    // compute stream before the dispatch in forward and after it in backward.
    pieces.attention = std::max(0.0, passSeconds - pieces.experts - pieces.expertWeights - expertCollectives);
    return pieces;
}

double coScheduledSeconds(std::span<const LayerPassPieces> forwardLayers,
    std::span<const LayerPassPieces> backwardLayers, double collectiveSmShare)
{
    if (!(collectiveSmShare >= 0 && collectiveSmShare < 1)) {
        throw std::invalid_argument("combined 1F1B: the collectives' SM share must be in [0, 1)");
    }
    std::vector<StreamPiece> pieces;
    pieces.reserve(9 * std::max(forwardLayers.size(), backwardLayers.size()));
    auto add = [&pieces](StreamIndex stream, double seconds, int after0, int after1 = -1) {
        pieces.push_back({ stream, seconds, { after0, after1 } });
        return static_cast<int>(pieces.size()) - 1;
    };
    int forwardOut = -1; // the piece producing the next forward layer's input
    int backwardOut = -1; // the piece producing the next backward layer's output gradient
    const size_t paired = std::min(forwardLayers.size(), backwardLayers.size());
    // Paired layers first, then the backward's layers left, then the forward's (TransformerModelChunkSchedulePlan.run).
    // A pass without expert collectives (a dense layer) is one piece on the compute stream.
    auto runLayer = [&](const LayerPassPieces* f, const LayerPassPieces* b) {
        const bool splitForward = f && f->collectives() > 0;
        const bool splitBackward = b && b->collectives() > 0;
        int backwardCombine = -1;
        int backwardExperts = -1;
        int backwardDispatch = -1;
        int forwardDispatch = -1;
        if (f) {
            checkPieces(*f);
        }
        if (b) {
            checkPieces(*b);
        }
        if (splitBackward) {
            backwardCombine = add(CommunicationStream, b->combine, backwardOut);
        }
        if (f) {
            const int attention = add(ComputeStream, splitForward ? f->attention : f->total(), forwardOut);
            forwardDispatch = splitForward ? add(CommunicationStream, f->dispatch, attention) : -1;
            forwardOut = splitForward ? forwardOut : attention;
        }
        if (splitBackward) {
            // The backward's experts (input gradients) are issued before the forward's dispatch; on its own stream
            // the dispatch does not wait for them.
            backwardExperts = add(ComputeStream, b->experts, backwardCombine);
            add(ComputeStream, b->expertWeights, backwardExperts);
            backwardDispatch = add(CommunicationStream, b->dispatch, backwardExperts);
        }
        if (splitForward) {
            const int experts = add(ComputeStream, f->experts, forwardDispatch);
            forwardOut = add(CommunicationStream, f->combine, experts);
        }
        if (b) {
            backwardOut = splitBackward ? add(ComputeStream, b->attention, backwardDispatch)
                                        : add(ComputeStream, b->total(), backwardOut);
        }
    };
    for (size_t i = 0; i < paired; ++i) {
        runLayer(&forwardLayers[i], &backwardLayers[i]);
    }
    for (size_t i = paired; i < backwardLayers.size(); ++i) {
        runLayer(nullptr, &backwardLayers[i]);
    }
    for (size_t i = paired; i < forwardLayers.size(); ++i) {
        runLayer(&forwardLayers[i], nullptr);
    }
    return pieces.empty() ? 0.0 : makespan(pieces, collectiveSmShare);
}

std::vector<graph::ChunkCost> coScheduledPairs(const std::vector<graph::ChunkCost>& chunks,
    const std::vector<std::vector<LayerPassPieces>>& forwardPieces,
    const std::vector<std::vector<LayerPassPieces>>& backwardPieces, double collectiveSmShare)
{
    const size_t count = chunks.size();
    if (forwardPieces.size() != count || backwardPieces.size() != count) {
        throw std::invalid_argument("combined 1F1B: one list of layer pieces per chunk and pass is needed");
    }
    auto layersTotal = [](const std::vector<LayerPassPieces>& layers) {
        double total = 0;
        for (const LayerPassPieces& layer : layers) {
            total += layer.total();
        }
        return total;
    };
    const auto expert = static_cast<size_t>(graph::TimeClass::ExpertParallel);
    std::vector<graph::ChunkCost> pairs;
    pairs.reserve(count * count);
    for (size_t f = 0; f < count; ++f) {
        for (size_t b = 0; b < count; ++b) {
            graph::ChunkCost pair { chunks[f].forward, chunks[b].backward };
            const double alone = layersTotal(forwardPieces[f]) + layersTotal(backwardPieces[b]);
            // Rounding aside the pair never takes longer than its passes one after the other.
            const double saved
                = std::max(0.0, alone - coScheduledSeconds(forwardPieces[f], backwardPieces[b], collectiveSmShare));
            const double forwardExpert = pair.forward[expert];
            const double backwardExpert = pair.backward[expert];
            if (saved > 0 && forwardExpert + backwardExpert > 0) {
                const double share = std::min(1.0, saved / (forwardExpert + backwardExpert));
                pair.forward[expert] -= share * forwardExpert;
                pair.backward[expert] -= share * backwardExpert;
            }
            pairs.push_back(pair);
        }
    }
    return pairs;
}

} // namespace rapid::sim
