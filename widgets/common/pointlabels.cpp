// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/pointlabels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace rapid::widgets {

namespace {

QRectF boxAt(const QPointF& point, const QSizeF& size, LabelCorner corner, double gap)
{
    const double left = isRightOfPoint(corner) ? point.x() + gap : point.x() - gap - size.width();
    const double top = isAbovePoint(corner) ? point.y() - gap - size.height() : point.y() + gap;
    return QRectF(left, top, size.width(), size.height());
}

/// True when the disc of @p radius around @p centre reaches into @p box.
bool touches(const QRectF& box, const QPointF& centre, double radius)
{
    const double dx = std::max({ box.left() - centre.x(), 0.0, centre.x() - box.right() });
    const double dy = std::max({ box.top() - centre.y(), 0.0, centre.y() - box.bottom() });
    return dx * dx + dy * dy < radius * radius;
}

} // namespace

std::vector<LabelPlacement> placePointLabels(const std::vector<QPointF>& points, const std::vector<QSizeF>& sizes,
    const QRectF& bounds, double markerRadius, double gap)
{
    if (points.size() != sizes.size()) {
        throw std::invalid_argument("placePointLabels: one label size per point");
    }
    constexpr std::array<LabelCorner, 4> kCorners
        = { LabelCorner::AboveRight, LabelCorner::BelowRight, LabelCorner::AboveLeft, LabelCorner::BelowLeft };
    std::vector<LabelPlacement> placements(points.size());
    for (size_t i = 0; i < points.size(); ++i) {
        for (const LabelCorner corner : kCorners) {
            const QRectF box = boxAt(points[i], sizes[i], corner, gap);
            bool free = bounds.contains(box);
            for (size_t j = 0; free && j < points.size(); ++j) {
                free = !(j != i && touches(box, points[j], markerRadius))
                    && !(j < i && placements[j].shown && placements[j].rect.intersects(box));
            }
            if (free) {
                placements[i] = { true, corner, box };
                break;
            }
        }
    }
    return placements;
}

} // namespace rapid::widgets
