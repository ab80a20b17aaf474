// SPDX-License-Identifier: GPL-3.0-or-later
#include "flowsimulator.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <string>

namespace rapid::sim {

namespace {

/// Weights below this count as no load: progressive filling subtracts weights in floating point.
constexpr double kWeightEpsilon = 1e-9;

/// Nanoseconds to drain @p bytes at @p rate bytes/ns, rounded up so a flow never finishes early.
TimeNs drainTime(double bytes, double rate)
{
    if (bytes <= 0) {
        return 0;
    }
    const double ns = bytes / rate;
    if (!(ns <= static_cast<double>(kMaxSimulatedTime))) {
        throwBeyondTimeCeiling(ns * 1e-9, "a transfer");
    }
    // Rounding noise of the remaining-bytes bookkeeping must not add a whole nanosecond.
    const double rounded = std::round(ns);
    if (std::abs(ns - rounded) < 1e-12 * std::max(1.0, ns)) {
        return static_cast<TimeNs>(rounded);
    }
    return static_cast<TimeNs>(std::ceil(ns));
}

} // namespace

FlowSimulator::FlowSimulator(RouteCache& routes, std::unique_ptr<EventQueue> queue)
    : m_routes(routes)
    , m_queue(std::move(queue))
{
    const auto links = static_cast<size_t>(routes.linkCount());
    m_active.resize(links);
    m_linkBytes.assign(links, 0.0);
    m_linkMark.assign(links, 0);
    m_linkVersion.assign(links, 0);
    m_residual.assign(links, 0.0);
    m_weightSum.assign(links, 0.0);
}

void FlowSimulator::schedule(TimeNs time, EventKind kind, FlowId flow, std::uint32_t version)
{
    Event event;
    event.time = checkedEventTime(time);
    event.kind = kind;
    event.version = version;
    event.target = flow;
    m_queue->push(event);
}

FlowId FlowSimulator::add(const FlowSpec& spec, std::span<const FlowId> dependencies, std::span<const FlowId> afterSent)
{
    if (!(spec.bytes >= 0) || !std::isfinite(spec.bytes) || spec.delay < 0) {
        throw std::invalid_argument("a flow needs finite, non-negative bytes and delay");
    }
    if (spec.route < 0 || spec.route >= m_routes.routeCount()) {
        throw std::invalid_argument("flow route " + std::to_string(spec.route) + " does not exist");
    }
    const auto id = static_cast<FlowId>(m_flows.size());
    FlowState state;
    state.route = spec.route;
    state.tag = spec.tag;
    state.bytes = spec.bytes;
    state.remaining = spec.bytes;
    state.delay = spec.delay;
    for (FlowId dependency : dependencies) {
        if (dependency < 0 || dependency >= id) {
            throw std::invalid_argument("flow dependency " + std::to_string(dependency) + " does not exist");
        }
        FlowState& before = m_flows[static_cast<size_t>(dependency)];
        if (before.finish == kNever) {
            ++state.pendingDependencies;
            m_dependants.push_back({ id, before.firstDependant });
            before.firstDependant = static_cast<std::int32_t>(m_dependants.size() - 1);
        }
    }
    for (FlowId dependency : afterSent) {
        if (dependency < 0 || dependency >= id) {
            throw std::invalid_argument("flow dependency " + std::to_string(dependency) + " does not exist");
        }
        FlowState& before = m_flows[static_cast<size_t>(dependency)];
        if (before.sent == kNever) {
            ++state.pendingDependencies;
            m_dependants.push_back({ id, before.firstSentDependant });
            before.firstSentDependant = static_cast<std::int32_t>(m_dependants.size() - 1);
        }
    }
    m_flows.push_back(state);
    ++m_unfinished;
    if (state.pendingDependencies == 0) {
        schedule(m_now + spec.delay, Start, id);
    }
    return id;
}

void FlowSimulator::startSending(FlowId id)
{
    FlowState& flow = m_flows[static_cast<size_t>(id)];
    flow.start = m_now;
    flow.lastUpdate = m_now;
    const std::span<const LinkLoad> loads = m_routes.loads(flow.route);
    if (flow.bytes <= 0 || loads.empty()) {
        // Nothing to send, or a GPU sending to itself: only the latency (zero without links) remains.
        schedule(m_now + m_routes.compiled(flow.route).latency, Arrive, id);
        markSent(id);
        return;
    }
    flow.sending = true;
    flow.rate = 0;
    for (const LinkLoad& load : loads) {
        m_active[static_cast<size_t>(load.link)].push_back({ id, load.weight });
        m_dirtyLinks.push_back(load.link);
    }
}

void FlowSimulator::stopSending(FlowId id)
{
    FlowState& flow = m_flows[static_cast<size_t>(id)];
    flow.sending = false;
    flow.remaining = 0;
    flow.rate = 0;
    for (const LinkLoad& load : m_routes.loads(flow.route)) {
        auto& active = m_active[static_cast<size_t>(load.link)];
        for (size_t i = 0; i < active.size(); ++i) {
            if (active[i].flow == id) {
                active[i] = active.back();
                active.pop_back();
                break;
            }
        }
        m_linkBytes[static_cast<size_t>(load.link)] += load.weight * flow.bytes;
        m_dirtyLinks.push_back(load.link);
    }
    schedule(m_now + m_routes.compiled(flow.route).latency, Arrive, id);
    markSent(id);
}

void FlowSimulator::markSent(FlowId id)
{
    m_flows[static_cast<size_t>(id)].sent = m_now;
    releaseList(m_flows[static_cast<size_t>(id)].firstSentDependant);
}

void FlowSimulator::releaseList(std::int32_t edge)
{
    for (; edge >= 0; edge = m_dependants[static_cast<size_t>(edge)].next) {
        const FlowId waiting = m_dependants[static_cast<size_t>(edge)].flow;
        FlowState& dependant = m_flows[static_cast<size_t>(waiting)];
        if (--dependant.pendingDependencies == 0) {
            schedule(m_now + dependant.delay, Start, waiting);
        }
    }
}

void FlowSimulator::release(FlowId id)
{
    m_flows[static_cast<size_t>(id)].finish = m_now;
    --m_unfinished;
    releaseList(m_flows[static_cast<size_t>(id)].firstDependant);
    if (onFinish) {
        // The callback may add flows (m_flows may reallocate): nothing above is used after it.
        onFinish(id, m_flows[static_cast<size_t>(id)].tag);
    }
}

bool FlowSimulator::step()
{
    // A drain superseded by a rate change must not move the clock: discard such events before reading the time.
    while (!m_queue->empty()) {
        const Event& top = m_queue->top();
        const bool stale = top.kind == Drain
            && (top.version != m_flows[static_cast<size_t>(top.target)].version
                || !m_flows[static_cast<size_t>(top.target)].sending);
        if (!stale) {
            break;
        }
        m_queue->pop();
    }
    if (m_queue->empty()) {
        return false;
    }
    m_now = m_queue->top().time;
    while (!m_queue->empty() && m_queue->top().time == m_now) {
        const Event event = m_queue->pop();
        ++m_events;
        const auto id = static_cast<FlowId>(event.target);
        switch (event.kind) {
        case Start:
            startSending(id);
            break;
        case Drain:
            if (event.version == m_flows[static_cast<size_t>(id)].version && m_flows[static_cast<size_t>(id)].sending) {
                stopSending(id);
            }
            break;
        case Arrive:
            release(id);
            break;
        default:
            break;
        }
    }
    recomputeRates();
    return true;
}

TimeNs FlowSimulator::run(const std::atomic<bool>* stop, const std::function<void(double)>& progress)
{
    std::uint64_t steps = 0;
    while (step()) {
        if ((++steps & 255) != 0) {
            continue;
        }
        if (stop && stop->load(std::memory_order_relaxed)) {
            throw SimulationCancelled();
        }
        if (progress && (steps & 4095) == 0 && !m_flows.empty()) {
            progress(1.0 - static_cast<double>(m_unfinished) / static_cast<double>(m_flows.size()));
        }
    }
    return m_now;
}

void FlowSimulator::recomputeRates()
{
    if (m_dirtyLinks.empty()) {
        return;
    }
    ++m_epoch;
    for (int link : m_dirtyLinks) {
        if (m_linkMark[static_cast<size_t>(link)] != m_epoch) {
            fillComponent(link);
        }
    }
    m_dirtyLinks.clear();
}

void FlowSimulator::fillComponent(int seedLink)
{
    ++m_recomputations;
    // 1. The connected component: links reachable from the seed through flows sending over them.
    m_componentLinks.clear();
    m_componentFlows.clear();
    m_componentLinks.push_back(seedLink);
    m_linkMark[static_cast<size_t>(seedLink)] = m_epoch;
    for (size_t next = 0; next < m_componentLinks.size(); ++next) {
        for (const ActiveFlow& active : m_active[static_cast<size_t>(m_componentLinks[next])]) {
            FlowState& flow = m_flows[static_cast<size_t>(active.flow)];
            if (flow.mark == m_epoch) {
                continue;
            }
            flow.mark = m_epoch;
            m_componentFlows.push_back(active.flow);
            for (const LinkLoad& load : m_routes.loads(flow.route)) {
                if (m_linkMark[static_cast<size_t>(load.link)] != m_epoch) {
                    m_linkMark[static_cast<size_t>(load.link)] = m_epoch;
                    m_componentLinks.push_back(load.link);
                }
            }
        }
    }
    if (m_componentFlows.empty()) {
        return;
    }
    // 2. Progressive filling: raise every unfrozen flow's rate together; the link whose capacity runs out first (the
    //    smallest residual / unfrozen weight) freezes the flows crossing it at that level.
    using Entry = std::pair<double, std::pair<int, std::uint32_t>>; // level, (link, version)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    for (int link : m_componentLinks) {
        const auto l = static_cast<size_t>(link);
        double weights = 0;
        for (const ActiveFlow& active : m_active[l]) {
            weights += active.weight;
        }
        m_residual[l] = m_routes.capacity(link);
        m_weightSum[l] = weights;
        ++m_linkVersion[l];
        if (weights > kWeightEpsilon) {
            heap.push({ m_residual[l] / weights, { link, m_linkVersion[l] } });
        }
    }
    std::vector<std::pair<FlowId, double>>& changed = m_changedRates;
    changed.clear();
    while (!heap.empty()) {
        const auto [level, key] = heap.top();
        heap.pop();
        const auto l = static_cast<size_t>(key.first);
        if (key.second != m_linkVersion[l]) {
            continue;
        }
        ++m_linkVersion[l];
        for (const ActiveFlow& active : m_active[l]) {
            FlowState& flow = m_flows[static_cast<size_t>(active.flow)];
            if (flow.frozen == m_epoch) {
                continue;
            }
            flow.frozen = m_epoch;
            if (flow.rate != level) {
                changed.push_back({ active.flow, level });
            }
            for (const LinkLoad& load : m_routes.loads(flow.route)) {
                const auto other = static_cast<size_t>(load.link);
                m_residual[other] = std::max(0.0, m_residual[other] - load.weight * level);
                m_weightSum[other] -= load.weight;
                if (other != l) {
                    ++m_linkVersion[other];
                    if (m_weightSum[other] > kWeightEpsilon) {
                        heap.push({ m_residual[other] / m_weightSum[other], { load.link, m_linkVersion[other] } });
                    }
                }
            }
        }
    }
    // 3. Flows whose rate changed: account the bytes sent at the old rate, then reschedule their drain.
    for (const auto& [id, rate] : changed) {
        FlowState& flow = m_flows[static_cast<size_t>(id)];
        if (!(rate > 0)) {
            throw std::logic_error("a flow got no bandwidth: its route crosses a failed link");
        }
        flow.remaining = std::max(0.0, flow.remaining - flow.rate * static_cast<double>(m_now - flow.lastUpdate));
        flow.lastUpdate = m_now;
        flow.rate = rate;
        ++flow.version;
        schedule(m_now + drainTime(flow.remaining, rate), Drain, id, flow.version);
    }
}

} // namespace rapid::sim
