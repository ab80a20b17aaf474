// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include <memory>

namespace rapid::widgets {

struct CriticalityMap;
class TopologyLegend;
class TopologyScene;
class TopologyView;

/// The criticality map drawn on the network: the Topology tab's drawing of the network the map was computed on,
/// each ranked link coloured on the utilisation scale by the slowdown its loss causes (no slowdown: the scale's
/// low end; the worst: its high end; links that cut GPUs apart: the high end too, and their tooltips say so), with
/// the scale's legend. Exportable like a chart (ChartExporter renders the widget).
class CriticalityMapView : public QWidget {
    Q_OBJECT
public:
    explicit CriticalityMapView(QWidget* parent = nullptr);

    /// Draws @p map (null: an empty drawing).
    void setMap(std::shared_ptr<const CriticalityMap> map);
    const std::shared_ptr<const CriticalityMap>& map() const { return m_map; }
    /// The colour-scale position (0..1) of a slowdown on the shown map: 0 at no slowdown, 1 at its worst.
    double scalePosition(double slowdown, bool disconnects) const;
    TopologyScene* scene() const { return m_scene; }
    TopologyView* view() const { return m_view; }
    TopologyLegend* legend() const { return m_legend; }

private:
    std::shared_ptr<const CriticalityMap> m_map;
    double m_worst = 1; ///< the largest slowdown of a link that does not cut GPUs apart
    TopologyScene* m_scene;
    TopologyView* m_view;
    TopologyLegend* m_legend;
};

} // namespace rapid::widgets
