// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <vector>

namespace rapid::serving {

/// What one sequence computes in one engine iteration: @p newTokens tokens (a prompt chunk, a recomputation after
/// preemption, or the one token of a decode step) attending to @p contextTokens tokens already in its KV cache and to
/// themselves (causal, bottom-right aligned); @p samples when the iteration ends with a sampled token for it. A
/// decoding request's speculative verification computes its last sampled token and @p drafts drafted ones (newTokens
/// = 1 + drafts), all of them queries against its KV cache.
struct SequenceWork {
    std::int64_t newTokens = 0;
    std::int64_t contextTokens = 0;
    bool samples = false;
    std::int64_t drafts = 0;
};

/// The time of one iteration of a mixed batch on one replica.
class IterationCost {
public:
    virtual ~IterationCost() = default;
    virtual double seconds(const std::vector<SequenceWork>& batch) = 0;
};

} // namespace rapid::serving
