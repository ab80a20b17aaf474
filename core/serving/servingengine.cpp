// SPDX-License-Identifier: GPL-3.0-or-later
// The continuous-batching loop of one unified replica: the workload's arrivals fed to its scheduler (ReplicaEngine).
#include "servingengine.h"

#include "replicaengine.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace rapid::serving {

namespace {

/// The longest prompt or output any option accepts (rapid serve's token limits).
constexpr std::int64_t kLongestLength = 10'000'000;

/// A length drawn from the normal distribution around @p mean, rounded, and drawn again below @p least or above the
/// largest length any option accepts (a draw so far out is a deviation far beyond any workload's).
std::int64_t drawnLength(std::mt19937_64& random, std::int64_t mean, double stddev, std::int64_t least)
{
    std::normal_distribution<double> length(static_cast<double>(mean), stddev);
    for (;;) {
        const double drawn = std::round(length(random));
        if (drawn >= static_cast<double>(least) && drawn <= static_cast<double>(kLongestLength)) {
            return static_cast<std::int64_t>(drawn);
        }
    }
}

void drawLengths(const WorkloadSpec& workload, std::vector<RequestSpec>& requests)
{
    if (workload.promptTokensStddev <= 0 && workload.outputTokensStddev <= 0) {
        return;
    }
    // A stream of its own (the seed's golden-ratio offset), so that spreading the lengths keeps the arrival times.
    std::mt19937_64 random(workload.seed ^ 0x9E3779B97F4A7C15ULL);
    const std::int64_t leastPrompt = std::max<std::int64_t>(1, workload.sharedPrefixTokens);
    for (RequestSpec& request : requests) {
        if (workload.promptTokensStddev > 0) {
            request.promptTokens = drawnLength(random, workload.promptTokens, workload.promptTokensStddev, leastPrompt);
        }
        if (workload.outputTokensStddev > 0) {
            request.outputTokens = drawnLength(random, workload.outputTokens, workload.outputTokensStddev, 1);
        }
    }
}

/// Open-loop arrival times: exponential gaps at the rate (burstiness 1, the draws as ever), or gamma gaps of shape k
/// and scale 1 / (k x stream rate), a geometric number of them (at least one, mean `thinning`) per gap of a replica
/// the stream is dealt to at random.
void drawArrivals(const WorkloadSpec& workload, std::vector<RequestSpec>& requests)
{
    std::mt19937_64 random(workload.seed);
    double now = 0;
    if (workload.burstiness == 1) {
        std::exponential_distribution<double> gap(workload.ratePerSecond);
        for (RequestSpec& request : requests) {
            now += gap(random);
            request.arrivalSeconds = now;
        }
        return;
    }
    const double shape = workload.burstiness;
    const double scale = 1 / (shape * workload.ratePerSecond * workload.thinning);
    std::geometric_distribution<int> skipped(1.0 / workload.thinning);
    for (RequestSpec& request : requests) {
        const int gaps = workload.thinning > 1 ? 1 + skipped(random) : 1;
        std::gamma_distribution<double> gap(shape * gaps, scale);
        now += gap(random);
        request.arrivalSeconds = now;
    }
}

/// Each request takes one of the pool's prompts at random: its lengths, and its index as the prefix id. The prompts'
/// lengths are drawn as requests' are, one draw per prompt.
void drawFromPool(const WorkloadSpec& workload, std::vector<RequestSpec>& requests)
{
    std::vector<RequestSpec> prompts(
        static_cast<size_t>(workload.promptPool), RequestSpec { 0, workload.promptTokens, workload.outputTokens, -1 });
    drawLengths(workload, prompts);
    // A stream of its own again (another odd constant), so that the pool changes neither arrivals nor lengths.
    std::mt19937_64 random(workload.seed ^ 0xD1B54A32D192ED03ULL);
    std::uniform_int_distribution<int> pick(0, workload.promptPool - 1);
    for (RequestSpec& request : requests) {
        const int prompt = pick(random);
        request.promptTokens = prompts[static_cast<size_t>(prompt)].promptTokens;
        request.outputTokens = prompts[static_cast<size_t>(prompt)].outputTokens;
        request.prefixId = prompt;
    }
}

} // namespace

std::vector<RequestSpec> workloadRequests(const WorkloadSpec& workload)
{
    if (workload.arrival == ArrivalKind::Trace) {
        return workload.trace;
    }
    std::vector<RequestSpec> requests(static_cast<size_t>(std::max(0, workload.requests)),
        RequestSpec { 0, workload.promptTokens, workload.outputTokens, workload.sharedPrefixTokens > 0 ? 0 : -1 });
    if (workload.promptPool > 0) {
        drawFromPool(workload, requests);
    } else {
        drawLengths(workload, requests);
    }
    if (workload.arrival == ArrivalKind::Poisson) {
        drawArrivals(workload, requests);
    }
    return requests;
}

std::int64_t sharedPromptTokens(const WorkloadSpec& workload)
{
    return workload.promptPool > 0 && workload.arrival != ArrivalKind::Trace ? kLongestLength
                                                                             : workload.sharedPrefixTokens;
}

namespace {

/// Issues a workload's requests to one unified replica: closed-loop clients (each sending its next request when the
/// previous one finishes, the first ones spread over the ramp), open-loop arrivals at their times, or a trace.
class ArrivalDriver {
public:
    ArrivalDriver(const WorkloadSpec& workload, const EngineOptions& options, IterationCost& cost)
        : m_workload(workload)
        , m_specs(workloadRequests(workload))
        , m_engine(
              m_specs, sharedPromptTokens(workload), options, cost, m_trace, ReplicaRole::Unified, &m_trace.iterations)
    {
        m_trace.kvBlocks = m_engine.totalBlocks();
        m_trace.warmupRequests = std::clamp(workload.warmupRequests, 0, static_cast<int>(m_specs.size()));
    }

    ServingTrace run()
    {
        const bool closed = m_workload.arrival == ArrivalKind::ClosedLoop;
        std::size_t finished = 0;
        const auto onEvent = [&](const ReplicaEvent& event) {
            if (!event.finished) {
                return;
            }
            ++finished;
            if (closed) {
                startDueClients(); // clients that started during this iteration arrived before this follow-up
                issueNext(m_engine.now()); // its client sends the next request at once
            }
        };
        while (finished < m_specs.size()) {
            if (closed) {
                startDueClients();
            } else {
                while (m_issued < m_specs.size() && m_specs[m_issued].arrivalSeconds <= m_engine.now()) {
                    issueNext(m_specs[m_issued].arrivalSeconds);
                }
            }
            if (!m_engine.busy()) {
                m_engine.advanceTo(closed ? clientStart(m_clientsStarted) : m_specs[m_issued].arrivalSeconds);
                continue; // idle until the next arrival
            }
            m_engine.iterate(onEvent);
        }
        m_trace.makespanSeconds = m_engine.now();
        return std::move(m_trace);
    }

private:
    void issueNext(double at)
    {
        if (m_issued >= m_specs.size()) {
            return;
        }
        const RequestSpec& spec = m_specs[m_issued];
        m_trace.requests.push_back({ static_cast<int>(m_issued), at, spec.promptTokens, spec.outputTokens, 0, 0, 0 });
        m_engine.submit(static_cast<int>(m_issued));
        ++m_issued;
    }

    /// Issues the first request of every closed-loop client whose start time has come, in start order.
    void startDueClients()
    {
        while (m_clientsStarted < m_workload.concurrency && clientStart(m_clientsStarted) <= m_engine.now()) {
            issueNext(clientStart(m_clientsStarted++));
        }
    }

    double clientStart(int client) const { return clientStartSeconds(m_workload, client); }

    const WorkloadSpec& m_workload;
    std::vector<RequestSpec> m_specs;
    ServingTrace m_trace;
    ReplicaEngine m_engine;
    std::size_t m_issued = 0;
    int m_clientsStarted = 0; ///< closed loop: clients that sent their first request
};

} // namespace

ServingTrace simulateServing(const WorkloadSpec& workload, const EngineOptions& options, IterationCost& cost)
{
    if (options.maxNumSeqs < 1 || options.maxNumBatchedTokens < 1 || options.blockSize < 1 || options.kvBlocks < 1) {
        throw std::invalid_argument("the engine needs max_num_seqs, max_num_batched_tokens, block_size and the KV "
                                    "blocks set (engineDefaults and kvCapacity give them)");
    }
    ArrivalDriver driver(workload, options, cost);
    return driver.run();
}

} // namespace rapid::serving
