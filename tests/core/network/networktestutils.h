// SPDX-License-Identifier: GPL-3.0-or-later
// Small builders for network tests: dimensions and hardware without YAML.
#pragma once

#include "config/hardwarespec.h"

#include <string>
#include <vector>

namespace rapid::test {

inline config::NetworkDimension dimension(const std::string& name, config::NetworkKind kind, int size,
    double bandwidthGBps, double latencyNs, std::vector<int> shape = {})
{
    config::NetworkDimension result;
    result.name = name;
    result.kind = kind;
    result.size = size;
    result.shape = shape.empty() ? std::vector<int> { size } : shape;
    result.linkBandwidth = bandwidthGBps * 1e9;
    result.latencySeconds = latencyNs * 1e-9;
    return result;
}

inline config::NetworkDimension fatTree(const std::string& name, int size, int tiers, int radix,
    double oversubscription, double bandwidthGBps, double latencyNs)
{
    config::NetworkDimension result = dimension(name, config::NetworkKind::FatTree, size, bandwidthGBps, latencyNs);
    result.tiers = tiers;
    result.switchRadix = radix;
    result.oversubscription = oversubscription;
    return result;
}

inline config::HardwareSpec hardware(
    std::vector<config::NetworkDimension> dimensions, std::vector<config::LinkFault> faults = {})
{
    config::HardwareSpec spec;
    spec.name = "test";
    spec.cluster.name = "test";
    spec.cluster.dimensions = std::move(dimensions);
    spec.faults = std::move(faults);
    return spec;
}

inline std::vector<int> allGpus(int count)
{
    std::vector<int> gpus;
    for (int gpu = 0; gpu < count; ++gpu) {
        gpus.push_back(gpu);
    }
    return gpus;
}

} // namespace rapid::test
