// SPDX-License-Identifier: GPL-3.0-or-later
#include "clioutput.h"

#include <optional>

namespace rapid::cli {

std::ostream* openOutput(const std::string& path, std::ofstream& file, const Invocation& invocation)
{
    if (path == "-") {
        return &invocation.out;
    }
    file.open(path, std::ios::binary);
    return file ? &file : nullptr;
}

std::vector<Arguments::Option> scenarioOptions(std::vector<Arguments::Option> extra)
{
    std::vector<Arguments::Option> options = {
        { "workspace", "NAME|FILE", "workspace preset or *.rapid.yaml file", false },
        { "model", "NAME|FILE", "model preset or file", false },
        { "hardware", "NAME|FILE", "hardware (cluster or GPU) preset or file", false },
        { "run", "NAME|FILE", "run preset or file", false },
        { "set", "KEY=VALUE", "override any key by its path, e.g. run.parallelism.tp=4", true },
    };
    options.insert(options.end(), extra.begin(), extra.end());
    return options;
}

config::Scenario loadScenario(const Arguments& arguments, const config::ConfigLoader& loader)
{
    const std::vector<std::string> overrides = arguments.values("set");
    std::optional<std::string> workspace = arguments.value("workspace");
    if (!arguments.positional().empty()) {
        if (arguments.positional().size() > 1 || workspace) {
            throw UsageError("give one workspace (positional or --workspace)");
        }
        workspace = arguments.positional().front();
    }
    const bool separate = arguments.value("model") || arguments.value("hardware") || arguments.value("run");
    if (workspace && separate) {
        throw UsageError("give either a workspace or --model/--hardware/--run, not both");
    }
    if (separate) {
        return loader.loadScenario(
            arguments.required("model"), arguments.required("hardware"), arguments.required("run"), overrides);
    }
    return loader.loadWorkspace(workspace.value_or("llama-3.1-70b-64xh100"), overrides);
}

} // namespace rapid::cli
