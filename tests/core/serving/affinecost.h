// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Helpers of the serving tests: an iteration cost a + b x tokens, whose closed forms the tests derive by hand, and a
// closed-loop workload.

#include "serving/iterationcost.h"
#include "serving/servingspec.h"

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

} // namespace rapid::test
