// SPDX-License-Identifier: GPL-3.0-or-later
// The swap half of ReplicaEngine (Preemption::Swap, vLLM V0's --preemption-mode swap): a preempted request's KV cache
// goes to host memory and comes back when the request resumes, instead of being recomputed.
#include "replicaengine.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace rapid::serving {

void ReplicaEngine::swapOut(Sequence sequence)
{
    // Every block of what it has computed goes, a shared prefix's too: it comes back as blocks of its own, so that it
    // does not depend on the prefix cache keeping the prefix while it is away.
    const std::int64_t blocks = m_blocks.blocksFor(sequence.kvTokens);
    if (m_hostBlocks + blocks > m_options.swap.hostBlocks) {
        char text[400];
        std::snprintf(text, sizeof text,
            "the swap space is full (vLLM V0 aborts here): request %d, preempted at %.3f s, needs %lld KV blocks and "
            "%lld of the %lld the swap space holds (%.2f GiB per GPU) are taken; a larger swap space "
            "(--swap-space, serving.swap_space_GiB) or preemption by recomputation",
            sequence.id, m_now, static_cast<long long>(blocks), static_cast<long long>(m_hostBlocks),
            static_cast<long long>(m_options.swap.hostBlocks), m_options.swapSpaceBytes / (1024.0 * 1024 * 1024));
        throw std::invalid_argument(text);
    }
    release(sequence);
    m_hostBlocks += blocks;
    m_swapOutBlocks += blocks;
    ++m_trace.requests[static_cast<size_t>(sequence.id)].preemptions;
    ++m_trace.preemptions;
    ++m_trace.swapOuts;
    // First come, first served when they resume (vLLM V0 sorts the swapped queue by arrival).
    const auto arrival
        = [this](const Sequence& s) { return m_trace.requests[static_cast<size_t>(s.id)].arrivalSeconds; };
    const auto later = std::find_if(m_swapped.begin(), m_swapped.end(),
        [&](const Sequence& swapped) { return arrival(swapped) > arrival(sequence); });
    m_swapped.insert(later, sequence);
}

void ReplicaEngine::scheduleSwapped(
    std::int64_t& budget, std::vector<std::size_t>& scheduled, std::vector<std::int64_t>& tokens)
{
    while (!m_swapped.empty() && budget > 0 && static_cast<int>(m_running.size()) < m_options.maxNumSeqs) {
        Sequence& sequence = m_swapped.front();
        const std::int64_t count = nextTokens(sequence, budget);
        if (count == 0) {
            break;
        }
        const std::int64_t blocks = m_blocks.blocksFor(sequence.kvTokens);
        const std::int64_t needed = blocks + m_blocks.extraBlocks(sequence.kvTokens, count);
        // vLLM V0's can_swap_in keeps the watermark free; a request that would run alone resumes regardless, as
        // nothing running would ever free blocks for it.
        const std::int64_t reserve = m_running.empty() ? 0 : admissionReserve();
        bool allocated = m_blocks.allocate(needed, reserve);
        while (!allocated && evictCachedPrefix(-1)) {
            allocated = m_blocks.allocate(needed, reserve);
        }
        if (!allocated) {
            break;
        }
        sequence.heldBlocks = needed;
        m_hostBlocks -= blocks;
        m_swapInBlocks += blocks;
        m_running.push_back(sequence);
        m_swapped.pop_front();
        scheduled.push_back(m_running.size() - 1);
        tokens.push_back(count);
        budget -= count;
    }
}

double ReplicaEngine::takeSwapSeconds()
{
    if (m_swapOutBlocks == 0 && m_swapInBlocks == 0) {
        return 0;
    }
    // Both directions run on the stream of the forward pass, one after the other (vLLM V0's Worker.execute_worker
    // swaps in, then out, then runs the model).
    const double seconds
        = m_options.swap.seconds(m_swapInBlocks, true) + m_options.swap.seconds(m_swapOutBlocks, false);
    m_swapOutBlocks = 0;
    m_swapInBlocks = 0;
    m_trace.swapSeconds += seconds;
    return seconds;
}

} // namespace rapid::serving
