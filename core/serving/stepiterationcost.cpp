// SPDX-License-Identifier: GPL-3.0-or-later
#include "stepiterationcost.h"

#include "model/attentionflops.h"
#include "model/layeroperators.h"
#include "parallel/stepplan.h"
#include "speculation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace rapid::serving {

namespace {

bool isAttentionCore(const model::Operator& op)
{
    return op.name == "attention.core";
}

std::vector<model::Operator> only(std::vector<model::Operator> ops, bool attentionCore)
{
    ops.erase(std::remove_if(ops.begin(), ops.end(),
                  [attentionCore](const model::Operator& op) { return isAttentionCore(op) != attentionCore; }),
        ops.end());
    return ops;
}

double total(const graph::TimeBreakdown& parts)
{
    return std::accumulate(parts.begin(), parts.end(), 0.0);
}

} // namespace

StepIterationCost::StepIterationCost(sim::StepModel& stepModel, const SpeculativeDecoding& speculative)
    : m_stepModel(stepModel)
    , m_speculative(speculative)
{
}

double StepIterationCost::layersOf(const std::vector<model::Operator>& dense, const std::vector<model::Operator>& moe)
{
    const config::ModelSpec& model = m_stepModel.scenario().model;
    const double denseSeconds = total(m_stepModel.operatorSeconds(dense));
    const double moeSeconds = model.moe ? total(m_stepModel.operatorSeconds(moe)) : 0;
    double seconds = 0;
    for (int layer = 0; layer < model.numLayers; ++layer) {
        seconds += parallel::isMoeLayer(model, layer) ? moeSeconds : denseSeconds;
    }
    return seconds;
}

double StepIterationCost::tokenWork(std::int64_t tokens)
{
    if (const auto found = m_tokenWork.find(tokens); found != m_tokenWork.end()) {
        return found->second;
    }
    const config::ModelSpec& model = m_stepModel.scenario().model;
    config::RunSpec run = m_stepModel.scenario().run;
    run.batch = 1;
    run.promptLength = static_cast<int>(tokens);
    const model::LayerSharding& sharding = m_stepModel.plan().sharding.layer;
    double seconds = layersOf(only(model::prefillLayer(model, run, sharding, false), false),
        model.moe ? only(model::prefillLayer(model, run, sharding, true), false) : std::vector<model::Operator> {});
    seconds += model.numLayers * 2
        * m_stepModel.collectiveSeconds(m_stepModel.plan().inference.tensorAllReduce(static_cast<double>(tokens)));
    seconds += total(
        m_stepModel.operatorSeconds(model::embeddingOperators(model, run, sharding, model::Workload::Prefill)));
    const parallel::InferencePlan& plan = m_stepModel.plan().inference;
    if (plan.stages > 1) {
        seconds += (plan.stages - 1) * m_stepModel.collectiveSeconds(plan.pipelineSend(static_cast<double>(tokens)));
    }
    return m_tokenWork[tokens] = seconds;
}

double StepIterationCost::draftLayerWork(std::int64_t tokens)
{
    if (const auto found = m_draftLayerWork.find(tokens); found != m_draftLayerWork.end()) {
        return found->second;
    }
    const config::ModelSpec& model = m_stepModel.scenario().model;
    config::RunSpec run = m_stepModel.scenario().run;
    run.batch = 1;
    run.promptLength = static_cast<int>(tokens);
    double seconds = total(m_stepModel.operatorSeconds(
        only(model::prefillLayer(model, run, m_stepModel.plan().sharding.layer, draftHeadIsMoe(model)), false)));
    seconds
        += 2 * m_stepModel.collectiveSeconds(m_stepModel.plan().inference.tensorAllReduce(static_cast<double>(tokens)));
    return m_draftLayerWork[tokens] = seconds;
}

double StepIterationCost::draftSeconds(
    std::int64_t tokens, double attention, std::int64_t sampling, std::int64_t samplingKv)
{
    const int layers = m_stepModel.scenario().model.numLayers;
    const int passes = m_speculative.draftTokens;
    // The first pass reads the target's hidden states of every token it computed; the others extend each sequence by
    // the draft just proposed.
    const double first = draftLayerWork(tokens) + attention / layers;
    const double next = draftLayerWork(sampling) + decodeAttention(sampling, samplingKv + 1) / layers;
    return m_speculative.headLayers() * (first + (passes - 1) * next) + passes * lmHead(sampling);
}

double StepIterationCost::decodeAttention(std::int64_t sequences, std::int64_t kvLength, std::int64_t queries)
{
    // One-query decodes (every iteration without drafts) keep a memo of their own, keyed without the queries.
    auto& memo = queries == 1 ? m_decodeAttention : m_verifyAttention[queries];
    const auto key = std::make_pair(sequences, kvLength);
    if (const auto found = memo.find(key); found != memo.end()) {
        return found->second;
    }
    const config::ModelSpec& model = m_stepModel.scenario().model;
    config::RunSpec run = m_stepModel.scenario().run;
    run.batch = static_cast<int>(sequences);
    const model::LayerSharding& sharding = m_stepModel.plan().sharding.layer;
    // A verification's queries all read the sequence's cache: one pass over it, q times the FLOPs (each query counted
    // against every key, which overstates the causal pairs by q (q - 1) / 2 of q x kvLength).
    const auto withQueries = [queries](std::vector<model::Operator> ops) {
        for (model::Operator& op : ops) {
            op.attention.queryLength = queries;
            op.flops = model::attentionForwardFlops(op.attention);
        }
        return ops;
    };
    const double seconds = layersOf(withQueries(only(model::decodeLayer(model, run, sharding, false, kvLength), true)),
        model.moe ? withQueries(only(model::decodeLayer(model, run, sharding, true, kvLength), true))
                  : std::vector<model::Operator> {});
    return memo[key] = seconds;
}

double StepIterationCost::promptAttention(std::int64_t sequences, std::int64_t length)
{
    const auto key = std::make_pair(sequences, length);
    if (const auto found = m_promptAttention.find(key); found != m_promptAttention.end()) {
        return found->second;
    }
    const config::ModelSpec& model = m_stepModel.scenario().model;
    config::RunSpec run = m_stepModel.scenario().run;
    run.batch = static_cast<int>(sequences);
    run.promptLength = static_cast<int>(length);
    const model::LayerSharding& sharding = m_stepModel.plan().sharding.layer;
    const double seconds = layersOf(only(model::prefillLayer(model, run, sharding, false), true),
        model.moe ? only(model::prefillLayer(model, run, sharding, true), true) : std::vector<model::Operator> {});
    return m_promptAttention[key] = seconds;
}

double StepIterationCost::lmHead(std::int64_t sequences)
{
    if (const auto found = m_lmHead.find(sequences); found != m_lmHead.end()) {
        return found->second;
    }
    config::RunSpec run = m_stepModel.scenario().run;
    run.batch = static_cast<int>(sequences);
    const double seconds = total(m_stepModel.operatorSeconds(model::lmHeadOperators(
        m_stepModel.scenario().model, run, m_stepModel.plan().sharding.layer, model::Workload::Decode)));
    return m_lmHead[sequences] = seconds;
}

double StepIterationCost::seconds(const std::vector<SequenceWork>& batch)
{
    std::int64_t tokens = 0;
    std::int64_t sampling = 0;
    std::int64_t samplingContext = 0;
    double attention = 0;
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> chunks; // (new, cached) -> sequences
    // Decodes by their queries (1 + drafts, at most kMaxDraftTokens + 1): sequences and their summed context. A fixed
    // array, as this runs once per simulated iteration.
    std::array<std::pair<std::int64_t, std::int64_t>, kMaxDraftTokens + 2> decodes {};
    for (const SequenceWork& work : batch) {
        tokens += work.newTokens;
        if (work.samples) {
            ++sampling;
            samplingContext += work.contextTokens + work.newTokens - work.drafts;
        }
        if (work.newTokens - work.drafts == 1 && work.contextTokens > 0 && work.newTokens < std::ssize(decodes)) {
            auto& [sequences, context] = decodes[static_cast<size_t>(work.newTokens)];
            ++sequences;
            context += work.contextTokens;
        } else {
            ++chunks[{ work.newTokens, work.contextTokens }];
        }
    }
    // Equal chunks run as one batched attention (a static batch of equal prompts is exactly inference's prefill).
    for (const auto& [chunk, sequences] : chunks) {
        const double q = static_cast<double>(chunk.first);
        const double c = static_cast<double>(chunk.second);
        const double length = q + c;
        attention += promptAttention(sequences, chunk.first + chunk.second) * q * (2 * c + q) / (length * length);
    }
    for (std::int64_t queries = 1; queries < std::ssize(decodes); ++queries) {
        // The mean KV length of the decode sequences, with the entries of the tokens each one adds.
        const auto [sequences, context] = decodes[static_cast<size_t>(queries)];
        if (sequences == 0) {
            continue;
        }
        const auto kvLength = static_cast<std::int64_t>(
            std::llround(static_cast<double>(context) / static_cast<double>(sequences)) + queries);
        attention += decodeAttention(sequences, kvLength, queries);
    }
    double seconds = tokenWork(tokens) + attention + (sampling > 0 ? lmHead(sampling) : 0.0);
    if (sampling > 0 && m_speculative.headLayers() > 0) {
        const auto samplingKv = static_cast<std::int64_t>(
            std::llround(static_cast<double>(samplingContext) / static_cast<double>(sampling)));
        seconds += draftSeconds(tokens, attention, sampling, samplingKv);
    }
    return seconds;
}

} // namespace rapid::serving
