// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "topology/topologylayout.h"

#include <QString>

#include <vector>

namespace rapid::widgets {

/// Folds the first upper tier of dimension @p dimension with more than limits.maxSwitchesUnfolded drawn switches in
/// @p rows ([tier-1]: drawn switch indices), unless the user unfolded it, and every tier above it (their links all
/// lead into the folded one): their rows are emptied. Returns [tier-1]: whether the tier is folded.
std::vector<bool> foldTiers(std::vector<std::vector<int>>& rows, int dimension, const TopologyLimits& limits);

/// "32 spine switches": a folded tier's glyph text, naming the tiers of a 2- or 3-tier fat tree.
QString foldedTierText(int count, int tier, int tiers);

} // namespace rapid::widgets
