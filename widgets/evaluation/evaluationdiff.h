// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "evaluation/evaluation.h"

#include <string>
#include <vector>

namespace rapid::widgets {

/// What @p other changes against @p reference in the words of analysis::scenarioDifferences ("tp4", "seq 4096"),
/// and the network model its figures come from when the two differ ("congestion"). Empty when nothing differs or
/// either lacks its scenario.
std::vector<std::string> evaluationDifferences(const Evaluation& reference, const Evaluation& other);

/// evaluationDifferences() joined by spaces; empty when nothing differs.
std::string differenceWords(const Evaluation& reference, const Evaluation& other);

} // namespace rapid::widgets
