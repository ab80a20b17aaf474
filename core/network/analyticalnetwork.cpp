// SPDX-License-Identifier: GPL-3.0-or-later
#include "analyticalnetwork.h"

#include "network/collectivecost.h"
#include "network/router.h"
#include "network/topology.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <unordered_map>

namespace rapid::network {

namespace {

/// Dimension-order routing from @p fromGpu to @p toGpu: calls @p hop(axis, gpu, from, to) for every axis on which
/// they differ, innermost first, with the GPU the message is on and its coordinates before and after the hop.
template <typename Axes, typename Hop> void walkHops(const Axes& axes, int fromGpu, int toGpu, Hop&& hop)
{
    int current = fromGpu;
    for (const auto& axis : axes) {
        const int from = (current / axis.gpuStride) % axis.extent;
        const int to = (toGpu / axis.gpuStride) % axis.extent;
        if (from == to) {
            continue;
        }
        hop(axis, current, from, to);
        current += (to - from) * axis.gpuStride;
    }
}

} // namespace

struct AnalyticalNetwork::GroupPlan {
    int size = 0;
    bool product = false; ///< the group is the Cartesian product of its per-axis members
    std::vector<AxisCost> phases; ///< one per spanned axis, innermost first
    std::vector<int> phaseAxes; ///< the axis index of each phase
    AxisCost flat; ///< the whole group as one flat group
    PointToPointCost pointToPoint; ///< groups of two: gpus[0] -> gpus[1]
};

struct AnalyticalNetwork::PlanCache {
    struct Hash {
        size_t operator()(const std::vector<int>& gpus) const noexcept
        {
            size_t hash = 1469598103934665603ULL;
            for (int gpu : gpus) {
                hash = (hash ^ static_cast<size_t>(gpu)) * 1099511628211ULL;
            }
            return hash;
        }
    };
    static constexpr size_t kMaxPlans = 4096;
    std::shared_mutex mutex;
    std::unordered_map<std::vector<int>, std::shared_ptr<const GroupPlan>, Hash> plans;
};

AnalyticalNetwork::AnalyticalNetwork(const config::HardwareSpec& hardware, AnalyticalOptions options)
    : m_options(options)
    , m_cache(std::make_shared<PlanCache>())
{
    std::vector<DimensionLayout> layouts;
    long long total = 1;
    for (const config::NetworkDimension& dimension : hardware.cluster.dimensions) {
        layouts.push_back(makeDimension(dimension));
        m_dimensionStride.push_back(static_cast<int>(total));
        m_dimensionSize.push_back(dimension.size);
        total *= dimension.size;
        if (total > (1 << 24)) {
            throw std::invalid_argument("the network has more than 16M GPUs");
        }
    }
    m_gpuCount = static_cast<int>(total);
    m_axes = buildAxes(layouts);
    if (!hardware.faults.empty()) {
        auto topology = std::make_shared<Topology>(hardware);
        if (topology->hasFaults()) {
            m_topology = std::move(topology);
        }
    }
}

int AnalyticalNetwork::localIndex(int gpu, int dimension) const
{
    const auto d = static_cast<size_t>(dimension);
    return (gpu / m_dimensionStride[d]) % m_dimensionSize[d];
}

int AnalyticalNetwork::replicaOf(int gpu, int dimension) const
{
    const auto d = static_cast<size_t>(dimension);
    return gpu % m_dimensionStride[d] + gpu / (m_dimensionStride[d] * m_dimensionSize[d]) * m_dimensionStride[d];
}

std::shared_ptr<const AnalyticalNetwork::GroupPlan> AnalyticalNetwork::plan(const std::vector<int>& gpus) const
{
    {
        std::shared_lock lock(m_cache->mutex);
        auto found = m_cache->plans.find(gpus);
        if (found != m_cache->plans.end()) {
            return found->second;
        }
    }
    std::shared_ptr<const GroupPlan> built = buildPlan(gpus);
    std::unique_lock lock(m_cache->mutex);
    if (m_cache->plans.size() >= PlanCache::kMaxPlans) {
        m_cache->plans.clear();
    }
    m_cache->plans.emplace(gpus, built);
    return built;
}

double AnalyticalNetwork::healthyLatency(int fromGpu, int toGpu) const
{
    double seconds = 0;
    walkHops(m_axes, fromGpu, toGpu,
        [&](const Axis& axis, int, int from, int to) { seconds += healthyPointToPointLatency(axis, from, to); });
    return seconds;
}

std::shared_ptr<const AnalyticalNetwork::GroupPlan> AnalyticalNetwork::buildPlan(const std::vector<int>& gpus) const
{
    auto result = std::make_shared<GroupPlan>();
    GroupPlan& plan = *result;
    plan.size = static_cast<int>(gpus.size());
    std::vector<char> seen(static_cast<size_t>(m_gpuCount), 0);
    for (int gpu : gpus) {
        if (gpu < 0 || gpu >= m_gpuCount) {
            throw std::invalid_argument("GPU " + std::to_string(gpu) + " is outside the network (GPUs 0.."
                + std::to_string(m_gpuCount - 1) + ")");
        }
        if (seen[static_cast<size_t>(gpu)]++) {
            throw std::invalid_argument("GPU " + std::to_string(gpu) + " appears twice in the group");
        }
    }
    const int first = gpus.front();
    long long productSize = 1;
    for (const Axis& axis : m_axes) {
        std::vector<char> present(static_cast<size_t>(axis.extent), 0);
        for (int gpu : gpus) {
            present[static_cast<size_t>((gpu / axis.gpuStride) % axis.extent)] = 1;
        }
        std::vector<int> coordinates;
        for (int c = 0; c < axis.extent; ++c) {
            if (present[static_cast<size_t>(c)]) {
                coordinates.push_back(c);
            }
        }
        productSize *= static_cast<long long>(coordinates.size());
        if (coordinates.size() < 2) {
            continue;
        }
        const int firstCoordinate = (first / axis.gpuStride) % axis.extent;
        const int localBase = localIndex(first, axis.dimension) - firstCoordinate * axis.localStride;
        AxisCost cost = healthyAxisCost(axis, replicaOf(first, axis.dimension), localBase, coordinates);
        if (m_topology) {
            // Every line of the group along this axis starts at a member with the smallest coordinate.
            const AxisCost healthy = cost;
            std::map<std::pair<int, int>, bool> done;
            for (int gpu : gpus) {
                const int coordinate = (gpu / axis.gpuStride) % axis.extent;
                const int replica = replicaOf(gpu, axis.dimension);
                if (coordinate != coordinates.front() || !m_topology->replicaHasFaults(axis.dimension, replica)) {
                    continue;
                }
                const int base = localIndex(gpu, axis.dimension) - coordinate * axis.localStride;
                if (done[{ replica, base }]) {
                    continue;
                }
                done[{ replica, base }] = true;
                std::vector<int> line;
                bool members = true;
                for (int c : coordinates) {
                    line.push_back(gpu + (c - coordinate) * axis.gpuStride);
                    members = members && seen[static_cast<size_t>(line.back())];
                }
                // A line through GPUs outside the group (a group that is no product of its axes, e.g. a send/recv
                // between GPUs that differ in two coordinates) is not a line the group uses: routing it would blame
                // GPUs the user never named. Such groups are costed from their own routes (point-to-point) or flat.
                if (members) {
                    cost.takeWorst(degradedAxisCost(axis, line, *m_topology, healthy));
                }
            }
        }
        plan.phases.push_back(std::move(cost));
        plan.phaseAxes.push_back(static_cast<int>(&axis - m_axes.data()));
    }
    plan.product = productSize == plan.size;
    // The flat view: a ring through every member is as slow as its slowest axis; a pair crosses every axis.
    buildFlatView(plan, gpus);
    if (plan.size == 2) {
        plan.pointToPoint = pointToPointCost(gpus[0], gpus[1]);
    }
    return result;
}

void AnalyticalNetwork::buildFlatView(GroupPlan& plan, const std::vector<int>& gpus) const
{
    if (plan.phases.size() == 1) {
        plan.flat = plan.phases.front();
        plan.flat.members = plan.size;
    } else if (!plan.phases.empty()) {
        AxisCost& flat = plan.flat;
        flat = plan.phases.front();
        flat.members = plan.size;
        flat.directLatency = flat.pairLatency = 0;
        for (const AxisCost& phase : plan.phases) {
            if (phase.ringBandwidth <= flat.ringBandwidth) {
                flat.ringBandwidth = phase.ringBandwidth;
                flat.ringBottleneck = phase.ringBottleneck;
            }
            flat.ringFastBandwidth = std::max({ flat.ringFastBandwidth, phase.ringBandwidth, phase.ringFastBandwidth });
            if (phase.directBandwidth <= flat.directBandwidth) {
                flat.directBandwidth = phase.directBandwidth;
                flat.directBottleneck = phase.directBottleneck;
            }
            flat.directLatency += phase.directLatency;
            flat.pairLatency += phase.pairLatency;
            flat.pairBandwidth = std::min(flat.pairBandwidth, phase.pairBandwidth);
            flat.ncclStepLatency = std::max(flat.ncclStepLatency, phase.ncclStepLatency);
        }
        flat.directReductions = false;
        flat.halvingDoubling = false;
        flat.inNetworkAllReduceBandwidth = 0; // a group over several axes does not reduce in one switch
        flat.tree = true;
        // A flat ring or chain crosses several axes between some neighbours: take their real hop latencies (members
        // in GPU order, as the congestion backend runs them). O(q) per plan.
        std::vector<int> sorted = gpus;
        std::sort(sorted.begin(), sorted.end());
        auto latency = [&](int i, int j) {
            return healthyLatency(sorted[static_cast<size_t>(i)], sorted[static_cast<size_t>(j)]);
        };
        const int q = plan.size;
        // A chunk crosses the ring's hops in turn (as in NCCL's tuning model): see AxisCost::ringStepsLatency.
        flat.chainLatency = 0;
        RingHopLatencies ringHops;
        for (int i = 0; i < q; ++i) {
            const double step = latency(i, (i + 1) % q);
            ringHops.add(step);
            if (i + 1 < q) {
                flat.chainLatency += step;
            }
        }
        ringHops.close();
        flat.setRingHops(ringHops);
        // Binomial steps keep the conservative longest pair (pairStepsLatency < 0): summing each step's own pairs costs
        // O(q log q) per plan, a fifth of a sweep's evaluation time, for a flat tree broadcast nothing here issues.
        // NCCL's rings across nodes run one channel per GPU of the node, each through a different NIC (rail): the
        // inner links carry every channel, each outer axis only 1/channels of the data per rail. Needs the same
        // members in every node (a product group) and an inner axis on which every member reaches every other
        // alike (a switch), so that each channel's rotated ring has the latencies of the ring in GPU order.
        const Axis& inner = m_axes[static_cast<size_t>(plan.phaseAxes.front())];
        if (plan.product && (inner.kind == AxisKind::Switch || inner.kind == AxisKind::FullyConnected)) {
            const AxisCost& node = plan.phases.front();
            flat.ringChannels = node.members;
            flat.channelRingBandwidth = node.ringBandwidth;
            flat.channelRingFastBandwidth = node.ringBandwidth;
            flat.channelRingBottleneck = node.ringBottleneck;
            for (size_t i = 1; i < plan.phases.size(); ++i) {
                const double bandwidth = plan.phases[i].ringBandwidth * node.members;
                flat.channelRingFastBandwidth = std::max(flat.channelRingFastBandwidth, bandwidth);
                if (bandwidth < flat.channelRingBandwidth) {
                    flat.channelRingBandwidth = bandwidth;
                    flat.channelRingBottleneck = plan.phases[i].ringBottleneck;
                }
            }
        }
    }
}

PointToPointCost AnalyticalNetwork::pointToPointCost(int fromGpu, int toGpu) const
{
    PointToPointCost p2p;
    p2p.bandwidth = std::numeric_limits<double>::infinity();
    if (m_topology) {
        const Router router(*m_topology);
        for (const RouteSegment& segment : router.route(fromGpu, toGpu).segments) {
            const double rate = router.flowBandwidth(segment);
            if (rate < p2p.bandwidth) {
                p2p.bandwidth = rate;
                // The first link of the segment's slowest path names the bottleneck.
                double slowest = std::numeric_limits<double>::infinity();
                for (const WeightedPath& path : segment.paths) {
                    for (int link : path.links) {
                        const double bandwidth = m_topology->link(link).effectiveBandwidth();
                        if (bandwidth < slowest) {
                            slowest = bandwidth;
                            p2p.bottleneck = m_topology->linkId(link);
                        }
                    }
                }
            }
            p2p.latency += router.latencySeconds(segment);
            p2p.hops += segment.hops();
        }
    } else {
        walkHops(m_axes, fromGpu, toGpu, [&](const Axis& axis, int current, int from, int to) {
            const int localBase = localIndex(current, axis.dimension) - from * axis.localStride;
            const PointToPointCost step
                = healthyPointToPoint(axis, replicaOf(current, axis.dimension), localBase, from, to);
            if (step.bandwidth < p2p.bandwidth) {
                p2p.bandwidth = step.bandwidth;
                p2p.bottleneck = step.bottleneck;
            }
            p2p.latency += step.latency;
            p2p.hops += step.hops;
        });
    }
    return p2p;
}

int pipelineChunks(double bytes, int firstPhaseMembers)
{
    const double unit = kPipelineChunkBytes * std::max(1, firstPhaseMembers);
    if (!(bytes > unit)) {
        return 1;
    }
    return static_cast<int>(std::min<double>(kMaxPipelineChunks, std::ceil(bytes / unit)));
}

CollectiveTime AnalyticalNetwork::time(const CollectiveRequest& request) const
{
    return time(request, nullptr);
}

namespace {

/// The channels of a flat estimate @p flat over @p cost: its ring's (AxisCost::ringChannels), 1 for other algorithms.
int ringChannelsOf(const AxisCost& cost, const PhaseEstimate& flat)
{
    return flat.algorithm == CollectiveAlgorithm::Ring ? cost.ringChannels : 1;
}

/// The phase of a collective run flat over the whole group (cost @p flatCost; axis -1 unless the group is on one).
CollectivePhase flatPhase(
    const CollectiveRequest& request, const AxisCost& flatCost, const PhaseEstimate& flat, int axis)
{
    return { request.kind, flat.algorithm, request.bytes, axis, ringChannelsOf(flatCost, flat), 1,
        inNetworkPortShare(flatCost, flat), protocolStepSeconds(flatCost, flat, request.library) };
}

/// Hierarchical composition of a group's phases, each costed by @p phaseCost(cost, share, last, axis) on the share the
/// previous one leaves, pipelined by chunk: the buffer is cut into @p chunks, and chunk c+1 enters a phase as soon as
/// chunk c has left it. Phase i runs on its own axis' links for W_i in all; those links can start only when the first
/// chunk has passed the phases before, and finish only when the last chunk has passed the phases after, each 1/chunks
/// of their time: T = max_i (W_i + (phases before and after i) / chunks). With @p mirrored (all-reduce: each W_i is a
/// reduce-scatter and the all-gather back on the same links, the outermost axis' all-reduce in the middle), axis i's
/// links are busy from after the reduce-scatters inside it until the all-gathers inside it, so the phases around it
/// are the inner ones, once each way: T_i = W_i + (sum of W_j, j < i) / chunks. One chunk gives the plain sum. The
/// slowest phase names the bottleneck.
template <typename Group, typename PhaseCost>
PhaseEstimate composeHierarchically(const Group& group, double bytes, PhaseCost& phaseCost, int chunks, bool mirrored)
{
    PhaseEstimate total { 0, CollectiveAlgorithm::Hierarchical, nullptr };
    double slowest = -1;
    double sum = 0;
    double share = bytes;
    std::vector<double> seconds;
    seconds.reserve(group.phases.size());
    for (size_t i = 0; i < group.phases.size(); ++i) {
        const PhaseEstimate phase = phaseCost(group.phases[i], share, i + 1 == group.phases.size(), group.phaseAxes[i]);
        seconds.push_back(phase.seconds);
        sum += phase.seconds;
        if (phase.seconds > slowest) {
            slowest = phase.seconds;
            total.bottleneck = phase.bottleneck;
        }
        share /= group.phases[i].members;
    }
    const double n = static_cast<double>(std::max(1, chunks));
    double inner = 0;
    for (double w : seconds) {
        const double around = mirrored ? inner : sum - w;
        total.seconds = std::max(total.seconds, w + around / n);
        inner += w;
    }
    return total;
}

/// Pipeline chunks of @p group's composed collective. Direct-connect axes (rings, tori, meshes) run it pipelined by
/// chunk, as TPU-style multi-dimensional collectives and ASTRA-sim's do. Across switched fabrics (NVSwitch,
/// InfiniBand) the collective library is NCCL, which has no such composed all-reduce (its ring and tree run there):
/// the composed estimate stays its phases one after another, an alternative only where it beats them.
template <typename Group> int composedChunks(const std::vector<Axis>& axes, const Group& group, double bytes)
{
    if (group.phases.size() < 2) {
        return 1;
    }
    for (int axis : group.phaseAxes) {
        const AxisKind kind = axes[static_cast<size_t>(axis)].kind;
        if (kind != AxisKind::Ring && kind != AxisKind::Line) {
            return 1;
        }
    }
    return pipelineChunks(bytes, group.phases.front().members);
}

/// Appends the chosen algorithm's @p chosen phases to @p phases, each marked with the collective's pipeline chunks.
void appendChosenPhases(std::vector<CollectivePhase>& phases, std::vector<CollectivePhase> chosen, int chunks)
{
    for (CollectivePhase& phase : chosen) {
        phase.pipelineChunks = chunks;
    }
    phases.insert(phases.end(), chosen.begin(), chosen.end());
}

/// A group of one GPU moves nothing and launches nothing.
CollectiveTime nothingToDo()
{
    CollectiveTime result;
    result.algorithm = CollectiveAlgorithm::Direct;
    return result;
}

/// The collective's time from its chosen estimate: the launch once, bandwidths by NCCL's conventions.
CollectiveTime timeOf(const PhaseEstimate& estimate, double launchSeconds, const CollectiveRequest& request)
{
    CollectiveTime result;
    result.seconds = estimate.seconds + launchSeconds;
    result.algorithm = estimate.algorithm;
    if (estimate.bottleneck) {
        result.bottleneckLink = *estimate.bottleneck;
    }
    result.algorithmBandwidth = request.bytes / result.seconds;
    result.busBandwidth
        = result.algorithmBandwidth * busBandwidthFactor(request.kind, static_cast<int>(request.gpus.size()));
    return result;
}

/// Throws std::invalid_argument for a request no network can run; false for a group of one GPU (nothing to do).
bool checkRequest(const CollectiveRequest& request, int gpuCount)
{
    if (!(request.bytes >= 0) || !std::isfinite(request.bytes)) {
        throw std::invalid_argument("a collective needs a finite, non-negative size in bytes");
    }
    if (!(request.outerAxisShare > 0 && request.outerAxisShare <= 1)) {
        throw std::invalid_argument("a collective's outer-axis share must lie in (0, 1]");
    }
    const int p = static_cast<int>(request.gpus.size());
    if (request.kind == CollectiveKind::SendRecv && (p != 2 || request.gpus[0] == request.gpus[1])) {
        throw std::invalid_argument("send/recv needs exactly two different GPUs (sender, receiver)");
    }
    if (p <= 1) {
        for (int gpu : request.gpus) {
            if (gpu < 0 || gpu >= gpuCount) {
                throw std::invalid_argument("GPU " + std::to_string(gpu) + " is outside the network");
            }
        }
        return false;
    }
    return true;
}

} // namespace

CollectiveTime AnalyticalNetwork::time(const CollectiveRequest& request, std::vector<CollectivePhase>* phases) const
{
    if (!checkRequest(request, m_gpuCount)) {
        return nothingToDo();
    }
    const std::shared_ptr<const GroupPlan> shared = plan(request.gpus);
    const GroupPlan& group = *shared;
    const double bytes = request.bytes;
    const std::optional<CollectiveAlgorithm> forced = request.algorithm;
    PhaseEstimate estimate;
    // The phases of the flat and the composed alternatives; the chosen one is reported.
    std::vector<CollectivePhase> flatPhases;
    std::vector<CollectivePhase> composedPhases;
    const int flatAxis = group.phases.size() == 1 ? group.phaseAxes.front() : -1;
    // Hierarchical composition: each phase picks its own algorithm; the slowest phase names the bottleneck.
    const bool multiAxis = group.phases.size() > 1;
    const int chunks = composedChunks(m_axes, group, bytes);
    auto hierarchical = [&](auto&& phaseCost) {
        return composeHierarchically(group, bytes, phaseCost, chunks, request.kind == CollectiveKind::AllReduce);
    };
    const bool flatForced = forced && (*forced == CollectiveAlgorithm::Ring || *forced == CollectiveAlgorithm::Tree);
    const bool hierarchicalForced = forced && *forced == CollectiveAlgorithm::Hierarchical;
    const std::optional<CollectiveAlgorithm> phaseForced = hierarchicalForced ? std::nullopt : forced;
    bool composedChosen = false;
    auto pick = [&](const PhaseEstimate& flat, const PhaseEstimate& composed) {
        if (!multiAxis || !group.product || flatForced) {
            return flat;
        }
        composedChosen = forced.has_value() || composed.seconds <= flat.seconds;
        return composedChosen ? composed : flat;
    };
    switch (request.kind) {
    case CollectiveKind::SendRecv:
        estimate.seconds = bytes / group.pointToPoint.bandwidth + group.pointToPoint.latency;
        estimate.algorithm = CollectiveAlgorithm::PointToPoint;
        estimate.bottleneck = &group.pointToPoint.bottleneck;
        flatPhases.push_back({ request.kind, CollectiveAlgorithm::PointToPoint, bytes, -1 });
        break;
    case CollectiveKind::AllReduce: {
        const PhaseEstimate flat = allReducePhase(group.flat, bytes, forced, request.library);
        flatPhases.push_back(flatPhase(request, group.flat, flat, flatAxis));
        PhaseEstimate composed;
        if (multiAxis && group.product) {
            std::vector<CollectivePhase> gathers;
            composed = hierarchical([&](const AxisCost& cost, double share, bool last, int axis) {
                if (last) {
                    const PhaseEstimate phase = allReducePhase(cost, share, phaseForced, request.library);
                    composedPhases.push_back({ CollectiveKind::AllReduce, phase.algorithm, share, axis, 1, 1,
                        inNetworkPortShare(cost, phase), protocolStepSeconds(cost, phase, request.library) });
                    return phase;
                }
                PhaseEstimate phase = reduceScatterPhase(cost, share, phaseForced, request.library);
                const CollectivePhase scatter { CollectiveKind::ReduceScatter, phase.algorithm, share, axis, 1, 1, 0,
                    protocolStepSeconds(cost, phase, request.library) };
                composedPhases.push_back(scatter);
                gathers.push_back(scatter);
                gathers.back().kind = CollectiveKind::AllGather;
                phase.seconds *= 2; // the all-gather back mirrors the reduce-scatter
                return phase;
            });
            composedPhases.insert(composedPhases.end(), gathers.rbegin(), gathers.rend());
        }
        estimate = pick(flat, composed);
        break;
    }
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllGather: {
        const PhaseEstimate flat = reduceScatterPhase(group.flat, bytes, forced, request.library);
        flatPhases.push_back(flatPhase(request, group.flat, flat, flatAxis));
        PhaseEstimate composed;
        if (multiAxis && group.product) {
            composed = hierarchical([&](const AxisCost& cost, double share, bool, int axis) {
                const PhaseEstimate phase = reduceScatterPhase(cost, share, phaseForced, request.library);
                composedPhases.push_back({ request.kind, phase.algorithm, share, axis, 1, 1, 0,
                    protocolStepSeconds(cost, phase, request.library) });
                return phase;
            });
            // An all-gather runs the mirror image: outermost axis first, on the smallest shares.
            if (request.kind == CollectiveKind::AllGather) {
                std::reverse(composedPhases.begin(), composedPhases.end());
            }
        }
        estimate = pick(flat, composed);
        break;
    }
    case CollectiveKind::Broadcast: {
        const PhaseEstimate flat = broadcastPhase(group.flat, bytes, forced);
        flatPhases.push_back({ request.kind, flat.algorithm, bytes, flatAxis });
        PhaseEstimate composed;
        if (multiAxis && group.product) {
            // The root's data spreads axis by axis; every phase carries the whole buffer.
            composed = hierarchical([&](const AxisCost& cost, double, bool, int axis) {
                const PhaseEstimate phase = broadcastPhase(cost, bytes, phaseForced);
                composedPhases.push_back({ request.kind, phase.algorithm, bytes, axis });
                return phase;
            });
        }
        estimate = pick(flat, composed);
        break;
    }
    case CollectiveKind::AllToAll: { // axis by axis: (q_d-1)/q_d of the data along axis d (outer axes: their share)
        if (multiAxis && group.product) {
            estimate = hierarchical([&](const AxisCost& cost, double, bool, int axis) {
                const double phaseBytes = axis == group.phaseAxes.front() ? bytes : bytes * request.outerAxisShare;
                composedPhases.push_back({ request.kind, CollectiveAlgorithm::Direct, phaseBytes, axis });
                return allToAllPhase(cost, phaseBytes);
            });
            composedChosen = true;
        } else {
            estimate = allToAllPhase(group.flat, bytes);
            flatPhases.push_back({ request.kind, CollectiveAlgorithm::Direct, bytes, flatAxis });
        }
        break;
    }
    }
    if (phases) {
        appendChosenPhases(*phases, composedChosen ? composedPhases : flatPhases, composedChosen ? chunks : 1);
    }
    return timeOf(estimate, m_options.launchSeconds, request);
}

} // namespace rapid::network
