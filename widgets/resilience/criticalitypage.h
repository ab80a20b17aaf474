// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "resilience/resiliencepage.h"

#include <memory>

class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
class QTableWidget;

namespace rapid::widgets {

class CriticalityMapView;
class LinkClassList;
struct CriticalityMap;

/// The Resilience tab's criticality map (`rapid resilience --criticality`): each link of the checked classes alone
/// at a health, ranked by the slowdown it causes (links that cut GPUs apart first) in a table, and drawn on the
/// network coloured by that slowdown (CriticalityMapView). Selecting a table row selects its link in the drawing.
class CriticalityPage : public ResiliencePage {
    Q_OBJECT
public:
    explicit CriticalityPage(WorkspaceDocument* document, QWidget* parent = nullptr);

    bool run() override;
    QDoubleSpinBox* healthSpin() const { return m_health; }
    LinkClassList* classList() const { return m_classes; }
    QSpinBox* maxLinksSpin() const { return m_maxLinks; }
    QComboBox* backendCombo() const { return m_backend; }
    CriticalityMapView* mapView() const { return m_map; }
    QTableWidget* table() const { return m_table; }

protected:
    void clearResult() override;
    QJsonObject resultJson() const override;
    bool restoreResult(const QJsonObject& json, const std::optional<config::ResultDocuments>& from) override;
    void scenarioUpdated(const config::Scenario& scenario) override;

private:
    void showMap(const std::shared_ptr<const CriticalityMap>& map);

    QDoubleSpinBox* m_health;
    LinkClassList* m_classes;
    QSpinBox* m_maxLinks;
    QComboBox* m_backend;
    CriticalityMapView* m_map;
    QTableWidget* m_table;
    std::string m_hardwareText;
};

} // namespace rapid::widgets
