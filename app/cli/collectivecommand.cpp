// SPDX-License-Identifier: GPL-3.0-or-later
#include "arguments.h"
#include "clioutput.h"
#include "collectiveoptions.h"
#include "commands.h"
#include "format.h"
#include "ranklist.h"

#include "analysis/collectivewhatif.h"
#include "config/configloader.h"
#include "config/units.h"
#include "graph/chakracommgroups.h"
#include "graph/chakraexport.h"
#include "graph/chakrawriter.h"
#include "network/analyticalnetwork.h"
#include "network/router.h"
#include "sim/congestionnetwork.h"
#include "sim/flowsimulator.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>

namespace rapid::cli {

namespace {

/// The GPUs that differ from GPU 0 only in the named network dimension (e.g. one node's NVLink domain).
std::vector<int> dimensionGroup(const config::HardwareSpec& hardware, const std::string& name)
{
    int stride = 1;
    std::string names;
    for (const config::NetworkDimension& dimension : hardware.cluster.dimensions) {
        if (dimension.name == name) {
            std::vector<int> gpus;
            for (int i = 0; i < dimension.size; ++i) {
                gpus.push_back(i * stride);
            }
            return gpus;
        }
        stride *= dimension.size;
        names += (names.empty() ? "" : ", ") + dimension.name;
    }
    throw UsageError("--group \"" + name + "\": no network dimension of that name (dimensions: " + names + ")");
}

std::optional<network::CollectiveAlgorithm> parseAlgorithm(const std::optional<std::string>& text)
{
    if (!text) {
        return std::nullopt;
    }
    using network::CollectiveAlgorithm;
    for (CollectiveAlgorithm algorithm :
        { CollectiveAlgorithm::Ring, CollectiveAlgorithm::Tree, CollectiveAlgorithm::Direct,
            CollectiveAlgorithm::HalvingDoubling, CollectiveAlgorithm::Hierarchical, CollectiveAlgorithm::InNetwork }) {
        if (*text == network::toString(algorithm)) {
            return algorithm;
        }
    }
    throw UsageError(
        "--algorithm \"" + *text + "\": expected ring, tree, direct, halving-doubling, hierarchical or in-network");
}

/// A byte size in [0, @p maximum] given to option --@p option.
double parseSize(const std::string& text, const char* option, double maximum)
{
    std::string why;
    const std::optional<double> bytes = config::parseQuantity(text, config::Dimension::Bytes, &why);
    if (!bytes || *bytes < 0) {
        throw UsageError(std::string("--") + option + " \"" + text + "\": " + (bytes ? "must not be negative" : why));
    }
    if (*bytes > maximum) {
        throw UsageError(std::string("--") + option + " \"" + text + "\": at most " + formatBytes(maximum));
    }
    return *bytes;
}

/// The collectives named on the command line: --op, --bytes and --ranks/--group, each once (shared) or once per
/// collective.
std::vector<network::CollectiveRequest> parseRequests(const Arguments& arguments, const config::HardwareSpec& hardware)
{
    std::vector<std::string> ops = arguments.values("op");
    std::vector<std::string> sizes = arguments.values("bytes");
    const std::vector<std::string> ranks = arguments.values("ranks");
    const std::vector<std::string> groups = arguments.values("group");
    if (!ranks.empty() && !groups.empty()) {
        throw UsageError("give --ranks or --group, not both");
    }
    const std::vector<std::string>& members = ranks.empty() ? groups : ranks;
    const size_t count = std::max({ ops.size(), sizes.size(), members.size(), size_t { 1 } });
    auto check = [&](const std::vector<std::string>& values, const char* name) {
        if (values.size() > 1 && values.size() != count) {
            throw UsageError(std::string("--") + name + " is given " + std::to_string(values.size()) + " times for "
                + std::to_string(count) + " collectives: give it once (shared) or once per collective");
        }
    };
    check(ops, "op");
    check(sizes, "bytes");
    check(members, ranks.empty() ? "group" : "ranks");
    const std::optional<network::CollectiveAlgorithm> algorithm = parseAlgorithm(arguments.value("algorithm"));
    const network::CollectiveLibrary library = parseLibrary(arguments.value("collectives"));
    std::vector<network::CollectiveRequest> requests;
    for (size_t i = 0; i < count; ++i) {
        auto pick = [&](const std::vector<std::string>& values) -> std::optional<std::string> {
            if (values.empty()) {
                return std::nullopt;
            }
            return values.size() == 1 ? values.front() : values[i];
        };
        const std::string opText = pick(ops).value_or("allreduce");
        const std::optional<network::CollectiveKind> kind = network::parseCollectiveKind(opText);
        if (!kind) {
            throw UsageError("--op \"" + opText
                + "\": expected allreduce, reducescatter, allgather, alltoall, broadcast or sendrecv");
        }
        network::CollectiveRequest request;
        request.kind = *kind;
        request.bytes = parseSize(pick(sizes).value_or("1 GiB"), "bytes", analysis::kMaxCollectiveBytes);
        request.algorithm = algorithm;
        request.library = library;
        if (const std::optional<std::string> member = pick(members)) {
            request.gpus = ranks.empty() ? dimensionGroup(hardware, *member) : parseRankList(*member, "ranks");
        } else if (*kind == network::CollectiveKind::SendRecv) {
            request.gpus = { 0, hardware.cluster.totalGpus() - 1 };
        } else {
            for (int gpu = 0; gpu < hardware.cluster.totalGpus(); ++gpu) {
                request.gpus.push_back(gpu);
            }
        }
        requests.push_back(std::move(request));
    }
    return requests;
}

void writeMicrobenchmark(
    const std::string& directory, const network::CollectiveRequest& request, int totalGpus, std::ostream& out)
{
    // ASTRA-sim's comm_size of an all-gather is the per-rank shard; ours is the gathered output.
    const double shard = request.kind == network::CollectiveKind::AllGather
        ? request.bytes / static_cast<double>(request.gpus.size())
        : request.bytes;
    const bool everyGpu = static_cast<int>(request.gpus.size()) == totalGpus;
    const std::vector<graph::ChakraTrace> traces
        = graph::exportCollectiveMicrobenchmark(graph::chakraCollectiveOf(request.kind),
            static_cast<std::uint64_t>(std::llround(shard)), request.gpus, everyGpu ? "" : "1", totalGpus);
    // The files are named after the collective, as the generator's ("all_reduce.0.et").
    std::string prefix = graph::toString(graph::chakraCollectiveOf(request.kind));
    std::transform(prefix.begin(), prefix.end(), prefix.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    graph::writeChakraDirectory(directory, prefix, traces);
    if (!everyGpu) {
        std::ofstream json(std::filesystem::path(directory) / "comm_groups.json");
        json << graph::chakraCommGroupsJson({ { "1", request.gpus } });
    }
    out << "chakra     wrote " << traces.size() << " trace file(s) " << prefix << ".<rank>.et to " << directory;
    if (!everyGpu) {
        out << " (" << request.gpus.size() << " members; every other rank of the network idles)";
    }
    out << "\n";
}

size_t busiestLinkCount(const Arguments& arguments)
{
    const long long links = arguments.integer("links", 5);
    if (links < 0 || links > 1'000'000) {
        throw UsageError("--links must be from 0 to 10^6");
    }
    return static_cast<size_t>(links);
}

Arguments collectiveArguments()
{
    return Arguments("collective",
        "Completion time of one or several concurrent collectives on a hardware's network (faults included). The "
        "analytical backend gives the closed form on an idle network; the congestion backend simulates every flow "
        "with max-min fair link sharing, so concurrent collectives contend where they share links.",
        { { "hardware", "NAME|FILE", "hardware preset name or hardware YAML file", false },
            { "set", "KEY=VALUE", "override a key, e.g. hardware.cluster.network[ib].size=128 or hardware.faults=...",
                true },
            { "op", "OP",
                "allreduce, reducescatter, allgather, alltoall, broadcast or sendrecv (repeat: one per "
                "concurrent collective)",
                true },
            { "bytes", "SIZE", "bytes per rank as in the config, e.g. 1GiB or \"64 MB\", at most 1 PiB (default 1 GiB)",
                true },
            { "ranks", "LIST", "GPUs taking part, e.g. 0-7,16 (sendrecv: sender,receiver); default all", true },
            { "group", "DIMENSION", "the GPUs of GPU 0's instance of one network dimension, e.g. nvlink", true },
            { "algorithm", "NAME", "force ring, tree, direct, halving-doubling, hierarchical or in-network", false },
            { "collectives", "NAME", kCollectivesHelp, false },
            { "backend", "NAME",
                "analytical (default), congestion (flow-level, max-min fair) or packet (packet-level, "
                "store-and-forward, "
                "fair-queued ports; for messages of a few packets per path)",
                false },
            { "links", "N", "congestion: how many of the busiest links to list, 0 to 10^6 (default 5)", false },
            { "packet-bytes", "SIZE",
                "congestion: store-and-forward switching with packets of this size (default 0: cut-through); packet: "
                "the packet size on the wire, header included, at most 1 MiB (default 4 KiB, the InfiniBand MTU)",
                false },
            { "header-bytes", "SIZE",
                "packet: bytes of every packet that are header, not payload, at most 1 MiB (default 0)", false },
            { "flow-program", "FILE", "congestion: write the simulated flows (docs/flow-program.md)", false },
            { "chakra-out", "DIR",
                "write the collective as a Chakra microbenchmark (one COMM_COLL_NODE per rank, as ASTRA-sim's "
                "generator; a group that is not every GPU gets comm_groups.json)",
                false },
            { "json", "FILE", "also write the result as JSON (- for standard output)", false } });
}

/// The what-if the options describe (backend and packet sizes checked).
analysis::CollectiveWhatIf whatIfOf(const Arguments& arguments, const config::HardwareSpec& hardware,
    const std::vector<network::CollectiveRequest>& requests)
{
    const std::string backend = arguments.value("backend").value_or("analytical");
    const std::optional<analysis::CollectiveBackend> chosen = analysis::parseCollectiveBackend(backend);
    if (!chosen) {
        throw UsageError("--backend \"" + backend + "\": expected analytical, congestion or packet");
    }
    const bool packetLevel = *chosen == analysis::CollectiveBackend::Packet;
    const bool congestion = *chosen != analysis::CollectiveBackend::Analytical; // the flows simulated on the topology
    if (!congestion && (requests.size() > 1 || arguments.value("flow-program"))) {
        throw UsageError("concurrent collectives and --flow-program need --backend congestion or packet");
    }
    if (!packetLevel && arguments.value("header-bytes")) {
        throw UsageError("--header-bytes is for --backend packet");
    }

    analysis::CollectiveWhatIf whatIf { hardware, requests, *chosen, {}, {} };
    if (auto packet = arguments.value("packet-bytes")) {
        const double bytes = parseSize(*packet, "packet-bytes", analysis::kMaxPacketBytes);
        (packetLevel ? whatIf.packets.packetBytes : whatIf.congestion.packetBytes) = bytes;
    }
    if (auto header = arguments.value("header-bytes")) {
        whatIf.packets.headerBytes = parseSize(*header, "header-bytes", analysis::kMaxPacketBytes);
        if (whatIf.packets.headerBytes >= whatIf.packets.packetBytes) {
            throw UsageError("--header-bytes \"" + *header + "\": must be smaller than the packet ("
                + formatBytes(whatIf.packets.packetBytes) + ")");
        }
    }
    if (packetLevel && !(whatIf.packets.packetBytes > 0)) {
        throw UsageError("--packet-bytes: the packet backend needs a positive packet size");
    }
    return whatIf;
}

/// The human summary: per collective its time, algorithm and bandwidths; with a simulated backend the busiest links.
void writeCollectiveText(std::ostream& out, const analysis::CollectiveWhatIf& whatIf,
    const analysis::CollectiveWhatIfResult& whatIfResult, size_t shownLinks)
{
    const config::HardwareSpec& hardware = whatIf.hardware;
    const std::vector<network::CollectiveRequest>& requests = whatIf.requests;
    const std::vector<network::CollectiveTime>& times = whatIfResult.times;
    const sim::CongestionRun& run = whatIfResult.run;
    const bool congestion = whatIfResult.simulated();
    const bool packetLevel = whatIf.backend == analysis::CollectiveBackend::Packet;
    const std::string backend = analysis::toString(whatIf.backend);
    for (size_t i = 0; i < requests.size(); ++i) {
        const network::CollectiveRequest& request = requests[i];
        const network::CollectiveTime& result = times[i];
        const int ranks = static_cast<int>(request.gpus.size());
        out << hardware.name << ": " << network::toString(request.kind) << " of " << formatBytes(request.bytes)
            << " over " << ranks << " GPU" << (ranks == 1 ? "" : "s");
        if (requests.size() > 1) {
            out << " (" << analysis::describeRanks(request.gpus) << ")";
        }
        out << "\n";
        out << "  completion time       " << config::formatQuantity(result.seconds, config::Dimension::Seconds) << "\n";
        out << "  algorithm             " << network::toString(result.algorithm) << "\n";
        if (result.seconds > 0) {
            out << "  algorithm bandwidth   "
                << config::formatQuantity(result.algorithmBandwidth, config::Dimension::BytesPerSecond) << "\n";
            out << "  bus bandwidth         "
                << config::formatQuantity(result.busBandwidth, config::Dimension::BytesPerSecond) << "\n";
        } else {
            // One GPU: nothing crosses a link, so no rate exists (bytes over no time).
            out << "  bandwidth             - (nothing crosses a link)\n";
        }
        if (!congestion) {
            out << "  bottleneck link       "
                << (result.bottleneckLink.empty() ? std::string("-") : result.bottleneckLink) << "\n";
        }
    }
    out << "  launch (once)         "
        << config::formatQuantity(network::kCollectiveLaunchSeconds, config::Dimension::Seconds) << "\n";
    if (!congestion) {
        noteUnchargedDetours(out, hardware, "  note                  ");
    }
    const std::vector<network::LinkUse>& uses = whatIfResult.busiestLinks;
    if (congestion) {
        out << backend << " backend: " << run.flows << " flows, ";
        if (packetLevel) {
            out << run.packets << " packets, ";
        }
        out << run.events << " events, makespan " << config::formatQuantity(run.makespan, config::Dimension::Seconds)
            << "\n";
        const size_t shown = shownLinks;
        out << "busiest links (bytes carried / bandwidth x makespan):\n";
        for (size_t i = 0; i < std::min(shown, uses.size()); ++i) {
            const network::Link& link = whatIfResult.network->topology().link(uses[i].link);
            out << "  " << std::left << std::setw(28) << whatIfResult.network->topology().linkId(uses[i].link)
                << std::right << " " << (link.from < link.to ? "a->b" : "b->a") << "  " << std::fixed
                << std::setprecision(1) << std::setw(5) << uses[i].utilisation * 100 << "%  "
                << formatBytes(uses[i].bytes) << std::defaultfloat << std::setprecision(6) << "\n";
        }
    }
}

} // namespace

int collectiveCommand(const Invocation& invocation)
{
    Arguments arguments = collectiveArguments();
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    const config::HardwareSpec hardware = loader.loadHardware(arguments.required("hardware"), arguments.values("set"));
    const std::vector<network::CollectiveRequest> requests = parseRequests(arguments, hardware);
    const analysis::CollectiveWhatIf whatIf = whatIfOf(arguments, hardware, requests);
    if (auto directory = arguments.value("chakra-out")) {
        if (requests.size() != 1 || requests.front().kind == network::CollectiveKind::SendRecv) {
            throw UsageError("--chakra-out writes one collective (not send/recv)");
        }
        try {
            writeMicrobenchmark(*directory, requests.front(), hardware.cluster.totalGpus(), invocation.out);
        } catch (const std::filesystem::filesystem_error& error) {
            // A place that cannot hold the traces is the user's input, not an internal error.
            invocation.err << "rapid collective: --chakra-out " << *directory << ": cannot write the traces there ("
                           << error.code().message() << ")\n";
            return InputError;
        }
    }

    analysis::CollectiveWhatIfResult whatIfResult;
    try {
        whatIfResult = analysis::runCollectiveWhatIf(whatIf);
        if (auto path = arguments.value("flow-program")) {
            std::ofstream file;
            std::ostream* programOut = openOutput(*path, file, invocation);
            if (!programOut) {
                invocation.err << "rapid collective: cannot write " << *path << "\n";
                return InputError;
            }
            sim::writeFlowProgram(*programOut, whatIfResult.network->program(requests), whatIfResult.network->routes());
        }
    } catch (const std::invalid_argument& error) {
        invocation.err << "rapid collective: " << error.what() << "\n";
        return InputError;
    } catch (const network::UnreachableError& error) {
        invocation.err << "rapid collective: " << error.what() << "\n";
        return InputError;
    }
    writeCollectiveText(invocation.out, whatIf, whatIfResult, busiestLinkCount(arguments));
    if (auto jsonPath = arguments.value("json")) {
        std::ofstream file;
        std::ostream* json = openOutput(*jsonPath, file, invocation);
        if (!json) {
            invocation.err << "rapid collective: cannot write " << *jsonPath << "\n";
            return InputError;
        }
        report::writeJson(*json, analysis::collectiveResultJson(whatIf, whatIfResult));
    }
    return Success;
}

} // namespace rapid::cli
