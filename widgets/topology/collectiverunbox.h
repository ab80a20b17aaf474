// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "topology/collectiverunner.h"

#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

namespace rapid::widgets {

class WorkspaceDocument;

/// "Collective" for the Topology tab: times ONE collective (operation, size, group, backend) on the workspace's
/// network with its faults, as `rapid collective` does, so that failing or degrading links shows what happens to that
/// collective and not only to a whole step. The run happens in the background (Cancel stops it); the simulated
/// backends hand the per-link utilisation on (utilisationAvailable) and list the busiest links. Problems (an invalid
/// size, GPUs cut apart by failed links) are shown inline. Any edit of the workspace cancels a running collective and
/// forgets the last result, which no longer describes the network.
class CollectiveRunBox : public QWidget {
    Q_OBJECT
public:
    explicit CollectiveRunBox(WorkspaceDocument* document, QWidget* parent = nullptr);

    QComboBox* operationCombo() const { return m_operation; }
    QLineEdit* sizeEdit() const { return m_size; }
    QLabel* sizeProblemLabel() const { return m_sizeProblem; }
    QComboBox* groupCombo() const { return m_group; }
    QComboBox* backendCombo() const { return m_backend; }
    QLineEdit* packetSizeEdit() const { return m_packetSize; }
    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QProgressBar* progressBar() const { return m_progress; }
    /// Running, cancelled, or why the run failed (in red).
    QLabel* statusLabel() const { return m_status; }
    /// The completion time as config::formatQuantity writes it; empty without a result.
    QLabel* timeLabel() const { return m_time; }
    QLabel* algorithmLabel() const { return m_algorithm; }
    QLabel* bandwidthLabel() const { return m_bandwidth; }
    /// The busiest links, one line each (simulated backends).
    QLabel* linksLabel() const { return m_links; }
    CollectiveRunner* runner() const { return m_runner; }
    const std::optional<CollectiveOutcome>& lastOutcome() const { return m_outcome; }

Q_SIGNALS:
    /// Per directed link of the network::Topology of the workspace's hardware: bytes / (bandwidth x makespan).
    void utilisationAvailable(const std::vector<double>& perDirectedLink);
    /// The shown utilisation is stale (the workspace changed or a new run started).
    void utilisationCleared();

private:
    void describeFields();
    void connectSignals(QFormLayout* form);
    // Changed in the document.
    void updateGroups();
    void forget();
    // Edited in the box.
    void validate();
    void run();
    void showRunning(bool running);
    void showOutcome(const CollectiveOutcome& outcome);
    void showStatus(const QString& text, bool problem);
    void clearResult();
    std::optional<network::CollectiveRequest> request(QString* why) const;

    WorkspaceDocument* m_document;
    CollectiveRunner* m_runner;
    QComboBox* m_operation;
    QLineEdit* m_size;
    QLabel* m_sizeProblem;
    QComboBox* m_group;
    QComboBox* m_backend;
    QWidget* m_packetRow;
    QLineEdit* m_packetSize;
    QLabel* m_packetProblem;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_status;
    QWidget* m_result;
    QLabel* m_time;
    QLabel* m_algorithm;
    QLabel* m_bandwidth;
    QLabel* m_links;
    std::optional<CollectiveOutcome> m_outcome;
    bool m_inputValid = false;
};

} // namespace rapid::widgets
