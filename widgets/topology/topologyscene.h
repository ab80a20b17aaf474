// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "topology/topologylayout.h"

#include "parallel/placement.h"

#include <QGraphicsScene>
#include <QHash>
#include <QList>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace rapid::network {
class Topology;
}

namespace rapid::widgets {

class GlyphItem;
class GroupItem;
class LinkItem;
class NodeItem;

/// The items of the topology view, built from a network::Topology laid out by layoutTopology(): one NodeItem per
/// drawn GPU and switch, one LinkItem per drawn physical link (carrying its id and health), a GroupItem per group of
/// GPUs and the labels. Knows the link selection (by id, so it survives a rebuild) and the optional utilisation of
/// each link, and writes the tooltips: a GPU's coordinates in each dimension and, with a placement, its parallel
/// groups.
///
/// Every drawn link can take a fault: instance 0 of a dimension is named "<dimension>:<a>-<b>", the others
/// "<dimension>@<instance>:<a>-<b>" (both forms are accepted by the hardware loader). LinkItem::isWritable() stays
/// for links a future view may draw but not let the user edit.
class TopologyScene : public QGraphicsScene {
    Q_OBJECT
public:
    explicit TopologyScene(QObject* parent = nullptr);
    ~TopologyScene() override;

    /// Lays the current network out again within @p limits (the selection stays, the utilisation is cleared).
    void setLimits(const TopologyLimits& limits);
    const TopologyLimits& limits() const { return m_limits; }

    /// Rebuilds every item from @p topology (null: an empty scene). The selected links that still exist stay
    /// selected; the utilisation is cleared, since it belonged to the previous network.
    void setTopology(std::shared_ptr<const network::Topology> topology);
    const network::Topology* topology() const { return m_topology.get(); }
    const TopologyLayout& layout() const { return m_layout; }

    /// Ranks' parallel groups for the tooltips and group titles; std::nullopt without a run.
    void setPlacement(std::optional<parallel::Placement> placement);

    /// Colours every link by the larger utilisation (0..1) of its two directions, indexed by the topology's directed
    /// links (2i and 2i+1 for physical link i). An empty vector clears it. False, changing nothing, when the size is
    /// not the topology's directed link count.
    bool setLinkUtilisation(const std::vector<double>& perDirectedLink);
    bool hasUtilisation() const { return m_hasUtilisation; }
    /// Colours the links named in @p fractions (by link id) on the utilisation scale (0..1) for another per-link
    /// quantity than load (the Resilience tab's criticality map); @p notes (by link id) replace the utilisation line
    /// of their tooltips. Links not named keep their health colours. An empty map clears it, as does a rebuild.
    void setLinkScale(const QHash<QString, double>& fractions, const QHash<QString, QString>& notes);

    const QList<LinkItem*>& linkItems() const { return m_links; }
    const QList<NodeItem*>& nodeItems() const { return m_nodes; }
    const QList<GroupItem*>& groupItems() const { return m_groups; }
    const QList<GlyphItem*>& glyphItems() const { return m_glyphs; }
    /// Draws switch tier @p tier of dimension @p dimension switch by switch (@p unfolded) or folded into one glyph
    /// again when it is large (TopologyLimits::maxSwitchesUnfolded); rebuilds the scene.
    void setTierUnfolded(int dimension, int tier, bool unfolded);
    LinkItem* linkItem(const QString& id) const { return m_linkById.value(id, nullptr); }
    /// Selected link ids in the topology's link order.
    QStringList selectedLinkIds() const;
    /// Makes exactly @p ids selected (unknown ids are ignored).
    void selectLinks(const QStringList& ids);
    /// Rings the drawn node @p node (a found GPU); -1 or an undrawn node rings none. A rebuild drops it.
    void setHighlightedNode(int node);
    int highlightedNode() const;

Q_SIGNALS:
    /// The selected links changed (by a click, selectLinks() or a rebuild that dropped some).
    void linkSelectionChanged();
    /// setTopology() has replaced the items.
    void topologyRebuilt();
    void utilisationChanged();

private:
    void addItems();
    void updateTooltips();
    QString gpuTooltip(int gpu) const;
    QString switchTooltip(int node) const;
    QString linkTooltip(const LinkItem* item) const;
    QString groupTitle(int index) const;

    TopologyLimits m_limits;
    std::shared_ptr<const network::Topology> m_topology;
    TopologyLayout m_layout;
    std::optional<parallel::Placement> m_placement;
    QList<LinkItem*> m_links;
    QList<NodeItem*> m_nodes;
    QList<GroupItem*> m_groups;
    QList<GlyphItem*> m_glyphs;
    QHash<QString, LinkItem*> m_linkById;
    QHash<QString, QString> m_linkNotes; ///< setLinkScale()'s tooltip lines
    bool m_hasUtilisation = false;
    bool m_rebuilding = false;
};

} // namespace rapid::widgets
