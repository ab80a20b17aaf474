// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "evaluation/evaluation.h"

#include "config/configloader.h"

namespace rapid::widgets {

/// The "evaluate" step behind the results panel. Implementations run on a worker thread, so evaluate() must not
/// touch widgets or shared mutable state. The performance model will be one; it may take seconds.
class ScenarioEvaluator {
public:
    virtual ~ScenarioEvaluator() = default;
    virtual Evaluation evaluate(const config::Scenario& scenario) const = 0;
};

} // namespace rapid::widgets
