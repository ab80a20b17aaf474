// SPDX-License-Identifier: GPL-3.0-or-later
#include "arguments.h"
#include "chakracli.h"
#include "clioutput.h"
#include "commands.h"

#include "graph/chakradot.h"
#include "graph/chakrainspect.h"
#include "graph/chakrareader.h"
#include "report/chakrainspectreport.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <ostream>

namespace rapid::cli {

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// Opens --json/--out targets: "-" is standard output.
int inspect(const Invocation& invocation, const std::vector<std::string>& args)
{
    Arguments arguments("chakra inspect",
        "Loads a set of Chakra execution traces (a directory of <prefix>.<rank>.et files, one file, or a prefix) and "
        "reports per rank the node and edge counts by type, collectives by kind and size, point-to-point totals and "
        "the critical path, then every defect with node ids: missing dependencies, cycles, unknown or mistyped "
        "attributes, unmatched send/recv and collectives issued in different orders on different ranks.",
        { { "comm-groups", "FILE", "communicator groups JSON (default: comm_groups.json next to the traces)", false },
            { "json", "FILE", "also write the full report as JSON (- for standard output)", false },
            { "all", "", "list every defect (default: at most 20 of each kind)", false } },
        "DIR|FILE|PREFIX");
    arguments.parse(args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    if (arguments.positional().size() != 1) {
        throw UsageError("give one trace directory, file or prefix");
    }
    const std::filesystem::path input = arguments.positional().front();
    const std::vector<std::filesystem::path> files = graph::listChakraSet(input);
    std::string groupsOrigin;
    const std::optional<graph::ChakraCommGroups> groups = chakraCommGroupsFor(arguments, input, &groupsOrigin);
    // Read and inspected file by file: a set of any size fits, in the memory of a few decoded files.
    const auto inspectStart = Clock::now();
    const graph::ChakraInspection inspection = graph::inspectChakraFiles(files, groups ? &*groups : nullptr);
    const double inspectMs = millisecondsSince(inspectStart);

    std::ostream& out = invocation.out;
    report::writeChakraInspectionText(out, inspection, arguments.flag("all") ? 0 : 20);
    out << "\n";
    if (groups) {
        out << "communicator groups: " << groups->size() << " from " << groupsOrigin << "\n";
    }
    out << "read and inspected in " << static_cast<long long>(inspectMs + 0.5) << " ms\n";

    if (auto jsonPath = arguments.value("json")) {
        std::ofstream file;
        std::ostream* json = openOutput(*jsonPath, file, invocation);
        if (!json) {
            invocation.err << "rapid chakra: cannot write " << *jsonPath << "\n";
            return InputError;
        }
        report::writeChakraInspectionJson(*json, inspection);
    }
    return Success;
}

int dot(const Invocation& invocation, const std::vector<std::string>& args)
{
    Arguments arguments("chakra dot",
        "Writes one rank's trace, or a filtered part of it, as Graphviz DOT (render with: dot -Tsvg).",
        { { "rank", "R", "which rank of a trace set (default 0)", false },
            { "name", "TEXT", "only nodes whose name contains TEXT", false },
            { "ids", "FIRST-LAST", "only nodes with ids in this range", false },
            { "out", "FILE", "write here instead of standard output", false } },
        "DIR|FILE|PREFIX");
    arguments.parse(args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    if (arguments.positional().size() != 1) {
        throw UsageError("give one trace directory, file or prefix");
    }
    const std::vector<graph::ChakraTrace> traces = graph::readChakraDirectory(arguments.positional().front());
    const long long rank = arguments.integer("rank", traces.front().rank);
    const graph::ChakraTrace* trace = nullptr;
    for (const graph::ChakraTrace& candidate : traces) {
        if (candidate.rank == rank) {
            trace = &candidate;
        }
    }
    if (!trace) {
        throw UsageError("no trace for rank " + std::to_string(rank));
    }
    graph::ChakraDotFilter filter;
    filter.nameContains = arguments.value("name").value_or("");
    if (auto ids = arguments.value("ids")) {
        const size_t dash = ids->find('-');
        try {
            filter.firstId = std::stoull(ids->substr(0, dash));
            filter.lastId = dash == std::string::npos ? *filter.firstId : std::stoull(ids->substr(dash + 1));
        } catch (const std::exception&) {
            throw UsageError("--ids takes FIRST-LAST, e.g. 100-200");
        }
    }
    std::ofstream file;
    std::ostream* out = openOutput(arguments.value("out").value_or("-"), file, invocation);
    if (!out) {
        invocation.err << "rapid chakra: cannot write " << *arguments.value("out") << "\n";
        return InputError;
    }
    graph::writeChakraDot(*out, *trace, filter);
    return Success;
}

void printUsage(std::ostream& out)
{
    out << "usage: rapid chakra <subcommand> [options]   (rapid chakra <subcommand> --help)\n\n"
           "Chakra execution traces (MLCommons format, as ASTRA-sim replays them).\n\nsubcommands:\n"
           "  inspect   counts, collectives, critical path and defects of a trace set\n"
           "  dot       one rank's graph (or part of it) as Graphviz DOT\n"
           "  simulate  replay a trace set on a hardware's network and GPU (analytical or congestion backend)\n"
           "  astra-config  ASTRA-sim network, system and remote-memory files for a hardware preset\n";
}

} // namespace

int chakraCommand(const Invocation& invocation)
{
    if (invocation.args.empty() || invocation.args.front() == "--help" || invocation.args.front() == "-h") {
        printUsage(invocation.out);
        return invocation.args.empty() ? UsageFailure : Success;
    }
    const std::string subcommand = invocation.args.front();
    const std::vector<std::string> rest(invocation.args.begin() + 1, invocation.args.end());
    try {
        if (subcommand == "inspect") {
            return inspect(invocation, rest);
        }
        if (subcommand == "dot") {
            return dot(invocation, rest);
        }
        if (subcommand == "simulate") {
            return chakraSimulateCommand(invocation, rest);
        }
        if (subcommand == "astra-config") {
            return chakraAstraConfigCommand(invocation, rest);
        }
    } catch (const graph::ChakraError& error) {
        invocation.err << "rapid chakra " << subcommand << ": " << error.what() << "\n";
        return InputError;
    }
    throw UsageError("unknown subcommand \"" + subcommand + "\" (inspect, dot, simulate, astra-config)");
}

} // namespace rapid::cli
