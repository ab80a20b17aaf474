// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/topologyfolding.h"

#include <QCoreApplication>

#include <algorithm>

namespace rapid::widgets {

std::vector<bool> foldTiers(std::vector<std::vector<int>>& rows, int dimension, const TopologyLimits& limits)
{
    std::vector<bool> folded(rows.size(), false);
    bool folding = false;
    // Leaves (t = 0) stay: they are what the GPUs' links reach.
    for (size_t t = 1; t < rows.size(); ++t) {
        const std::pair<int, int> key(dimension, static_cast<int>(t) + 1);
        const bool unfolded
            = std::find(limits.unfoldedTiers.begin(), limits.unfoldedTiers.end(), key) != limits.unfoldedTiers.end();
        folding = folding || (!unfolded && static_cast<int>(rows[t].size()) > std::max(1, limits.maxSwitchesUnfolded));
        if (folding) {
            folded[t] = true;
            rows[t].clear();
        }
    }
    return folded;
}

QString foldedTierText(int count, int tier, int tiers)
{
    static const char* const kTwoTiers[] = { "leaf", "spine" };
    static const char* const kThreeTiers[] = { "leaf", "spine", "core" };
    const char* context = "rapid::widgets::TopologyLayout";
    const QString name = tiers == 2 ? QCoreApplication::translate(context, kTwoTiers[tier - 1])
        : tiers == 3                ? QCoreApplication::translate(context, kThreeTiers[tier - 1])
                                    : QCoreApplication::translate(context, "tier %1").arg(tier);
    return QCoreApplication::translate(context, "%1 %2 switches").arg(count).arg(name);
}

} // namespace rapid::widgets
