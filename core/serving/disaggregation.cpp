// SPDX-License-Identifier: GPL-3.0-or-later
// Disaggregated serving: prefill workers and decode workers, each a ReplicaEngine, coupled by KV-cache transfers and
// stepped in the order of their clocks.
#include "disaggregation.h"

#include "replicaengine.h"
#include "servingsweep.h"
#include "stepiterationcost.h"
#include "swaplink.h"

#include "network/analyticalnetwork.h"
#include "sim/stepmodel.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace rapid::serving {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

/// A request on its way to a worker, admitted by the worker's first iteration that starts at or after its time.
struct Delivery {
    double seconds = 0;
    int id = 0;
    bool operator>(const Delivery& other) const
    {
        return seconds != other.seconds ? seconds > other.seconds : id > other.id;
    }
};
using DeliveryQueue = std::priority_queue<Delivery, std::vector<Delivery>, std::greater<>>;

/// One worker and the requests on their way to it.
struct Worker {
    std::unique_ptr<ReplicaEngine> engine;
    DeliveryQueue pending;

    /// When its next iteration starts: now when it has work, else when the next request reaches it.
    double nextStart() const
    {
        if (engine->busy()) {
            return engine->now();
        }
        return pending.empty() ? kNever : std::max(engine->now(), pending.top().seconds);
    }
    std::size_t load() const { return engine->outstanding() + pending.size(); }
};

class DisaggregatedDriver {
public:
    DisaggregatedDriver(const WorkloadSpec& workload, const ServingPool& prefill, const ServingPool& decode,
        const KvTransferTime& transfer)
        : m_workload(workload)
        , m_specs(workloadRequests(workload))
        , m_transfer(transfer)
    {
        for (int w = 0; w < prefill.workers; ++w) {
            m_prefill.push_back({ std::make_unique<ReplicaEngine>(m_specs, sharedPromptTokens(workload),
                                      prefill.options, *prefill.cost, m_trace, ReplicaRole::PrefillOnly, nullptr),
                {} });
        }
        for (int w = 0; w < decode.workers; ++w) {
            m_decode.push_back({ std::make_unique<ReplicaEngine>(m_specs, 0, decode.options, *decode.cost, m_trace,
                                     ReplicaRole::DecodeOnly, w == 0 ? &m_trace.iterations : nullptr),
                {} });
        }
        m_trace.kvBlocks = decode.options.kvBlocks;
        m_trace.warmupRequests = std::clamp(workload.warmupRequests, 0, static_cast<int>(m_specs.size()));
        const bool closed = workload.arrival == ArrivalKind::ClosedLoop;
        for (int client = 0; closed && client < workload.concurrency; ++client) {
            m_arrivals.push({ clientStartSeconds(workload, client), client });
        }
        for (std::size_t i = 0; !closed && i < m_specs.size(); ++i) {
            m_arrivals.push({ m_specs[i].arrivalSeconds, static_cast<int>(i) });
        }
    }

    ServingTrace run()
    {
        while (m_finished < m_specs.size()) {
            Worker* next = nullptr;
            bool nextIsPrefill = false;
            double start = kNever;
            for (auto* pool : { &m_prefill, &m_decode }) {
                for (Worker& worker : *pool) {
                    if (worker.nextStart() < start) {
                        start = worker.nextStart();
                        next = &worker;
                        nextIsPrefill = pool == &m_prefill;
                    }
                }
            }
            if (!m_arrivals.empty() && m_arrivals.top().seconds <= start) {
                issue(m_arrivals.top().seconds);
                m_arrivals.pop();
                continue;
            }
            if (!next) {
                throw std::logic_error("disaggregated serving: requests left but nothing to run");
            }
            step(*next, nextIsPrefill);
        }
        for (const RequestRecord& record : m_trace.requests) {
            m_trace.makespanSeconds = std::max(m_trace.makespanSeconds, record.finishSeconds);
        }
        return std::move(m_trace);
    }

    double meanTransferSeconds() const { return m_handedOver > 0 ? m_transferSum / m_handedOver : 0; }

private:
    /// The next request, arriving at @p seconds, goes to the least loaded prefill worker.
    void issue(double seconds)
    {
        if (m_issued >= m_specs.size()) {
            return;
        }
        const RequestSpec& spec = m_specs[m_issued];
        m_trace.requests.push_back(
            { static_cast<int>(m_issued), seconds, spec.promptTokens, spec.outputTokens, 0, 0, 0 });
        leastLoaded(m_prefill).pending.push({ seconds, static_cast<int>(m_issued) });
        ++m_issued;
    }

    static Worker& leastLoaded(std::vector<Worker>& pool)
    {
        return *std::min_element(
            pool.begin(), pool.end(), [](const Worker& a, const Worker& b) { return a.load() < b.load(); });
    }

    void step(Worker& worker, bool prefillWorker)
    {
        ReplicaEngine& engine = *worker.engine;
        engine.advanceTo(worker.nextStart());
        while (!worker.pending.empty() && worker.pending.top().seconds <= engine.now()) {
            engine.submit(worker.pending.top().id);
            worker.pending.pop();
        }
        const int prefillIndex = prefillWorker ? static_cast<int>(&worker - m_prefill.data()) : -1;
        engine.iterate([&](const ReplicaEvent& event) {
            if (event.finished) {
                finish(engine.now());
                return;
            }
            if (prefillWorker && event.firstToken) {
                handOver(event.id, prefillIndex, engine.now());
            }
        });
    }

    /// Request @p id's KV cache moves from prefill worker @p from to the least loaded decode worker; its first token
    /// reaches the client with it.
    void handOver(int id, int from, double now)
    {
        Worker& to = leastLoaded(m_decode);
        const int toIndex = static_cast<int>(&to - m_decode.data());
        const double seconds = m_transfer(from, toIndex, m_specs[static_cast<size_t>(id)].promptTokens);
        m_transferSum += seconds;
        ++m_handedOver;
        m_trace.requests[static_cast<size_t>(id)].firstTokenSeconds = now + seconds;
        to.pending.push({ now + seconds, id });
    }

    void finish(double now)
    {
        ++m_finished;
        if (m_workload.arrival == ArrivalKind::ClosedLoop) {
            m_arrivals.push({ now, static_cast<int>(m_issued) }); // its client sends the next request at once
        }
    }

    const WorkloadSpec& m_workload;
    std::vector<RequestSpec> m_specs;
    const KvTransferTime& m_transfer;
    ServingTrace m_trace;
    std::vector<Worker> m_prefill;
    std::vector<Worker> m_decode;
    DeliveryQueue m_arrivals; ///< client sends (closed loop) or arrival times (open loop, trace)
    std::size_t m_issued = 0;
    std::size_t m_finished = 0;
    double m_transferSum = 0;
    int m_handedOver = 0;
};

} // namespace

ServingTrace simulateDisaggregated(
    const WorkloadSpec& workload, const ServingPool& prefill, const ServingPool& decode, const KvTransferTime& transfer)
{
    for (const ServingPool* pool : { &prefill, &decode }) {
        const EngineOptions& options = pool->options;
        if (pool->workers < 1 || !pool->cost || options.maxNumSeqs < 1 || options.maxNumBatchedTokens < 1
            || options.blockSize < 1 || options.kvBlocks < 1) {
            throw std::invalid_argument("each pool needs workers, an iteration cost, max_num_seqs, "
                                        "max_num_batched_tokens, block_size and its KV blocks set");
        }
    }
    DisaggregatedDriver driver(workload, prefill, decode, transfer);
    return driver.run();
}

DisaggregatedResult simulateDisaggregated(
    const DisaggregatedSpec& spec, const WorkloadSpec& workload, const ServingSlo& slo, sim::NetworkBackend backend)
{
    if (spec.prefill.hardware != spec.decode.hardware) {
        throw std::invalid_argument("the prefill and decode pools must share one cluster (hardware)");
    }
    if (spec.prefillWorkers < 1 || spec.decodeWorkers < 1) {
        throw std::invalid_argument("prefill and decode workers: at least one of each");
    }
    const config::Scenario prefillScenario = engineScenario(spec.prefill, spec.prefillOptions);
    const config::Scenario decodeScenario = engineScenario(spec.decode, spec.decodeOptions);
    sim::StepModel prefillModel(prefillScenario, backend);
    sim::StepModel decodeModel(decodeScenario, backend);
    DisaggregatedResult result;
    result.prefillGpusPerWorker = prefillModel.placement().ranks / prefillModel.plan().sharding.dataParallel;
    result.decodeGpusPerWorker = decodeModel.placement().ranks / decodeModel.plan().sharding.dataParallel;
    const int prefillGpus = spec.prefillWorkers * result.prefillGpusPerWorker;
    const int decodeGpus = spec.decodeWorkers * result.decodeGpusPerWorker;
    const int clusterGpus = spec.prefill.hardware.cluster.totalGpus();
    if (prefillGpus + decodeGpus > clusterGpus) {
        throw std::invalid_argument(std::to_string(spec.prefillWorkers) + " prefill workers of "
            + std::to_string(result.prefillGpusPerWorker) + " GPUs and " + std::to_string(spec.decodeWorkers)
            + " decode workers of " + std::to_string(result.decodeGpusPerWorker) + " need "
            + std::to_string(prefillGpus + decodeGpus) + " GPUs; the cluster has " + std::to_string(clusterGpus));
    }
    ServingPool prefill { spec.prefillWorkers,
        engineDefaults(spec.prefillOptions, spec.prefill.hardware.gpu, modelParallelGpus(spec.prefill)), nullptr };
    ServingPool decode { spec.decodeWorkers,
        engineDefaults(spec.decodeOptions, spec.decode.hardware.gpu, modelParallelGpus(spec.decode)), nullptr };
    checkServingWorkload(spec.prefill, workload, prefill.options);
    checkServingWorkload(spec.decode, workload, decode.options);
    result.prefillCapacity = kvCapacity(spec.prefill, prefill.options);
    result.decodeCapacity = kvCapacity(spec.decode, decode.options);
    for (auto [pool, capacity] :
        { std::pair { &prefill, &result.prefillCapacity }, std::pair { &decode, &result.decodeCapacity } }) {
        if (pool->options.kvBlocks == 0) {
            requireKvRoom(*capacity, pool == &prefill ? "prefill" : "decode");
            pool->options.kvBlocks = capacity->blocks;
        }
        pool->options.kvLayout = capacity->layout;
        pool->options.swap = swapLink(pool == &prefill ? spec.prefill : spec.decode, pool->options, *capacity);
    }
    recordEngineFusions(prefill.options, prefillScenario.run);
    recordEngineFusions(decode.options, decodeScenario.run);
    prefill.options.speculative.seed = workload.seed;
    decode.options.speculative.seed = workload.seed;
    StepIterationCost prefillCost(prefillModel, prefill.options.speculative);
    StepIterationCost decodeCost(decodeModel, decode.options.speculative);
    prefill.cost = &prefillCost;
    decode.cost = &decodeCost;

    // Every GPU of both workers moves its share of the prompt's KV cache at once, over its own link.
    const network::AnalyticalNetwork network(spec.prefill.hardware);
    const double bytesPerToken
        = std::max(result.prefillCapacity.bytesPerTokenPerGpu, result.decodeCapacity.bytesPerTokenPerGpu);
    std::map<std::tuple<int, int, std::int64_t>, double> transfers;
    const KvTransferTime transfer = [&](int from, int to, std::int64_t tokens) {
        const auto key = std::tuple { from, to, tokens };
        if (const auto found = transfers.find(key); found != transfers.end()) {
            return found->second;
        }
        network::CollectiveRequest request;
        request.kind = network::CollectiveKind::SendRecv;
        request.bytes = bytesPerToken * static_cast<double>(tokens);
        request.gpus = { from * result.prefillGpusPerWorker, prefillGpus + to * result.decodeGpusPerWorker };
        return transfers[key] = network.time(request).seconds;
    };

    DisaggregatedDriver driver(workload, prefill, decode, transfer);
    result.trace = driver.run();
    result.meanKvTransferSeconds = driver.meanTransferSeconds();
    result.summary = summarise(result.trace, 1, prefillGpus + decodeGpus, slo);
    result.prefillOptions = prefill.options;
    result.decodeOptions = decode.options;
    return result;
}

std::vector<PoolSplitPoint> sweepPoolSplits(const DisaggregatedSpec& base,
    const std::vector<std::pair<int, int>>& splits, const WorkloadSpec& workload, const ServingSlo& slo,
    sim::NetworkBackend backend)
{
    if (splits.empty()) {
        throw std::invalid_argument("a pool-split sweep needs at least one split");
    }
    std::vector<PoolSplitPoint> points;
    std::vector<ServingSummary> summaries;
    for (const auto& [prefillWorkers, decodeWorkers] : splits) {
        DisaggregatedSpec spec = base;
        spec.prefillWorkers = prefillWorkers;
        spec.decodeWorkers = decodeWorkers;
        DisaggregatedResult result;
        try {
            result = simulateDisaggregated(spec, workload, slo, backend);
        } catch (const std::invalid_argument& error) {
            throw std::invalid_argument(
                "split " + std::to_string(prefillWorkers) + ":" + std::to_string(decodeWorkers) + ": " + error.what());
        }
        points.push_back({ prefillWorkers, decodeWorkers, result.summary, result.meanKvTransferSeconds, false });
        summaries.push_back(result.summary);
    }
    const std::vector<bool> front = paretoFront(summaries);
    for (std::size_t i = 0; i < points.size(); ++i) {
        points[i].pareto = front[i];
    }
    return points;
}

} // namespace rapid::serving
