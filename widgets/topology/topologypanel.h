// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/configloader.h"
#include "config/hardwarespec.h"

#include <QStringList>
#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QPushButton;
class QSpinBox;

namespace rapid::widgets {

class CollectiveRunBox;
class CongestionRunBox;
class InputsColumnLayout;
class LinkHealthEditor;
class TopologyLegend;
class TopologyScene;
class TopologySearch;
class TopologyView;
class WorkspaceDocument;

/// The Topology tab: the network of the workspace's hardware drawn by a TopologyView, with the link health editor,
/// the legend over the drawing and counts beside it (under it in a narrow tab). Two slot groups, as in the other views:
/// "changed in the document" redraws the network when the hardware's cluster or faults change (and only updates the
/// tooltips when just the run changed); "edited in the view" writes the selected links' faults into the hardware YAML
/// as one undoable step, after which the document re-checks, the evaluation re-runs and the network is redrawn from the
/// new faults.
class TopologyPanel : public QWidget {
    Q_OBJECT
public:
    explicit TopologyPanel(WorkspaceDocument* document, QWidget* parent = nullptr);

    TopologyView* view() const { return m_view; }
    TopologyScene* scene() const { return m_scene; }
    LinkHealthEditor* editor() const { return m_editor; }
    CongestionRunBox* congestionRun() const { return m_congestion; }
    CollectiveRunBox* collectiveRun() const { return m_collective; }
    TopologyLegend* legend() const { return m_legend; }
    TopologySearch* search() const { return m_search; }
    QLabel* statusLabel() const { return m_status; }
    QPushButton* fitButton() const { return m_fit; }
    /// How many instances of an outer switched fabric (rails) are drawn per group; shown only where it matters.
    QSpinBox* instancesSpinBox() const { return m_instances; }
    /// Whether the side column stands beside the drawing (a wide tab) rather than under it.
    bool controlsBesideView() const;

    /// Colours the links by utilisation (see TopologyScene::setLinkUtilisation), for the congestion-aware backend and
    /// the collective what-if.
    bool setLinkUtilisation(const std::vector<double>& perDirectedLink);
    /// Sets @p health on the links @p ids in the hardware YAML as one undoable step; health >= 1 removes their
    /// faults. False with the reason in @p error when the configuration is invalid or the YAML cannot be edited.
    bool setLinkHealth(const QStringList& ids, double health, QString* error = nullptr);

private:
    // Changed in the document.
    void showScenario(const config::Scenario& scenario);
    void showValidity();
    void updateStatus();
    // Edited in the view.
    void updateEditor();
    void applyHealth(double health);

    WorkspaceDocument* m_document;
    TopologyScene* m_scene;
    TopologyView* m_view;
    LinkHealthEditor* m_editor;
    CongestionRunBox* m_congestion;
    CollectiveRunBox* m_collective;
    TopologyLegend* m_legend;
    TopologySearch* m_search;
    QLabel* m_status;
    QLabel* m_problem;
    QPushButton* m_fit;
    QWidget* m_instancesRow;
    QSpinBox* m_instances;
    InputsColumnLayout* m_layout = nullptr;
    std::optional<config::HardwareSpec> m_drawn; ///< the hardware the scene was built from
    QString m_topologyProblem; ///< why the faults could not be applied to the drawn network
};

} // namespace rapid::widgets
