// SPDX-License-Identifier: GPL-3.0-or-later
#include "collectivecost.h"

#include <algorithm>
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

/// @p steps ring steps of @p chunkBytes: under NCCL each step lasts at least its measured step
/// (AxisCost::ncclStepLatency); a serving engine's own kernels pay the path's latency.
double ringTime(const AxisCost& cost, int steps, double chunkBytes, CollectiveLibrary library)
{
    const double protocol = library == CollectiveLibrary::Nccl ? steps * cost.ncclStepExtraLatency() : 0.0;
    return cost.ringStepsTime(steps, chunkBytes) + protocol;
}

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
    choice.offer(CollectiveAlgorithm::Ring, ringTime(cost, q - 1, bytes / q, library), cost.reductionRingBottleneck());
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
    choice.offer(
        CollectiveAlgorithm::Ring, ringTime(cost, 2 * (q - 1), bytes / q, library), cost.reductionRingBottleneck());
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
        // NCCL's tree forwards through the same protocol as its ring: each of its steps lasts at least one.
        const double step = cost.pairLatency + (custom ? 0.0 : cost.ncclTreeStepExtraLatency());
        choice.offer(
            CollectiveAlgorithm::Tree, 2 * bytes / cost.pairBandwidth + 2 * ceilLog2(q) * step, &cost.directBottleneck);
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

double inNetworkPortShare(const AxisCost& cost, const PhaseEstimate& phase)
{
    return phase.algorithm == CollectiveAlgorithm::InNetwork ? cost.directBandwidth / cost.inNetworkAllReduceBandwidth
                                                             : 0.0;
}

double protocolStepSeconds(const AxisCost& cost, const PhaseEstimate& phase, CollectiveLibrary library)
{
    if (library != CollectiveLibrary::Nccl) {
        return 0;
    }
    if (phase.algorithm == CollectiveAlgorithm::Ring) {
        return cost.ncclStepExtraLatency();
    }
    if (phase.algorithm == CollectiveAlgorithm::Tree) {
        return cost.ncclTreeStepExtraLatency();
    }
    return 0;
}

} // namespace rapid::network
