// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <utility>
#include <vector>

namespace rapid::network {
class Topology;
}

namespace rapid::widgets {

/// How much of a big network the topology view draws. A picture of 1,024 GPUs with every link is neither readable
/// nor quick to build, so the view draws a prefix: the first endpoints of each dimension, innermost dimension first,
/// until maxGpus GPUs are placed (whole nodes before more nodes, since a node is what one looks at first) and at most
/// maxGroups groups along an outer dimension, and says "+K more" where it stopped. Every drawn item is a real node or
/// link of the topology, so clicking it names a real link; what is not drawn is only counted. The defaults keep a scene
/// below about 2,000 items.
struct TopologyLimits {
    int maxGpus = 256;
    int maxSwitchesPerRow = 32; ///< switches of one tier of one dimension instance
    /// Instances of an outer switched dimension drawn in one group, one band of switch rows each: the rails of a
    /// rail-optimised fabric (one InfiniBand tree per GPU of a node). They all have the same shape, and eight fans of
    /// the same tree on top of each other hide more than they show, so four by default (the view can draw more).
    int maxInstanceBands = 4;
    int maxFullyConnected = 16; ///< endpoints of a fully-connected dimension (its links grow as n^2)
    /// Groups (e.g. nodes) drawn along an outer dimension: a row of more boxes is too wide to read at any zoom.
    int maxGroups = 16;
    /// An upper tier with more drawn switches than this (the 32 spines of a rail) is drawn as one glyph with the count,
    /// and so are the tiers above it: 32 identical boxes with 32 fans say less than "32 spine switches".
    int maxSwitchesUnfolded = 8;
    /// (dimension, tier) pairs drawn switch by switch whatever their size: the user unfolded them.
    std::vector<std::pair<int, int>> unfoldedTiers;

    bool operator==(const TopologyLimits&) const = default;
};

/// One drawn physical link (directed links 2 * physical and 2 * physical + 1 of the topology).
struct LayoutLink {
    int physical = 0;
    /// Offset of a quadratic curve's control point from the straight line's midpoint; (0, 0) draws a straight line.
    /// Wrap-around and cross-group links bend so that they do not run through the nodes between their ends.
    QPointF bend;
};

/// A box around the GPUs of one instance of the inner dimensions (a node), drawn for every level but the outermost.
struct LayoutGroup {
    QRectF rect;
    int level = 1; ///< how many dimensions it holds, innermost first
    int firstGpu = 0;
    int gpuCount = 0; ///< GPUs of the group in the topology
    QString title; ///< "node 3 · GPUs 24–31"
};

/// Text placed in the scene: a switch band's name or a "+K more" marker.
struct LayoutLabel {
    QPointF position; ///< left end of the text, vertically centred on it
    QString text;
    bool marker = false; ///< says that something is not drawn
};

/// A folded switch tier of one dimension instance: one glyph for its switches, with a line to each drawn switch (or
/// the folded tier) below it; the links themselves are not drawn.
struct LayoutGlyph {
    QPointF position; ///< centre
    QString text; ///< "32 spine switches"
    int dimension = 0;
    int replica = 0;
    int tier = 1;
    int count = 0; ///< switches of the tier in the instance
    std::vector<QPointF> feeds; ///< centres of what it is linked to below
};

/// Where everything goes, in scene coordinates (1 unit = 1 pixel at 100% zoom).
struct TopologyLayout {
    std::vector<QPointF> positions; ///< centre of every node of the topology (GPUs first, then switches)
    std::vector<bool> shown; ///< whether the node is drawn
    std::vector<LayoutLink> links;
    std::vector<LayoutGroup> groups;
    std::vector<LayoutLabel> labels;
    std::vector<LayoutGlyph> glyphs;
    int shownGpus = 0;
    int shownSwitches = 0;
    QSizeF gpuSize;
    QSizeF switchSize;
};

/// Lays out @p topology per dimension kind: rings and fully-connected dimensions on a circle, tori and meshes on a
/// grid (a 3D torus as its z layers side by side), switches and fat-tree tiers (leaves, spines, cores) in rows above
/// their endpoints (below them for the innermost dimension of a multi-dimensional network, so that the outer fabric
/// above stays apart from the in-node links). Outer dimensions arrange the groups of the inner ones the same way.
TopologyLayout layoutTopology(const network::Topology& topology, const TopologyLimits& limits = {});

} // namespace rapid::widgets
