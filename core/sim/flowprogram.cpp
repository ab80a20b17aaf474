// SPDX-License-Identifier: GPL-3.0-or-later
#include "flowprogram.h"

#include <cstdio>
#include <ostream>

namespace rapid::sim {

int FlowProgram::add(const Flow& flow, std::span<const int> dependsOn, std::span<const int> afterSent)
{
    Flow stored = flow;
    stored.firstDependency = static_cast<std::uint32_t>(dependencies.size());
    stored.dependencyCount = static_cast<std::uint32_t>(dependsOn.size());
    stored.sentDependencyCount = static_cast<std::uint32_t>(afterSent.size());
    dependencies.insert(dependencies.end(), dependsOn.begin(), dependsOn.end());
    dependencies.insert(dependencies.end(), afterSent.begin(), afterSent.end());
    flows.push_back(stored);
    return static_cast<int>(flows.size()) - 1;
}

std::vector<FlowId> addProgram(FlowSimulator& simulator, const FlowProgram& program)
{
    std::vector<FlowId> ids(program.flows.size());
    std::vector<FlowId> dependencies;
    std::vector<FlowId> sent;
    for (size_t i = 0; i < program.flows.size(); ++i) {
        const FlowProgram::Flow& flow = program.flows[i];
        dependencies.clear();
        for (int dependency : program.dependenciesOf(static_cast<int>(i))) {
            dependencies.push_back(ids[static_cast<size_t>(dependency)]);
        }
        sent.clear();
        for (int dependency : program.sentDependenciesOf(static_cast<int>(i))) {
            sent.push_back(ids[static_cast<size_t>(dependency)]);
        }
        ids[i] = simulator.add({ flow.route, flow.bytes, flow.delay, flow.tag }, dependencies, sent);
    }
    return ids;
}

std::vector<network::WeightedPath> flowPaths(const FlowProgram& program, int flow, const network::Router& router)
{
    const FlowProgram::Flow& f = program.flows[static_cast<size_t>(flow)];
    std::vector<network::WeightedPath> paths { { {}, 1.0 } };
    std::vector<int> hops { f.src, f.dst };
    if (f.chain >= 0) {
        hops.assign(program.chains.begin() + f.chain, program.chains.begin() + f.chain + f.chainLength);
    }
    for (size_t h = 0; h + 1 < hops.size(); ++h) {
        if (hops[h] == hops[h + 1]) {
            continue;
        }
        for (const network::RouteSegment& segment : router.route(hops[h], hops[h + 1]).segments) {
            std::vector<network::WeightedPath> extended;
            extended.reserve(paths.size() * segment.paths.size());
            for (const network::WeightedPath& prefix : paths) {
                for (const network::WeightedPath& path : segment.paths) {
                    network::WeightedPath joined { prefix.links, prefix.fraction * path.fraction };
                    joined.links.insert(joined.links.end(), path.links.begin(), path.links.end());
                    extended.push_back(std::move(joined));
                }
            }
            paths = std::move(extended);
        }
    }
    return paths;
}

namespace {

/// Shortest text that reads back as the same double.
std::string exact(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    return buffer;
}

} // namespace

void writeFlowProgram(std::ostream& out, const FlowProgram& program, const RouteCache& routes)
{
    const network::Topology& topology = routes.topology();
    out << "rapid-flow-program 2\n";
    out << "nodes " << topology.nodeCount() << ' ' << topology.gpuCount() << '\n';
    for (int link = 0; link < topology.linkCount(); ++link) {
        const network::Link& l = topology.link(link);
        if (l.failed()) {
            continue;
        }
        out << "link " << link << ' ' << l.from << ' ' << l.to << ' ' << exact(l.effectiveBandwidth()) << ' '
            << toNanoseconds(l.latencySeconds) << '\n';
    }
    // Routes are stored as summed link loads; the format wants explicit paths. Re-route each pair to list its paths.
    network::Router router(topology);
    for (size_t i = 0; i < program.flows.size(); ++i) {
        const FlowProgram::Flow& flow = program.flows[i];
        out << "flow " << i << ' ' << flow.src << ' ' << flow.dst << ' ' << exact(flow.bytes) << ' ' << flow.delay;
        const std::span<const int> dependencies = program.dependenciesOf(static_cast<int>(i));
        out << ' ' << dependencies.size();
        for (int dependency : dependencies) {
            out << ' ' << dependency;
        }
        const std::span<const int> sent = program.sentDependenciesOf(static_cast<int>(i));
        out << ' ' << sent.size();
        for (int dependency : sent) {
            out << ' ' << dependency;
        }
        const std::vector<network::WeightedPath> paths = flowPaths(program, static_cast<int>(i), router);
        out << ' ' << paths.size();
        for (const network::WeightedPath& path : paths) {
            out << ' ' << exact(path.fraction) << ' ' << path.links.size();
            for (int link : path.links) {
                out << ' ' << link;
            }
        }
        out << '\n';
    }
}

} // namespace rapid::sim
