// SPDX-License-Identifier: GPL-3.0-or-later
#include "resilience/criticalitypage.h"

#include "editors/workspacedocument.h"
#include "resilience/criticalitymap.h"
#include "resilience/faultstudypage.h"
#include "resilience/resiliencefields.h"
#include "resilience/resiliencerunner.h"
#include "resilience/resultcodec.h"
#include "topology/topologyscene.h"

#include "network/topology.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>

namespace rapid::widgets {

CriticalityPage::CriticalityPage(WorkspaceDocument* document, QWidget* parent)
    : ResiliencePage(document, tr("Rank links"), QStringLiteral("criticality"), parent)
    , m_health(new QDoubleSpinBox(this))
    , m_classes(new LinkClassList(QStringLiteral("criticalityClasses"), this))
    , m_maxLinks(new QSpinBox(this))
    , m_backend(createBackendCombo(QStringLiteral("criticalityBackend"), this))
    , m_map(new CriticalityMapView(this))
    , m_table(createResultTable(
          { tr("rank"), tr("slowdown"), tr("class"), tr("link") }, QStringLiteral("criticalityTable"), this))
{
    setObjectName(QStringLiteral("criticalityPage"));
    m_health->setObjectName(QStringLiteral("criticalityHealth"));
    m_health->setRange(0, 0.99);
    m_health->setDecimals(2);
    m_health->setSingleStep(0.05);
    m_health->setValue(0);
    m_health->setSpecialValueText(tr("0 (failed)"));
    m_health->setToolTip(tr("Health each link is set to alone: 0 fails it (routes avoid it), up to 0.99"));
    m_maxLinks->setObjectName(QStringLiteral("criticalityMaxLinks"));
    m_maxLinks->setRange(1, 1000000);
    m_maxLinks->setValue(2000);
    m_maxLinks->setToolTip(tr("Time at most this many links; more are sampled evenly within each class"));
    form()->addRow(tr("Health"), m_health);
    // Spanning the form: class names ("nvlink GPU-switch") need the width.
    form()->addRow(new QLabel(tr("Link classes"), this));
    form()->addRow(m_classes);
    form()->addRow(tr("At most links"), m_maxLinks);
    form()->addRow(tr("Backend"), m_backend);

    layOutWithResults(m_map, m_table);

    connect(m_classes, &LinkClassList::validityChanged, this, [this] { setInputsValid(m_classes->isValid()); });
    connect(runner(), &ResilienceRunner::criticalityFinished, this, &CriticalityPage::showMap);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        QStringList ids;
        for (const QTableWidgetItem* item : m_table->selectedItems()) {
            if (item->column() == 3) {
                ids.append(item->text());
            }
        }
        m_map->scene()->selectLinks(ids);
    });
    if (document->scenario()) {
        scenarioUpdated(*document->scenario());
    }
    setInputsValid(m_classes->isValid());
}

void CriticalityPage::scenarioUpdated(const config::Scenario& scenario)
{
    if (document()->documents().hardware.text != m_hardwareText) {
        m_hardwareText = document()->documents().hardware.text;
        QString problem;
        const auto classes = classesOf(scenario, &problem);
        m_classes->setClasses(classes, problem);
    }
}

bool CriticalityPage::run()
{
    std::optional<config::Scenario> scenario = trainingScenario();
    if (!scenario) {
        return false;
    }
    runner()->runCriticality(std::move(*scenario), m_health->value(), backendOf(m_backend), m_classes->checkedClasses(),
        m_maxLinks->value());
    started(tr("Timing each link alone on the workspace as it was at Run…"));
    return true;
}

void CriticalityPage::showMap(const std::shared_ptr<const CriticalityMap>& map)
{
    m_map->setMap(map);
    m_table->setRowCount(0);
    m_table->setRowCount(static_cast<int>(map->ranked.size()));
    int cutOff = 0;
    for (int row = 0; row < static_cast<int>(map->ranked.size()); ++row) {
        const resilience::LinkCriticality& link = map->ranked[static_cast<size_t>(row)];
        cutOff += link.disconnects ? 1 : 0;
        const QStringList cells { QString::number(row + 1),
            link.disconnects ? tr("cut off") : slowdownText(link.slowdown), QString::fromStdString(link.linkClass),
            QString::fromStdString(link.linkId) };
        for (int column = 0; column < cells.size(); ++column) {
            auto* item = new QTableWidgetItem(cells[column]);
            if (column < 2) {
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            }
            m_table->setItem(row, column, item);
        }
    }
    const QString worst = map->ranked.empty() || map->ranked.front().disconnects
        ? QString()
        : tr("; the worst slows the step ×%1").arg(slowdownText(map->ranked.front().slowdown));
    showResult(tr("%1 links ranked at health %2 (%3 backend); %4 cut GPUs apart%5.")
                   .arg(map->ranked.size())
                   .arg(QString::number(map->health, 'g', 3))
                   .arg(QString::fromStdString(sim::toString(map->backend)))
                   .arg(cutOff)
                   .arg(worst));
}

void CriticalityPage::clearResult()
{
    m_map->setMap(nullptr);
    m_table->setRowCount(0);
}

QJsonObject CriticalityPage::resultJson() const
{
    return m_map->map() ? criticalityToJson(*m_map->map()) : QJsonObject();
}

bool CriticalityPage::restoreResult(const QJsonObject& json, const std::optional<config::ResultDocuments>& from)
{
    // The map is drawn on the network it was computed on; when its documents are not known, on the workspace's
    // (the table is right either way, and links the network no longer has stay undrawn).
    const std::optional<config::Scenario> scenario = from ? document()->scenarioOf(*from) : document()->scenario();
    std::shared_ptr<const network::Topology> topology;
    try {
        topology = scenario ? std::make_shared<const network::Topology>(scenario->hardware) : nullptr;
    } catch (const std::exception&) {
        topology = nullptr; // no drawing; the table still shows the ranking
    }
    const std::shared_ptr<const CriticalityMap> map = criticalityFromJson(json, std::move(topology));
    if (map) {
        // The inputs that produced the ranking, beside it (they are not saved on their own).
        m_health->setValue(map->health);
        chooseBackend(m_backend, map->backend);
        showMap(map);
    }
    return map != nullptr;
}

} // namespace rapid::widgets
