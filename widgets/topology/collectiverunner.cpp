// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/collectiverunner.h"

#include "network/router.h"
#include "sim/flowsimulator.h"

#include <algorithm>
#include <array>

namespace rapid::widgets {

namespace {

CollectiveOutcome simulate(const CollectiveJob& job, const std::atomic<bool>* stop)
{
    analysis::CollectiveWhatIf whatIf { job.hardware, { job.request }, job.backend, {}, {} };
    whatIf.packets.packetBytes = job.packetBytes;
    const analysis::CollectiveWhatIfResult result = analysis::runCollectiveWhatIf(whatIf, stop);
    CollectiveOutcome outcome;
    outcome.backend = job.backend;
    outcome.time = result.times.front();
    if (!result.simulated()) {
        return outcome;
    }
    outcome.time.bottleneckLink.clear(); // the analytical model's guess; the busiest links replace it
    outcome.linkUtilisation = result.linkUtilisation;
    for (const network::LinkUse& use : result.busiestLinks) {
        if (outcome.busiestLinks.size() >= static_cast<size_t>(CollectiveOutcome::kBusiestLinks)) {
            break;
        }
        outcome.busiestLinks.push_back({ QString::fromStdString(use.id), use.forward, use.bytes, use.utilisation });
    }
    outcome.flows = result.run.flows;
    outcome.packets = result.run.packets;
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
