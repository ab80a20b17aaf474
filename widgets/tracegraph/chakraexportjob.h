// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/jobtracker.h"

#include "config/configloader.h"
#include "sim/stepchakraexport.h"

#include <QObject>
#include <QString>

namespace rapid::widgets {

/// Writes the workspace's step (or request) as Chakra traces, one file per rank (sim::writeStepChakraTraces), off the
/// GUI thread: thousands of ranks at operator detail take minutes, so it reports progress and can be cancelled. A
/// cancelled export removes the files it wrote and never reports a result; starting another cancels the running one.
class ChakraExportJob : public QObject {
    Q_OBJECT
public:
    explicit ChakraExportJob(QObject* parent = nullptr);
    ~ChakraExportJob() override;

    void start(const config::Scenario& scenario, const QString& directory, sim::ChakraDetail detail);
    void cancel();
    bool isRunning() const { return m_jobs.isRunning(); }

Q_SIGNALS:
    void progressChanged(double fraction); ///< files written / files, now and then
    void finished(const rapid::sim::ChakraExportSummary& summary, const QString& directory);
    void failed(const QString& message);
    void cancelled();

private:
    JobTracker m_jobs;
};

} // namespace rapid::widgets
