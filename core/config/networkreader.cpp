// SPDX-License-Identifier: GPL-3.0-or-later
// One network dimension of the hardware document (configs/README.md, "hardware", cluster.network[]): its kind, size
// and shape, the tree keys (fat-tree and rail-optimized: tiers, radix, the leaf-spine keys) and routing.
#include "documentreaders_p.h"
#include "yamlnode_p.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rapid::config::detail {

namespace {

/// A fat tree must be buildable: above one tier each switch splits its ports evenly between down and up, and the
/// tree must hold every endpoint of the dimension.
/// The tree is built whole: its top tier has (radix/2)^(tiers-1) switches whatever the size, so a wide radix with tiers
/// to spare would be billions of switches (found by the extreme-value fuzzer: 4,096-port switches on 3 tiers ran out
/// of memory). Switches and links are counted before anything is built.
void checkFatTreeSize(ReadContext& context, MapReader& reader, const NetworkDimension& dimension)
{
    if (dimension.tiers < 2 || dimension.switchRadix < 2) {
        return;
    }
    const double half = dimension.switchRadix / 2;
    double switches = std::pow(half, dimension.tiers - 1); // the top tier
    double links = dimension.size;
    for (int tier = 1; tier < dimension.tiers; ++tier) {
        const double tierSwitches = std::ceil(dimension.size / std::pow(half, tier)) * std::pow(half, tier - 1);
        switches += tierSwitches;
        links += tierSwitches * half;
    }
    constexpr double kMaxSwitches = 1 << 20;
    constexpr double kMaxLinks = 1 << 22;
    if (switches <= kMaxSwitches && links <= kMaxLinks) {
        return;
    }
    int needed = 1;
    while (fatTreeCapacity(needed, dimension.switchRadix) < dimension.size) {
        ++needed;
    }
    char counts[96];
    std::snprintf(counts, sizeof counts, "%.3g switches and %.3g links", switches, links);
    context.error(reader.childPath("tiers"), reader.raw("tiers"),
        std::string("this fat tree has ") + counts + "; at most 2^20 switches and 2^22 links are modelled ("
            + std::to_string(dimension.size) + " endpoints of " + std::to_string(dimension.switchRadix)
            + "-port switches need " + std::to_string(needed) + " tier(s))");
}

void checkFatTree(ReadContext& context, MapReader& reader, const NetworkDimension& dimension)
{
    if (dimension.tiers > 1 && dimension.switchRadix % 2 != 0) {
        context.error(reader.childPath("switch_radix"), reader.raw("switch_radix"),
            "switch radix " + std::to_string(dimension.switchRadix) + " is odd; above one tier each switch splits its "
                + "ports evenly between down and up, so the radix must be even");
        return;
    }
    const long long capacity = fatTreeCapacity(dimension.tiers, dimension.switchRadix);
    if (dimension.tiers >= 1 && dimension.switchRadix >= 2 && dimension.size > capacity) {
        context.error(reader.childPath("switch_radix"), reader.raw("switch_radix"),
            "a fat tree of " + std::to_string(dimension.tiers) + " tier(s) with "
                + std::to_string(dimension.switchRadix) + "-port switches holds at most " + std::to_string(capacity)
                + " endpoints, not " + std::to_string(dimension.size) + "; raise switch_radix or tiers");
        return;
    }
    checkFatTreeSize(context, reader, dimension);
}

} // namespace

void checkSpinePorts(ReadContext& context, const std::string& path, const YAML::Node& node,
    const NetworkDimension& dimension, int totalGpus)
{
    if (!dimension.explicitLeafSpine() || dimension.spines <= 0 || dimension.size <= 0
        || dimension.uplinksPerLeaf % dimension.spines != 0) {
        return;
    }
    const long long rails = dimension.kind == NetworkKind::RailOptimized ? totalGpus / dimension.size : 1;
    const long long leaves = (dimension.size + dimension.hostsPerLeaf - 1) / dimension.hostsPerLeaf;
    const long long cables = dimension.uplinksPerLeaf / dimension.spines;
    const long long ports = leaves * cables * rails;
    const char* key = node["spines"].IsDefined() ? "spines" : "switch_radix";
    if (ports > dimension.switchRadix) {
        context.error(path + "." + key, node[key],
            "each spine needs " + std::to_string(ports) + " ports (" + std::to_string(leaves) + " leaves x "
                + std::to_string(cables) + " cable(s)" + (rails > 1 ? " x " + std::to_string(rails) + " rails" : "")
                + "), more than switch_radix " + std::to_string(dimension.switchRadix)
                + "; raise spines or switch_radix, or lower size");
    } else if (leaves * dimension.spines > (1 << 22)) {
        context.error(path + ".size", node["size"],
            "this leaf-spine tree has " + std::to_string(leaves * dimension.spines)
                + " leaf-spine links; at most 2^22 are modelled");
    }
}

namespace {

/// Keys that apply to tree dimensions only (fat-tree, rail-optimized).
constexpr const char* kTreeKeys[]
    = { "tiers", "switch_radix", "oversubscription", "hosts_per_leaf", "uplinks_per_leaf", "spines" };
constexpr const char* kLeafSpineKeys[] = { "hosts_per_leaf", "uplinks_per_leaf", "spines" };

void readShapeAndSize(ReadContext& context, MapReader& reader, NetworkDimension& dimension)
{
    const bool needsShape = dimension.kind == NetworkKind::Torus2d || dimension.kind == NetworkKind::Torus3d
        || dimension.kind == NetworkKind::Mesh2d;
    const size_t shapeRank = dimension.kind == NetworkKind::Torus3d ? 3 : 2;
    int shapeProduct = 1;
    if (needsShape) {
        auto items = reader.list("shape", needsShape);
        if (!items.empty() && items.size() != shapeRank) {
            context.error(reader.childPath("shape"), reader.raw("shape"),
                std::string(toString(dimension.kind)) + " needs a shape of " + std::to_string(shapeRank)
                    + " sizes, got " + std::to_string(items.size()));
        }
        for (const auto& [itemPath, item] : items) {
            const int extent = static_cast<int>(readInteger(context, itemPath, item, 2, 1 << 16).value_or(2));
            dimension.shape.push_back(extent);
            shapeProduct *= extent;
        }
    } else if (reader.has("shape")) {
        reader.raw("shape");
        context.error(reader.childPath("shape"), reader.node()["shape"],
            "shape applies only to torus2d, torus3d and mesh2d dimensions");
    }
    const bool sizeGiven = reader.has("size");
    dimension.size = static_cast<int>(
        reader.integer("size", needsShape ? std::optional<std::int64_t>(shapeProduct) : std::nullopt));
    if (needsShape && sizeGiven && dimension.shape.size() == shapeRank && dimension.size != shapeProduct) {
        context.error(reader.childPath("size"), reader.raw("size"),
            "size " + std::to_string(dimension.size) + " does not match the shape (product "
                + std::to_string(shapeProduct) + ")");
    }
    if (!needsShape) {
        dimension.shape = { dimension.size };
    }
}

/// Whether @p reader gives the uplink rate in any spelling.
bool givesUplinkBandwidth(const MapReader& reader)
{
    for (const char* suffix : { "", "_GBps", "_TBps", "_GiBps", "_Gbps" }) {
        if (reader.has(std::string("uplink_bandwidth") + suffix)) {
            return true;
        }
    }
    return false;
}

/// The explicit leaf-spine keys of a two-tier tree, with their defaults (configs/README.md): uplinks_per_leaf =
/// spines when only spines is given, else switch_radix - hosts_per_leaf when hosts_per_leaf is given, else
/// switch_radix / 2; spines = uplinks_per_leaf; hosts_per_leaf = switch_radix - uplinks_per_leaf; uplink rate = the
/// link rate. Each is checked against the radix where it is read.
void readLeafSpine(ReadContext& context, MapReader& reader, NetworkDimension& dimension)
{
    const int radix = dimension.switchRadix;
    const bool hostsGiven = reader.has("hosts_per_leaf");
    const bool uplinksGiven = reader.has("uplinks_per_leaf");
    const bool spinesGiven = reader.has("spines");
    const int spines = spinesGiven ? static_cast<int>(reader.integer("spines", 1)) : 0;
    const int hosts = hostsGiven ? static_cast<int>(reader.integer("hosts_per_leaf", 1)) : 0;
    dimension.uplinksPerLeaf = static_cast<int>(reader.integer("uplinks_per_leaf",
        spinesGiven      ? spines
            : hostsGiven ? std::max(1, radix - hosts)
                         : std::max(1, radix / 2)));
    dimension.spines = spinesGiven ? spines : dimension.uplinksPerLeaf;
    dimension.hostsPerLeaf = hostsGiven ? hosts : std::max(1, radix - dimension.uplinksPerLeaf);
    dimension.uplinkBandwidth = reader.quantity("uplink_bandwidth", dimension.linkBandwidth);
    dimension.tiers = 2;
    if (radix >= 2 && dimension.hostsPerLeaf + dimension.uplinksPerLeaf > radix) {
        const char* key = uplinksGiven ? "uplinks_per_leaf" : "hosts_per_leaf";
        context.error(reader.childPath(key), reader.raw(key),
            "a leaf of " + std::to_string(radix) + " ports (switch_radix) cannot hold "
                + std::to_string(dimension.hostsPerLeaf) + " endpoint ports (hosts_per_leaf) and "
                + std::to_string(dimension.uplinksPerLeaf) + " uplinks (uplinks_per_leaf); their sum is at most "
                + std::to_string(radix));
    } else if (dimension.spines > 0 && dimension.uplinksPerLeaf % dimension.spines != 0) {
        context.error(reader.childPath("spines"), reader.raw("spines"),
            "a leaf spreads its " + std::to_string(dimension.uplinksPerLeaf) + " uplinks evenly over the spines, so "
                + std::to_string(dimension.spines) + " spines must divide uplinks_per_leaf");
    }
    if (dimension.linkBandwidth > 0 && dimension.uplinkBandwidth > 0) {
        dimension.oversubscription = std::max(1.0,
            dimension.hostsPerLeaf * dimension.linkBandwidth / (dimension.uplinksPerLeaf * dimension.uplinkBandwidth));
    }
}

/// fat-tree and rail-optimized keys. A fat tree is legacy (tiers, switch_radix, oversubscription: every switch splits
/// its radix evenly) unless a leaf-spine key is given; a rail-optimized dimension is always an explicit leaf-spine
/// tree.
void readTree(ReadContext& context, MapReader& reader, NetworkDimension& dimension)
{
    const bool rail = dimension.kind == NetworkKind::RailOptimized;
    std::string explicitKey;
    for (const char* key : kLeafSpineKeys) {
        explicitKey = explicitKey.empty() && reader.has(key) ? key : explicitKey;
    }
    if (explicitKey.empty() && givesUplinkBandwidth(reader)) {
        explicitKey = "uplink_bandwidth";
    }
    if (rail && reader.has("tiers")) {
        reader.raw("tiers");
        context.error(reader.childPath("tiers"), reader.node()["tiers"],
            "a rail-optimized dimension always has two tiers (rail leaves and spines); leave tiers out");
    }
    dimension.tiers = rail ? 2 : static_cast<int>(reader.integer("tiers"));
    dimension.switchRadix = static_cast<int>(reader.integer("switch_radix"));
    if ((rail || !explicitKey.empty()) && reader.has("oversubscription")) {
        reader.raw("oversubscription");
        context.error(reader.childPath("oversubscription"), reader.node()["oversubscription"],
            std::string("oversubscription follows from the explicit leaf (hosts_per_leaf x link_bandwidth : "
                        "uplinks_per_leaf x uplink_bandwidth) of a ")
                + (rail ? "rail-optimized dimension" : "fat tree with leaf-spine keys") + "; give one or the other");
    }
    if (!rail && !explicitKey.empty() && dimension.tiers != 2) {
        const std::string key = explicitKey == "uplink_bandwidth" ? "uplink_bandwidth_GBps" : explicitKey;
        context.error(reader.childPath(key), reader.node()[key],
            explicitKey + " describes a two-tier (leaf-spine) fat tree; this one has " + std::to_string(dimension.tiers)
                + " tier(s): set tiers: 2 or leave the leaf-spine keys out");
        return;
    }
    if (rail || !explicitKey.empty()) {
        readLeafSpine(context, reader, dimension);
        return;
    }
    dimension.oversubscription = reader.number("oversubscription");
    checkFatTree(context, reader, dimension);
}

/// routing: auto, or a mode the kind has a choice for (a switch or a fully-connected dimension has one path).
void readRouting(ReadContext& context, MapReader& reader, NetworkDimension& dimension)
{
    dimension.routing = reader.choice<Routing>("routing");
    const bool onePath = dimension.kind == NetworkKind::Switch || dimension.kind == NetworkKind::FullyConnected;
    if (onePath && dimension.routing != Routing::Auto && dimension.routing != Routing::Static) {
        context.error(reader.childPath("routing"), reader.raw("routing"),
            std::string("a ") + toString(dimension.kind)
                + " dimension has one path per pair of endpoints; routing is auto or static");
    }
}

} // namespace

NetworkDimension readDimension(ReadContext& context, const std::string& path, const YAML::Node& node, int index)
{
    NetworkDimension dimension;
    MapReader reader(context, node, path, SchemaScope { schema::Document::Hardware, "cluster.network[]." });
    if (!reader.valid()) {
        context.error(path, node, "expected a network dimension mapping (name, kind, size, link_bandwidth_GBps, ...)");
        return dimension;
    }
    dimension.name = reader.text("name", "dim" + std::to_string(index));
    dimension.kind = reader.choice<NetworkKind>("kind");
    readShapeAndSize(context, reader, dimension);
    dimension.linkBandwidth = reader.quantity("link_bandwidth");
    dimension.protocolEfficiency = reader.number("protocol_efficiency");
    dimension.inNetworkAllReduceBandwidth = reader.quantity("in_network_allreduce_bandwidth", 0.0);
    if (dimension.inNetworkAllReduceBandwidth > 0 && dimension.kind != NetworkKind::Switch) {
        context.error(reader.childPath("in_network_allreduce_bandwidth_GBps"), reader.node(),
            "in_network_allreduce_bandwidth applies only to switch dimensions (in-switch reduction)");
    }
    dimension.latencySeconds = reader.quantity("latency");
    dimension.ncclStepSeconds = reader.quantity("nccl_step_latency", 0.0);
    if (isTree(dimension.kind)) {
        readTree(context, reader, dimension);
    } else {
        for (const char* key : kTreeKeys) {
            if (reader.has(key)) {
                reader.raw(key);
                context.error(reader.childPath(key), reader.node()[key],
                    std::string(key) + " applies only to fat-tree and rail-optimized dimensions");
            }
        }
        if (givesUplinkBandwidth(reader)) {
            context.error(reader.path(), reader.node(),
                "uplink_bandwidth applies only to fat-tree and rail-optimized dimensions");
            reader.quantity("uplink_bandwidth", 0.0);
        }
    }
    readRouting(context, reader, dimension);
    reader.finish();
    return dimension;
}

} // namespace rapid::config::detail
