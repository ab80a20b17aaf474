// SPDX-License-Identifier: GPL-3.0-or-later
#include "collectiverunner.h"

#include "network/analyticalnetwork.h"
#include "network/router.h"
#include "sim/congestionnetwork.h"
#include "sim/flowsimulator.h"

#include <algorithm>
#include <array>

namespace rapid::widgets {

namespace {

/// Directed links that carried traffic, busiest first, as `rapid collective` lists them.
std::vector<LinkLoad> busiestLinks(const network::Topology& topology, const sim::CongestionRun& run, size_t count)
{
    std::vector<LinkLoad> loads;
    for (int link = 0; link < topology.linkCount(); ++link) {
        const double bytes = run.linkBytes[static_cast<size_t>(link)];
        if (bytes <= 0) {
            continue;
        }
        const network::Link& directed = topology.link(link);
        const double capacity = directed.effectiveBandwidth() * run.makespan;
        const bool forward = directed.from < directed.to;
        const double utilisation = capacity > 0 ? bytes / capacity : 0.0;
        loads.push_back({ QString::fromStdString(topology.linkId(link)), forward, bytes, utilisation });
    }
    std::stable_sort(
        loads.begin(), loads.end(), [](const LinkLoad& a, const LinkLoad& b) { return a.utilisation > b.utilisation; });
    loads.resize(std::min(loads.size(), count));
    return loads;
}

std::vector<double> utilisation(const network::Topology& topology, const sim::CongestionRun& run)
{
    std::vector<double> perLink(static_cast<size_t>(topology.linkCount()), 0.0);
    for (int link = 0; link < topology.linkCount(); ++link) {
        const double capacity = topology.link(link).effectiveBandwidth() * run.makespan;
        perLink[static_cast<size_t>(link)] = capacity > 0 ? run.linkBytes[static_cast<size_t>(link)] / capacity : 0.0;
    }
    return perLink;
}

CollectiveOutcome simulate(const CollectiveJob& job, const std::atomic<bool>* stop)
{
    CollectiveOutcome outcome;
    outcome.backend = job.backend;
    // The analytical time names the algorithm (the simulated backends run the same one) and is the whole answer of
    // the analytical backend.
    outcome.time = network::AnalyticalNetwork(job.hardware).time(job.request);
    if (job.backend == CollectiveBackend::Analytical) {
        return outcome;
    }
    sim::CongestionNetwork network(job.hardware);
    const std::array<network::CollectiveRequest, 1> requests { job.request };
    const sim::CongestionRun run = job.backend == CollectiveBackend::Packet
        ? network.runPackets(requests, sim::PacketOptions { job.packetBytes, 0 }, stop)
        : network.run(requests, stop);
    const double seconds = run.seconds.front();
    outcome.time.seconds = seconds;
    outcome.time.algorithmBandwidth = seconds > 0 ? job.request.bytes / seconds : 0;
    outcome.time.busBandwidth = outcome.time.algorithmBandwidth
        * network::busBandwidthFactor(job.request.kind, static_cast<int>(job.request.gpus.size()));
    outcome.time.bottleneckLink.clear(); // the analytical model's guess; the busiest links replace it
    outcome.linkUtilisation = utilisation(network.topology(), run);
    outcome.busiestLinks = busiestLinks(network.topology(), run, CollectiveOutcome::kBusiestLinks);
    outcome.flows = run.flows;
    outcome.packets = run.packets;
    return outcome;
}

} // namespace

CollectiveRunner::CollectiveRunner(QObject* parent)
    : QObject(parent)
{
}

CollectiveRunner::~CollectiveRunner() = default; // m_jobs stops the running job and waits for its worker

void CollectiveRunner::cancel()
{
    if (m_jobs.cancel()) {
        Q_EMIT cancelled();
    }
}

void CollectiveRunner::start(const CollectiveJob& job)
{
    // Failures (std::invalid_argument for a GPU out of range or a packet without payload, network::UnreachableError
    // naming the GPUs that failed links cut apart) arrive as their message.
    m_jobs.run<CollectiveOutcome>(
        this, m_jobs.begin(), [job](const std::atomic<bool>* stop) { return simulate(job, stop); },
        [this](const JobOutcome<CollectiveOutcome>& outcome) {
            if (const auto* result = std::get_if<CollectiveOutcome>(&outcome)) {
                Q_EMIT finished(*result);
            } else if (const auto* message = std::get_if<QString>(&outcome)) {
                Q_EMIT failed(*message);
            } else {
                Q_EMIT cancelled();
            }
        });
}

} // namespace rapid::widgets
