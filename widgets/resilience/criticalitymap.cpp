// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/criticalitymap.h"

#include "resilience/resiliencerunner.h"
#include "topology/topologylegend.h"
#include "topology/topologyscene.h"
#include "topology/topologyview.h"

#include <QHash>
#include <QVBoxLayout>

#include <algorithm>

namespace rapid::widgets {

namespace {

QString factor(double slowdown)
{
    return QStringLiteral("×%1").arg(QString::number(slowdown, 'f', slowdown < 10 ? 3 : 1));
}

} // namespace

CriticalityMapView::CriticalityMapView(QWidget* parent)
    : QWidget(parent)
    , m_scene(new TopologyScene(this))
    , m_view(new TopologyView(m_scene, this))
    , m_legend(new TopologyLegend(this))
{
    setObjectName(QStringLiteral("criticalityMap"));
    m_view->setObjectName(QStringLiteral("criticalityMapView"));
    // The scale under the drawing, not over it: at 1280 x 720 the map has ~480 x 300 px, and the Topology tab's
    // legend card covered a third of a 64-GPU fabric. Only the scale: the health samples say nothing here.
    m_legend->setStrip(true);
    m_legend->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_legend);
    setMinimumSize(240, 180);
}

double CriticalityMapView::scalePosition(double slowdown, bool disconnects) const
{
    if (disconnects) {
        return 1;
    }
    // Links whose loss speeds the step up a hair (rerouting can spread traffic) are "no slowdown".
    return m_worst > 1 ? std::clamp((slowdown - 1) / (m_worst - 1), 0.0, 1.0) : 0.0;
}

void CriticalityMapView::setMap(std::shared_ptr<const CriticalityMap> map)
{
    m_map = std::move(map);
    m_scene->setTopology(m_map ? m_map->topology : nullptr);
    m_worst = 1;
    bool anyCutOff = false;
    if (m_map) {
        for (const resilience::LinkCriticality& link : m_map->ranked) {
            anyCutOff = anyCutOff || link.disconnects;
            if (!link.disconnects) {
                m_worst = std::max(m_worst, link.slowdown);
            }
        }
    }
    QHash<QString, double> positions;
    QHash<QString, QString> notes;
    if (m_map) {
        const int count = static_cast<int>(m_map->ranked.size());
        for (int rank = 0; rank < count; ++rank) {
            const resilience::LinkCriticality& link = m_map->ranked[static_cast<size_t>(rank)];
            // A unit of several links (a node's NICs) colours each of them and names the unit in their notes.
            const QString unit
                = link.links.size() > 1 ? QString::fromStdString(link.linkId) + QStringLiteral(": ") : QString();
            const QString note = unit
                + (link.disconnects
                        ? tr("alone at this health it cuts GPUs apart (rank %1 of %2)").arg(rank + 1).arg(count)
                        : tr("alone at this health it slows the step %1 (rank %2 of %3)")
                              .arg(factor(link.slowdown))
                              .arg(rank + 1)
                              .arg(count));
            const std::vector<std::string> ids
                = link.links.empty() ? std::vector<std::string> { link.linkId } : link.links;
            for (const std::string& member : ids) {
                const QString id = QString::fromStdString(member);
                positions.insert(id, scalePosition(link.slowdown, link.disconnects));
                notes.insert(id, note);
            }
        }
    }
    m_scene->setLinkScale(positions, notes);
    // Short labels: the legend card is ~200 px wide. With every link cutting GPUs apart (NVLink at health 0) there is
    // no slowdown scale, only the two ends.
    const bool scale = m_worst > 1;
    const QString high = anyCutOff ? (scale ? tr("%1 / cut").arg(factor(m_worst)) : tr("cut off")) : factor(m_worst);
    m_legend->setScaleLabels(m_map && m_map->health == 0
            ? tr("slowdown if the link fails")
            : tr("slowdown at link health %1").arg(m_map ? QString::number(m_map->health, 'g', 3) : QString()),
        factor(1), scale ? factor((1 + m_worst) / 2) : QString(), high);
    m_legend->setShowsUtilisation(m_map != nullptr);
    m_legend->setVisible(m_map != nullptr); // a key to an empty drawing would read as a result
    m_view->fitToView();
}

} // namespace rapid::widgets
