// SPDX-License-Identifier: GPL-3.0-or-later
#include "dimensionlayout.h"

#include <climits>
#include <cmath>
#include <stdexcept>

namespace rapid::network {

namespace {

[[noreturn]] void reject(const std::string& name, const std::string& what)
{
    throw std::invalid_argument("network dimension \"" + name + "\": " + what);
}

void checkCommon(const std::string& name, int size, double bandwidth, double latencySeconds)
{
    if (name.empty()) {
        reject(name, "the name is empty");
    }
    if (size < 2) {
        reject(name, "size " + std::to_string(size) + " is below 2 (a dimension joins at least two endpoints)");
    }
    if (!(bandwidth > 0) || !std::isfinite(bandwidth)) {
        reject(name, "link bandwidth must be positive and finite, got " + std::to_string(bandwidth) + " B/s");
    }
    if (!(latencySeconds >= 0) || !std::isfinite(latencySeconds)) {
        reject(name, "latency must be zero or positive, got " + std::to_string(latencySeconds) + " s");
    }
}

void checkExtent(const std::string& name, char axis, int extent)
{
    if (extent < 2) {
        reject(name, std::string("extent ") + axis + " = " + std::to_string(extent) + " is below 2");
    }
}

config::LinkEnd endpoint(int index)
{
    return { false, 0, index };
}

config::LinkEnd switchEnd(int tier, int index)
{
    return { true, tier, index };
}

DimensionLayout base(const std::string& name, config::NetworkKind kind, int size, double bandwidth, double latency)
{
    DimensionLayout layout;
    layout.name = name;
    layout.kind = kind;
    layout.endpoints = size;
    layout.shape = { size };
    layout.linkBandwidth = bandwidth;
    layout.latencySeconds = latency;
    return layout;
}

void addEndpointLink(DimensionLayout& layout, int a, int b)
{
    if (a > b) {
        std::swap(a, b);
    }
    layout.links.push_back({ endpoint(a), endpoint(b), layout.linkBandwidth });
}

/// Links of a torus or mesh of any rank: along each axis, i to i+1 (and the wrap link when @p wrap and extent > 2).
void addGridLinks(DimensionLayout& layout, bool wrap)
{
    const std::vector<int>& shape = layout.shape;
    for (int index = 0; index < layout.endpoints; ++index) {
        int stride = 1;
        for (int extent : shape) {
            const int coordinate = (index / stride) % extent;
            if (coordinate + 1 < extent) {
                addEndpointLink(layout, index, index + stride);
            } else if (wrap && extent > 2) {
                addEndpointLink(layout, index, index - coordinate * stride);
            }
            stride *= extent;
        }
    }
}

DimensionLayout makeGrid(const std::string& name, config::NetworkKind kind, const std::vector<int>& shape, bool wrap,
    double bandwidth, double latencySeconds)
{
    long long product = 1;
    static const char kAxes[] = { 'x', 'y', 'z' };
    for (size_t i = 0; i < shape.size(); ++i) {
        checkExtent(name, kAxes[i], shape[i]);
        product *= shape[i];
    }
    if (product > INT_MAX / 2) {
        reject(name, "the shape holds too many endpoints");
    }
    checkCommon(name, static_cast<int>(product), bandwidth, latencySeconds);
    DimensionLayout layout = base(name, kind, static_cast<int>(product), bandwidth, latencySeconds);
    layout.shape = shape;
    addGridLinks(layout, wrap);
    return layout;
}

long long power(long long base, int exponent)
{
    long long result = 1;
    for (int i = 0; i < exponent; ++i) {
        result = result > LLONG_MAX / std::max(base, 1LL) ? LLONG_MAX : result * base;
    }
    return result;
}

} // namespace

int DimensionLayout::switchCount() const
{
    int count = 0;
    for (int tierCount : switchesPerTier) {
        count += tierCount;
    }
    return count;
}

DimensionLayout makeRing(const std::string& name, int size, double bandwidth, double latencySeconds)
{
    checkCommon(name, size, bandwidth, latencySeconds);
    DimensionLayout layout = base(name, config::NetworkKind::Ring, size, bandwidth, latencySeconds);
    addGridLinks(layout, true);
    return layout;
}

DimensionLayout makeFullyConnected(const std::string& name, int size, double bandwidth, double latencySeconds)
{
    checkCommon(name, size, bandwidth, latencySeconds);
    if (size > 4096) {
        reject(name, "a fully-connected dimension of " + std::to_string(size) + " endpoints is not buildable");
    }
    DimensionLayout layout = base(name, config::NetworkKind::FullyConnected, size, bandwidth, latencySeconds);
    for (int a = 0; a < size; ++a) {
        for (int b = a + 1; b < size; ++b) {
            addEndpointLink(layout, a, b);
        }
    }
    return layout;
}

DimensionLayout makeSwitch(const std::string& name, int size, double bandwidth, double latencySeconds)
{
    checkCommon(name, size, bandwidth, latencySeconds);
    DimensionLayout layout = base(name, config::NetworkKind::Switch, size, bandwidth, latencySeconds);
    layout.switchesPerTier = { 1 };
    layout.tiers = 1;
    layout.downPorts = size;
    for (int e = 0; e < size; ++e) {
        layout.links.push_back({ endpoint(e), switchEnd(1, 0), bandwidth });
    }
    return layout;
}

DimensionLayout makeTorus2d(const std::string& name, int x, int y, double bandwidth, double latencySeconds)
{
    return makeGrid(name, config::NetworkKind::Torus2d, { x, y }, true, bandwidth, latencySeconds);
}

DimensionLayout makeTorus3d(const std::string& name, int x, int y, int z, double bandwidth, double latencySeconds)
{
    return makeGrid(name, config::NetworkKind::Torus3d, { x, y, z }, true, bandwidth, latencySeconds);
}

DimensionLayout makeMesh2d(const std::string& name, int x, int y, double bandwidth, double latencySeconds)
{
    return makeGrid(name, config::NetworkKind::Mesh2d, { x, y }, false, bandwidth, latencySeconds);
}

DimensionLayout makeDimensionGraph(const config::NetworkDimension& dimension);

std::string formatLocalLinkId(
    const std::string& dimensionName, int replica, const config::LinkEnd& a, const config::LinkEnd& b)
{
    auto end = [](const config::LinkEnd& e) {
        return e.isSwitch ? "s" + std::to_string(e.tier) + "." + std::to_string(e.index) : std::to_string(e.index);
    };
    return dimensionName + (replica == 0 ? std::string() : "@" + std::to_string(replica)) + ":" + end(a) + "-" + end(b);
}

DimensionLayout makeFatTree(const std::string& name, int size, int tiers, int switchRadix, double oversubscription,
    double bandwidth, double latencySeconds)
{
    checkCommon(name, size, bandwidth, latencySeconds);
    if (tiers < 1 || tiers > 4) {
        reject(name, "a fat tree needs 1 to 4 switch tiers, got " + std::to_string(tiers));
    }
    if (switchRadix < 2) {
        reject(name, "switch radix " + std::to_string(switchRadix) + " is below 2");
    }
    if (tiers > 1 && switchRadix % 2 != 0) {
        reject(name,
            "switch radix " + std::to_string(switchRadix)
                + " is odd; a multi-tier fat tree splits each switch's ports evenly between down and up");
    }
    if (!(oversubscription >= 1) || !std::isfinite(oversubscription)) {
        reject(name, "oversubscription " + std::to_string(oversubscription) + " is below 1");
    }
    const long long capacity = config::fatTreeCapacity(tiers, switchRadix);
    if (size > capacity) {
        reject(name,
            "switch radix " + std::to_string(switchRadix) + " with " + std::to_string(tiers) + " tier(s) holds at most "
                + std::to_string(capacity) + " endpoints, not " + std::to_string(size));
    }
    DimensionLayout layout = base(name, config::NetworkKind::FatTree, size, bandwidth, latencySeconds);
    layout.tiers = tiers;
    layout.switchRadix = switchRadix;
    layout.oversubscription = oversubscription;
    if (tiers == 1) {
        layout.downPorts = size;
        layout.switchesPerTier = { 1 };
        for (int e = 0; e < size; ++e) {
            layout.links.push_back({ endpoint(e), switchEnd(1, 0), bandwidth });
        }
        return layout;
    }
    const int k = switchRadix / 2;
    layout.downPorts = k;
    layout.leafUplinkBandwidth = k * bandwidth / oversubscription;
    layout.cablesPerSpine = 1;
    // pods[l-1]: number of pods of k^l endpoints at tier l (l < tiers).
    for (int tier = 1; tier < tiers; ++tier) {
        const long long podSize = power(k, tier);
        const long long pods = (size + podSize - 1) / podSize;
        layout.switchesPerTier.push_back(static_cast<int>(pods * power(k, tier - 1)));
    }
    layout.switchesPerTier.push_back(static_cast<int>(power(k, tiers - 1)));
    for (int e = 0; e < size; ++e) {
        layout.links.push_back({ endpoint(e), switchEnd(1, e / k), bandwidth });
    }
    for (int tier = 1; tier < tiers; ++tier) {
        const int perPod = static_cast<int>(power(k, tier - 1));
        const double uplinkBandwidth = bandwidth / std::pow(oversubscription, tier);
        const bool toTop = tier + 1 == tiers;
        for (int index = 0; index < layout.switchesPerTier[static_cast<size_t>(tier - 1)]; ++index) {
            const int pod = index / perPod;
            const int j = index % perPod;
            const int parentPod = toTop ? 0 : pod / k;
            for (int m = 0; m < k; ++m) {
                const int parent = parentPod * perPod * k + j + m * perPod;
                layout.links.push_back({ switchEnd(tier, index), switchEnd(tier + 1, parent), uplinkBandwidth });
            }
        }
    }
    return layout;
}

DimensionLayout makeLeafSpine(const std::string& name, config::NetworkKind kind, int size, int hostsPerLeaf,
    int uplinksPerLeaf, int spines, double uplinkBandwidth, double bandwidth, double latencySeconds)
{
    checkCommon(name, size, bandwidth, latencySeconds);
    if (hostsPerLeaf < 1 || uplinksPerLeaf < 1 || spines < 1) {
        reject(name, "a leaf-spine tree needs at least one endpoint port and one uplink per leaf and one spine");
    }
    if (uplinksPerLeaf % spines != 0) {
        reject(name,
            std::to_string(spines) + " spines do not divide the " + std::to_string(uplinksPerLeaf)
                + " uplinks of a leaf");
    }
    if (!(uplinkBandwidth > 0) || !std::isfinite(uplinkBandwidth)) {
        reject(name, "uplink bandwidth must be positive and finite");
    }
    const long long leaves = (size + static_cast<long long>(hostsPerLeaf) - 1) / hostsPerLeaf;
    if (leaves * spines > (1 << 22)) {
        reject(name, "the leaf-spine tree has more than 2^22 leaf-spine links");
    }
    DimensionLayout layout = base(name, kind, size, bandwidth, latencySeconds);
    layout.tiers = 2;
    layout.downPorts = hostsPerLeaf;
    layout.cablesPerSpine = uplinksPerLeaf / spines;
    layout.leafUplinkBandwidth = uplinksPerLeaf * uplinkBandwidth;
    layout.switchRadix = hostsPerLeaf + uplinksPerLeaf;
    layout.oversubscription = hostsPerLeaf * bandwidth / layout.leafUplinkBandwidth;
    layout.switchesPerTier = { static_cast<int>(leaves), spines };
    for (int e = 0; e < size; ++e) {
        layout.links.push_back({ endpoint(e), switchEnd(1, e / hostsPerLeaf), bandwidth });
    }
    const double cable = layout.cablesPerSpine * uplinkBandwidth;
    for (int leaf = 0; leaf < leaves; ++leaf) {
        for (int spine = 0; spine < spines; ++spine) {
            layout.links.push_back({ switchEnd(1, leaf), switchEnd(2, spine), cable });
        }
    }
    return layout;
}

DimensionLayout makeDimension(const config::NetworkDimension& dimension)
{
    DimensionLayout layout = makeDimensionGraph(dimension);
    layout.routing = config::effectiveRouting(dimension);
    layout.inNetworkAllReduceBandwidth = dimension.inNetworkAllReduceBandwidth;
    layout.ncclStepSeconds = dimension.ncclStepSeconds;
    if (dimension.explicitLeafSpine() && dimension.switchRadix > 0) {
        layout.switchRadix = dimension.switchRadix;
    }
    return layout;
}

DimensionLayout makeDimensionGraph(const config::NetworkDimension& dimension)
{
    const std::string& name = dimension.name;
    // Links carry data at the line rate less the protocol's share (headers, flow control): every backend moves bytes
    // at this rate.
    const double efficiency = dimension.protocolEfficiency;
    if (!(efficiency > 0 && efficiency <= 1)) {
        reject(name, "protocol_efficiency must be above 0 and at most 1");
    }
    const double bandwidth = dimension.linkBandwidth * efficiency;
    const double latency = dimension.latencySeconds;
    auto checkShape = [&](size_t rank) {
        if (dimension.shape.size() != rank) {
            reject(name,
                std::string(config::toString(dimension.kind)) + " needs a shape of " + std::to_string(rank)
                    + " extents, got " + std::to_string(dimension.shape.size()));
        }
        long long product = 1;
        for (int extent : dimension.shape) {
            product *= extent;
        }
        if (product != dimension.size) {
            reject(name,
                "size " + std::to_string(dimension.size) + " does not match the shape (product "
                    + std::to_string(product) + ")");
        }
    };
    switch (dimension.kind) {
    case config::NetworkKind::Ring:
        return makeRing(name, dimension.size, bandwidth, latency);
    case config::NetworkKind::FullyConnected:
        return makeFullyConnected(name, dimension.size, bandwidth, latency);
    case config::NetworkKind::Switch:
        return makeSwitch(name, dimension.size, bandwidth, latency);
    case config::NetworkKind::Torus2d:
        checkShape(2);
        return makeTorus2d(name, dimension.shape[0], dimension.shape[1], bandwidth, latency);
    case config::NetworkKind::Torus3d:
        checkShape(3);
        return makeTorus3d(name, dimension.shape[0], dimension.shape[1], dimension.shape[2], bandwidth, latency);
    case config::NetworkKind::Mesh2d:
        checkShape(2);
        return makeMesh2d(name, dimension.shape[0], dimension.shape[1], bandwidth, latency);
    case config::NetworkKind::FatTree:
    case config::NetworkKind::RailOptimized:
        if (dimension.explicitLeafSpine() || dimension.kind == config::NetworkKind::RailOptimized) {
            return makeLeafSpine(name, dimension.kind, dimension.size, dimension.hostsPerLeaf, dimension.uplinksPerLeaf,
                dimension.spines, dimension.uplinkBandwidth > 0 ? dimension.uplinkBandwidth * efficiency : bandwidth,
                bandwidth, latency);
        }
        return makeFatTree(name, dimension.size, dimension.tiers, dimension.switchRadix, dimension.oversubscription,
            bandwidth, latency);
    }
    reject(name, "unknown network kind");
}

} // namespace rapid::network
