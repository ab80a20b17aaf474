// SPDX-License-Identifier: GPL-3.0-or-later
#include "arguments.h"
#include "chakracli.h"
#include "clioutput.h"
#include "collectiveoptions.h"
#include "commands.h"
#include "format.h"

#include "config/configloader.h"
#include "config/units.h"
#include "graph/chakracollectivelibrary.h"
#include "graph/chakracommgroups.h"
#include "graph/chakrareader.h"
#include "network/router.h"
#include "sim/tracereplay.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <tuple>
#include <utility>

namespace rapid::cli {

namespace {

/// What ran the traces' reductions and gathers, and where that came from: --collectives; else the library rapid
/// recorded when it wrote them (a training trace replays on NCCL as `rapid run` modelled it); else NCCL when the
/// collectives are NCCL's kernels by name (a converted PyTorch trace); else custom. std::invalid_argument when the
/// traces record something that is not a library, or disagree.
std::pair<network::CollectiveLibrary, std::string> collectiveLibrary(
    const std::optional<std::string>& option, const std::vector<graph::ChakraTrace>& traces)
{
    if (option) {
        return { parseLibrary(option), "--collectives" };
    }
    if (const std::optional<network::CollectiveLibrary> recorded = graph::recordedCollectiveLibrary(traces)) {
        return { *recorded, "recorded in the traces" };
    }
    if (const std::optional<network::CollectiveLibrary> named = graph::kernelNamedCollectiveLibrary(traces)) {
        return { *named, "the traces' collectives are NCCL kernels" };
    }
    return { network::CollectiveLibrary::Custom, "default; the traces record none and name no NCCL kernel" };
}

} // namespace

int chakraSimulateCommand(const Invocation& invocation, const std::vector<std::string>& args)
{
    Arguments arguments("chakra simulate",
        "Replays a set of Chakra execution traces (one <prefix>.<rank>.et per rank; rank r runs on GPU r) on a "
        "hardware's network and GPU: compute nodes by duration (or the roofline of their FLOP and byte attributes), "
        "collectives matched across their communicator group, sends matched with their receives. Prints per-rank "
        "finish, compute and exposed communication.",
        { { "hardware", "NAME|FILE", "hardware preset name or hardware YAML file", false },
            { "set", "KEY=VALUE", "override a hardware key, e.g. hardware.cluster.network[torus].latency_ns=5000",
                true },
            { "backend", "NAME", "analytical (default) or congestion", false },
            { "collectives", "NAME",
                std::string(kCollectivesHelp)
                    + "; without it, the library the traces record (rapid writes it), else NCCL where the collectives "
                      "are NCCL kernels by name, else custom",
                false },
            { "comm-groups", "FILE", "communicator groups JSON (default: comm_groups.json next to the traces)", false },
            { "json", "FILE", "also write the result as JSON (- for standard output)", false },
            { "timeline", "FILE", "write the per-rank timeline as a Chrome trace (chrome://tracing, Perfetto)",
                false } },
        "DIR|FILE|PREFIX");
    arguments.parse(args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    if (arguments.positional().size() != 1) {
        throw UsageError("give one trace directory, file or prefix");
    }
    const std::string backendName = arguments.value("backend").value_or("analytical");
    if (backendName != "analytical" && backendName != "congestion") {
        throw UsageError("--backend \"" + backendName + "\": expected analytical or congestion");
    }
    const std::optional<std::string> libraryOption = arguments.value("collectives");
    parseLibrary(libraryOption); // a wrong name is a usage error before anything is read
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    const config::HardwareSpec hardware = loader.loadHardware(arguments.required("hardware"), arguments.values("set"));
    const std::filesystem::path input = arguments.positional().front();
    const std::vector<graph::ChakraTrace> traces = graph::readChakraDirectory(input);
    const graph::ChakraCommGroups groups = chakraCommGroupsFor(arguments, input).value_or(graph::ChakraCommGroups {});

    network::CollectiveLibrary library = network::CollectiveLibrary::Custom;
    std::string librarySource;
    const auto start = std::chrono::steady_clock::now();
    sim::ReplayResult result;
    try {
        std::tie(library, librarySource) = collectiveLibrary(libraryOption, traces);
        result = sim::replayChakra(traces, groups, hardware,
            backendName == "congestion" ? sim::NetworkBackend::Congestion : sim::NetworkBackend::Analytical, library);
    } catch (const sim::ReplayDeadlock& error) {
        invocation.err << "rapid chakra simulate: " << error.what() << "\n";
        return InputError;
    } catch (const std::invalid_argument& error) {
        invocation.err << "rapid chakra simulate: " << error.what() << "\n";
        return InputError;
    } catch (const network::UnreachableError& error) {
        invocation.err << "rapid chakra simulate: " << error.what() << "\n";
        return InputError;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::ostream& out = invocation.out;
    out << traces.size() << " rank" << (traces.size() == 1 ? "" : "s") << " on " << hardware.name << ", " << backendName
        << " backend: " << result.collectives << " collectives, " << result.pointToPoint << " send/recv pairs"
        << (result.flows ? ", " + std::to_string(result.flows) + " flows" : std::string()) << "\n";
    out << "reductions and gathers run by " << network::toString(library) << " (" << librarySource << ")\n";
    out << "makespan   " << config::formatQuantity(result.makespan, config::Dimension::Seconds) << "  (simulated in "
        << std::fixed << std::setprecision(3) << wall << std::defaultfloat << " s)\n";
    out << "  rank      finish     compute   communication   exposed comm\n";
    char line[160];
    for (const sim::ReplayRank& rank : result.ranks) {
        std::snprintf(line, sizeof line, "  %4d  %10s  %10s  %14s  %13s\n", rank.rank,
            config::formatQuantity(rank.finish, config::Dimension::Seconds).c_str(),
            config::formatQuantity(rank.computeBusy, config::Dimension::Seconds).c_str(),
            config::formatQuantity(rank.communication, config::Dimension::Seconds).c_str(),
            config::formatQuantity(rank.exposedCommunication, config::Dimension::Seconds).c_str());
        out << line;
    }
    for (const std::string& note : result.notes) {
        out << "note: " << note << "\n";
    }

    if (auto path = arguments.value("timeline")) {
        std::ofstream file;
        std::ostream* timeline = openOutput(*path, file, invocation);
        if (!timeline) {
            invocation.err << "rapid chakra simulate: cannot write " << *path << "\n";
            return InputError;
        }
        *timeline << sim::replayChromeTraceJson(traces, result);
    }
    if (auto jsonPath = arguments.value("json")) {
        std::ofstream file;
        std::ostream* json = openOutput(*jsonPath, file, invocation);
        if (!json) {
            invocation.err << "rapid chakra simulate: cannot write " << *jsonPath << "\n";
            return InputError;
        }
        report::Json ranks = report::Json::array();
        for (const sim::ReplayRank& rank : result.ranks) {
            ranks.push_back({ { "rank", rank.rank }, { "nodes", rank.nodes }, { "finish_s", rank.finish },
                { "compute_s", rank.computeBusy }, { "communication_s", rank.communication },
                { "exposed_communication_s", rank.exposedCommunication } });
        }
        report::writeJson(*json,
            { { "hardware", hardware.name }, { "backend", backendName }, { "makespan_s", result.makespan },
                { "collectives", result.collectives }, { "collective_library", network::toString(library) },
                { "collective_library_source", librarySource }, { "send_recv_pairs", result.pointToPoint },
                { "flows", result.flows }, { "wall_s", wall }, { "ranks", ranks }, { "notes", result.notes } });
    }
    return Success;
}

} // namespace rapid::cli
