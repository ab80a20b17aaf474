// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/rankgroups.h"

#include <algorithm>

namespace rapid::widgets {

std::vector<RankAxis> rankAxes(const parallel::Placement& placement, int rank)
{
    std::vector<RankAxis> axes;
    for (const parallel::AxisPlacement& axis : placement.axes) {
        RankAxis result;
        result.axis = parallel::toString(axis.axis);
        result.degree = std::max(1, axis.degree);
        result.index = placement.coordinate(axis.axis, rank);
        result.group = placement.groupNumber(axis.axis, rank);
        axes.push_back(result);
    }
    return axes;
}

std::vector<RankAxis> sharedAxes(const parallel::Placement& placement, int first, int count)
{
    std::vector<RankAxis> shared;
    if (count <= 0 || first < 0 || first + count > placement.ranks) {
        return shared;
    }
    const std::vector<RankAxis> reference = rankAxes(placement, first);
    std::vector<bool> same(reference.size(), true);
    for (int rank = first + 1; rank < first + count; ++rank) {
        const std::vector<RankAxis> axes = rankAxes(placement, rank);
        for (size_t axis = 0; axis < axes.size(); ++axis) {
            same[axis] = same[axis] && axes[axis].index == reference[axis].index;
        }
    }
    for (size_t axis = 0; axis < reference.size(); ++axis) {
        if (same[axis] && reference[axis].degree > 1) {
            shared.push_back(reference[axis]);
        }
    }
    return shared;
}

} // namespace rapid::widgets
