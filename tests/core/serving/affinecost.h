// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Helpers of the serving tests: an iteration cost a + b x tokens, whose closed forms the tests derive by hand, a
// closed-loop workload, an engine of a given cache and a relative comparison.

#include "serving/iterationcost.h"
#include "serving/servingspec.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace rapid::test {

/// a + b x (tokens computed): a fixed per-iteration cost and a per-token one.
class AffineCost final : public serving::IterationCost {
public:
    AffineCost(double a, double b)
        : m_a(a)
        , m_b(b)
    {
    }
    double seconds(const std::vector<serving::SequenceWork>& batch) override
    {
        double tokens = 0;
        for (const serving::SequenceWork& work : batch) {
            tokens += static_cast<double>(work.newTokens);
        }
        return m_a + m_b * tokens;
    }

private:
    double m_a;
    double m_b;
};

/// @p concurrency clients sending @p requests requests of @p prompt + @p output tokens.
inline serving::WorkloadSpec closedLoop(int concurrency, int requests, std::int64_t prompt, std::int64_t output)
{
    serving::WorkloadSpec workload;
    workload.arrival = serving::ArrivalKind::ClosedLoop;
    workload.concurrency = concurrency;
    workload.requests = requests;
    workload.promptTokens = prompt;
    workload.outputTokens = output;
    return workload;
}

/// vLLM's scheduler with room for 256 sequences and 8,192 tokens per iteration and a KV cache of @p blocks blocks of
/// 16 tokens, no watermark.
inline serving::EngineOptions withBlocks(std::int64_t blocks)
{
    serving::EngineOptions options;
    options.maxNumSeqs = 256;
    options.maxNumBatchedTokens = 8192;
    options.blockSize = 16;
    options.kvBlocks = blocks;
    options.watermark = 0;
    return options;
}

/// Whether @p actual is within @p relative of @p expected.
inline bool near(double actual, double expected, double relative)
{
    return std::abs(actual - expected) <= relative * std::abs(expected);
}

} // namespace rapid::test
