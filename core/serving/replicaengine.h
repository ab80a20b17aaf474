// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "iterationcost.h"
#include "kvblockmanager.h"
#include "prefixcache.h"
#include "servingengine.h"
#include "servingspec.h"
#include "speculation.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <set>
#include <vector>

namespace rapid::serving {

/// What a replica does with the requests it is given.
enum class ReplicaRole {
    Unified, ///< prefill and decode on the same GPUs (an aggregated engine)
    PrefillOnly, ///< a disaggregated prefill worker: a request leaves once its first token is sampled
    DecodeOnly, ///< a disaggregated decode worker: a request arrives with its prompt's KV cache and first token
};

/// What happened to a request at the end of an iteration.
struct ReplicaEvent {
    int id = 0;
    bool firstToken = false; ///< its first output token was sampled (PrefillOnly: it has left this replica)
    bool finished = false; ///< its last output token was sampled (it has left this replica)
};

/// The continuous-batching scheduler of one replica (vLLM V1's; the batching, iteration order and admission of SGLang
/// and TensorRT-LLM for their profiles, or as stated: EngineOptions::batching, EngineOptions::capacityPolicy; see
/// simulateServing in servingengine.h): its waiting queue, running batch, paged KV cache and clock. The requests' specs
/// and their records (trace.requests, by id) are the caller's; the caller submits requests, steps the replica and hears
/// of first and last tokens through the listener, called in the batch's order at the end of the iteration that sampled
/// them (it may submit at once).
class ReplicaEngine {
public:
    using Listener = std::function<void(const ReplicaEvent&)>;

    /// Throws std::invalid_argument when a request of @p specs can never fit the KV cache (@p options.kvBlocks).
    /// @p occupancy, when given, receives one sample per iteration.
    ReplicaEngine(const std::vector<RequestSpec>& specs, std::int64_t sharedPrefixTokens, const EngineOptions& options,
        IterationCost& cost, ServingTrace& trace, ReplicaRole role, std::vector<OccupancySample>* occupancy);

    /// Queues request @p id behind the waiting ones (its record exists, its arrival time set).
    void submit(int id);
    /// Whether a request is running, waiting or swapped out.
    bool busy() const { return !m_running.empty() || !m_waiting.empty() || !m_swapped.empty(); }
    /// Requests running, waiting or swapped out (a router's load figure).
    std::size_t outstanding() const { return m_running.size() + m_waiting.size() + m_swapped.size(); }
    double now() const { return m_now; }
    /// Moves the clock to @p seconds if later (an idle replica waits for its next arrival).
    void advanceTo(double seconds);
    /// Runs one iteration from now(). Throws std::logic_error when nothing can be computed.
    void iterate(const Listener& listener);
    std::int64_t totalBlocks() const { return m_blocks.totalBlocks(); }

private:
    /// A request's progress: the tokens it knows (prompt and outputs so far) and how many its KV cache holds.
    struct Sequence {
        int id = 0;
        std::int64_t kvTokens = 0;
        std::int64_t generated = 0;
        std::int64_t heldBlocks = 0;
        /// Prompt tokens whose KV arrived from a prefill worker; their blocks are taken at admission.
        std::int64_t transferredTokens = 0;
        /// GuaranteedNoEvict: the blocks set aside at admission for its whole prompt and output.
        std::int64_t reservedBlocks = 0;
        /// When it joined this replica's queue (an overlap scheduler sees it from the next scheduling point on).
        double queuedSeconds = 0;
        /// Overlap scheduling: its last token is sampled, and it runs the discarded step already scheduled.
        bool draining = false;
    };

    std::int64_t known(const Sequence& sequence) const;
    std::int64_t cachedTokens(const Sequence& sequence) const;
    std::int64_t prefixBlocks(const RequestSpec& spec) const;
    void cachePrefix(Sequence& sequence);
    /// Blocks kept free when a waiting request is admitted: vLLM's watermark under max-utilization, else none.
    std::int64_t admissionReserve() const;
    /// Blocks request @p id takes when admitted alone: its first chunk (on a decode worker, its transferred prompt).
    std::int64_t firstAdmissionBlocks(int id) const;
    /// The prefix ids the running requests read.
    std::set<int> prefixesRead() const;
    /// Gives the least recently used cached prefix no running request reads (nor @p keep) back to the block manager;
    /// waiting requests that counted on it compute it again. Returns whether one was evicted.
    bool evictCachedPrefix(int keep);
    /// The blocks @p sequence holds when it leaves this replica (its prompt and, but on a prefill worker, its output),
    /// less a cached shared prefix it reuses: what GuaranteedNoEvict sets aside for it.
    std::int64_t blocksAtEnd(const Sequence& sequence) const;
    /// NewTokenRatio: the tokens a scheduling pass may still admit (SGLang's PrefillAdder.rem_total_tokens): the free
    /// KV cache less m_newTokenRatio of each running request's remaining output (at most kSglangClipTokens of it).
    double sglangRoom() const;
    /// NewTokenRatio after a preemption (SGLang's retract_decode): the running requests' tokens decoded, plus 20
    /// decode steps each, over their output lengths; at most 1.
    double retractedRatio() const;
    std::int64_t nextTokens(const Sequence& sequence, std::int64_t budget) const;
    /// Speculative decoding: the tokens a decoding @p sequence drafts for its next verification (none past its
    /// output, none on a prefill worker or in a discarded step).
    std::int64_t draftsFor(const Sequence& sequence) const;
    /// Frees @p sequence's blocks and reservation.
    void release(Sequence& sequence);
    void preempt(Sequence sequence);
    // Preemption::Swap (replicaswap.cpp).
    /// Copies @p sequence's KV cache to the swap space and frees its blocks; it waits in m_swapped. Throws
    /// std::invalid_argument when the swap space cannot hold it (vLLM V0 aborts).
    void swapOut(Sequence sequence);
    /// Resumes swapped-out requests, first come first served, while the token budget, max_num_seqs and the free
    /// blocks (less the watermark, but for a request that would run alone) allow.
    void scheduleSwapped(std::int64_t& budget, std::vector<std::size_t>& scheduled, std::vector<std::int64_t>& tokens);
    /// The time of the copies scheduled since the last call, before the next forward pass on its stream.
    double takeSwapSeconds();
    /// Which running requests a scheduling pass takes: all, those still computing their prompt (or recomputing it
    /// after a preemption), or those decoding one token.
    enum class Phase { Any, Prefill, Decode };
    /// Whether @p sequence has only its last sampled token to compute (it decodes).
    bool decoding(const Sequence& sequence) const;
    /// The next iteration's batch: running indices and the tokens each computes, by the profile's batching rule.
    void schedule(std::vector<std::size_t>& scheduled, std::vector<std::int64_t>& tokens);
    bool scheduleRunning(
        std::int64_t& budget, std::vector<std::size_t>& scheduled, std::vector<std::int64_t>& tokens, Phase phase);
    /// SGLang's max_prefill_tokens in one scheduling pass (PrefillAdder.rem_input_tokens): what is left of it after
    /// every token the pass has scheduled, and whether a prompt (or chunk) is in the batch yet.
    struct InputBudget {
        bool limited = false;
        std::int64_t remaining = 0;
        bool prefillAdmitted = false;
    };
    InputBudget inputBudget(const std::vector<std::size_t>& scheduled, const std::vector<std::int64_t>& tokens) const;
    void scheduleWaiting(std::int64_t& budget, InputBudget input, std::vector<std::size_t>& scheduled,
        std::vector<std::int64_t>& tokens);
    /// Whether the request has left this replica after the token it just sampled.
    bool leaves(const Sequence& sequence) const;
    /// The wall time of an iteration whose GPU part takes @p gpuSeconds for @p sequences sequences: the engine's host
    /// cost (EngineOptions::host) added, or with an overlapping engine the part of it the previous iteration's GPU
    /// time does not hide. Records this iteration for the next one.
    double iterationSeconds(double gpuSeconds, std::size_t sequences);

    const std::vector<RequestSpec>& m_specs;
    std::int64_t m_sharedPrefixTokens;
    const EngineOptions& m_options;
    IterationCost& m_cost;
    ServingTrace& m_trace;
    ReplicaRole m_role;
    std::vector<OccupancySample>* m_occupancy;
    KvBlockManager m_blocks;
    std::deque<Sequence> m_waiting;
    std::vector<Sequence> m_running;
    std::deque<Sequence> m_swapped; ///< Preemption::Swap: KV cache in host memory, by arrival
    std::int64_t m_hostBlocks = 0; ///< swap-space blocks in use
    std::int64_t m_swapOutBlocks = 0; ///< blocks to copy to the host before the next forward pass
    std::int64_t m_swapInBlocks = 0; ///< blocks to copy back before it
    PrefixCache m_prefixCache; ///< its blocks are taken from m_blocks
    CapacityPolicy m_policy; ///< resolved (capacityPolicyOf)
    double m_newTokenRatio; ///< NewTokenRatio: the share of the running requests' remaining output set aside
    std::int64_t m_reservedBlocks = 0; ///< GuaranteedNoEvict: the running requests' reservedBlocks
    double m_now = 0;
    double m_previousEnd = -1; ///< when the last iteration ended
    double m_previousGpuSeconds = 0; ///< the GPU time of the last iteration
    double m_previousStart = -1; ///< when the last iteration started
    bool m_overlap = false; ///< overlapSchedulingOf(options)
    DraftAcceptance m_acceptance; ///< speculative decoding's verification outcomes
    /// Overlap scheduling: the latest queue time a waiting request may have to join the batch being composed.
    double m_visibleUntil = 0;
};

} // namespace rapid::serving
