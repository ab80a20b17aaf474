// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/topologypanel.h"

#include "common/inputscolumnlayout.h"
#include "editors/workspacedocument.h"
#include "topology/collectiverunbox.h"
#include "topology/congestionrunbox.h"
#include "topology/faultlist.h"
#include "topology/linkhealtheditor.h"
#include "topology/linkitem.h"
#include "topology/topologylegend.h"
#include "topology/topologyscene.h"
#include "topology/topologysearch.h"
#include "topology/topologyview.h"

#include "network/topology.h"
#include "parallel/placement.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <stdexcept>

namespace rapid::widgets {

namespace {

constexpr int kMaxInstanceBands = 64;
/// The narrowest drawing kept beside the side column: below it the column goes under the drawing. About as wide as a
/// fabric of a few switch tiers can be read at, and wider than its key.
constexpr int kMinimumViewWidth = 320;

QLabel* boldLabel(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    QFont bold = label->font();
    bold.setBold(true);
    label->setFont(bold);
    return label;
}

QString count(int value)
{
    return QLocale().toString(value);
}

/// "1 switch", "72 switches": @p value with the noun that agrees with it.
QString counted(int value, const QString& one, const QString& many)
{
    return count(value) + QLatin1Char(' ') + (value == 1 ? one : many);
}

/// Whether the network has an outer switched dimension with several instances in one group (rails), the only case
/// where the number of instances drawn changes the picture.
bool hasInstanceBands(const network::Topology& topology)
{
    int inner = 1;
    for (int d = 0; d < topology.dimensionCount(); ++d) {
        if (d > 0 && inner > 1 && !topology.layout(d).switchesPerTier.empty()) {
            return true;
        }
        inner *= topology.layout(d).endpoints;
    }
    return false;
}

} // namespace

TopologyPanel::TopologyPanel(WorkspaceDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_scene(new TopologyScene(this))
    , m_view(new TopologyView(m_scene, this))
    , m_editor(new LinkHealthEditor(this))
    , m_congestion(new CongestionRunBox(document, this))
    , m_collective(new CollectiveRunBox(document, this))
    , m_legend(new TopologyLegend(this))
    , m_search(new TopologySearch(m_view, this))
    , m_status(new QLabel(this))
    , m_problem(new QLabel(this))
    , m_fit(new QPushButton(tr("Fit to View"), this))
    , m_instancesRow(new QWidget(this))
    , m_instances(new QSpinBox(m_instancesRow))
{
    setObjectName(QStringLiteral("topologyPanel"));
    m_status->setObjectName(QStringLiteral("topologyStatus"));
    m_status->setWordWrap(true);
    m_problem->setObjectName(QStringLiteral("topologyProblem"));
    m_problem->setWordWrap(true);
    m_problem->hide();
    m_fit->setObjectName(QStringLiteral("topologyFitButton"));
    m_fit->setToolTip(
        tr("Show the whole network (Ctrl+0). The wheel zooms at the cursor, Shift+wheel scrolls, dragging pans."));

    m_instances->setObjectName(QStringLiteral("topologyInstancesSpin"));
    m_instances->setRange(1, kMaxInstanceBands);
    m_instances->setValue(m_scene->limits().maxInstanceBands);
    m_instances->setToolTip(tr("An outer switched dimension has one instance per GPU of a group (a rail of a "
                               "rail-optimised fabric). All have the same shape; this many are drawn, the others are "
                               "counted."));
    auto* instancesLayout = new QHBoxLayout(m_instancesRow);
    instancesLayout->setContentsMargins(0, 0, 0, 0);
    instancesLayout->addWidget(new QLabel(tr("Fabric instances drawn"), m_instancesRow), 1);
    instancesLayout->addWidget(m_instances);
    m_instancesRow->hide();

    auto* side = new QWidget(this);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(6, 0, 0, 0);
    sideLayout->addWidget(m_fit);
    sideLayout->addWidget(m_search);
    sideLayout->addWidget(m_instancesRow);
    sideLayout->addWidget(m_status);
    sideLayout->addWidget(m_problem);
    sideLayout->addSpacing(6);
    sideLayout->addWidget(m_editor);
    sideLayout->addSpacing(6);
    sideLayout->addWidget(boldLabel(tr("Congestion"), side));
    sideLayout->addWidget(m_congestion);
    sideLayout->addSpacing(6);
    sideLayout->addWidget(boldLabel(tr("Collective"), side));
    sideLayout->addWidget(m_collective);
    sideLayout->addStretch(1);
    // Over the drawing, not in the side column: always in sight next to what it explains, at any zoom.
    m_view->setOverlay(m_legend);
    // The column outgrew a laptop screen's height with the collective what-if: it scrolls rather than squeezing its
    // labels until they clip.
    auto* sideScroll = new QScrollArea(this);
    sideScroll->setObjectName(QStringLiteral("topologySideScroll"));
    sideScroll->setFrameShape(QFrame::NoFrame);
    sideScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    sideScroll->setWidgetResizable(true);
    sideScroll->setWidget(side);
    // Beside the drawing while the tab holds both; in a narrow tab (the docked layout of a 1,024-px window left the
    // drawing 210 px and clipped its key) the column goes under the drawing, which takes the whole width.
    m_layout = new InputsColumnLayout(
        this, sideScroll, m_view,
        [this] { return std::max(kMinimumViewWidth, m_legend->sizeHint().width() + 2 * TopologyView::kOverlayMargin); },
        InputsColumnLayout::InputsSide::Trailing);
    m_layout->setContentsMargins(2, 2, 2, 2);

    connect(m_document, &WorkspaceDocument::scenarioChanged, this, &TopologyPanel::showScenario);
    connect(m_document, &WorkspaceDocument::diagnosticsChanged, this, &TopologyPanel::showValidity);
    connect(m_document, &WorkspaceDocument::workspaceLoaded, this, [this] {
        m_scene->selectLinks({}); // another workspace's links, even where the ids are the same
        m_view->fitToView();
    });
    connect(m_fit, &QPushButton::clicked, m_view, &TopologyView::fitToView);
    connect(m_scene, &TopologyScene::linkSelectionChanged, this, &TopologyPanel::updateEditor);
    connect(m_scene, &TopologyScene::topologyRebuilt, this, &TopologyPanel::updateEditor);
    connect(m_scene, &TopologyScene::topologyRebuilt, this, &TopologyPanel::updateStatus); // the drawn counts
    connect(m_scene, &TopologyScene::utilisationChanged, this,
        [this] { m_legend->setShowsUtilisation(m_scene->hasUtilisation()); });
    connect(m_scene, &TopologyScene::topologyRebuilt, this,
        [this] { m_legend->setShowsUtilisation(m_scene->hasUtilisation()); });
    connect(m_instances, &QSpinBox::valueChanged, this, [this](int bands) {
        TopologyLimits limits = m_scene->limits();
        limits.maxInstanceBands = bands;
        m_scene->setLimits(limits);
        updateStatus();
    });
    connect(m_congestion, &CongestionRunBox::utilisationAvailable, this,
        [this](const std::vector<double>& perLink) { setLinkUtilisation(perLink); });
    connect(m_congestion, &CongestionRunBox::utilisationCleared, this, [this] { setLinkUtilisation({}); });
    // The last run of either box colours the links; one drawing shows one run's utilisation.
    connect(m_collective, &CollectiveRunBox::utilisationAvailable, this,
        [this](const std::vector<double>& perLink) { setLinkUtilisation(perLink); });
    connect(m_collective, &CollectiveRunBox::utilisationCleared, this, [this] { setLinkUtilisation({}); });
    connect(m_editor, &LinkHealthEditor::healthRequested, this, &TopologyPanel::applyHealth);
    connect(m_editor, &LinkHealthEditor::restoreRequested, this, [this] { applyHealth(1.0); });

    if (m_document->scenario()) {
        showScenario(*m_document->scenario());
    }
    showValidity();
}

bool TopologyPanel::controlsBesideView() const
{
    return m_layout->inputsBeside();
}

bool TopologyPanel::setLinkUtilisation(const std::vector<double>& perDirectedLink)
{
    return m_scene->setLinkUtilisation(perDirectedLink);
}

void TopologyPanel::showScenario(const config::Scenario& scenario)
{
    const config::HardwareSpec& hardware = scenario.hardware;
    const bool clusterChanged = !m_drawn || m_drawn->cluster != hardware.cluster;
    if (clusterChanged || m_drawn->faults != hardware.faults) {
        std::shared_ptr<const network::Topology> topology;
        m_topologyProblem.clear();
        try {
            topology = std::make_shared<const network::Topology>(hardware);
        } catch (const std::exception& error) {
            // The loader checks a fault's link id against the dimensions, not whether that link exists (a
            // ring has no link 0-3): draw the network without the faults and say why.
            m_topologyProblem = QString::fromUtf8(error.what());
            try {
                topology
                    = std::make_shared<const network::Topology>(hardware.cluster, std::vector<config::LinkFault>());
            } catch (const std::exception&) {
                topology.reset();
            }
        }
        m_drawn = hardware;
        m_instancesRow->setVisible(topology && hasInstanceBands(*topology));
        m_scene->setTopology(topology);
        if (clusterChanged) {
            m_view->fitToView();
        }
    }
    showValidity(); // a valid scenario arrived; diagnosticsChanged only comes when the problems change
    std::vector<config::Diagnostic> problems;
    m_scene->setPlacement(parallel::placeRanks(hardware, scenario.run, scenario.locations, &problems));
    updateStatus();
}

void TopologyPanel::showValidity()
{
    const bool valid = m_document->scenario().has_value();
    m_editor->setBlockedReason(valid ? QString()
                                     : tr("The configuration has problems (see Diagnostics): this is the last valid "
                                          "network, and faults can be edited again once they are fixed."));
}

void TopologyPanel::updateStatus()
{
    const network::Topology* topology = m_scene->topology();
    if (!topology) {
        m_status->setText(tr("No network to draw."));
    } else {
        const TopologyLayout& layout = m_scene->layout();
        const int switches = topology->nodeCount() - topology->gpuCount();
        const int dimensions = topology->dimensionCount();
        QString text = tr("%1, %2, %3")
                           .arg(counted(topology->gpuCount(), tr("GPU"), tr("GPUs")),
                               counted(switches, tr("switch"), tr("switches")),
                               counted(topology->physicalLinkCount(), tr("link"), tr("links")))
            + QLatin1Char('\n') + counted(dimensions, tr("network dimension"), tr("network dimensions"));
        if (layout.shownGpus < topology->gpuCount() || layout.shownSwitches < switches
            || static_cast<int>(layout.links.size()) < topology->physicalLinkCount()) {
            text += QLatin1Char('\n')
                + tr("Drawn: %1, %2, %3 (large networks are drawn in part)")
                      .arg(counted(layout.shownGpus, tr("GPU"), tr("GPUs")),
                          counted(layout.shownSwitches, tr("switch"), tr("switches")),
                          counted(static_cast<int>(layout.links.size()), tr("link"), tr("links")));
        }
        if (m_drawn && !m_drawn->faults.empty()) {
            const auto faults = static_cast<int>(m_drawn->faults.size());
            text += QLatin1Char('\n') + counted(faults, tr("fault"), tr("faults")) + tr(" in the hardware");
        }
        m_status->setText(text);
    }
    m_problem->setVisible(!m_topologyProblem.isEmpty());
    m_problem->setText(tr("Faults not drawn: %1").arg(m_topologyProblem));
}

void TopologyPanel::updateEditor()
{
    QList<LinkHealthEditor::Link> links;
    for (const LinkItem* item : m_scene->linkItems()) {
        if (item->isSelected()) {
            links.append({ item->linkId(), item->health(), item->isWritable() });
        }
    }
    m_editor->setLinks(links);
}

void TopologyPanel::applyHealth(double health)
{
    QStringList ids;
    for (const LinkItem* item : m_scene->linkItems()) {
        if (item->isSelected() && item->isWritable()) {
            ids.append(item->linkId());
        }
    }
    QString error;
    if (!ids.isEmpty() && !setLinkHealth(ids, health, &error)) {
        m_problem->setText(tr("Cannot write the faults: %1").arg(error));
        m_problem->show();
    }
}

bool TopologyPanel::setLinkHealth(const QStringList& ids, double health, QString* error)
{
    auto fail = [error](const QString& reason) {
        if (error) {
            *error = reason;
        }
        return false;
    };
    if (!m_document->scenario()) {
        return fail(tr("the configuration has problems; fix them first"));
    }
    const std::string before = m_document->text(DocumentKind::Hardware).toStdString();
    std::vector<std::string> links;
    for (const QString& id : ids) {
        links.push_back(id.toStdString());
    }
    const std::vector<FaultEntry> faults = faultsInText(before);
    const std::vector<FaultEntry> updated = withLinkHealth(faults, links, health);
    if (updated == faults) {
        return true;
    }
    std::string why;
    const std::optional<std::string> after = replaceFaults(before, updated, &why);
    if (!after) {
        return fail(QString::fromStdString(why));
    }
    const QString subject = ids.size() == 1 ? ids.first() : tr("%1 links").arg(ids.size());
    const QString description = health <= 0 ? tr("Fail %1").arg(subject)
        : health >= 1                       ? tr("Restore %1").arg(subject)
                      : tr("Set health of %1 to %2").arg(subject, QString::fromStdString(formatHealth(health)));
    m_document->replaceText(DocumentKind::Hardware, QString::fromStdString(*after), description);
    return true;
}

} // namespace rapid::widgets
