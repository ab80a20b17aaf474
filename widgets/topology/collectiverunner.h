// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis/collectivewhatif.h"
#include "config/hardwarespec.h"
#include "network/collective.h"

#include "common/jobtracker.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <vector>

namespace rapid::widgets {

/// How one collective is timed (the facade's choice: closed form, flow level or packet level).
using CollectiveBackend = analysis::CollectiveBackend;

/// One collective to time on a hardware's network (faults included).
struct CollectiveJob {
    config::HardwareSpec hardware;
    network::CollectiveRequest request;
    CollectiveBackend backend = CollectiveBackend::Analytical;
    double packetBytes = 4096; ///< packet backend: bytes of a packet on the wire
};

/// A directed link and what it carried during the run.
struct LinkLoad {
    QString id; ///< network::Topology::linkId
    bool forward = true; ///< from the lower node index to the higher one (the CLI's "a->b")
    double bytes = 0;
    double utilisation = 0; ///< bytes / (effective bandwidth x makespan)
};

/// What a collective run gave: the CLI's `rapid collective` report of one collective.
struct CollectiveOutcome {
    CollectiveBackend backend = CollectiveBackend::Analytical;
    network::CollectiveTime time; ///< simulated backends: seconds and bandwidths from the simulation
    /// Simulated backends: per directed link of the hardware's network::Topology (empty for the analytical one).
    std::vector<double> linkUtilisation;
    std::vector<LinkLoad> busiestLinks; ///< busiest first, at most kBusiestLinks
    int flows = 0;
    std::uint64_t packets = 0;
    static constexpr int kBusiestLinks = 3;
};

/// Times one collective off the GUI thread. The simulated backends take seconds for large messages or groups, so a
/// new run or cancel() stops the running one through its stop flag, and whatever a cancelled or superseded run still
/// returns is dropped (JobTracker). Failures (invalid requests, GPUs cut apart by failed links) arrive as text.
class CollectiveRunner : public QObject {
    Q_OBJECT
public:
    explicit CollectiveRunner(QObject* parent = nullptr);
    ~CollectiveRunner() override;

    void start(const CollectiveJob& job);
    void cancel();
    bool isRunning() const { return m_jobs.isRunning(); }

Q_SIGNALS:
    void finished(const rapid::widgets::CollectiveOutcome& outcome);
    void failed(const QString& message);
    void cancelled();

private:
    JobTracker m_jobs;
};

} // namespace rapid::widgets
