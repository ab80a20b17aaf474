// SPDX-License-Identifier: GPL-3.0-or-later
// The continuous-batching loop: arrivals, the scheduler's choice per iteration, the paged KV cache, preemption by
// recomputation, and the bookkeeping of first and last tokens. The GPU time of an iteration comes from IterationCost.
#include "servingengine.h"

#include "kvblockmanager.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <random>
#include <stdexcept>
#include <string>

namespace rapid::serving {

namespace {

/// A request's progress: the tokens it knows (prompt and outputs so far) and how many of them its KV cache holds.
struct Sequence {
    std::int64_t kvTokens = 0;
    std::int64_t generated = 0;
    std::int64_t heldBlocks = 0;
};

/// The requests to issue, in order: their specs, and for open loops their arrival times.
std::vector<RequestSpec> requestsOf(const WorkloadSpec& workload)
{
    if (workload.arrival == ArrivalKind::Trace) {
        return workload.trace;
    }
    std::vector<RequestSpec> requests(static_cast<size_t>(std::max(0, workload.requests)),
        RequestSpec { 0, workload.promptTokens, workload.outputTokens, workload.sharedPrefixTokens > 0 ? 0 : -1 });
    if (workload.arrival == ArrivalKind::Poisson) {
        std::mt19937_64 random(workload.seed);
        std::exponential_distribution<double> gap(workload.ratePerSecond);
        double now = 0;
        for (RequestSpec& request : requests) {
            now += gap(random);
            request.arrivalSeconds = now;
        }
    }
    return requests;
}

class Engine {
public:
    Engine(const WorkloadSpec& workload, const EngineOptions& options, IterationCost& cost)
        : m_workload(workload)
        , m_options(options)
        , m_cost(cost)
        , m_specs(requestsOf(workload))
        , m_blocks(options.kvBlocks, options.blockSize)
        , m_sequences(m_specs.size())
    {
        for (const RequestSpec& spec : m_specs) {
            const std::int64_t blocks = m_blocks.blocksFor(spec.promptTokens + spec.outputTokens);
            if (blocks > m_blocks.totalBlocks()) {
                throw std::invalid_argument("a request of " + std::to_string(spec.promptTokens) + " + "
                    + std::to_string(spec.outputTokens) + " tokens needs " + std::to_string(blocks)
                    + " KV-cache blocks; the cache holds " + std::to_string(m_blocks.totalBlocks()));
            }
        }
        m_trace.kvBlocks = m_blocks.totalBlocks();
        m_trace.warmupRequests = std::clamp(workload.warmupRequests, 0, static_cast<int>(m_specs.size()));
    }

    ServingTrace run()
    {
        const bool closed = m_workload.arrival == ArrivalKind::ClosedLoop;
        std::size_t finished = 0;
        while (finished < m_specs.size()) {
            if (closed) {
                startDueClients();
            } else {
                while (m_issued < m_specs.size() && m_specs[m_issued].arrivalSeconds <= m_now) {
                    issueNext(m_specs[m_issued].arrivalSeconds);
                }
            }
            if (m_running.empty() && m_waiting.empty()) {
                m_now = std::max(m_now, closed ? clientStart(m_clientsStarted) : m_specs[m_issued].arrivalSeconds);
                continue; // idle until the next arrival
            }
            finished += iterate(closed);
        }
        m_trace.makespanSeconds = m_now;
        return std::move(m_trace);
    }

private:
    void issueNext(double at)
    {
        if (m_issued >= m_specs.size()) {
            return;
        }
        const RequestSpec& spec = m_specs[m_issued];
        m_trace.requests.push_back({ static_cast<int>(m_issued), at, spec.promptTokens, spec.outputTokens, 0, 0, 0 });
        m_waiting.push_back(static_cast<int>(m_issued));
        ++m_issued;
    }

    /// Issues the first request of every closed-loop client whose start time has come, in start order.
    void startDueClients()
    {
        while (m_clientsStarted < m_workload.concurrency && clientStart(m_clientsStarted) <= m_now) {
            issueNext(clientStart(m_clientsStarted++));
        }
    }

    /// When closed-loop client @p client sends its first request: spread over the ramp, all at 0 without one.
    double clientStart(int client) const
    {
        return m_workload.rampSeconds * static_cast<double>(client) / static_cast<double>(m_workload.concurrency);
    }

    std::int64_t known(int id) const
    {
        return m_specs[static_cast<size_t>(id)].promptTokens + m_sequences[static_cast<size_t>(id)].generated;
    }

    /// Prompt tokens of @p id the prefix cache holds: its shared prefix in whole blocks, once another request has
    /// computed it, and never the last prompt token (vLLM computes it to sample from); 0 without a cached prefix.
    std::int64_t cachedTokens(int id) const
    {
        const RequestSpec& spec = m_specs[static_cast<size_t>(id)];
        if (!m_options.prefixCaching || spec.prefixId < 0 || !m_cachedPrefixBlocks.contains(spec.prefixId)) {
            return 0;
        }
        return prefixBlocks(spec) * m_blocks.blockSize();
    }

    /// Whole blocks of @p spec's shared prefix (short of its last prompt token).
    std::int64_t prefixBlocks(const RequestSpec& spec) const
    {
        const std::int64_t shared = std::min(m_workload.sharedPrefixTokens, spec.promptTokens - 1);
        return shared > 0 ? shared / m_blocks.blockSize() : 0;
    }

    /// Once @p id has computed its shared prefix, the cache keeps those blocks (taken from the request's own).
    void cachePrefix(int id)
    {
        const RequestSpec& spec = m_specs[static_cast<size_t>(id)];
        Sequence& sequence = m_sequences[static_cast<size_t>(id)];
        const std::int64_t blocks = prefixBlocks(spec);
        if (!m_options.prefixCaching || spec.prefixId < 0 || blocks == 0 || m_cachedPrefixBlocks.contains(spec.prefixId)
            || sequence.kvTokens < blocks * m_blocks.blockSize()) {
            return;
        }
        m_cachedPrefixBlocks[spec.prefixId] = blocks;
        sequence.heldBlocks -= blocks;
    }

    /// Tokens @p id computes next within @p budget (0: none fit).
    std::int64_t nextTokens(int id, std::int64_t budget) const
    {
        const std::int64_t remaining = known(id) - m_sequences[static_cast<size_t>(id)].kvTokens;
        if (remaining <= budget) {
            return remaining;
        }
        return m_options.chunkedPrefill ? budget : 0;
    }

    void preempt(int id)
    {
        Sequence& sequence = m_sequences[static_cast<size_t>(id)];
        m_blocks.release(sequence.heldBlocks);
        sequence.heldBlocks = 0;
        sequence.kvTokens = 0; // recomputed from its prompt and outputs when it runs again
        ++m_trace.requests[static_cast<size_t>(id)].preemptions;
        ++m_trace.preemptions;
        m_waiting.push_front(id);
    }

    /// Schedules the running requests; returns whether one was preempted.
    bool scheduleRunning(std::int64_t& budget, std::vector<int>& scheduled, std::vector<std::int64_t>& tokens)
    {
        bool preempted = false;
        for (std::size_t i = 0; i < m_running.size() && budget > 0;) {
            const int id = m_running[i];
            const std::int64_t count = nextTokens(id, budget);
            if (count == 0) {
                ++i;
                continue;
            }
            Sequence& sequence = m_sequences[static_cast<size_t>(id)];
            const std::int64_t extra = m_blocks.extraBlocks(sequence.kvTokens, count);
            bool self = false;
            while (!m_blocks.allocate(extra)) {
                const int victim = m_running.back(); // the lowest priority: the last admitted
                m_running.pop_back();
                preempt(victim);
                preempted = true;
                if (victim == id) {
                    self = true;
                    break;
                }
            }
            if (self) {
                break;
            }
            sequence.heldBlocks += extra;
            scheduled.push_back(id);
            tokens.push_back(count);
            budget -= count;
            ++i;
        }
        return preempted;
    }

    void scheduleWaiting(std::int64_t& budget, std::vector<int>& scheduled, std::vector<std::int64_t>& tokens)
    {
        const auto reserve = static_cast<std::int64_t>(std::floor(m_options.watermark * m_blocks.totalBlocks()));
        while (!m_waiting.empty() && budget > 0 && static_cast<int>(m_running.size()) < m_options.maxNumSeqs) {
            const int id = m_waiting.front();
            Sequence& sequence = m_sequences[static_cast<size_t>(id)];
            const bool fresh = sequence.kvTokens == 0;
            if (fresh) {
                sequence.kvTokens = cachedTokens(id); // a cached prefix is not computed again
            }
            const std::int64_t count = nextTokens(id, budget);
            const std::int64_t extra = m_blocks.extraBlocks(sequence.kvTokens, count);
            if (count == 0 || !m_blocks.allocate(extra, reserve)) {
                break;
            }
            if (sequence.generated == 0 && m_trace.requests[static_cast<size_t>(id)].preemptions == 0) {
                m_trace.cachedPromptTokens += sequence.kvTokens;
            }
            m_waiting.pop_front();
            sequence.heldBlocks = extra;
            m_running.push_back(id);
            scheduled.push_back(id);
            tokens.push_back(count);
            budget -= count;
        }
    }

    /// One iteration; returns the requests it finished.
    std::size_t iterate(bool closed)
    {
        std::int64_t budget = m_options.maxNumBatchedTokens;
        std::vector<int> scheduled;
        std::vector<std::int64_t> tokens;
        if (!scheduleRunning(budget, scheduled, tokens)) {
            scheduleWaiting(budget, scheduled, tokens);
        }
        if (scheduled.empty()) {
            throw std::logic_error("serving: an iteration with nothing to compute");
        }
        std::vector<SequenceWork> batch;
        std::int64_t batched = 0;
        for (std::size_t i = 0; i < scheduled.size(); ++i) {
            const Sequence& sequence = m_sequences[static_cast<size_t>(scheduled[i])];
            batch.push_back({ tokens[i], sequence.kvTokens, sequence.kvTokens + tokens[i] == known(scheduled[i]) });
            batched += tokens[i];
        }
        m_now += m_cost.seconds(batch) + m_options.hostOverheadSeconds;
        std::size_t finished = 0;
        for (std::size_t i = 0; i < scheduled.size(); ++i) {
            const int id = scheduled[i];
            Sequence& sequence = m_sequences[static_cast<size_t>(id)];
            sequence.kvTokens += tokens[i];
            cachePrefix(id);
            if (!batch[i].samples) {
                continue;
            }
            RequestRecord& record = m_trace.requests[static_cast<size_t>(id)];
            if (++sequence.generated == 1) {
                record.firstTokenSeconds = m_now;
            }
            if (sequence.generated == record.outputTokens) {
                record.finishSeconds = m_now;
                m_blocks.release(sequence.heldBlocks);
                sequence.heldBlocks = 0;
                m_running.erase(std::find(m_running.begin(), m_running.end(), id));
                ++finished;
                if (closed) {
                    startDueClients(); // clients that started during this iteration arrived before this follow-up
                    issueNext(m_now); // its client sends the next request at once
                }
            }
        }
        m_trace.iterations.push_back({ m_now, m_blocks.totalBlocks() - m_blocks.freeBlocks(),
            static_cast<int>(m_running.size()), static_cast<int>(m_waiting.size()), batched });
        return finished;
    }

    const WorkloadSpec& m_workload;
    const EngineOptions& m_options;
    IterationCost& m_cost;
    std::vector<RequestSpec> m_specs;
    KvBlockManager m_blocks;
    std::vector<Sequence> m_sequences;
    std::deque<int> m_waiting;
    std::vector<int> m_running;
    std::map<int, std::int64_t> m_cachedPrefixBlocks; ///< prefix id -> blocks the cache holds (never evicted)
    std::size_t m_issued = 0;
    int m_clientsStarted = 0; ///< closed loop: clients that sent their first request
    double m_now = 0;
    ServingTrace m_trace;
};

} // namespace

ServingTrace simulateServing(const WorkloadSpec& workload, const EngineOptions& options, IterationCost& cost)
{
    if (options.maxNumSeqs < 1 || options.maxNumBatchedTokens < 1 || options.blockSize < 1 || options.kvBlocks < 1) {
        throw std::invalid_argument("the engine needs max_num_seqs, max_num_batched_tokens, block_size and the KV "
                                    "blocks set (engineDefaults and kvCapacity give them)");
    }
    Engine engine(workload, options, cost);
    return engine.run();
}

} // namespace rapid::serving
