// SPDX-License-Identifier: GPL-3.0-or-later
#include "astraconfig.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>

namespace rapid::graph {

namespace {

struct AstraDimension {
    std::string topology;
    int npus = 0;
    double bandwidthGBps = 0;
    double latencyNs = 0;
};

std::string list(const std::vector<AstraDimension>& dimensions, const auto& field)
{
    std::ostringstream text;
    text.precision(12);
    text << "[ ";
    for (size_t i = 0; i < dimensions.size(); ++i) {
        text << (i ? ", " : "") << field(dimensions[i]);
    }
    text << " ]";
    return text.str();
}

} // namespace

AstraConfig astraConfigFor(const config::HardwareSpec& hardware)
{
    AstraConfig config;
    std::vector<AstraDimension> dimensions;
    for (const config::NetworkDimension& dimension : hardware.cluster.dimensions) {
        // ASTRA-sim's links carry data at the rate given: the line rate less the protocol's share, as here.
        const double bandwidth = dimension.linkBandwidth * dimension.protocolEfficiency / 1e9;
        const double latency = dimension.latencySeconds * 1e9;
        switch (dimension.kind) {
        case config::NetworkKind::Ring:
            dimensions.push_back({ "Ring", dimension.size, bandwidth, latency });
            break;
        case config::NetworkKind::FullyConnected:
            dimensions.push_back({ "FullyConnected", dimension.size, bandwidth, latency });
            break;
        case config::NetworkKind::Switch:
            dimensions.push_back({ "Switch", dimension.size, bandwidth, latency });
            break;
        case config::NetworkKind::Torus2d:
        case config::NetworkKind::Torus3d:
        case config::NetworkKind::Mesh2d:
            for (const int axis : dimension.shape) {
                dimensions.push_back({ "Ring", axis, bandwidth, latency });
            }
            if (dimension.kind == config::NetworkKind::Mesh2d) {
                config.approximations.push_back(dimension.name
                    + ": a mesh is written as rings (ASTRA-sim's analytical "
                      "network has no mesh; the wrap-around links are extra)");
            }
            break;
        case config::NetworkKind::FatTree:
        case config::NetworkKind::RailOptimized:
            dimensions.push_back({ "Switch", dimension.size, bandwidth / dimension.oversubscription, latency });
            config.approximations.push_back(dimension.name + ": a fat tree of " + std::to_string(dimension.tiers)
                + " tier(s) is written as one switch at the link bandwidth over the oversubscription (ASTRA-sim's "
                  "analytical network has no multi-tier switch)");
            break;
        }
    }
    for (const config::NetworkDimension& dimension : hardware.cluster.dimensions) {
        if (dimension.inNetworkAllReduceBandwidth > 0) {
            config.approximations.push_back(dimension.name
                + ": its in-switch all-reduce (NVLink SHARP) is left out: ASTRA-sim's analytical network reduces in "
                  "the NPUs (ring)");
        }
    }
    for (const config::NetworkDimension& dimension : hardware.cluster.dimensions) {
        if (dimension.ncclStepSeconds > 0) {
            config.approximations.push_back(dimension.name + ": NCCL's measured ring step ("
                + std::to_string(std::lround(dimension.ncclStepSeconds * 1e9))
                + " ns) is left out: ASTRA-sim's links carry the path's latency per hop only, so its rings run "
                  "small messages faster than NCCL does");
        }
    }
    if (!hardware.faults.empty()) {
        config.approximations.push_back(std::to_string(hardware.faults.size())
            + " link fault(s) left out: ASTRA-sim's analytical network has no per-link health");
    }
    if (!hardware.stragglers.empty()) {
        config.approximations.push_back(std::to_string(hardware.stragglers.size())
            + " straggler(s) left out: the traces' compute durations are the healthy GPU's");
    }

    std::ostringstream network;
    network << "# ASTRA-sim analytical network for " << hardware.name << " (written by rapid chakra astra-config)\n";
    for (const std::string& note : config.approximations) {
        network << "# approximated: " << note << "\n";
    }
    network << "topology: " << list(dimensions, [](const AstraDimension& d) { return d.topology; }) << "\n"
            << "npus_count: " << list(dimensions, [](const AstraDimension& d) { return d.npus; }) << "\n"
            << "bandwidth: " << list(dimensions, [](const AstraDimension& d) { return d.bandwidthGBps; })
            << "  # GB/s per link and direction\n"
            << "latency: " << list(dimensions, [](const AstraDimension& d) { return d.latencyNs; })
            << "  # ns per hop\n";
    config.network = network.str();

    // Ring collectives on every dimension, as rapid's analytical model costs them; scheduling, endpoint delay and
    // chunking are the values of ASTRA-sim's example system file for native ring collectives (Ring_4chunks.json);
    // the local memory bandwidth is the GPU's HBM bandwidth in GB/s.
    const std::vector<std::string> rings(dimensions.size(), "ring");
    nlohmann::ordered_json system = { { "scheduling-policy", "LIFO" }, { "endpoint-delay", 10 },
        { "active-chunks-per-dimension", 1 }, { "preferred-dataset-splits", 4 }, { "all-reduce-implementation", rings },
        { "all-gather-implementation", rings }, { "reduce-scatter-implementation", rings },
        { "all-to-all-implementation", rings }, { "collective-optimization", "localBWAware" },
        { "local-mem-bw", hardware.gpu.hbmBandwidth / 1e9 }, { "boost-mode", 0 } };
    config.system = system.dump(4) + "\n";
    config.remoteMemory = nlohmann::ordered_json { { "memory-type", "NO_MEMORY_EXPANSION" } }.dump(4) + "\n";
    return config;
}

} // namespace rapid::graph
