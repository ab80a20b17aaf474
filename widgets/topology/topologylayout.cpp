// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/topologylayout.h"

#include "topology/topologyarrangement.h"
#include "topology/topologyfolding.h"

#include "network/topology.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace rapid::widgets {

namespace {

// Sizes in scene units, chosen so that a rank number and a switch name fit their boxes at the default font.
constexpr QSizeF kGpuSize(34, 22);
constexpr QSizeF kSwitchSize(46, 18); // room for "nvlink 12", a node's switch
constexpr double kGpuGap = 12;
constexpr double kGpuGridGap = 30;
constexpr double kGroupGap = 28;
constexpr double kGpuRowGap = 36;
constexpr double kGroupRowGap = 40;
constexpr double kLayerGap = 56;
constexpr double kLayerLaneGap = 20;
constexpr double kTierGap = 46; ///< least distance between two switch rows
constexpr double kFirstRowGap = 52; ///< least distance from the endpoints' edge to the nearest switch row's centre
constexpr double kBandGap = 34; ///< extra room between the rows of two instances (bands)
constexpr double kSwitchPitch = 54; ///< leaves: least room per switch
constexpr double kUpperPitch = 64; ///< upper tiers: room per switch when the width allows
/// Links fan out from one switch to a whole row; a row is put far enough away that the fan's outermost links reach it
/// at a slope of at least this (rise over run), so that they do not run along the row through its other switches.
constexpr double kFanSlope = 0.2;
/// From this many GPUs on one switch, a row is too long to read (its fan's links run nearly flat): they go on a circle
/// around the switch instead.
constexpr int kHubMinGpus = 24;
constexpr double kBoxPadding = 10;
constexpr double kBoxHeader = 20;
constexpr double kMinBoxContentWidth = 120;
constexpr double kMarkerHeight = 20;
constexpr double kBandLabelWidth = 110;
/// A wrap-around link bows by this fraction of the pitch it crosses, so its peak (half the control offset) runs
/// midway between two rows or columns instead of over the nodes.
constexpr double kWrapBow = 0.9;
/// Links between the z layers of a 3D torus bow less than wrap-around links, down (and the z wrap-around up), so that
/// they run just below (above) the rows and apart from the x wrap-around links between the rows.
constexpr double kLayerBow = 0.55;
/// Links between groups bow sideways by this fraction of their length, clear of the GPUs inside the groups.
constexpr double kCrossGroupBow = 0.25;

QString tr(const char* text)
{
    return QCoreApplication::translate("rapid::widgets::TopologyLayout", text);
}

enum class Arrangement { Row, Circle, Grid };

/// The shape shared by every block of one level: level L holds the endpoints of dimension L-1, each a block of
/// level L-1 (level 0 is one GPU).
struct LevelShape {
    QSizeF size; ///< the whole block, box included
    QPointF contentOffset; ///< top-left of the content inside the block
    double contentWidth = 0;
    std::vector<QPointF> subOrigins; ///< top-left of each drawn sub-block, relative to the content
    QRectF subArea; ///< the sub-blocks' area, relative to the content
    double colPitch = 0;
    double rowPitch = 0;
    int bands = 0; ///< instances of the dimension's switches drawn in one block
    int tiers = 0;
    bool bandsBelow = false;
    double bandLeft = 0; ///< x where switch rows start, after the band labels
    double innerWidth = 0; ///< width of the switch rows
    std::vector<double> rowOffsets; ///< [band * tiers + tier - 1]: distance of the row's centre from the endpoints
    std::vector<double> tierPitch; ///< [tier - 1]: spacing of the upper tiers' switches
    double markersTop = 0;
    std::vector<QString> markers;
    std::vector<std::pair<QPointF, QString>> subLabels; ///< a 3D torus's layer names, relative to the content
    bool boxed = false;
    bool hub = false; ///< the GPUs on a circle around their dimension's one switch
};

bool isGrid(config::NetworkKind kind)
{
    return kind == config::NetworkKind::Torus2d || kind == config::NetworkKind::Torus3d
        || kind == config::NetworkKind::Mesh2d;
}

bool isTorus(config::NetworkKind kind)
{
    return kind == config::NetworkKind::Torus2d || kind == config::NetworkKind::Torus3d;
}

class Builder {
public:
    Builder(const network::Topology& topology, const TopologyLimits& limits)
        : m_topology(topology)
        , m_limits(limits)
        , m_dimensions(topology.dimensionCount())
    {
    }

    TopologyLayout build()
    {
        m_out.gpuSize = kGpuSize;
        m_out.switchSize = kSwitchSize;
        m_out.positions.assign(static_cast<size_t>(m_topology.nodeCount()), QPointF());
        m_out.shown.assign(static_cast<size_t>(m_topology.nodeCount()), false);
        chooseCaps();
        chooseSwitches();
        m_shapes.resize(static_cast<size_t>(m_dimensions) + 1);
        m_shapes[0].size = kGpuSize;
        for (int level = 1; level <= m_dimensions; ++level) {
            m_shapes[static_cast<size_t>(level)] = shapeOf(level);
        }
        m_blocks.resize(static_cast<size_t>(m_dimensions) + 1);
        place(m_dimensions, QPointF(0, 0), 0);
        for (int d = 0; d < m_dimensions; ++d) {
            placeSwitches(d);
        }
        placeLinks();
        return std::move(m_out);
    }

private:
    const network::DimensionLayout& layout(int d) const { return m_topology.layout(d); }
    const LevelShape& shape(int level) const { return m_shapes[static_cast<size_t>(level)]; }

    /// Drawn endpoints per dimension: a prefix 0..cap-1, innermost dimension first, until maxGpus are used. A
    /// truncated torus or mesh keeps whole rows (or z layers) so that its picture stays a grid.
    void chooseCaps()
    {
        long long budget = std::max(1, m_limits.maxGpus);
        long long stride = 1;
        for (int d = 0; d < m_dimensions; ++d) {
            const network::DimensionLayout& dimension = layout(d);
            long long cap = std::min<long long>(dimension.endpoints, budget);
            if (d > 0) {
                cap = std::min<long long>(cap, std::max(1, m_limits.maxGroups));
            }
            if (dimension.kind == config::NetworkKind::FullyConnected) {
                cap = std::min<long long>(cap, std::max(2, m_limits.maxFullyConnected));
            }
            if (isGrid(dimension.kind) && cap < dimension.endpoints) {
                const long long row = dimension.shape[0];
                const long long plane = dimension.shape.size() > 2 ? row * dimension.shape[1] : 0;
                cap = plane > 0 && cap >= plane ? cap / plane * plane : (cap >= row ? cap / row * row : cap);
            }
            cap = std::max(1LL, cap);
            m_caps.push_back(static_cast<int>(cap));
            m_strides.push_back(static_cast<int>(stride));
            stride *= dimension.endpoints;
            budget = std::max(1LL, budget / cap);
        }
        m_strides.push_back(static_cast<int>(stride));
    }

    /// Drawn switches of each dimension's instances (the same for every instance, since every instance draws the
    /// same endpoints): a switch linked to a drawn endpoint or a drawn switch below it, at most maxSwitchesPerRow
    /// per tier.
    void chooseSwitches()
    {
        m_rowSwitches.resize(static_cast<size_t>(m_dimensions));
        m_leafEndpoints.resize(static_cast<size_t>(m_dimensions));
        for (int d = 0; d < m_dimensions; ++d) {
            const network::DimensionLayout& dimension = layout(d);
            const size_t tiers = dimension.switchesPerTier.size();
            std::vector<std::vector<char>> marked(tiers);
            for (size_t t = 0; t < tiers; ++t) {
                marked[t].assign(static_cast<size_t>(dimension.switchesPerTier[t]), 0);
            }
            auto& leafEndpoints = m_leafEndpoints[static_cast<size_t>(d)];
            leafEndpoints.assign(tiers > 0 ? static_cast<size_t>(dimension.switchesPerTier[0]) : 0, {});
            for (const network::LocalLink& link : dimension.links) {
                if (!link.a.isSwitch && link.b.isSwitch && link.a.index < m_caps[static_cast<size_t>(d)]) {
                    marked[static_cast<size_t>(link.b.tier - 1)][static_cast<size_t>(link.b.index)] = 1;
                    leafEndpoints[static_cast<size_t>(link.b.index)].push_back(link.a.index);
                }
            }
            auto& rows = m_rowSwitches[static_cast<size_t>(d)];
            rows.resize(tiers);
            for (size_t t = 0; t < tiers; ++t) {
                for (size_t index = 0; index < marked[t].size(); ++index) {
                    if (marked[t][index] && static_cast<int>(rows[t].size()) < m_limits.maxSwitchesPerRow) {
                        rows[t].push_back(static_cast<int>(index));
                    } else {
                        marked[t][index] = 0;
                    }
                }
                if (t + 1 == tiers) {
                    break;
                }
                for (const network::LocalLink& link : dimension.links) {
                    if (link.a.isSwitch && link.b.isSwitch && link.a.tier == static_cast<int>(t) + 1
                        && marked[t][static_cast<size_t>(link.a.index)]) {
                        marked[t + 1][static_cast<size_t>(link.b.index)] = 1;
                    }
                }
            }
            m_folded.push_back(foldTiers(rows, d, m_limits));
        }
    }

    /// Number of drawn GPUs in one block of @p level (the product of the inner caps).
    long long drawnInner(int level) const
    {
        long long product = 1;
        for (int d = 0; d < level; ++d) {
            product *= m_caps[static_cast<size_t>(d)];
        }
        return product;
    }

    /// Whether the @p n drawn GPUs of switch dimension @p d are better drawn around their one switch: a single-tier
    /// switch (an NVLink domain such as GB200 NVL72's 72 GPUs) with every endpoint drawn and too many for one row.
    bool isHub(int d, int n) const
    {
        const auto& rows = m_rowSwitches[static_cast<size_t>(d)];
        return d == 0 && rows.size() == 1 && rows[0].size() == 1 && n == layout(d).endpoints && n >= kHubMinGpus;
    }

    /// A torus's or mesh's @p n members: rows of shape[0], shape[1] rows per layer, layers side by side.
    void arrangeGrid(const network::DimensionLayout& dimension, int n, double gap, double rowGap, LevelShape& result,
        double& width, double& height) const
    {
        const int columns = dimension.shape[0];
        const int rows = dimension.shape[1];
        const int perLayer = columns * rows;
        const int layers = (n + perLayer - 1) / perLayer;
        const int rowsDrawn = layers > 1 ? rows : (n + columns - 1) / columns;
        // Room for the wrap-around links' bows: x (and z) wraps above the rows, y wraps left, z links below.
        const double top = isTorus(dimension.kind) && (columns > 2 || layers > 2) ? result.rowPitch / 2 : 0;
        const double left = isTorus(dimension.kind) && rows > 2 && rowsDrawn == rows ? result.colPitch / 2 : 0;
        const double bottom = layers > 1 ? result.rowPitch / 2 : 0;
        const double layerPitch = columns * result.colPitch - gap + kLayerGap;
        for (int i = 0; i < n; ++i) {
            const int x = i % columns;
            const int y = i / columns % rows;
            const int z = i / perLayer;
            result.subOrigins.emplace_back(left + z * layerPitch + x * result.colPitch, top + y * result.rowPitch);
        }
        width = left + (layers - 1) * layerPitch + std::min(n, columns) * result.colPitch - gap;
        height = top + rowsDrawn * result.rowPitch - rowGap + bottom;
        for (int z = 0; layers > 1 && z < layers; ++z) {
            result.subLabels.emplace_back(QPointF(left + z * layerPitch, height - bottom / 3), tr("z = %1").arg(z));
        }
    }

    LevelShape shapeOf(int level) const
    {
        const int d = level - 1;
        const network::DimensionLayout& dimension = layout(d);
        const LevelShape& sub = shape(level - 1);
        const double w = sub.size.width();
        const double h = sub.size.height();
        const int n = m_caps[static_cast<size_t>(d)];
        // A torus or mesh of GPUs gets wider columns: its wrap-around links bow through the gaps.
        const double gap = level > 1 ? kGroupGap : isGrid(dimension.kind) ? kGpuGridGap : kGpuGap;
        // A 3D torus's rows carry the z links' lanes as well as the x wrap-around links: more room between them.
        const double rowGap = (level == 1 ? kGpuRowGap : kGroupRowGap)
            + (dimension.kind == config::NetworkKind::Torus3d ? kLayerLaneGap : 0);
        LevelShape result;
        result.colPitch = w + gap;
        result.rowPitch = h + rowGap;
        Arrangement arrangement = Arrangement::Row;
        result.hub = isHub(d, n);
        if (((dimension.kind == config::NetworkKind::Ring || dimension.kind == config::NetworkKind::FullyConnected)
                && n == dimension.endpoints && n >= 3)
            || result.hub) {
            arrangement = Arrangement::Circle;
        } else if (isGrid(dimension.kind)) {
            arrangement = Arrangement::Grid;
        }
        double width = 0;
        double height = 0;
        switch (arrangement) {
        case Arrangement::Row:
            for (int i = 0; i < n; ++i) {
                result.subOrigins.emplace_back(i * result.colPitch, 0);
            }
            width = n * result.colPitch - gap;
            height = h;
            break;
        case Arrangement::Circle: {
            // A fully-connected circle wider, so that its chords pass between the nodes.
            QSizeF extent;
            result.subOrigins = circleOrigins(
                n, sub.size, gap, dimension.kind == config::NetworkKind::FullyConnected ? 1.6 : 1.0, extent);
            width = extent.width();
            height = extent.height();
            break;
        }
        case Arrangement::Grid:
            arrangeGrid(dimension, n, gap, rowGap, result, width, height);
            break;
        }

        const long long innerDrawn = drawnInner(d);
        const auto& rows = m_rowSwitches[static_cast<size_t>(d)];
        if (!rows.empty() && !result.hub) {
            result.tiers = static_cast<int>(rows.size());
            result.bands = static_cast<int>(std::min<long long>(innerDrawn, std::max(1, m_limits.maxInstanceBands)));
            result.bandsBelow = d == 0 && m_dimensions >= 2;
            result.bandLeft = result.bands > 1 ? kBandLabelWidth : 0;
        }
        size_t widestRow = 0;
        for (const std::vector<int>& row : rows) {
            widestRow = std::max(widestRow, row.size());
        }
        result.boxed = level < m_dimensions;
        result.innerWidth = std::max({ width, static_cast<double>(widestRow) * kSwitchPitch,
            result.boxed ? kMinBoxContentWidth - result.bandLeft : 0.0 });
        result.contentWidth = result.bandLeft + result.innerWidth;
        // Row distances: the leaves far enough from the endpoints for the links of the outermost endpoints to climb
        // (the endpoints span the whole width), each upper tier far enough from the one below for its fan.
        double offset = 0;
        for (int tier = 1; tier <= result.tiers; ++tier) {
            const auto count = static_cast<double>(rows[static_cast<size_t>(tier - 1)].size());
            result.tierPitch.push_back(count > 0 ? std::min(kUpperPitch, result.innerWidth / count) : kUpperPitch);
        }
        for (int band = 0; band < result.bands; ++band) {
            for (int tier = 1; tier <= result.tiers; ++tier) {
                // Only the first band's leaves need room for their fan: higher bands' links have climbed already.
                const double fan = tier == 1 ? (band == 0 ? width / 2 : 0)
                                             : result.tierPitch[static_cast<size_t>(tier - 1)]
                        * static_cast<double>(rows[static_cast<size_t>(tier - 1)].size()) / 2;
                const double least = tier > 1 ? kTierGap : band == 0 ? kFirstRowGap : kTierGap + kBandGap;
                offset += std::max(least, kFanSlope * fan);
                result.rowOffsets.push_back(offset);
            }
        }
        const double bandsHeight = result.rowOffsets.empty() ? 0 : offset + kSwitchSize.height() / 2 + 6;
        result.subArea = QRectF(
            result.bandLeft + (result.innerWidth - width) / 2, result.bandsBelow ? 0 : bandsHeight, width, height);
        for (QPointF& origin : result.subOrigins) {
            origin += result.subArea.topLeft();
        }
        for (auto& label : result.subLabels) {
            label.first += result.subArea.topLeft();
        }
        if (n < dimension.endpoints) {
            const QString text = level == 1 ? tr("+%1 more endpoints of %2 (%3 in all), not drawn")
                                            : tr("+%1 more groups along %2 (%3 in all), not drawn");
            result.markers.push_back(
                text.arg(dimension.endpoints - n).arg(QString::fromStdString(dimension.name)).arg(dimension.endpoints));
        }
        if (!rows.empty() && innerDrawn > result.bands) {
            result.markers.push_back(tr("+%1 more instances of %2, not drawn")
                                         .arg(innerDrawn - result.bands)
                                         .arg(QString::fromStdString(dimension.name)));
        }
        result.markersTop = result.subArea.bottom() + (result.bandsBelow ? bandsHeight : 0) + 4;
        const double contentHeight = result.markers.empty()
            ? result.subArea.bottom() + (result.bandsBelow ? bandsHeight : 0)
            : result.markersTop + static_cast<double>(result.markers.size()) * kMarkerHeight;
        result.contentOffset = result.boxed ? QPointF(kBoxPadding, kBoxHeader + kBoxPadding) : QPointF(0, 0);
        result.size = QSizeF(result.contentWidth, contentHeight)
            + (result.boxed ? QSizeF(2 * kBoxPadding, kBoxHeader + 2 * kBoxPadding) : QSizeF(0, 0));
        return result;
    }

    QString groupTitle(int level, int firstGpu) const
    {
        const int count = m_strides[static_cast<size_t>(level)];
        const QString gpus = tr("GPUs %1–%2").arg(firstGpu).arg(firstGpu + count - 1);
        if (count == m_topology.cluster().gpusPerNode) {
            return tr("node %1 · %2").arg(firstGpu / count).arg(gpus);
        }
        if (level == 1) {
            return tr("%1 instance %2 · %3")
                .arg(QString::fromStdString(layout(0).name))
                .arg(m_topology.replicaOf(firstGpu, 0))
                .arg(gpus);
        }
        return gpus;
    }

    /// Places the GPUs of the block of @p level whose first GPU is @p firstGpu, with its top-left at @p origin.
    void place(int level, QPointF origin, int firstGpu)
    {
        if (level == 0) {
            m_out.positions[static_cast<size_t>(firstGpu)] = origin + QPointF(kGpuSize.width(), kGpuSize.height()) / 2;
            m_out.shown[static_cast<size_t>(firstGpu)] = true;
            ++m_out.shownGpus;
            return;
        }
        const LevelShape& block = shape(level);
        const QPointF content = origin + block.contentOffset;
        if (block.boxed) {
            const int count = m_strides[static_cast<size_t>(level)];
            m_out.groups.push_back({ QRectF(origin, block.size), level, firstGpu, count, groupTitle(level, firstGpu) });
        }
        m_blocks[static_cast<size_t>(level)].emplace_back(firstGpu, content);
        const int stride = m_strides[static_cast<size_t>(level - 1)];
        for (size_t i = 0; i < block.subOrigins.size(); ++i) {
            place(level - 1, content + block.subOrigins[i], firstGpu + static_cast<int>(i) * stride);
        }
        for (const auto& [position, text] : block.subLabels) {
            m_out.labels.push_back({ content + position, text, false });
        }
        for (size_t i = 0; i < block.markers.size(); ++i) {
            m_out.labels.push_back(
                { content + QPointF(block.subArea.left(), block.markersTop + (i + 0.5) * kMarkerHeight),
                    block.markers[i], true });
        }
    }

    /// The switches of dimension @p d in every drawn block of level d+1: one band of tier rows per drawn instance.
    void placeSwitches(int d)
    {
        const auto& rows = m_rowSwitches[static_cast<size_t>(d)];
        if (rows.empty()) {
            return;
        }
        const network::DimensionLayout& dimension = layout(d);
        const LevelShape& block = shape(d + 1);
        for (const auto& [firstGpu, content] : m_blocks[static_cast<size_t>(d) + 1]) {
            if (block.hub) {
                const int node = m_topology.nodeOf(d, m_topology.replicaOf(firstGpu, d), { true, 1, rows[0][0] });
                m_out.positions[static_cast<size_t>(node)] = content + block.subArea.center();
                m_out.shown[static_cast<size_t>(node)] = true;
                ++m_out.shownSwitches;
                continue;
            }
            for (int band = 0; band < block.bands; ++band) {
                // The band's instance: the inner coordinates numbered over the drawn ones, innermost first.
                int gpu = firstGpu;
                int rest = band;
                for (int inner = 0; inner < d; ++inner) {
                    gpu += rest % m_caps[static_cast<size_t>(inner)] * m_strides[static_cast<size_t>(inner)];
                    rest /= m_caps[static_cast<size_t>(inner)];
                }
                const int replica = m_topology.replicaOf(gpu, d);
                double bandTop = 0;
                double bandBottom = 0;
                std::vector<QPointF> lowerFeeds; ///< the row (or glyph) below the tier being placed
                for (int tier = 1; tier <= block.tiers; ++tier) {
                    const std::vector<int>& row = rows[static_cast<size_t>(tier - 1)];
                    const double rowOffset = block.rowOffsets[static_cast<size_t>(band * block.tiers + tier - 1)];
                    const double y = content.y()
                        + (block.bandsBelow ? block.subArea.bottom() + rowOffset : block.subArea.top() - rowOffset);
                    bandTop = tier == 1 ? y : std::min(bandTop, y);
                    bandBottom = tier == 1 ? y : std::max(bandBottom, y);
                    if (m_folded[static_cast<size_t>(d)][static_cast<size_t>(tier - 1)]) {
                        lowerFeeds = addGlyph(d, replica, tier, y, lowerFeeds, block, content);
                        continue;
                    }
                    const std::vector<double> xs = switchColumns(d, replica, tier, block, content);
                    lowerFeeds.clear();
                    for (size_t j = 0; j < row.size(); ++j) {
                        lowerFeeds.emplace_back(xs[j], y);
                    }
                    for (size_t j = 0; j < row.size(); ++j) {
                        const int node = m_topology.nodeOf(d, replica, { true, tier, row[j] });
                        m_out.positions[static_cast<size_t>(node)] = QPointF(xs[j], y);
                        m_out.shown[static_cast<size_t>(node)] = true;
                        ++m_out.shownSwitches;
                    }
                    const int hidden
                        = dimension.switchesPerTier[static_cast<size_t>(tier - 1)] - static_cast<int>(row.size());
                    if (hidden > 0) {
                        const double right = row.empty() ? content.x() + block.bandLeft : xs.back();
                        m_out.labels.push_back({ QPointF(right + kSwitchSize.width() / 2 + 8, y),
                            tr("+%1 more s%2 switches").arg(hidden).arg(tier), true });
                    }
                }
                if (block.bands > 1) {
                    // Beside the middle of its rows, so that it reads as the name of the whole band.
                    m_out.labels.push_back({ QPointF(content.x(), (bandTop + bandBottom) / 2),
                        tr("%1 instance %2").arg(QString::fromStdString(dimension.name)).arg(replica), false });
                }
            }
        }
    }

    /// Adds the glyph of folded @p tier of instance @p replica at height @p y, centred over @p feeds (what is below
    /// it); returns its centre as the feed of the tier above.
    std::vector<QPointF> addGlyph(int d, int replica, int tier, double y, const std::vector<QPointF>& feeds,
        const LevelShape& block, QPointF content)
    {
        double x = content.x() + block.bandLeft + block.innerWidth / 2;
        if (!feeds.empty()) {
            x = 0;
            for (const QPointF& feed : feeds) {
                x += feed.x();
            }
            x /= static_cast<double>(feeds.size());
        }
        const network::DimensionLayout& dimension = layout(d);
        const int count = dimension.switchesPerTier[static_cast<size_t>(tier - 1)];
        const QString text = foldedTierText(count, tier, static_cast<int>(dimension.switchesPerTier.size()));
        m_out.glyphs.push_back({ QPointF(x, y), text, d, replica, tier, count, feeds });
        return { QPointF(x, y) };
    }

    /// x of each drawn switch of @p tier in instance @p replica of dimension @p d: a leaf above the endpoints it
    /// serves; an upper tier's switches side by side, centred above the switches of the tier below.
    std::vector<double> switchColumns(int d, int replica, int tier, const LevelShape& block, QPointF content) const
    {
        const std::vector<int>& row = m_rowSwitches[static_cast<size_t>(d)][static_cast<size_t>(tier - 1)];
        std::vector<double> xs;
        if (tier == 1) {
            for (int leaf : row) {
                const std::vector<int>& endpoints = m_leafEndpoints[static_cast<size_t>(d)][static_cast<size_t>(leaf)];
                double sum = 0;
                for (int endpoint : endpoints) {
                    sum += m_out.positions[static_cast<size_t>(m_topology.gpuAt(d, replica, endpoint))].x();
                }
                xs.push_back(
                    endpoints.empty() ? content.x() + block.bandLeft : sum / static_cast<double>(endpoints.size()));
            }
            return xs;
        }
        double below = 0;
        const std::vector<int>& lower = m_rowSwitches[static_cast<size_t>(d)][static_cast<size_t>(tier - 2)];
        for (int index : lower) {
            below += m_out.positions[static_cast<size_t>(m_topology.nodeOf(d, replica, { true, tier - 1, index }))].x();
        }
        const double pitch = block.tierPitch[static_cast<size_t>(tier - 1)];
        const double span = pitch * static_cast<double>(row.size());
        const double left = content.x() + block.bandLeft;
        const double centre = lower.empty() ? left + block.innerWidth / 2 : below / static_cast<double>(lower.size());
        const double start = std::max(left, std::min(centre - span / 2, left + block.innerWidth - span));
        for (size_t j = 0; j < row.size(); ++j) {
            xs.push_back(start + (static_cast<double>(j) + 0.5) * pitch);
        }
        return xs;
    }

    QPointF bendOf(const network::Link& link, QPointF a, QPointF b) const
    {
        const network::DimensionLayout& dimension = layout(link.dimension);
        const LevelShape& block = shape(link.dimension + 1);
        const QPointF along = b - a;
        const QPointF sideways = QPointF(-along.y(), along.x()) * kCrossGroupBow;
        const bool crossGroup = link.dimension > 0;
        if (!isGrid(dimension.kind)) {
            const bool direct = dimension.switchesPerTier.empty();
            return direct && crossGroup ? sideways : QPointF();
        }
        const network::LocalLink& local = dimension.links[static_cast<size_t>(link.local)];
        const int columns = dimension.shape[0];
        const int rows = dimension.shape[1];
        auto coordinate = [&](int endpoint, int axis) {
            return axis == 0 ? endpoint % columns : axis == 1 ? endpoint / columns % rows : endpoint / (columns * rows);
        };
        for (int axis = 0; axis < 3; ++axis) {
            const int from = coordinate(local.a.index, axis);
            const int to = coordinate(local.b.index, axis);
            if (from == to) {
                continue;
            }
            const bool wrap = std::abs(from - to) > 1;
            if (axis == 2) {
                return QPointF(0, (wrap ? -kLayerBow : kLayerBow) * block.rowPitch);
            }
            if (!wrap) {
                return crossGroup ? sideways : QPointF();
            }
            // Bow up for a row's wrap, left for a column's, whichever way the link's ends are ordered.
            return axis == 0 ? QPointF(0, -kWrapBow * block.rowPitch) : QPointF(-kWrapBow * block.colPitch, 0);
        }
        return {};
    }

    void placeLinks()
    {
        for (int physical = 0; physical < m_topology.physicalLinkCount(); ++physical) {
            const network::Link& link = m_topology.link(2 * physical);
            if (!m_out.shown[static_cast<size_t>(link.from)] || !m_out.shown[static_cast<size_t>(link.to)]) {
                continue;
            }
            const QPointF a = m_out.positions[static_cast<size_t>(link.from)];
            const QPointF b = m_out.positions[static_cast<size_t>(link.to)];
            m_out.links.push_back({ physical, bendOf(link, a, b) });
        }
    }

    const network::Topology& m_topology;
    const TopologyLimits& m_limits;
    int m_dimensions;
    std::vector<int> m_caps; ///< drawn endpoints per dimension
    std::vector<int> m_strides; ///< GPU index step of each dimension, then the GPU count (GPUs in a block of level L)
    std::vector<std::vector<std::vector<int>>> m_rowSwitches; ///< [d][tier-1]: drawn switch indices
    std::vector<std::vector<std::vector<int>>> m_leafEndpoints; ///< [d][leaf]: drawn endpoints below it
    std::vector<std::vector<bool>> m_folded; ///< [d][tier-1]: drawn as one glyph
    std::vector<LevelShape> m_shapes;
    std::vector<std::vector<std::pair<int, QPointF>>> m_blocks; ///< [level]: first GPU, content top-left
    TopologyLayout m_out;
};

} // namespace

TopologyLayout layoutTopology(const network::Topology& topology, const TopologyLimits& limits)
{
    return Builder(topology, limits).build();
}

} // namespace rapid::widgets
