// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/topologyscene.h"

#include "topology/linkitem.h"
#include "topology/rankgroups.h"
#include "topology/topologyitems.h"

#include "network/topology.h"

#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace rapid::widgets {

namespace {

constexpr double kSceneMargin = 40;

QString dimensionName(const network::Topology& topology, int dimension)
{
    return QString::fromStdString(topology.layout(dimension).name);
}

/// "nvlink@3" for instance 3, "nvlink" for instance 0 (the form link ids use).
QString instanceName(const network::Topology& topology, int dimension, int replica)
{
    const QString name = dimensionName(topology, dimension);
    return replica == 0 ? name : name + QLatin1Char('@') + QString::number(replica);
}

QString switchName(const network::Node& node)
{
    return QStringLiteral("s%1.%2").arg(node.tier).arg(node.index);
}

/// The text in a switch's box: `s<tier>.<index>` as in link ids, or where the switch is its instance's only one (the
/// NVLink switch of a node) the instance's name, so that eight boxes do not all read "s1.0".
QString switchLabel(const network::Topology& topology, const network::Node& node)
{
    const std::vector<int>& tiers = topology.layout(node.dimension).switchesPerTier;
    if (tiers.size() != 1 || tiers.front() != 1) {
        return switchName(node);
    }
    return topology.replicaCount(node.dimension) > 1
        ? QStringLiteral("%1 %2").arg(dimensionName(topology, node.dimension)).arg(node.replica)
        : dimensionName(topology, node.dimension);
}

QString endName(const network::Topology& topology, int node)
{
    const network::Node& end = topology.node(node);
    if (!end.isSwitch) {
        return TopologyScene::tr("GPU %1").arg(end.index);
    }
    return TopologyScene::tr("%1 switch %2").arg(instanceName(topology, end.dimension, end.replica), switchName(end));
}

QString formatBandwidth(double bytesPerSecond)
{
    return TopologyScene::tr("%1 GB/s").arg(QString::number(bytesPerSecond / 1e9, 'g', 4));
}

/// "(x 1, y 2)" for a torus or mesh endpoint; empty for other kinds.
QString gridCoordinates(const network::DimensionLayout& layout, int endpoint)
{
    if (layout.shape.size() < 2) {
        return {};
    }
    static const char* const kAxes[] = { "x", "y", "z" };
    QStringList parts;
    int rest = endpoint;
    for (size_t axis = 0; axis < layout.shape.size() && axis < 3; ++axis) {
        parts.append(QStringLiteral("%1 %2").arg(QLatin1String(kAxes[axis])).arg(rest % layout.shape[axis]));
        rest /= layout.shape[axis];
    }
    return QStringLiteral(" (") + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
}

QString axesText(const std::vector<RankAxis>& axes, bool withGroups)
{
    QStringList parts;
    for (const RankAxis& axis : axes) {
        QString part = QStringLiteral("%1 %2").arg(QString::fromStdString(axis.axis)).arg(axis.index);
        if (withGroups) {
            part = TopologyScene::tr("%1 of %2, group %3").arg(part).arg(axis.degree).arg(axis.group);
        }
        parts.append(part);
    }
    return parts.join(withGroups ? QStringLiteral("\n") : QStringLiteral(" · "));
}

} // namespace

TopologyScene::TopologyScene(QObject* parent)
    : QGraphicsScene(parent)
{
    setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    connect(this, &QGraphicsScene::selectionChanged, this, [this] {
        if (!m_rebuilding) {
            Q_EMIT linkSelectionChanged();
        }
    });
}

TopologyScene::~TopologyScene()
{
    // Items go before the signal connections: removing selected items must not reach a half-destroyed scene.
    m_rebuilding = true;
    clear();
}

void TopologyScene::setLimits(const TopologyLimits& limits)
{
    m_limits = limits;
    if (m_topology) {
        setTopology(m_topology);
    }
}

void TopologyScene::setTopology(std::shared_ptr<const network::Topology> topology)
{
    const QStringList selected = selectedLinkIds();
    m_rebuilding = true;
    clear();
    m_links.clear();
    m_nodes.clear();
    m_groups.clear();
    m_glyphs.clear();
    m_linkById.clear();
    m_linkNotes.clear();
    m_hasUtilisation = false;
    m_topology = std::move(topology);
    m_layout = m_topology ? layoutTopology(*m_topology, m_limits) : TopologyLayout();
    addItems();
    for (const QString& id : selected) {
        if (LinkItem* item = linkItem(id)) {
            item->setSelected(true);
        }
    }
    m_rebuilding = false;
    setSceneRect(itemsBoundingRect().adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
    updateTooltips();
    Q_EMIT topologyRebuilt();
    if (selectedLinkIds() != selected) {
        Q_EMIT linkSelectionChanged();
    }
}

void TopologyScene::addItems()
{
    if (!m_topology) {
        return;
    }
    const network::Topology& topology = *m_topology;
    for (const LayoutGroup& group : m_layout.groups) {
        auto* item = new GroupItem(group.rect, group.title);
        addItem(item);
        addItem(item->createTitleItem());
        m_groups.append(item);
    }
    for (const LayoutLabel& label : m_layout.labels) {
        addItem(
            new LabelItem(label.position, label.text, label.marker ? LabelItem::Kind::Marker : LabelItem::Kind::Band));
    }
    for (const LayoutLink& drawn : m_layout.links) {
        const network::Link& link = topology.link(2 * drawn.physical);
        const QPointF a = m_layout.positions[static_cast<size_t>(link.from)];
        const QPointF b = m_layout.positions[static_cast<size_t>(link.to)];
        QPainterPath path(a);
        if (drawn.bend.isNull()) {
            path.lineTo(b);
        } else {
            path.quadTo((a + b) / 2 + drawn.bend, b);
        }
        const QString id = QString::fromStdString(topology.linkId(2 * drawn.physical));
        auto* item = new LinkItem(drawn.physical, id, link.health, true, path);
        addItem(item);
        m_links.append(item);
        m_linkById.insert(id, item);
    }
    for (const LayoutGlyph& glyph : m_layout.glyphs) {
        auto* item = new GlyphItem(glyph.position, glyph.text, glyph.dimension, glyph.tier, glyph.feeds);
        item->setToolTip(tr("%1 of %2, not drawn one by one\nDouble-click to draw them")
                             .arg(glyph.text, instanceName(topology, glyph.dimension, glyph.replica)));
        addItem(item);
        m_glyphs.append(item);
    }
    for (int node = 0; node < topology.nodeCount(); ++node) {
        if (!m_layout.shown[static_cast<size_t>(node)]) {
            continue;
        }
        const network::Node& info = topology.node(node);
        auto* item = info.isSwitch ? new NodeItem(node, true, switchLabel(topology, info), m_layout.switchSize)
                                   : new NodeItem(node, false, QString::number(info.index), m_layout.gpuSize);
        item->setPos(m_layout.positions[static_cast<size_t>(node)]);
        addItem(item);
        m_nodes.append(item);
    }
}

void TopologyScene::setTierUnfolded(int dimension, int tier, bool unfolded)
{
    TopologyLimits limits = m_limits;
    auto& tiers = limits.unfoldedTiers;
    const std::pair<int, int> key(dimension, tier);
    tiers.erase(std::remove(tiers.begin(), tiers.end(), key), tiers.end());
    if (unfolded) {
        tiers.push_back(key);
    }
    if (limits != m_limits) {
        setLimits(limits);
    }
}

void TopologyScene::setPlacement(std::optional<parallel::Placement> placement)
{
    if (m_placement == placement) {
        return;
    }
    m_placement = std::move(placement);
    updateTooltips();
}

bool TopologyScene::setLinkUtilisation(const std::vector<double>& perDirectedLink)
{
    if (!perDirectedLink.empty()
        && (!m_topology || static_cast<int>(perDirectedLink.size()) != m_topology->linkCount())) {
        return false;
    }
    m_hasUtilisation = !perDirectedLink.empty();
    m_linkNotes.clear();
    for (LinkItem* item : std::as_const(m_links)) {
        std::optional<double> load;
        if (m_hasUtilisation) {
            const double forward = perDirectedLink[2 * static_cast<size_t>(item->physicalIndex())];
            const double backward = perDirectedLink[2 * static_cast<size_t>(item->physicalIndex()) + 1];
            const double larger
                = std::max(std::isfinite(forward) ? forward : 0.0, std::isfinite(backward) ? backward : 0.0);
            load = std::max(0.0, larger);
        }
        item->setUtilisation(load);
        item->setToolTip(linkTooltip(item));
    }
    Q_EMIT utilisationChanged();
    return true;
}

void TopologyScene::setLinkScale(const QHash<QString, double>& fractions, const QHash<QString, QString>& notes)
{
    m_hasUtilisation = !fractions.isEmpty();
    m_linkNotes = m_hasUtilisation ? notes : QHash<QString, QString>();
    for (LinkItem* item : std::as_const(m_links)) {
        const auto found = fractions.constFind(item->linkId());
        item->setUtilisation(found == fractions.constEnd() || !std::isfinite(*found)
                ? std::nullopt
                : std::optional<double>(std::clamp(*found, 0.0, 1.0)));
        item->setToolTip(linkTooltip(item));
    }
    Q_EMIT utilisationChanged();
}

QStringList TopologyScene::selectedLinkIds() const
{
    QStringList ids;
    for (const LinkItem* item : m_links) {
        if (item->isSelected()) {
            ids.append(item->linkId());
        }
    }
    return ids;
}

void TopologyScene::selectLinks(const QStringList& ids)
{
    m_rebuilding = true; // one signal for the whole change, not one per item
    const QStringList before = selectedLinkIds();
    for (LinkItem* item : std::as_const(m_links)) {
        item->setSelected(ids.contains(item->linkId()));
    }
    m_rebuilding = false;
    if (selectedLinkIds() != before) {
        Q_EMIT linkSelectionChanged();
    }
}

void TopologyScene::setHighlightedNode(int node)
{
    for (NodeItem* item : std::as_const(m_nodes)) {
        item->setHighlighted(item->nodeIndex() == node);
    }
}

int TopologyScene::highlightedNode() const
{
    for (const NodeItem* item : m_nodes) {
        if (item->isHighlighted()) {
            return item->nodeIndex();
        }
    }
    return -1;
}

void TopologyScene::updateTooltips()
{
    if (!m_topology) {
        return;
    }
    for (NodeItem* item : std::as_const(m_nodes)) {
        item->setToolTip(item->isSwitch() ? switchTooltip(item->nodeIndex()) : gpuTooltip(item->nodeIndex()));
    }
    for (LinkItem* item : std::as_const(m_links)) {
        item->setToolTip(linkTooltip(item));
    }
    for (int index = 0; index < m_groups.size(); ++index) {
        m_groups[index]->setTitle(groupTitle(index));
        m_groups[index]->setToolTip(m_groups[index]->title());
    }
}

QString TopologyScene::gpuTooltip(int gpu) const
{
    const network::Topology& topology = *m_topology;
    QStringList lines;
    const bool ranked = m_placement && gpu < m_placement->ranks;
    lines.append(ranked ? tr("GPU %1 (rank %1)").arg(gpu) : tr("GPU %1").arg(gpu));
    for (int d = 0; d < topology.dimensionCount(); ++d) {
        const int endpoint = topology.localIndex(gpu, d);
        lines.append(tr("%1: endpoint %2%3 of %4")
                         .arg(dimensionName(topology, d))
                         .arg(endpoint)
                         .arg(gridCoordinates(topology.layout(d), endpoint),
                             instanceName(topology, d, topology.replicaOf(gpu, d))));
    }
    if (ranked) {
        lines.append(axesText(rankAxes(*m_placement, gpu), true));
    }
    return lines.join(QLatin1Char('\n'));
}

QString TopologyScene::switchTooltip(int node) const
{
    const network::Node& info = m_topology->node(node);
    const network::DimensionLayout& layout = m_topology->layout(info.dimension);
    return tr("%1\ntier %2 of %3").arg(endName(*m_topology, node)).arg(info.tier).arg(layout.switchesPerTier.size());
}

QString TopologyScene::linkTooltip(const LinkItem* item) const
{
    const network::Topology& topology = *m_topology;
    const network::Link& link = topology.link(2 * item->physicalIndex());
    QStringList lines;
    lines.append(item->linkId());
    lines.append(tr("%1 ↔ %2").arg(endName(topology, link.from), endName(topology, link.to)));
    QString bandwidth = tr("%1 per direction").arg(formatBandwidth(link.bandwidth));
    if (link.failed()) {
        bandwidth += tr(", failed");
    } else if (link.health < 1) {
        bandwidth += tr(", health %1 (%2)")
                         .arg(QString::number(link.health, 'f', 2), formatBandwidth(link.effectiveBandwidth()));
    }
    lines.append(bandwidth);
    if (const auto note = m_linkNotes.constFind(item->linkId()); note != m_linkNotes.constEnd()) {
        lines.append(*note);
    } else if (item->utilisation()) {
        lines.append(
            tr("utilisation %1% (the busier direction)").arg(QString::number(*item->utilisation() * 100, 'f', 0)));
    }
    return lines.join(QLatin1Char('\n'));
}

QString TopologyScene::groupTitle(int index) const
{
    const LayoutGroup& group = m_layout.groups[static_cast<size_t>(index)];
    if (!m_placement) {
        return group.title;
    }
    const QString shared = axesText(sharedAxes(*m_placement, group.firstGpu, group.gpuCount), false);
    return shared.isEmpty() ? group.title : group.title + QStringLiteral(" · ") + shared;
}

} // namespace rapid::widgets
