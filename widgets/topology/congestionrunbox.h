// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "topology/congestionrunner.h"

#include <QWidget>

#include <optional>

class QLabel;
class QProgressBar;
class QPushButton;

namespace rapid::widgets {

class WorkspaceDocument;

/// "Simulate congestion" for the Topology tab: runs the workspace's training step on the congestion backend in the
/// background (a progress bar and a Cancel button while it runs), then reports its step time against the analytical
/// one and hands the per-link utilisation on (utilisationAvailable). Any edit of the workspace cancels a running
/// simulation and forgets the last result, which no longer describes the configuration.
class CongestionRunBox : public QWidget {
    Q_OBJECT
public:
    explicit CongestionRunBox(WorkspaceDocument* document, QWidget* parent = nullptr);

    QPushButton* simulateButton() const { return m_simulate; }
    QPushButton* cancelButton() const { return m_cancel; }
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* resultLabel() const { return m_result; }
    CongestionRunner* runner() const { return m_runner; }
    const std::optional<CongestionOutcome>& lastOutcome() const { return m_outcome; }

Q_SIGNALS:
    /// Per directed link of the network::Topology of the simulated hardware (see TrainingResult::linkUtilisation).
    void utilisationAvailable(const std::vector<double>& perDirectedLink);
    /// The shown utilisation is stale (the workspace changed or a new simulation started).
    void utilisationCleared();
    /// The congestion backend's step for the current workspace: the dashboard shows it beside the analytical one.
    void stepAvailable(const rapid::report::TrainingResult& congestion);
    /// The congestion step shown is no longer the workspace's (it changed).
    void stepCleared();

private:
    void simulate();
    void showRunning(bool running);
    void showOutcome(const CongestionOutcome& outcome);
    void forget();

    WorkspaceDocument* m_document;
    CongestionRunner* m_runner;
    QPushButton* m_simulate;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_result;
    std::optional<CongestionOutcome> m_outcome;
};

} // namespace rapid::widgets
