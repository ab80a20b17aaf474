// SPDX-License-Identifier: GPL-3.0-or-later
// The bytes-independent cost terms of an axis (AxisCost) and how a ring's hop latencies add up; the per-kind costs
// that fill them are in axismodel.cpp.
#include "axismodel.h"

#include <algorithm>

namespace rapid::network {

namespace {

int ceilLog2Members(int q)
{
    int steps = 0;
    while ((1 << steps) < q) {
        ++steps;
    }
    return steps;
}

} // namespace

void RingHopLatencies::add(double latency)
{
    if (hops == 0) {
        m_first = latency;
        minHop = maxHop = latency;
    } else {
        minHop = std::min(minHop, latency);
        maxHop = std::max(maxHop, latency);
        const double pair = m_previous + latency;
        minPair = hops == 1 ? pair : std::min(minPair, pair);
    }
    total += latency;
    m_previous = latency;
    ++hops;
}

void RingHopLatencies::close()
{
    if (hops >= 2) {
        minPair = std::min(minPair, m_previous + m_first);
    } else {
        minPair = 2 * total;
    }
}

void AxisCost::setRingHops(const RingHopLatencies& hops)
{
    if (hops.hops == 0) {
        return;
    }
    ringStepLatency = hops.total / hops.hops;
    ringMinHopLatency = hops.minHop;
    ringMinHopPairLatency = hops.minPair;
    ringMaxHopLatency = hops.maxHop;
}

double AxisCost::ringStepsLatency(int steps) const
{
    const int q = members;
    if (ringMinHopLatency < 0 || q < 2) {
        return steps * ringStepLatency;
    }
    // s consecutive hops of a ring of q: whole turns, then the s mod q consecutive hops that sum highest. Only the
    // windows ring collectives use are exact: q-1 hops (all but the least) and 2(q-1) (two turns less the least two
    // consecutive hops); other lengths take the mean hop.
    const double total = ringStepLatency * q;
    if (steps == q - 1) {
        return total - ringMinHopLatency;
    }
    if (steps == 2 * (q - 1)) {
        return 2 * total - ringMinHopPairLatency;
    }
    return steps * ringStepLatency;
}

double AxisCost::ringStepsTime(int steps, double chunkBytes) const
{
    // Two paths through the ring's data dependencies (a step's send follows the chunk received in the step before
    // and its own previous send's transmit end) bound the time from below: a chunk crossing hop after hop (each step
    // at least chunk / fastest bandwidth, plus the hops' latencies), and the slowest sender's sends back to back with
    // one hop to deliver the last (taken as the longest: the slow hop is the long one across nodes or around a
    // fault). The larger is the time; with every hop alike the first is exact, and with a slow hop the second is (the
    // fast hops' latency hides behind it). The truth lies below steps x chunk / slowest + ringStepsLatency, so the
    // error is at most the hop latencies the slow sender hides.
    const double slowest = reductionRingBandwidth();
    const double fastest = std::max(slowest, ringChannels > 1 ? channelRingFastBandwidth : ringFastBandwidth);
    const double crossing = steps * chunkBytes / fastest + ringStepsLatency(steps);
    const double backToBack
        = steps * chunkBytes / slowest + (ringMaxHopLatency >= 0 ? ringMaxHopLatency : ringStepLatency);
    return std::max(crossing, backToBack);
}

double AxisCost::effectivePairStepsLatency() const
{
    return pairStepsLatency >= 0 ? pairStepsLatency : ceilLog2Members(members) * pairLatency;
}

double AxisCost::effectiveChainLatency() const
{
    return chainLatency >= 0 ? chainLatency : (members - 1) * ringStepLatency;
}

void AxisCost::takeWorst(const AxisCost& other)
{
    pairStepsLatency = std::max(effectivePairStepsLatency(), other.effectivePairStepsLatency());
    chainLatency = std::max(effectiveChainLatency(), other.effectiveChainLatency());
    if (other.ringBandwidth < ringBandwidth) {
        ringBandwidth = other.ringBandwidth;
        ringBottleneck = other.ringBottleneck;
    }
    if (other.ringFastBandwidth > 0) {
        ringFastBandwidth
            = ringFastBandwidth > 0 ? std::min(ringFastBandwidth, other.ringFastBandwidth) : other.ringFastBandwidth;
    }
    if (other.directBandwidth < directBandwidth) {
        directBandwidth = other.directBandwidth;
        directBottleneck = other.directBottleneck;
    }
    const int q = std::max(members, other.members);
    if (other.ringStepsLatency(2 * (q - 1)) > ringStepsLatency(2 * (q - 1))) {
        ringStepLatency = other.ringStepLatency;
        ringMinHopLatency = other.ringMinHopLatency;
        ringMinHopPairLatency = other.ringMinHopPairLatency;
        ringMaxHopLatency = other.ringMaxHopLatency;
    }
    directLatency = std::max(directLatency, other.directLatency);
    pairBandwidth = std::min(pairBandwidth, other.pairBandwidth);
    pairLatency = std::max(pairLatency, other.pairLatency);
    inNetworkAllReduceBandwidth = std::min(inNetworkAllReduceBandwidth, other.inNetworkAllReduceBandwidth);
    ncclStepLatency = std::max(ncclStepLatency, other.ncclStepLatency);
}

} // namespace rapid::network
