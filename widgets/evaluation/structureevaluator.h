// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "evaluation/scenarioevaluator.h"

namespace rapid::widgets {

/// Evaluates what needs no performance model: parameter counts and the placement of ranks on the network.
class StructureEvaluator : public ScenarioEvaluator {
public:
    Evaluation evaluate(const config::Scenario& scenario) const override;
};

} // namespace rapid::widgets
