// SPDX-License-Identifier: GPL-3.0-or-later
#include "clioutput.h"

#include "config/units.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
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

bool writeOutput(const std::optional<std::string>& path, const Invocation& invocation, const std::string& command,
    const std::function<void(std::ostream&)>& write)
{
    if (!path) {
        return true;
    }
    std::ofstream file;
    std::ostream* stream = openOutput(*path, file, invocation);
    if (!stream) {
        invocation.err << "rapid " << command << ": cannot write " << *path << "\n";
        return false;
    }
    write(*stream);
    return true;
}

long long boundedInteger(
    const Arguments& arguments, const std::string& name, long long fallback, long long low, long long high)
{
    const long long value = arguments.integer(name, fallback);
    if (value < low || value > high) {
        throw UsageError("--" + name + " " + std::to_string(value) + ": expected " + std::to_string(low) + " to "
            + std::to_string(high));
    }
    return value;
}

double boundedNumber(const Arguments& arguments, const std::string& name, double fallback, double low, double high)
{
    const auto text = arguments.value(name);
    if (!text) {
        return fallback;
    }
    char* end = nullptr;
    const double value = std::strtod(text->c_str(), &end);
    if (end == text->c_str() || *end != '\0' || !std::isfinite(value) || value < low || value > high) {
        throw UsageError("--" + name + " \"" + *text + "\": expected a number from " + config::formatNumber(low)
            + " to " + config::formatNumber(high));
    }
    return value;
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

config::Scenario loadScenario(
    const Arguments& arguments, const config::ConfigLoader& loader, const std::vector<std::string>& extraOverrides)
{
    std::vector<std::string> overrides = arguments.values("set");
    overrides.insert(overrides.end(), extraOverrides.begin(), extraOverrides.end());
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

void noteUnchargedDetours(std::ostream& out, const config::HardwareSpec& hardware, const std::string& prefix)
{
    const bool failedLinks = std::any_of(hardware.faults.begin(), hardware.faults.end(),
        [](const config::LinkFault& fault) { return fault.health <= 0; });
    if (failedLinks) {
        // The detours a failed link forces onto links other groups use at the same time are not charged (on a 4x4
        // torus a failed link leaves the analytical 256 MiB all-reduce at 4.04 ms; the congestion backend, 8.06 ms).
        out << prefix
            << "failed links are routed around, but the analytical backend does not charge the detour traffic to the "
               "groups whose links it crosses; --backend congestion does\n";
    }
}

} // namespace rapid::cli
