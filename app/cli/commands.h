// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace rapid::cli {

/// Exit codes shared by every subcommand. Anything the user gave that is wrong (a YAML key, a trace, an option or its
/// value, a command name) is an input error, exit 1, naming what to change; 2 is only `rapid` or `rapid chakra` run
/// without a command, after printing the usage; 3 is a bug.
enum ExitCode { Success = 0, InputError = 1, UsageFailure = 2, InternalError = 3 };

/// What a subcommand gets: its arguments (after the subcommand name) and where to write.
struct Invocation {
    std::vector<std::string> args;
    std::ostream& out;
    std::ostream& err;
};

int modelInfoCommand(const Invocation& invocation);
int importHfCommand(const Invocation& invocation);
int runCommand(const Invocation& invocation);
int serveCommand(const Invocation& invocation);
int goodputCommand(const Invocation& invocation);
int resilienceCommand(const Invocation& invocation);
int presetsCommand(const Invocation& invocation);
int schemaCommand(const Invocation& invocation);
int gemmCommand(const Invocation& invocation);
int layerCommand(const Invocation& invocation);
int validateCommand(const Invocation& invocation);
int collectiveCommand(const Invocation& invocation);
int sweepCommand(const Invocation& invocation);
/// `rapid plot` (plotcommand.cpp): only in builds with the workbench libraries (RAPID_WITH_PLOT).
int plotCommand(const Invocation& invocation);
int chakraCommand(const Invocation& invocation);
/// `rapid chakra simulate` (chakrasimulatecommand.cpp), dispatched by chakraCommand.
int chakraSimulateCommand(const Invocation& invocation, const std::vector<std::string>& args);
int chakraAstraConfigCommand(const Invocation& invocation, const std::vector<std::string>& args);

} // namespace rapid::cli
