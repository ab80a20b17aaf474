// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPointF>
#include <QRectF>
#include <QSizeF>

#include <vector>

namespace rapid::widgets {

/// Where a point's label sits, as seen from the point.
enum class LabelCorner { AboveRight, BelowRight, AboveLeft, BelowLeft };
inline bool isRightOfPoint(LabelCorner corner)
{
    return corner == LabelCorner::AboveRight || corner == LabelCorner::BelowRight;
}
inline bool isAbovePoint(LabelCorner corner)
{
    return corner == LabelCorner::AboveRight || corner == LabelCorner::AboveLeft;
}

struct LabelPlacement {
    bool shown = false;
    LabelCorner corner = LabelCorner::AboveRight;
    QRectF rect; ///< the label's box in the same (pixel) coordinates as the points; empty when not shown
};

/// Labels for scatter points that neither overlap one another nor cover a marker (the latency-throughput curve's
/// loads crowd where the curve bends). Greedy, in the order given (put the points whose label matters most first):
/// each label of size sizes[i] tries the corners above right, below right, above left and below left of points[i],
/// @p gap pixels off the point, and takes the first whose box stays inside @p bounds, overlaps no label placed before
/// and keeps clear of every other marker (a disc of @p markerRadius). A label with no free corner is not shown, so
/// nearly coinciding points show one label instead of an unreadable pile.
std::vector<LabelPlacement> placePointLabels(const std::vector<QPointF>& points, const std::vector<QSizeF>& sizes,
    const QRectF& bounds, double markerRadius, double gap);

} // namespace rapid::widgets
