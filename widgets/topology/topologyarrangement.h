// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPointF>
#include <QSizeF>

#include <vector>

namespace rapid::widgets {

/// Top-left corners of @p count boxes of @p box on a circle, the first at the top, clockwise, and the size of the
/// square they span. Neighbours are one box plus @p gap apart along the chord, @p spread times that for a circle
/// whose chords must pass between the boxes; the radius then grows until no two boxes (with the gap) overlap, as a
/// chord as long as the wider side is not enough for boxes at an angle. @p count >= 3.
std::vector<QPointF> circleOrigins(int count, QSizeF box, double gap, double spread, QSizeF& extent);

} // namespace rapid::widgets
