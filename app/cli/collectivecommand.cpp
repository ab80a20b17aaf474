// SPDX-License-Identifier: GPL-3.0-or-later
#include "arguments.h"
#include "clioutput.h"
#include "commands.h"
#include "format.h"

#include "config/configloader.h"
#include "config/units.h"
#include "network/analyticalnetwork.h"
#include "network/router.h"

#include <charconv>
#include <fstream>
#include <iomanip>
#include <ostream>

namespace rapid::cli {

namespace {

int parseGpu(std::string_view text, const std::string& whole)
{
    int value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
        throw UsageError("--ranks \"" + whole + "\": expected GPU indices and ranges such as 0-7,16,24-31");
    }
    return value;
}

/// "0-7,16,24-31" -> the listed GPUs in order.
std::vector<int> parseRanks(const std::string& text)
{
    std::vector<int> gpus;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string_view item = std::string_view(text).substr(start, comma - start);
        const size_t dash = item.find('-');
        if (dash == std::string_view::npos) {
            gpus.push_back(parseGpu(item, text));
        } else {
            const int first = parseGpu(item.substr(0, dash), text);
            const int last = parseGpu(item.substr(dash + 1), text);
            if (last < first) {
                throw UsageError("--ranks \"" + text + "\": a range must not run backwards");
            }
            for (int gpu = first; gpu <= last; ++gpu) {
                gpus.push_back(gpu);
            }
        }
        start = comma + 1;
    }
    return gpus;
}

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
    for (CollectiveAlgorithm algorithm : { CollectiveAlgorithm::Ring, CollectiveAlgorithm::Tree,
             CollectiveAlgorithm::Direct, CollectiveAlgorithm::HalvingDoubling, CollectiveAlgorithm::Hierarchical }) {
        if (*text == network::toString(algorithm)) {
            return algorithm;
        }
    }
    throw UsageError("--algorithm \"" + *text + "\": expected ring, tree, direct, halving-doubling or hierarchical");
}

} // namespace

int collectiveCommand(const Invocation& invocation)
{
    Arguments arguments("collective",
        "Analytical completion time of one collective on a hardware's network (idle network, faults included): "
        "algorithm, algorithm and bus bandwidth, and the link that limits it.",
        { { "hardware", "NAME|FILE", "hardware preset name or hardware YAML file", false },
            { "set", "KEY=VALUE", "override a key, e.g. hardware.cluster.network[ib].size=128 or hardware.faults=...",
                true },
            { "op", "OP", "allreduce, reducescatter, allgather, alltoall, broadcast or sendrecv", false },
            { "bytes", "SIZE", "bytes per rank as in the config, e.g. 1GiB or \"64 MB\" (default 1 GiB)", false },
            { "ranks", "LIST", "GPUs taking part, e.g. 0-7,16 (sendrecv: sender,receiver); default all", false },
            { "group", "DIMENSION", "the GPUs of GPU 0's instance of one network dimension, e.g. nvlink", false },
            { "algorithm", "NAME", "force ring, tree, direct, halving-doubling or hierarchical", false },
            { "json", "FILE", "also write the result as JSON (- for standard output)", false } });
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    const config::HardwareSpec hardware = loader.loadHardware(arguments.required("hardware"), arguments.values("set"));
    const std::string opText = arguments.value("op").value_or("allreduce");
    const std::optional<network::CollectiveKind> kind = network::parseCollectiveKind(opText);
    if (!kind) {
        throw UsageError("--op \"" + opText
            + "\": expected allreduce, reducescatter, allgather, alltoall, broadcast "
              "or sendrecv");
    }
    std::string why;
    const std::string bytesText = arguments.value("bytes").value_or("1 GiB");
    const std::optional<double> bytes = config::parseQuantity(bytesText, config::Dimension::Bytes, &why);
    if (!bytes) {
        throw UsageError("--bytes \"" + bytesText + "\": " + why);
    }
    if (arguments.value("ranks") && arguments.value("group")) {
        throw UsageError("give --ranks or --group, not both");
    }
    network::CollectiveRequest request;
    request.kind = *kind;
    request.bytes = *bytes;
    request.algorithm = parseAlgorithm(arguments.value("algorithm"));
    if (auto ranks = arguments.value("ranks")) {
        request.gpus = parseRanks(*ranks);
    } else if (auto group = arguments.value("group")) {
        request.gpus = dimensionGroup(hardware, *group);
    } else if (*kind == network::CollectiveKind::SendRecv) {
        request.gpus = { 0, hardware.cluster.totalGpus() - 1 };
    } else {
        for (int gpu = 0; gpu < hardware.cluster.totalGpus(); ++gpu) {
            request.gpus.push_back(gpu);
        }
    }

    network::CollectiveTime result;
    try {
        const network::AnalyticalNetwork analytical(hardware);
        result = analytical.time(request);
    } catch (const std::invalid_argument& error) {
        invocation.err << "rapid collective: " << error.what() << "\n";
        return InputError;
    } catch (const network::UnreachableError& error) {
        invocation.err << "rapid collective: " << error.what() << "\n";
        return InputError;
    }

    const int ranks = static_cast<int>(request.gpus.size());
    std::ostream& out = invocation.out;
    out << hardware.name << ": " << network::toString(*kind) << " of " << formatBytes(*bytes) << " over " << ranks
        << " GPU" << (ranks == 1 ? "" : "s") << "\n";
    out << "  completion time       " << config::formatQuantity(result.seconds, config::Dimension::Seconds) << "\n";
    out << "  algorithm             " << network::toString(result.algorithm) << "\n";
    out << "  algorithm bandwidth   "
        << config::formatQuantity(result.algorithmBandwidth, config::Dimension::BytesPerSecond) << "\n";
    out << "  bus bandwidth         " << config::formatQuantity(result.busBandwidth, config::Dimension::BytesPerSecond)
        << "\n";
    out << "  bottleneck link       " << (result.bottleneckLink.empty() ? std::string("-") : result.bottleneckLink)
        << "\n";
    out << "  launch (once)         "
        << config::formatQuantity(network::kCollectiveLaunchSeconds, config::Dimension::Seconds) << "\n";

    if (auto jsonPath = arguments.value("json")) {
        std::ofstream file;
        std::ostream* json = openOutput(*jsonPath, file, invocation);
        if (!json) {
            invocation.err << "rapid collective: cannot write " << *jsonPath << "\n";
            return InputError;
        }
        *json << std::setprecision(10) << "{\n  \"hardware\": " << jsonString(hardware.name)
              << ",\n  \"op\": " << jsonString(network::toString(*kind)) << ",\n  \"bytes\": " << *bytes
              << ",\n  \"ranks\": " << ranks << ",\n  \"time_s\": " << result.seconds
              << ",\n  \"algorithm\": " << jsonString(network::toString(result.algorithm))
              << ",\n  \"algorithm_bandwidth_Bps\": " << result.algorithmBandwidth
              << ",\n  \"bus_bandwidth_Bps\": " << result.busBandwidth
              << ",\n  \"bottleneck_link\": " << jsonString(result.bottleneckLink) << "\n}\n";
    }
    return Success;
}

} // namespace rapid::cli
