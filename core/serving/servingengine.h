// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "iterationcost.h"
#include "servingspec.h"

#include <cstdint>
#include <vector>

namespace rapid::serving {

/// One request as served.
struct RequestRecord {
    int id = 0;
    double arrivalSeconds = 0;
    std::int64_t promptTokens = 0;
    std::int64_t outputTokens = 0;
    double firstTokenSeconds = 0; ///< when its first output token was sampled
    double finishSeconds = 0; ///< when its last output token was sampled
    int preemptions = 0; ///< times its KV cache was freed and later recomputed, or swapped to the host and back

    double ttft() const { return firstTokenSeconds - arrivalSeconds; }
    double e2e() const { return finishSeconds - arrivalSeconds; }
    /// Mean time between its output tokens (0 for a one-token output).
    double itl() const
    {
        return outputTokens > 1 ? (finishSeconds - firstTokenSeconds) / static_cast<double>(outputTokens - 1) : 0;
    }
};

/// The engine's state after an iteration.
struct OccupancySample {
    double seconds = 0;
    std::int64_t usedBlocks = 0;
    int running = 0;
    int waiting = 0; ///< waiting to start (a preempted request to be recomputed among them)
    int swapped = 0; ///< swapped out to host memory, waiting to resume (Preemption::Swap)
    std::int64_t batchedTokens = 0; ///< tokens computed in the iteration that ended here
    int preemptions = 0; ///< preemptions so far (the trace's count: a disaggregated trace's over every worker)
};

/// A whole serving simulation of one replica.
struct ServingTrace {
    std::vector<RequestRecord> requests; ///< by id (issue order)
    std::vector<OccupancySample> iterations; ///< one per engine iteration
    std::int64_t kvBlocks = 0;
    int preemptions = 0;
    int swapOuts = 0; ///< preemptions that copied the KV cache to the host (Preemption::Swap)
    double swapSeconds = 0; ///< iteration time spent copying KV blocks to and from the host
    double makespanSeconds = 0; ///< until the last request finished
    std::int64_t cachedPromptTokens = 0; ///< prompt tokens taken from the prefix cache at first admission
    int warmupRequests = 0; ///< the first requests by id, left out of the statistics (WorkloadSpec::warmupRequests)
};

/// When closed-loop client @p client of @p workload sends its first request: spread over the ramp (all at 0 without).
inline double clientStartSeconds(const WorkloadSpec& workload, int client)
{
    return workload.rampSeconds * static_cast<double>(client) / static_cast<double>(workload.concurrency);
}

/// The requests @p workload issues, in order: their lengths and prefix ids, and for open loops their arrival times
/// (closed loops set them as clients send). With a prompt pool each request takes the lengths of a pooled prompt
/// drawn at random (a stream of its own, so the pool keeps the arrival times) and that prompt's index as its prefix id.
std::vector<RequestSpec> workloadRequests(const WorkloadSpec& workload);

/// Prompt tokens the requests of one prefix id share: the workload's shared prefix, or with a prompt pool the whole
/// prompt (the engine caches at most all but a prompt's last token, in whole blocks).
std::int64_t sharedPromptTokens(const WorkloadSpec& workload);

/// Simulates a continuous-batching engine (vLLM V1's scheduler) serving @p workload on one replica whose KV cache has
/// @p options.kvBlocks blocks, each iteration timed by @p cost. Per iteration: running requests first, in order, each
/// taking its next tokens (the rest of its prompt, in chunks of the remaining token budget, or one decode token);
/// when the KV cache cannot hold a running request's new tokens the last running request is preempted (its blocks
/// freed, recomputed later from its prompt and the tokens it has produced); then, if nothing was preempted, waiting
/// requests in arrival order while the token budget, max_num_seqs and the free blocks (minus the watermark) allow.
/// With prefix caching, once one request of a prefix id has computed its shared prefix the cache holds those whole
/// blocks (pinned: vLLM would evict them last-used-first only when blocks run out), and every request of that id
/// admitted later starts after them: its prefill attends to the cached keys without recomputing them.
/// EngineProfile::Sglang batches as SGLang does: an iteration computes prompt chunks only (the unfinished one, then
/// waiting requests within the budget) whenever there are any to compute, and decodes every running request only when
/// there are none.
/// Throws std::invalid_argument when a request can never fit the KV cache.
ServingTrace simulateServing(const WorkloadSpec& workload, const EngineOptions& options, IterationCost& cost);

} // namespace rapid::serving
