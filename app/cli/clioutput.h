// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "arguments.h"
#include "commands.h"

#include "config/configloader.h"

#include <fstream>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace rapid::cli {

/// Where an output option (`--json FILE`, `--out FILE`) goes: standard output for "-", else @p file opened on @p path.
/// Returns nullptr when the file cannot be opened (the caller reports it).
std::ostream* openOutput(const std::string& path, std::ofstream& file, const Invocation& invocation);

/// Writes an output option's file with @p write when @p path is given; false (with "rapid <command>: cannot write
/// <path>" on standard error) when it cannot be opened.
bool writeOutput(const std::optional<std::string>& path, const Invocation& invocation, const std::string& command,
    const std::function<void(std::ostream&)>& write);

/// The integer option @p name (or @p fallback when absent), refused with a UsageError naming the option outside
/// [@p low, @p high].
long long boundedInteger(
    const Arguments& arguments, const std::string& name, long long fallback, long long low, long long high);

/// The number option @p name (or @p fallback when absent): finite and within [@p low, @p high], else a UsageError
/// naming the option.
double boundedNumber(const Arguments& arguments, const std::string& name, double fallback, double low, double high);

/// The options that name a scenario (--workspace, --model, --hardware, --run, --set) followed by @p extra.
std::vector<Arguments::Option> scenarioOptions(std::vector<Arguments::Option> extra);

/// The scenario a command names: a workspace (positional or --workspace; default the llama-3.1-70b-64xh100 preset) or
/// --model, --hardware and --run, with every --set override. Throws UsageError for a mix of both.
config::Scenario loadScenario(const Arguments& arguments, const config::ConfigLoader& loader,
    const std::vector<std::string>& extraOverrides = {});

/// For an analytical figure on @p hardware with failed links, writes the note that the detour traffic is not charged
/// (each group is costed alone on its own rerouted paths) to @p out, prefixed by @p prefix.
void noteUnchargedDetours(std::ostream& out, const config::HardwareSpec& hardware, const std::string& prefix);

} // namespace rapid::cli
