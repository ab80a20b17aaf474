// SPDX-License-Identifier: GPL-3.0-or-later
#include "servingsweep.h"

#include "servingjson.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <stdexcept>
#include <string>

namespace rapid::serving {

namespace {

constexpr int kMaxClients = 100'000; // as `rapid serve --concurrency`

/// @p a is at least as good as @p b in both figures and better in one.
bool dominates(const ServingSummary& a, const ServingSummary& b)
{
    const double aGpu = a.outputTokensPerSecondPerGpu;
    const double bGpu = b.outputTokensPerSecondPerGpu;
    const double aUser = a.outputTokensPerSecondPerUser;
    const double bUser = b.outputTokensPerSecondPerUser;
    return aGpu >= bGpu && aUser >= bUser && (aGpu > bGpu || aUser > bUser);
}

} // namespace

int defaultPoissonRequests(int replicas)
{
    constexpr int kRequests = 1000;
    const int share = std::max(1, replicas);
    return (kRequests + share - 1) / share * share;
}

WorkloadSpec sweepWorkload(const WorkloadSpec& base, SweepLoad load, double value, int requestsPerPoint, int replicas)
{
    WorkloadSpec workload = base;
    if (load == SweepLoad::Concurrency) {
        if (!(value >= 1 && value <= kMaxClients) || value != std::floor(value)) {
            throw std::invalid_argument("concurrency " + std::to_string(value) + ": expected whole clients from 1 to "
                + std::to_string(kMaxClients));
        }
        workload.arrival = ArrivalKind::ClosedLoop;
        workload.concurrency = static_cast<int>(value);
        workload.requests = requestsPerPoint > 0 ? requestsPerPoint : 10 * workload.concurrency;
    } else {
        if (!(value > 0 && value <= 1e6)) {
            throw std::invalid_argument(
                "rate " + std::to_string(value) + ": expected requests per second above 0 and at most 1e6");
        }
        workload.arrival = ArrivalKind::Poisson;
        workload.ratePerSecond = value;
        workload.requests = requestsPerPoint > 0 ? requestsPerPoint : defaultPoissonRequests(replicas);
    }
    return workload;
}

const char* toString(SweepLoad load)
{
    return load == SweepLoad::Concurrency ? "concurrency" : "rate";
}

std::vector<bool> paretoFront(const std::vector<ServingSummary>& summaries)
{
    std::vector<bool> front(summaries.size(), true);
    for (size_t i = 0; i < summaries.size(); ++i) {
        for (size_t j = 0; j < summaries.size() && front[i]; ++j) {
            front[i] = !dominates(summaries[j], summaries[i]);
        }
    }
    return front;
}

bool parseLoadList(const std::string& text, SweepLoad load, std::vector<double>& values, std::string& bad)
{
    values.clear();
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        char* end = nullptr;
        const double value = std::strtod(item.c_str(), &end);
        const bool whole = load != SweepLoad::Concurrency || value == std::floor(value);
        if (item.empty() || end != item.c_str() + item.size() || !std::isfinite(value) || value <= 0 || !whole
            || (load == SweepLoad::Concurrency && value > 100'000) || value > 1e6) {
            bad = item;
            return false;
        }
        values.push_back(value);
        start = comma + 1;
    }
    return true;
}

ServingSweep sweepLoads(const WorkloadSpec& base, SweepLoad load, const std::vector<double>& loads,
    int requestsPerPoint, int replicas, const std::function<ServingResult(const WorkloadSpec&)>& serveOne)
{
    if (loads.empty()) {
        throw std::invalid_argument("a sweep needs at least one load");
    }
    ServingSweep sweep;
    sweep.load = load;
    std::vector<ServingSummary> summaries;
    for (const double value : loads) {
        const ServingResult result = serveOne(sweepWorkload(base, load, value, requestsPerPoint, replicas));
        if (sweep.points.empty()) {
            sweep.options = result.options;
            sweep.capacity = result.capacity;
        }
        sweep.points.push_back({ value, result.summary, false });
        summaries.push_back(result.summary);
    }
    const std::vector<bool> front = paretoFront(summaries);
    for (size_t i = 0; i < front.size(); ++i) {
        sweep.points[i].pareto = front[i];
    }
    return sweep;
}

ServingSweep sweepServing(const config::Scenario& scenario, const WorkloadSpec& base, SweepLoad load,
    const std::vector<double>& loads, int requestsPerPoint, const EngineOptions& options, const ServingSlo& slo,
    sim::NetworkBackend backend)
{
    return sweepLoads(base, load, loads, requestsPerPoint, scenario.run.parallelism.dp,
        [&](const WorkloadSpec& workload) { return simulateServing(scenario, workload, options, slo, backend); });
}

report::Json servingSweepJson(const ServingSweep& sweep)
{
    report::Json points = report::Json::array();
    for (const ServingSweepPoint& point : sweep.points) {
        report::Json json = servingSummaryJson(point.summary);
        json[toString(sweep.load)] = point.load;
        json["pareto"] = point.pareto;
        points.push_back(std::move(json));
    }
    report::Json json;
    json["load"] = toString(sweep.load);
    json["engine"] = engineJson(sweep.options, sweep.capacity);
    json["points"] = std::move(points);
    return json;
}

void writeSweepCsv(std::ostream& out, const ServingSweep& sweep)
{
    out << toString(sweep.load)
        << ",output_tokens_per_s,output_tokens_per_s_per_gpu,output_tokens_per_s_per_user,requests_per_s,"
           "ttft_p50_s,ttft_p90_s,ttft_p99_s,itl_mean_s,itl_p90_s,itl_p99_s,e2e_p50_s,goodput_requests_per_s,"
           "preemptions,pareto\n";
    out.precision(9);
    for (const ServingSweepPoint& point : sweep.points) {
        const ServingSummary& s = point.summary;
        out << point.load << ',' << s.outputTokensPerSecond << ',' << s.outputTokensPerSecondPerGpu << ','
            << s.outputTokensPerSecondPerUser << ',' << s.requestsPerSecond << ',' << s.ttft.p50 << ',' << s.ttft.p90
            << ',' << s.ttft.p99 << ',' << s.itl.mean << ',' << s.itl.p90 << ',' << s.itl.p99 << ',' << s.e2e.p50 << ','
            << s.goodputRequestsPerSecond << ',' << s.preemptions << ',' << (point.pareto ? 1 : 0) << '\n';
    }
}

} // namespace rapid::serving
