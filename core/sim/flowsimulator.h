// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sim/eventqueue.h"
#include "sim/routecache.h"
#include "sim/simtime.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

namespace rapid::sim {

using FlowId = std::int32_t;

/// A point-to-point transfer handed to the simulator.
struct FlowSpec {
    int route = 0; ///< RouteCache route id
    double bytes = 0;
    TimeNs delay = 0; ///< between becoming ready (dependencies finished) and sending its first byte
    int tag = 0; ///< caller's label (e.g. which collective the flow belongs to); reported back on finish
};

/// The simulation was cancelled through its stop flag.
class SimulationCancelled : public std::runtime_error {
public:
    SimulationCancelled()
        : std::runtime_error("simulation cancelled")
    {
    }
};

/// Flow-level discrete-event network simulator.
///
/// Flows share directed links max-min fairly: every active flow gets one rate r, its route loads link l with
/// weight_l * r, and rates are the max-min fair allocation over link capacities (progressive filling). Rates are
/// recomputed only in the connected part of the network (links and the flows crossing them) where a flow started or
/// finished sending, and only once per distinct event time. A flow finishes when its last byte arrives: the time to
/// drain its bytes at the rates it got, plus its route's latency. Dependencies between flows form a DAG; a flow
/// becomes ready when all of its dependencies have finished and starts sending `delay` later.
///
/// Time is integer nanoseconds; a drain is rounded up to the next nanosecond. The simulator is an ordinary value
/// (no globals): several can run side by side on different threads, each with its own RouteCache.
class FlowSimulator {
public:
    explicit FlowSimulator(RouteCache& routes, std::unique_ptr<EventQueue> queue = makeEventQueue());

    /// Adds a flow that waits for @p dependencies (ids returned earlier) to finish and for @p afterSent to have sent
    /// their last byte (the transmit end, a route latency before they finish: the next message queued behind them on
    /// the same connection). It becomes ready now (at now()) if nothing is left to wait for. Throws
    /// std::invalid_argument for unknown dependencies or negative bytes/delay.
    FlowId add(const FlowSpec& spec, std::span<const FlowId> dependencies = {}, std::span<const FlowId> afterSent = {});

    /// Processes the events of the earliest pending time. Returns false when nothing is pending.
    bool step();
    /// Runs until no event is pending; returns now(). Throws SimulationCancelled when @p stop becomes true. Calls
    /// @p progress now and then with the fraction of flows finished (0..1).
    TimeNs run(const std::atomic<bool>* stop = nullptr, const std::function<void(double)>& progress = {});

    TimeNs now() const { return m_now; }
    bool finished(FlowId flow) const { return m_flows[static_cast<size_t>(flow)].finish != kNever; }
    TimeNs finishTime(FlowId flow) const { return m_flows[static_cast<size_t>(flow)].finish; }
    TimeNs startTime(FlowId flow) const { return m_flows[static_cast<size_t>(flow)].start; }
    int flowCount() const { return static_cast<int>(m_flows.size()); }
    /// Flows not finished yet.
    int pendingFlows() const { return m_unfinished; }
    /// Bytes each directed link carried so far (its flows' bytes times their weight on the link).
    const std::vector<double>& linkBytes() const { return m_linkBytes; }
    std::uint64_t eventsProcessed() const { return m_events; }
    std::uint64_t rateRecomputations() const { return m_recomputations; }

    /// Called when a flow finishes (after its dependants were released), with the flow and its tag.
    std::function<void(FlowId, int tag)> onFinish;

private:
    enum EventKind : std::uint32_t { Start, Drain, Arrive };
    struct FlowState {
        int route = 0;
        int tag = 0;
        double bytes = 0;
        double remaining = 0;
        double rate = 0; ///< bytes per ns while sending
        TimeNs delay = 0;
        TimeNs lastUpdate = 0;
        TimeNs start = kNever;
        TimeNs finish = kNever;
        TimeNs sent = kNever; ///< when its last byte left the sender
        std::int32_t pendingDependencies = 0;
        std::int32_t firstDependant = -1; ///< into m_dependants (a singly linked list)
        std::int32_t firstSentDependant = -1; ///< into m_dependants: the flows waiting for this one's transmit end
        std::uint32_t version = 0;
        std::uint32_t mark = 0; ///< recomputation epoch that visited the flow
        std::uint32_t frozen = 0; ///< recomputation epoch that fixed the flow's rate
        bool sending = false;
    };
    struct DependantEdge {
        FlowId flow;
        std::int32_t next;
    };
    struct ActiveFlow {
        FlowId flow;
        double weight;
    };

    void schedule(TimeNs time, EventKind kind, FlowId flow, std::uint32_t version = 0);
    void startSending(FlowId flow);
    void stopSending(FlowId flow);
    void arrive(FlowId flow);
    void release(FlowId flow);
    void markSent(FlowId flow);
    void releaseList(std::int32_t edge);
    void recomputeRates();
    void fillComponent(int seedLink);

    RouteCache& m_routes;
    std::unique_ptr<EventQueue> m_queue;
    std::vector<FlowState> m_flows;
    std::vector<DependantEdge> m_dependants;
    std::vector<std::vector<ActiveFlow>> m_active; ///< per directed link: the flows sending over it
    std::vector<double> m_linkBytes;
    std::vector<int> m_dirtyLinks;
    std::vector<std::uint32_t> m_linkMark;
    // Scratch of the progressive filling (kept to avoid allocations).
    std::vector<double> m_residual;
    std::vector<double> m_weightSum;
    std::vector<int> m_componentLinks;
    std::vector<FlowId> m_componentFlows;
    std::vector<std::pair<FlowId, double>> m_changedRates; ///< flows whose rate the filling changed, new rate
    std::vector<std::uint32_t> m_linkVersion; ///< invalidates stale entries of the filling heap
    std::uint32_t m_epoch = 0;
    TimeNs m_now = 0;
    int m_unfinished = 0;
    std::uint64_t m_events = 0;
    std::uint64_t m_recomputations = 0;
};

} // namespace rapid::sim
