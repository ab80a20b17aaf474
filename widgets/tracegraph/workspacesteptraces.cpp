// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/workspacesteptraces.h"

#include "analysis/stepexport.h"

namespace rapid::widgets {

std::vector<graph::ChakraTrace> workspaceStepTraces(const config::Scenario& scenario)
{
    return analysis::stepTraces(scenario);
}

} // namespace rapid::widgets
