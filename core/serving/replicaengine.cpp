// SPDX-License-Identifier: GPL-3.0-or-later
// One replica's scheduler: the choice per iteration, the paged KV cache, preemption by recomputation (by swapping:
// replicaswap.cpp), prefix caching, and the bookkeeping of first and last tokens. The GPU time of an iteration comes
// from IterationCost.
#include "replicaengine.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rapid::serving {

namespace {

// SGLang's admission constants (python/sglang/global_config.py and srt/managers/schedule_policy.py, v0.4-0.5): the
// share of the running requests' remaining output a prefill pass sets aside starts at SGLANG_INIT_NEW_TOKEN_RATIO 0.7
// (x schedule_conservativeness, 1.0), falls to 0.7 x SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR 0.14 over
// SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS 600 decode steps; an output counts at most CLIP_MAX_NEW_TOKENS 4,096 tokens;
// a retraction re-estimates it with SGLANG_RETRACT_DECODE_STEPS 20 steps of headroom per request.
constexpr double kSglangInitRatio = 0.7;
constexpr double kSglangMinRatio = kSglangInitRatio * 0.14;
constexpr double kSglangRatioDecay = (kSglangInitRatio - kSglangMinRatio) / 600;
constexpr std::int64_t kSglangClipTokens = 4096;
constexpr std::int64_t kSglangRetractSteps = 20;

} // namespace

ReplicaEngine::ReplicaEngine(const std::vector<RequestSpec>& specs, std::int64_t sharedPrefixTokens,
    const EngineOptions& options, IterationCost& cost, ServingTrace& trace, ReplicaRole role,
    std::vector<OccupancySample>* occupancy)
    : m_specs(specs)
    , m_sharedPrefixTokens(sharedPrefixTokens)
    , m_options(options)
    , m_cost(cost)
    , m_trace(trace)
    , m_role(role)
    , m_occupancy(occupancy)
    , m_blocks(options.kvBlocks, options.blockSize, options.kvLayout)
    , m_policy(capacityPolicyOf(options))
    , m_newTokenRatio(kSglangInitRatio)
    // TensorRT-LLM's context-only servers run without the overlap scheduler (its disaggregated-serving guide;
    // AIConfigurator's rule plugin: prefill disable_overlap_scheduler = true).
    , m_overlap(overlapSchedulingOf(options)
          && !(role == ReplicaRole::PrefillOnly && options.profile == EngineProfile::TrtLlm))
    , m_acceptance(options.speculative)
{
    for (std::size_t id = 0; id < m_specs.size(); ++id) {
        const RequestSpec& spec = m_specs[id];
        // A prefill worker holds a prompt until its first token; the others hold the whole request at its end.
        const std::int64_t tokens = spec.promptTokens + (role == ReplicaRole::PrefillOnly ? 0 : spec.outputTokens);
        const std::int64_t blocks = m_blocks.blocksFor(tokens);
        if (blocks > m_blocks.totalBlocks()) {
            throw std::invalid_argument("a request of " + std::to_string(spec.promptTokens) + " + "
                + std::to_string(spec.outputTokens) + " tokens needs " + std::to_string(blocks)
                + " KV-cache blocks; the cache holds " + std::to_string(m_blocks.totalBlocks()));
        }
        // vLLM admits a request only while the watermark stays free beside its first chunk; one that could never be
        // admitted so is refused (vLLM V0's can_allocate: AllocStatus.NEVER), not left waiting for ever.
        const std::int64_t admitted = firstAdmissionBlocks(static_cast<int>(id));
        if (admitted + admissionReserve() > m_blocks.totalBlocks()) {
            throw std::invalid_argument("a request of " + std::to_string(spec.promptTokens) + " + "
                + std::to_string(spec.outputTokens) + " tokens takes " + std::to_string(admitted)
                + " KV-cache blocks when admitted, and the watermark keeps " + std::to_string(admissionReserve())
                + " of the cache's " + std::to_string(m_blocks.totalBlocks())
                + " free then: more blocks, or prompt chunks of fewer tokens per iteration, admit it");
        }
    }
}

std::int64_t ReplicaEngine::admissionReserve() const
{
    // vLLM's watermark keeps blocks free for the running decodes; TensorRT-LLM's reservations and SGLang's ratio do
    // that instead.
    return m_policy == CapacityPolicy::MaxUtilization
        ? static_cast<std::int64_t>(std::floor(m_options.watermark * m_blocks.totalBlocks()))
        : 0;
}

std::int64_t ReplicaEngine::firstAdmissionBlocks(int id) const
{
    const RequestSpec& spec = m_specs[static_cast<size_t>(id)];
    if (m_role == ReplicaRole::DecodeOnly) {
        // Its transferred prompt and the block of its next token.
        return m_blocks.blocksFor(spec.promptTokens) + m_blocks.extraBlocks(spec.promptTokens, 1);
    }
    Sequence fresh;
    fresh.id = id;
    const std::int64_t chunk = nextTokens(fresh, m_options.maxNumBatchedTokens);
    return m_blocks.blocksFor(chunk > 0 ? chunk : spec.promptTokens);
}

void ReplicaEngine::submit(int id)
{
    if (!busy()) {
        m_newTokenRatio = kSglangInitRatio; // SGLang starts its estimate over when the engine was idle
    }
    Sequence sequence;
    sequence.id = id;
    if (m_role == ReplicaRole::DecodeOnly) {
        // The prefill worker computed the prompt and sampled the first token; their KV cache comes with the request.
        sequence.kvTokens = m_specs[static_cast<size_t>(id)].promptTokens;
        sequence.transferredTokens = sequence.kvTokens;
        sequence.generated = 1;
    }
    // A decode worker's request joins when its KV cache has arrived; the others when the request did.
    sequence.queuedSeconds
        = m_role == ReplicaRole::DecodeOnly ? m_now : m_trace.requests[static_cast<size_t>(id)].arrivalSeconds;
    m_waiting.push_back(sequence);
}

void ReplicaEngine::advanceTo(double seconds)
{
    m_now = std::max(m_now, seconds);
}

std::int64_t ReplicaEngine::known(const Sequence& sequence) const
{
    return m_specs[static_cast<size_t>(sequence.id)].promptTokens + sequence.generated;
}

/// Prompt tokens of @p sequence the prefix cache holds: its shared prefix in whole blocks, once another request has
/// computed it, and never the last prompt token (vLLM computes it to sample from); 0 without a cached prefix.
std::int64_t ReplicaEngine::cachedTokens(const Sequence& sequence) const
{
    const RequestSpec& spec = m_specs[static_cast<size_t>(sequence.id)];
    if (!m_options.prefixCaching || spec.prefixId < 0 || !m_prefixCache.holds(spec.prefixId)) {
        return 0;
    }
    return prefixBlocks(spec) * m_blocks.blockSize();
}

/// Whole blocks of @p spec's shared prefix (short of its last prompt token).
std::int64_t ReplicaEngine::prefixBlocks(const RequestSpec& spec) const
{
    const std::int64_t shared = std::min(m_sharedPrefixTokens, spec.promptTokens - 1);
    return shared > 0 ? shared / m_blocks.blockSize() : 0;
}

/// Once @p sequence has computed its shared prefix, the cache keeps those blocks (taken from the request's own).
void ReplicaEngine::cachePrefix(Sequence& sequence)
{
    const RequestSpec& spec = m_specs[static_cast<size_t>(sequence.id)];
    if (!m_options.prefixCaching || spec.prefixId < 0) {
        return; // before any arithmetic: this runs for every sequence of every iteration
    }
    const std::int64_t blocks = prefixBlocks(spec);
    if (blocks == 0 || m_prefixCache.holds(spec.prefixId) || sequence.kvTokens < blocks * m_blocks.blockSize()) {
        return;
    }
    // The prefix's blocks of every layer group (a sliding-window group's: those its window still reaches).
    const std::int64_t physical = m_blocks.blocksFor(blocks * m_blocks.blockSize());
    m_prefixCache.insert(spec.prefixId, physical, m_now);
    sequence.heldBlocks -= physical;
}

std::set<int> ReplicaEngine::prefixesRead() const
{
    std::set<int> read;
    for (const Sequence& sequence : m_running) {
        read.insert(m_specs[static_cast<size_t>(sequence.id)].prefixId);
    }
    return read;
}

bool ReplicaEngine::evictCachedPrefix(int keep)
{
    const auto evicted = m_prefixCache.evictLeastRecentlyUsed(prefixesRead(), keep);
    if (!evicted) {
        return false;
    }
    m_blocks.release(evicted->blocks);
    // A waiting request took its cached tokens when it was first considered; they are gone now. That includes a
    // preempted one (outputs generated, blocks freed): left with the evicted tokens counted as computed, it would
    // later hand the cache blocks it never held and push the blocks in use beyond the cache (found by
    // tst_servingproperties with prompt pools, whose many prefixes are evicted often). A decode worker's request
    // keeps the KV cache it received (transferredTokens).
    for (Sequence& waiting : m_waiting) {
        if (m_specs[static_cast<size_t>(waiting.id)].prefixId == evicted->prefixId && waiting.heldBlocks == 0
            && waiting.transferredTokens == 0) {
            waiting.kvTokens = 0;
        }
    }
    return true;
}

double ReplicaEngine::sglangRoom() const
{
    // Token positions still free: blocks over the blocks one block of tokens takes in every layer group.
    const double perBlockOfTokens = static_cast<double>(m_blocks.blocksFor(m_blocks.blockSize()));
    // SGLang counts what its radix cache could evict as free (rem_total_tokens: available_size + evictable_size).
    const std::int64_t evictable = m_prefixCache.blocks() > 0 ? m_prefixCache.evictableBlocks(prefixesRead()) : 0;
    const std::int64_t available = m_blocks.freeBlocks() + evictable;
    double room = static_cast<double>(available) / perBlockOfTokens * m_blocks.blockSize();
    for (const Sequence& sequence : m_running) {
        const std::int64_t left = m_specs[static_cast<size_t>(sequence.id)].outputTokens - sequence.generated;
        room -= static_cast<double>(std::min(left, kSglangClipTokens)) * m_newTokenRatio;
    }
    return room;
}

double ReplicaEngine::retractedRatio() const
{
    double decoded = 0;
    double outputs = 0;
    for (const Sequence& sequence : m_running) {
        decoded += static_cast<double>(sequence.generated + kSglangRetractSteps);
        outputs += static_cast<double>(m_specs[static_cast<size_t>(sequence.id)].outputTokens);
    }
    return std::min(1.0, decoded / (outputs + 1));
}

std::int64_t ReplicaEngine::blocksAtEnd(const Sequence& sequence) const
{
    const RequestSpec& spec = m_specs[static_cast<size_t>(sequence.id)];
    const std::int64_t tokens = spec.promptTokens + (m_role == ReplicaRole::PrefillOnly ? 0 : spec.outputTokens);
    const std::int64_t reused
        = cachedTokens(sequence) > 0 ? m_blocks.blocksFor(prefixBlocks(spec) * m_blocks.blockSize()) : 0;
    return std::max<std::int64_t>(0, m_blocks.blocksFor(tokens) - reused);
}

std::int64_t ReplicaEngine::draftsFor(const Sequence& sequence) const
{
    if (!m_options.speculative.enabled() || m_role == ReplicaRole::PrefillOnly || sequence.draining
        || !decoding(sequence)) {
        return 0;
    }
    const std::int64_t left = m_specs[static_cast<size_t>(sequence.id)].outputTokens - sequence.generated;
    return std::clamp<std::int64_t>(left - 1, 0, m_options.speculative.draftTokens);
}

/// Tokens @p sequence computes next within @p budget (0: none fit); a verification's drafts count against the budget
/// as vLLM's scheduler counts them (fewer drafts when it is short).
std::int64_t ReplicaEngine::nextTokens(const Sequence& sequence, std::int64_t budget) const
{
    if (const std::int64_t drafts = draftsFor(sequence); drafts > 0) {
        return std::min(1 + drafts, budget);
    }
    const std::int64_t remaining = known(sequence) - sequence.kvTokens;
    if (remaining <= budget) {
        return remaining;
    }
    if (!m_options.chunkedPrefill) {
        return 0;
    }
    // TensorRT-LLM cuts a context chunk to whole KV blocks (MicroBatchScheduler::setCtxRequestsChunkSize rounds a
    // shortened chunk down to its chunk unit, tokens_per_block); vLLM and SGLang cut it at any token.
    return m_options.profile == EngineProfile::TrtLlm ? budget / m_options.blockSize * m_options.blockSize : budget;
}

void ReplicaEngine::release(Sequence& sequence)
{
    m_blocks.release(sequence.heldBlocks);
    sequence.heldBlocks = 0;
    m_reservedBlocks -= sequence.reservedBlocks;
    sequence.reservedBlocks = 0;
}

void ReplicaEngine::preempt(Sequence sequence)
{
    if (m_options.preemption == Preemption::Swap) {
        swapOut(sequence);
        return;
    }
    release(sequence);
    sequence.kvTokens = 0; // recomputed here from its prompt and outputs when it runs again
    sequence.transferredTokens = 0;
    ++m_trace.requests[static_cast<size_t>(sequence.id)].preemptions;
    ++m_trace.preemptions;
    m_waiting.push_front(sequence);
}

bool ReplicaEngine::decoding(const Sequence& sequence) const
{
    return sequence.generated > 0 && known(sequence) - sequence.kvTokens == 1;
}

/// Schedules the running requests of @p phase; returns whether one was preempted.
bool ReplicaEngine::scheduleRunning(
    std::int64_t& budget, std::vector<std::size_t>& scheduled, std::vector<std::int64_t>& tokens, Phase phase)
{
    bool preempted = false;
    for (std::size_t i = 0; i < m_running.size() && budget > 0;) {
        const bool wanted = phase == Phase::Any || (phase == Phase::Decode) == decoding(m_running[i]);
        const std::int64_t count = wanted ? nextTokens(m_running[i], budget) : 0;
        if (count == 0) {
            ++i;
            continue;
        }
        // A draining request's discarded token needs no block of its own.
        const std::int64_t extra = m_running[i].draining ? 0 : m_blocks.extraBlocks(m_running[i].kvTokens, count);
        bool self = false;
        while (!m_blocks.allocate(extra)) {
            if (evictCachedPrefix(-1)) {
                continue; // cached prefixes no one reads go before any request is preempted
            }
            const bool victimIsThis = m_running.size() - 1 == i; // the lowest priority: the last admitted
            Sequence victim = m_running.back();
            m_running.pop_back();
            if (victim.draining) {
                release(victim); // finished: it frees its blocks instead of starting over
            } else {
                preempt(victim);
                preempted = true;
            }
            if (victimIsThis) {
                self = true;
                break;
            }
        }
        if (self) {
            break;
        }
        m_running[i].heldBlocks += extra;
        scheduled.push_back(i);
        tokens.push_back(count);
        budget -= count;
        ++i;
    }
    if (preempted && m_policy == CapacityPolicy::NewTokenRatio) {
        m_newTokenRatio = retractedRatio();
    }
    return preempted;
}

ReplicaEngine::InputBudget ReplicaEngine::inputBudget(
    const std::vector<std::size_t>& scheduled, const std::vector<std::int64_t>& tokens) const
{
    InputBudget input;
    input.limited = m_options.maxPrefillTokens > 0;
    if (!input.limited) {
        return input; // vLLM and TensorRT-LLM: nothing to count
    }
    input.remaining = m_options.maxPrefillTokens;
    // PrefillAdder starts from max_prefill_tokens less the decodes mixed into the batch and charges the unfinished
    // chunk it continues; that chunk is a prompt in the batch (can_run_list), the decodes are not.
    for (std::size_t k = 0; k < scheduled.size(); ++k) {
        input.remaining -= tokens[k];
        input.prefillAdmitted = input.prefillAdmitted || !decoding(m_running[scheduled[k]]);
    }
    return input;
}

void ReplicaEngine::scheduleWaiting(
    std::int64_t& budget, InputBudget input, std::vector<std::size_t>& scheduled, std::vector<std::int64_t>& tokens)
{
    const bool noEvict = m_policy == CapacityPolicy::GuaranteedNoEvict;
    const bool ratio = m_policy == CapacityPolicy::NewTokenRatio;
    const std::int64_t reserve = admissionReserve();
    double room = ratio ? sglangRoom() : 0.0;
    while (!m_waiting.empty() && budget > 0 && static_cast<int>(m_running.size()) < m_options.maxNumSeqs) {
        Sequence& sequence = m_waiting.front();
        if (sequence.queuedSeconds > m_visibleUntil) {
            break; // it arrived after the overlap scheduler composed this batch
        }
        if (sequence.kvTokens == 0) {
            sequence.kvTokens = cachedTokens(sequence); // a cached prefix is not computed again
        }
        const int prefixId = m_specs[static_cast<size_t>(sequence.id)].prefixId;
        // No eviction: the request's whole run must fit beside what the running ones will still take, in arrival
        // order (TensorRT-LLM's GuaranteedNoEvictScheduler), once cached prefixes nobody reads have made room. Alone
        // it starts: the constructor checked that it fits.
        const std::int64_t reservation = noEvict ? blocksAtEnd(sequence) : 0;
        const auto overReserved
            = [&] { return m_reservedBlocks + reservation + m_prefixCache.blocks() > m_blocks.totalBlocks(); };
        if (noEvict && !m_running.empty()) {
            bool fits = !overReserved();
            while (!fits && evictCachedPrefix(prefixId)) {
                fits = !overReserved();
            }
            if (!fits) {
                break;
            }
        }
        // SGLang: what it computes (its extend tokens) and its output up to the clip must fit the pass's room; alone it
        // starts (the constructor checked that it fits the cache).
        const std::int64_t extend = known(sequence) - sequence.kvTokens;
        const std::int64_t output
            = std::min(m_specs[static_cast<size_t>(sequence.id)].outputTokens - sequence.generated, kSglangClipTokens);
        if (ratio && !m_running.empty() && static_cast<double>(extend + output) >= room) {
            break;
        }
        // SGLang (up to 0.5.x): a prompt that does not fit what is left of max_prefill_tokens waits for the next pass,
        // unless the batch has no prompt yet; it is not chunked to fit (add_one_req returns OTHER).
        if (input.limited && input.prefillAdmitted && extend >= input.remaining) {
            break;
        }
        const std::int64_t count = nextTokens(sequence, budget);
        const std::int64_t extra = m_blocks.extraBlocks(sequence.kvTokens, count)
            + (sequence.transferredTokens > 0 ? m_blocks.blocksFor(sequence.transferredTokens) : 0);
        bool allocated = count > 0 && m_blocks.allocate(extra, reserve);
        while (count > 0 && !allocated && evictCachedPrefix(prefixId)) {
            allocated = m_blocks.allocate(extra, reserve);
        }
        // Alone, a request whose own cached prefix leaves too few blocks for the rest of its prompt (and the
        // watermark) would wait for ever: nothing running will free any. It gives the prefix up and computes it
        // (evictCachedPrefix starts its waiting requests over), as it fits from scratch (the constructor checked).
        if (!allocated && m_running.empty() && sequence.kvTokens > 0 && sequence.generated == 0
            && evictCachedPrefix(-1)) {
            continue;
        }
        if (!allocated) {
            break;
        }
        m_prefixCache.touch(prefixId, m_now);
        sequence.reservedBlocks = reservation;
        m_reservedBlocks += reservation;
        // A chunked prompt holds back only its chunk in this pass (PrefillAdder: _update_prefill_budget(..., 0)).
        room -= static_cast<double>(count + (count == extend ? output : 0));
        if (sequence.generated == 0 && m_trace.requests[static_cast<size_t>(sequence.id)].preemptions == 0) {
            m_trace.cachedPromptTokens += sequence.kvTokens;
        }
        sequence.heldBlocks = extra;
        sequence.transferredTokens = 0;
        m_running.push_back(sequence);
        m_waiting.pop_front();
        scheduled.push_back(m_running.size() - 1);
        tokens.push_back(count);
        budget -= count;
        input.remaining -= count;
        input.prefillAdmitted = true;
    }
}

bool ReplicaEngine::leaves(const Sequence& sequence) const
{
    const std::int64_t output = m_specs[static_cast<size_t>(sequence.id)].outputTokens;
    return sequence.generated == output || (m_role == ReplicaRole::PrefillOnly && sequence.generated == 1);
}

void ReplicaEngine::schedule(std::vector<std::size_t>& scheduled, std::vector<std::int64_t>& tokens)
{
    std::int64_t budget = m_options.maxNumBatchedTokens;
    if (batchingOf(m_options) == Batching::Mixed || m_role != ReplicaRole::Unified) {
        // TensorRT-LLM: every running decode's token first, then the prompts (unfinished chunks, then new ones) first
        // come first served in what is left (MicroBatchScheduler::operator() defers the contexts it meets to the
        // chunking pass after its loop over the active requests).
        if (m_options.profile == EngineProfile::TrtLlm) {
            if (!scheduleRunning(budget, scheduled, tokens, Phase::Decode)
                && !scheduleRunning(budget, scheduled, tokens, Phase::Prefill)) {
                scheduleWaiting(budget, inputBudget(scheduled, tokens), scheduled, tokens);
            }
            return;
        }
        // vLLM V1: one mixed batch, the running requests (decodes, unfinished chunks) first, in admission order, then
        // waiting ones if none was preempted. Swapping (vLLM V0's chunked-prefill scheduler): swapped-out requests
        // resume between the two if none was, and waiting ones start in any case.
        const bool preempted = scheduleRunning(budget, scheduled, tokens, Phase::Any);
        if (!preempted) {
            scheduleSwapped(budget, scheduled, tokens);
        }
        if (!preempted || m_options.preemption == Preemption::Swap) {
            scheduleWaiting(budget, inputBudget(scheduled, tokens), scheduled, tokens);
        }
        return;
    }
    // Prefill first (SGLang's): a prefill batch (the unfinished chunk, then new prompts) runs alone whenever one can
    // be formed; the running requests decode together only when none can (Scheduler.get_next_batch_to_run, mixed
    // chunks off).
    if (!scheduleRunning(budget, scheduled, tokens, Phase::Prefill)) {
        scheduleWaiting(budget, inputBudget(scheduled, tokens), scheduled, tokens);
    }
    if (scheduled.empty()) {
        // Bounded by requests, not tokens: each request's verification computes 1 + its drafts.
        std::int64_t decodes
            = static_cast<std::int64_t>(m_options.maxNumSeqs) * (1 + m_options.speculative.draftTokens);
        scheduleRunning(decodes, scheduled, tokens, Phase::Decode);
    }
}

double ReplicaEngine::iterationSeconds(double gpuSeconds, std::size_t sequences)
{
    const HostCost& host = m_options.host;
    const double hostSeconds = host.perIterationSeconds + host.perRequestSeconds * static_cast<double>(sequences);
    // Overlapped, the CPU prepared this iteration while the GPU ran the previous one, if the GPU ran one right before:
    // only the CPU time beyond that iteration's GPU time is exposed. After an idle gap it is exposed in full.
    const bool backToBack = m_previousGpuSeconds > 0 && m_now == m_previousEnd;
    // An overlap scheduler exists to do exactly that: its batch is composed while the GPU runs the one before.
    const bool overlapped = host.overlapped || m_overlap;
    const double exposedHost
        = overlapped && backToBack ? std::max(0.0, hostSeconds - m_previousGpuSeconds) : hostSeconds;
    const double total = exposedHost + gpuSeconds;
    m_previousGpuSeconds = gpuSeconds;
    m_previousEnd = m_now + total; // the caller adds the same total to m_now, so the next test compares equal bits
    return total;
}

void ReplicaEngine::iterate(const Listener& listener)
{
    std::vector<std::size_t> scheduled;
    std::vector<std::int64_t> tokens;
    // An overlap scheduler composed this batch when the previous iteration started, if that one ran right before; it
    // sees later arrivals only now, when nothing else is left to run.
    const bool backToBack = m_previousStart >= 0 && m_now == m_previousEnd;
    m_visibleUntil = m_overlap && backToBack ? m_previousStart : m_now;
    schedule(scheduled, tokens);
    if (scheduled.empty() && m_visibleUntil < m_now) {
        m_visibleUntil = m_now;
        schedule(scheduled, tokens);
    }
    if (scheduled.empty()) {
        throw std::logic_error("serving: an iteration with nothing to compute");
    }
    m_previousStart = m_now;
    std::vector<SequenceWork> batch;
    std::int64_t batched = 0;
    for (std::size_t i = 0; i < scheduled.size(); ++i) {
        const Sequence& sequence = m_running[scheduled[i]];
        const std::int64_t drafts = tokens[i] > 1 && decoding(sequence) ? tokens[i] - 1 : 0;
        batch.push_back(
            { tokens[i], sequence.kvTokens, sequence.kvTokens + tokens[i] - drafts == known(sequence), drafts });
        batched += tokens[i];
    }
    m_now += iterationSeconds(m_cost.seconds(batch) + takeSwapSeconds(), scheduled.size());
    // SGLang lowers its estimate after every decode step (update_running_batch) down to its floor.
    if (m_policy == CapacityPolicy::NewTokenRatio
        && std::any_of(
            scheduled.begin(), scheduled.end(), [this](std::size_t index) { return decoding(m_running[index]); })) {
        m_newTokenRatio = std::max(kSglangMinRatio, m_newTokenRatio - kSglangRatioDecay);
    }
    // Requests that finished in the iteration before ran their discarded step in this one (or were left out of it):
    // they leave now.
    std::vector<std::size_t> left;
    for (std::size_t i = 0; i < m_running.size(); ++i) {
        if (m_running[i].draining) {
            release(m_running[i]);
            left.push_back(i);
        }
    }
    for (std::size_t i = 0; i < scheduled.size(); ++i) {
        Sequence& sequence = m_running[scheduled[i]];
        if (sequence.draining) {
            continue;
        }
        // A verification keeps the drafts before the first rejected one and the token sampled after them; the
        // rejected drafts' KV slots are freed.
        std::int64_t kept = 0;
        if (batch[i].drafts > 0) {
            kept = m_acceptance.accepted(batch[i].drafts);
            const std::int64_t freed = m_blocks.extraBlocks(sequence.kvTokens + 1 + kept, batch[i].drafts - kept);
            m_blocks.release(freed);
            sequence.heldBlocks -= freed;
        }
        sequence.kvTokens += tokens[i] - batch[i].drafts + kept;
        cachePrefix(sequence);
        if (!batch[i].samples) {
            continue;
        }
        RequestRecord& record = m_trace.requests[static_cast<size_t>(sequence.id)];
        sequence.generated += 1 + kept;
        ReplicaEvent event { sequence.id, sequence.generated == 1, false };
        if (event.firstToken) {
            record.firstTokenSeconds = m_now;
        }
        if (leaves(sequence)) {
            event.finished = sequence.generated == record.outputTokens;
            if (event.finished) {
                record.finishSeconds = m_now;
            }
            // With an overlap scheduler the next batch, composed before this token was seen, already holds it.
            if (m_overlap && m_role != ReplicaRole::PrefillOnly) {
                sequence.draining = true;
            } else {
                release(sequence);
                left.push_back(scheduled[i]);
            }
        }
        if (event.firstToken || event.finished) {
            listener(event);
        }
    }
    std::sort(left.rbegin(), left.rend());
    for (const std::size_t index : left) {
        m_running.erase(m_running.begin() + static_cast<std::ptrdiff_t>(index));
    }
    if (m_occupancy) {
        // A draining request has left for its client; its blocks still count as used.
        const auto running = std::count_if(
            m_running.begin(), m_running.end(), [](const Sequence& sequence) { return !sequence.draining; });
        m_occupancy->push_back({ m_now, m_blocks.totalBlocks() - m_blocks.freeBlocks(), static_cast<int>(running),
            static_cast<int>(m_waiting.size()), static_cast<int>(m_swapped.size()), batched, m_trace.preemptions });
    }
}

} // namespace rapid::serving
