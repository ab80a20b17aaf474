// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/topologyarrangement.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace rapid::widgets {

std::vector<QPointF> circleOrigins(int count, QSizeF box, double gap, double spread, QSizeF& extent)
{
    const double w = box.width();
    const double h = box.height();
    double radius = (std::max(w, h) + gap) / (2 * std::sin(std::numbers::pi / count)) * spread;
    auto centreOf = [count](int i, double r) {
        const double angle = -std::numbers::pi / 2 + 2 * std::numbers::pi * i / count;
        return QPointF(r * std::cos(angle), r * std::sin(angle));
    };
    auto overlapping = [&](double r) {
        for (int i = 0; i < count; ++i) {
            for (int j = i + 1; j < count; ++j) {
                const QPointF apart = centreOf(i, r) - centreOf(j, r);
                if (std::abs(apart.x()) < w + gap && std::abs(apart.y()) < h + gap) {
                    return true;
                }
            }
        }
        return false;
    };
    for (int attempt = 0; attempt < 40 && overlapping(radius); ++attempt) {
        radius *= 1.08;
    }
    const QPointF centre(radius + w / 2, radius + h / 2);
    std::vector<QPointF> origins;
    for (int i = 0; i < count; ++i) {
        origins.push_back(centre + centreOf(i, radius) - QPointF(w / 2, h / 2));
    }
    extent = QSizeF(2 * radius + w, 2 * radius + h);
    return origins;
}

} // namespace rapid::widgets
