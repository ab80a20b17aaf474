// SPDX-License-Identifier: GPL-3.0-or-later
#include "collectivecost.h"

#include <cmath>
#include <limits>

namespace rapid::network {

namespace {

bool isPowerOfTwo(int value)
{
    return value > 0 && (value & (value - 1)) == 0;
}

int ceilLog2(int value)
{
    int steps = 0;
    while ((1 << steps) < value) {
        ++steps;
    }
    return steps;
}

/// Keeps the fastest candidate, or the forced one as soon as it is offered.
class Choice {
public:
    explicit Choice(std::optional<CollectiveAlgorithm> forced)
        : m_forced(forced)
    {
    }
    void offer(CollectiveAlgorithm algorithm, double seconds, const std::string* bottleneck)
    {
        if (m_lockedToForced) {
            return;
        }
        if (m_forced && *m_forced == algorithm) {
            m_best = { seconds, algorithm, bottleneck };
            m_lockedToForced = true;
            return;
        }
        if (seconds < m_best.seconds) {
            m_best = { seconds, algorithm, bottleneck };
        }
    }
    PhaseEstimate result() const { return m_best; }

private:
    std::optional<CollectiveAlgorithm> m_forced;
    bool m_lockedToForced = false;
    PhaseEstimate m_best { std::numeric_limits<double>::infinity(), CollectiveAlgorithm::Ring, nullptr };
};

double fraction(const AxisCost& cost)
{
    return (cost.members - 1.0) / cost.members;
}

} // namespace

PhaseEstimate reduceScatterPhase(
    const AxisCost& cost, double bytes, std::optional<CollectiveAlgorithm> forced, CollectiveLibrary library)
{
    const bool custom = library == CollectiveLibrary::Custom;
    const int q = cost.members;
    if (q <= 1) {
        return { 0, CollectiveAlgorithm::Direct, nullptr };
    }
    Choice choice(forced);
    choice.offer(CollectiveAlgorithm::Ring, cost.ringStepsTime(q - 1, bytes / q), cost.reductionRingBottleneck());
    if (custom && cost.directReductions) {
        choice.offer(CollectiveAlgorithm::Direct, fraction(cost) * bytes / cost.directBandwidth + cost.directLatency,
            &cost.directBottleneck);
    }
    if (custom && cost.halvingDoubling && isPowerOfTwo(q)) {
        choice.offer(CollectiveAlgorithm::HalvingDoubling,
            fraction(cost) * bytes / cost.pairBandwidth + cost.effectivePairStepsLatency(), &cost.directBottleneck);
    }
    return choice.result();
}

PhaseEstimate allReducePhase(
    const AxisCost& cost, double bytes, std::optional<CollectiveAlgorithm> forced, CollectiveLibrary library)
{
    const bool custom = library == CollectiveLibrary::Custom;
    const int q = cost.members;
    if (q <= 1) {
        return { 0, CollectiveAlgorithm::Direct, nullptr };
    }
    Choice choice(forced);
    choice.offer(CollectiveAlgorithm::Ring, cost.ringStepsTime(2 * (q - 1), bytes / q), cost.reductionRingBottleneck());
    if (custom && cost.directReductions) {
        choice.offer(CollectiveAlgorithm::Direct,
            2 * (fraction(cost) * bytes / cost.directBandwidth + cost.directLatency), &cost.directBottleneck);
    }
    if (custom && cost.halvingDoubling && isPowerOfTwo(q)) {
        choice.offer(CollectiveAlgorithm::HalvingDoubling,
            2 * (fraction(cost) * bytes / cost.pairBandwidth + cost.effectivePairStepsLatency()),
            &cost.directBottleneck);
    }
    if (cost.tree) {
        choice.offer(CollectiveAlgorithm::Tree, 2 * bytes / cost.pairBandwidth + 2 * ceilLog2(q) * cost.pairLatency,
            &cost.directBottleneck);
    }
    if (cost.inNetworkAllReduceBandwidth > 0) {
        // Every member pushes its buffer through its port once and the switch returns the sum (a load-reduce and a
        // multicast store, each crossing the switch: two passes of the direct latency).
        choice.offer(CollectiveAlgorithm::InNetwork, bytes / cost.inNetworkAllReduceBandwidth + 2 * cost.directLatency,
            &cost.directBottleneck);
    }
    return choice.result();
}

PhaseEstimate broadcastPhase(const AxisCost& cost, double bytes, std::optional<CollectiveAlgorithm> forced)
{
    const int q = cost.members;
    if (q <= 1) {
        return { 0, CollectiveAlgorithm::Direct, nullptr };
    }
    Choice choice(forced);
    choice.offer(
        CollectiveAlgorithm::Ring, bytes / cost.ringBandwidth + cost.effectiveChainLatency(), &cost.ringBottleneck);
    choice.offer(CollectiveAlgorithm::Tree, ceilLog2(q) * bytes / cost.pairBandwidth + cost.effectivePairStepsLatency(),
        &cost.directBottleneck);
    return choice.result();
}

PhaseEstimate allToAllPhase(const AxisCost& cost, double bytes)
{
    if (cost.members <= 1) {
        return { 0, CollectiveAlgorithm::Direct, nullptr };
    }
    return { fraction(cost) * bytes / cost.directBandwidth + cost.directLatency, CollectiveAlgorithm::Direct,
        &cost.directBottleneck };
}

} // namespace rapid::network
