// SPDX-License-Identifier: GPL-3.0-or-later
#include "placement.h"

#include <algorithm>
#include <set>

namespace rapid::parallel {

std::vector<int> networkCoordinates(int gpu, const config::ClusterSpec& cluster)
{
    std::vector<int> coordinates;
    for (const config::NetworkDimension& dimension : cluster.dimensions) {
        coordinates.push_back(gpu % dimension.size);
        gpu /= dimension.size;
    }
    return coordinates;
}

Placement placeRanks(const config::HardwareSpec& hardware, const config::RunSpec& run,
    const config::SourceMap& locations, std::vector<config::Diagnostic>* problems)
{
    const config::ParallelismSpec& parallel = run.parallelism;
    const auto& dims = hardware.cluster.dimensions;
    auto dimensionIndex = [&](const std::string& name) {
        for (size_t i = 0; i < dims.size(); ++i) {
            if (dims[i].name == name) {
                return static_cast<int>(i);
            }
        }
        return static_cast<int>(dims.size());
    };
    struct Layout {
        std::string name;
        Axis axis;
        int degree;
        int innermostMapped;
    };
    std::vector<Layout> axes = { { "tp", Axis::Tp, parallel.tp, 0 }, { "cp", Axis::Cp, parallel.cp, 0 },
        { "dp", Axis::Dp, parallel.dp, 0 }, { "pp", Axis::Pp, parallel.pp, 0 } };
    for (Layout& axis : axes) {
        auto found = parallel.mapping.find(axis.name);
        axis.innermostMapped = static_cast<int>(dims.size());
        if (found != parallel.mapping.end()) {
            for (const std::string& name : found->second) {
                axis.innermostMapped = std::min(axis.innermostMapped, dimensionIndex(name));
            }
        }
    }
    // Axes mapped to inner dimensions are laid out first; unmapped axes keep Megatron's order.
    if (!parallel.mapping.empty()) {
        std::stable_sort(axes.begin(), axes.end(),
            [](const Layout& a, const Layout& b) { return a.innermostMapped < b.innermostMapped; });
    }
    Placement placement;
    placement.ranks = parallel.gpuCount();
    placement.expertDegree = std::max(1, parallel.ep);
    placement.foldedExpertTensorDegree = parallel.etp > 0 && parallel.etp < parallel.tp ? parallel.etp : 0;
    placement.shardDegree = parallel.dpShard;
    placement.contextAllToAllDegree
        = parallel.contextComm == config::ContextComm::AllToAllP2p && parallel.cp > 1 ? parallel.cpA2a : 0;
    int stride = 1;
    for (const Layout& axis : axes) {
        AxisPlacement result;
        result.axis = axis.axis;
        result.degree = axis.degree;
        result.stride = stride;
        std::set<int> spanned;
        const std::vector<int> origin = networkCoordinates(0, hardware.cluster);
        for (int member = 0; member < axis.degree; ++member) {
            const int rank = member * stride;
            result.firstGroup.push_back(rank);
            const std::vector<int> coordinates = networkCoordinates(rank, hardware.cluster);
            for (size_t d = 0; d < coordinates.size(); ++d) {
                if (coordinates[d] != origin[d]) {
                    spanned.insert(static_cast<int>(d));
                }
            }
        }
        result.dimensions.assign(spanned.begin(), spanned.end());
        auto mapped = parallel.mapping.find(axis.name);
        if (problems && mapped != parallel.mapping.end() && axis.degree > 1) {
            std::set<int> allowed;
            for (const std::string& name : mapped->second) {
                allowed.insert(dimensionIndex(name));
            }
            for (int d : result.dimensions) {
                if (!allowed.count(d)) {
                    const std::string path = "run.parallelism.mapping." + axis.name;
                    problems->push_back({ locations.locate(path), path,
                        axis.name + " groups of " + std::to_string(axis.degree) + " ranks (stride "
                            + std::to_string(stride) + ") must span the network dimension \""
                            + dims[static_cast<size_t>(d)].name + "\", which the mapping excludes" });
                    break;
                }
            }
        }
        placement.axes.push_back(result);
        stride *= axis.degree;
    }
    return placement;
}

const AxisPlacement* Placement::find(Axis axis) const
{
    for (const AxisPlacement& placed : axes) {
        if (placed.axis == axis) {
            return &placed;
        }
    }
    return nullptr;
}

int Placement::degree(Axis axis) const
{
    if (axis == Axis::Ep) {
        return expertDegree;
    }
    const AxisPlacement* placed = find(axis);
    return placed ? placed->degree : 1;
}

int Placement::coordinate(Axis axis, int rank) const
{
    const AxisPlacement* placed = find(axis);
    return placed ? (rank / placed->stride) % placed->degree : 0;
}

namespace {

/// The stage's ranks in Megatron's order (tp innermost, then cp, then dp), as Megatron-Core numbers both the attention
/// and the expert meshes: a rank's index there, and back.
struct StageOrder {
    const Placement& placement;
    int rank; ///< any rank of the stage

    int tp() const { return placement.degree(Axis::Tp); }
    int cp() const { return placement.degree(Axis::Cp); }
    int size() const { return tp() * cp() * placement.degree(Axis::Dp); }
    int indexOf(int r) const
    {
        return placement.coordinate(Axis::Tp, r)
            + tp() * (placement.coordinate(Axis::Cp, r) + cp() * placement.coordinate(Axis::Dp, r));
    }
    int rankOf(int index) const
    {
        const auto strideOf = [&](Axis a) {
            const AxisPlacement* placed = placement.find(a);
            return placed ? placed->stride : 0;
        };
        const int pipeline = placement.coordinate(Axis::Pp, rank) * strideOf(Axis::Pp);
        return pipeline + (index % tp()) * strideOf(Axis::Tp) + (index / tp() % cp()) * strideOf(Axis::Cp)
            + (index / tp() / cp()) * strideOf(Axis::Dp);
    }
    /// The ranks at @p count indices from @p first, @p stride apart (within the stage), ascending.
    std::vector<int> ranks(int first, int count, int stride) const
    {
        std::vector<int> group;
        for (int member = 0; member < count && first + member * stride < size(); ++member) {
            group.push_back(rankOf(first + member * stride));
        }
        std::sort(group.begin(), group.end());
        return group;
    }
};

} // namespace

std::vector<int> Placement::foldedExpertGroup(int rank) const
{
    // The expert mesh: etp innermost, then ep; an ep group takes every etp-th rank of a block of etp x ep.
    const StageOrder order { *this, rank };
    const int etp = foldedExpertTensorDegree;
    const int block = etp * expertDegree;
    const int index = order.indexOf(rank);
    return order.ranks(index / block * block + index % etp, expertDegree, etp);
}

std::vector<int> Placement::expertTensorGroup(int rank) const
{
    if (foldedExpertTensorDegree < 2) {
        return { rank };
    }
    const StageOrder order { *this, rank };
    const int etp = foldedExpertTensorDegree;
    return order.ranks(order.indexOf(rank) / etp * etp, etp, 1);
}

std::vector<int> Placement::groupOf(Axis axis, int rank) const
{
    if (axis == Axis::Ep && foldedExpertTensorDegree > 0) {
        return foldedExpertGroup(rank);
    }
    if (axis == Axis::Ep) {
        // Experts are spread over ep consecutive members of the data-parallel group (never more than it has).
        const std::vector<int> dataParallel = groupOf(Axis::Dp, rank);
        const auto size = std::min(static_cast<size_t>(expertDegree), dataParallel.size());
        const size_t position
            = static_cast<size_t>(std::find(dataParallel.begin(), dataParallel.end(), rank) - dataParallel.begin());
        const size_t first = position / size * size;
        const size_t last = std::min(dataParallel.size(), first + size);
        return std::vector<int>(
            dataParallel.begin() + static_cast<long>(first), dataParallel.begin() + static_cast<long>(last));
    }
    const AxisPlacement* placed = find(axis);
    if (!placed) {
        return { rank };
    }
    const int base = rank - coordinate(axis, rank) * placed->stride;
    std::vector<int> gpus;
    gpus.reserve(static_cast<size_t>(placed->degree));
    for (int i = 0; i < placed->degree; ++i) {
        gpus.push_back(base + i * placed->stride);
    }
    return gpus;
}

int Placement::groupNumber(Axis axis, int rank) const
{
    const AxisPlacement* placed = find(axis);
    if (!placed) {
        return rank;
    }
    // Removing this axis's digit from the mixed-radix rank numbers the groups densely.
    return rank % placed->stride + rank / (placed->stride * placed->degree) * placed->stride;
}

int Placement::representativeRank(int stage) const
{
    const AxisPlacement* pipeline = find(Axis::Pp);
    return pipeline ? stage * pipeline->stride : 0;
}

std::vector<int> Placement::weightReplicaGroup(int rank) const
{
    std::vector<int> group;
    for (int member : groupOf(Axis::Cp, rank)) {
        const std::vector<int> replicas = groupOf(Axis::Dp, member);
        group.insert(group.end(), replicas.begin(), replicas.end());
    }
    std::sort(group.begin(), group.end());
    return group;
}

namespace {

/// The members of @p dataParallel (one dp group) in the same slice of @p slice consecutive members as @p rank
/// (@p sameSlice), or at the same position in every slice.
std::vector<int> sliceMembers(const std::vector<int>& dataParallel, int rank, size_t slice, bool sameSlice)
{
    const size_t position
        = static_cast<size_t>(std::find(dataParallel.begin(), dataParallel.end(), rank) - dataParallel.begin());
    std::vector<int> members;
    for (size_t i = 0; i < dataParallel.size(); ++i) {
        if (sameSlice ? i / slice == position / slice : i % slice == position % slice) {
            members.push_back(dataParallel[i]);
        }
    }
    return members;
}

} // namespace

std::vector<int> Placement::weightShardGroup(int rank) const
{
    const std::vector<int> ownDataParallel = groupOf(Axis::Dp, rank);
    if (shardDegree <= 0 || static_cast<size_t>(shardDegree) >= ownDataParallel.size()) {
        return weightReplicaGroup(rank);
    }
    std::vector<int> group;
    const int position = coordinate(Axis::Dp, rank);
    for (int member : groupOf(Axis::Cp, rank)) {
        // The cp peer's own dp group, at the same dp coordinate: its slice.
        const std::vector<int> dataParallel = groupOf(Axis::Dp, member);
        const int peer = dataParallel[static_cast<size_t>(position)];
        const std::vector<int> slice = sliceMembers(dataParallel, peer, static_cast<size_t>(shardDegree), true);
        group.insert(group.end(), slice.begin(), slice.end());
    }
    std::sort(group.begin(), group.end());
    return group;
}

std::vector<int> Placement::expertReplicaGroup(int rank) const
{
    if (foldedExpertTensorDegree > 0) {
        // The expert mesh numbers the stage etp innermost, then ep, then expert-dp: the same etp and ep coordinates.
        const StageOrder order { *this, rank };
        const int block = foldedExpertTensorDegree * expertDegree;
        return order.ranks(order.indexOf(rank) % block, order.size() / block, block);
    }
    std::vector<int> group;
    const auto position = static_cast<size_t>(coordinate(Axis::Dp, rank));
    for (int member : groupOf(Axis::Cp, rank)) {
        // The cp peer's own dp group: its members at the same place in every ep slice hold the same experts.
        const std::vector<int> dataParallel = groupOf(Axis::Dp, member);
        const size_t slice = std::min(static_cast<size_t>(std::max(1, expertDegree)), dataParallel.size());
        const std::vector<int> same = sliceMembers(dataParallel, dataParallel[position], slice, false);
        group.insert(group.end(), same.begin(), same.end());
    }
    std::sort(group.begin(), group.end());
    return group;
}

std::vector<int> Placement::expertShardGroup(int rank) const
{
    std::vector<int> group = expertReplicaGroup(rank);
    if (shardDegree <= 0 || shardDegree >= degree(Axis::Dp)) {
        return group;
    }
    const int slice = coordinate(Axis::Dp, rank) / shardDegree;
    std::erase_if(group, [&](int member) { return coordinate(Axis::Dp, member) / shardDegree != slice; });
    return group;
}

std::vector<int> Placement::contextAllToAllGroup(int rank) const
{
    const std::vector<int> context = groupOf(Axis::Cp, rank);
    if (contextAllToAllDegree <= 0 || static_cast<size_t>(contextAllToAllDegree) >= context.size()) {
        return context;
    }
    return sliceMembers(context, rank, static_cast<size_t>(contextAllToAllDegree), true);
}

std::vector<int> Placement::contextRingGroup(int rank) const
{
    const std::vector<int> context = groupOf(Axis::Cp, rank);
    if (contextAllToAllDegree <= 0 || static_cast<size_t>(contextAllToAllDegree) >= context.size()) {
        return context;
    }
    return sliceMembers(context, rank, static_cast<size_t>(contextAllToAllDegree), false);
}

std::vector<int> Placement::shardReplicaGroup(int rank) const
{
    const std::vector<int> dataParallel = groupOf(Axis::Dp, rank);
    if (shardDegree <= 0 || static_cast<size_t>(shardDegree) >= dataParallel.size()) {
        return { rank };
    }
    return sliceMembers(dataParallel, rank, static_cast<size_t>(shardDegree), false);
}

std::vector<int> Placement::replicaOffsets(const std::vector<int>& gpus, bool pointToPoint, int totalGpus) const
{
    if (gpus.empty()) {
        return {};
    }
    const int stage = stageOf(gpus.front());
    std::vector<char> covered(static_cast<size_t>(std::max(0, totalGpus)), 0);
    const auto inCluster = [&](int gpu) { return gpu >= 0 && gpu < totalGpus; };
    const auto cover = [&](int offset) {
        if (pointToPoint) {
            covered[static_cast<size_t>(gpus.front() + offset)] = 1;
            return;
        }
        for (int gpu : gpus) {
            if (inCluster(gpu + offset)) {
                covered[static_cast<size_t>(gpu + offset)] = 1;
            }
        }
    };
    cover(0);
    std::vector<int> offsets;
    for (int rank = 0; rank < totalGpus; ++rank) {
        if (covered[static_cast<size_t>(rank)] || stageOf(rank) != stage) {
            continue;
        }
        const int offset = rank - gpus.front();
        const bool fits = std::all_of(gpus.begin(), gpus.end(), [&](int gpu) {
            const int moved = gpu + offset;
            return inCluster(moved) && (pointToPoint || !covered[static_cast<size_t>(moved)]);
        });
        if (fits) {
            offsets.push_back(offset);
            cover(offset);
        }
    }
    return offsets;
}

} // namespace rapid::parallel
