// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "servingsimulator.h"

#include "report/json.h"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace rapid::serving {

/// What a load sweep varies: the clients of a closed loop (how NIM, genai-perf and aiconfigurator benchmark) or the
/// arrival rate of a Poisson workload.
enum class SweepLoad { Concurrency, Rate };
const char* toString(SweepLoad load);

/// One load of a sweep and what serving it amounts to.
struct ServingSweepPoint {
    double load = 0; ///< clients, or requests per second
    ServingSummary summary;
    bool pareto = false; ///< on the latency-throughput Pareto front of the sweep
};

struct ServingSweep {
    SweepLoad load = SweepLoad::Concurrency;
    EngineOptions options; ///< as used by the first point (kvBlocks derived)
    KvCapacity capacity; ///< of the first point
    std::vector<ServingSweepPoint> points; ///< in the order of the loads given
};

/// Which of @p summaries are on the latency-throughput Pareto front that serving results are read as (output
/// tokens/s per GPU against tokens/s per user, both larger is better): no other summary is at least as good in both
/// and better in one. Equal points are all on the front.
std::vector<bool> paretoFront(const std::vector<ServingSummary>& summaries);

/// Requests simulated at a Poisson rate when none are given: 1,000, rounded up to a multiple of the @p replicas that
/// share them equally (a default must never be the count a replica set refuses).
int defaultPoissonRequests(int replicas);

/// @p base at one load of a sweep: a closed loop of @p value clients (whole, 1 to 100,000) or Poisson arrivals at
/// @p value requests per second (above 0, at most 1e6), with @p requestsPerPoint requests (0: 10 x the clients, or
/// defaultPoissonRequests(@p replicas) at a rate). Throws std::invalid_argument naming the load for one out of range.
WorkloadSpec sweepWorkload(const WorkloadSpec& base, SweepLoad load, double value, int requestsPerPoint, int replicas);

/// Parses a comma-separated list of loads without spaces ("1,4,16"): whole clients from 1 to 100,000, or rates above 0
/// and at most 1e6 requests per second. False, with @p bad set to the first item that is no such load, otherwise.
bool parseLoadList(const std::string& text, SweepLoad load, std::vector<double>& values, std::string& bad);

/// @p serveOne (one deployment: a replica set, or prefill and decode pools) at every load of @p loads, each with
/// sweepWorkload(@p base, ...); the sweep's engine is the first point's and the Pareto flags are filled. Throws
/// std::invalid_argument for an empty or invalid load, or as @p serveOne does.
ServingSweep sweepLoads(const WorkloadSpec& base, SweepLoad load, const std::vector<double>& loads,
    int requestsPerPoint, int replicas, const std::function<ServingResult(const WorkloadSpec&)>& serveOne);

/// Serves @p base at every load of @p loads (clients: whole numbers >= 1; rates > 0): the closed loop's clients or the
/// Poisson rate replaced, and @p requestsPerPoint requests each (0: 10 x the clients, or defaultPoissonRequests at a
/// rate). Every point is simulateServing of the same scenario, engine and SLOs; the Pareto flags are filled. Throws
/// std::invalid_argument as simulateServing does, or for an empty or invalid load.
ServingSweep sweepServing(const config::Scenario& scenario, const WorkloadSpec& base, SweepLoad load,
    const std::vector<double>& loads, int requestsPerPoint, const EngineOptions& options, const ServingSlo& slo = {},
    sim::NetworkBackend backend = sim::NetworkBackend::Analytical);

/// The sweep as JSON: the load kind, the engine, and per point its load, summary (as servingJson) and Pareto flag.
report::Json servingSweepJson(const ServingSweep& sweep);

/// One CSV row per point: load, throughput per GPU and per user, TTFT and ITL percentiles, goodput, Pareto flag.
void writeSweepCsv(std::ostream& out, const ServingSweep& sweep);

} // namespace rapid::serving
