// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/diagnostic.h"
#include "config/hardwarespec.h"
#include "config/runspec.h"
#include "config/sourcemap.h"
#include "parallel/axis.h"

#include <string>
#include <vector>

namespace rapid::parallel {

/// How one parallel axis (tp, cp, dp, pp) is laid out over the ranks and the network.
struct AxisPlacement {
    Axis axis = Axis::Tp;
    int degree = 1;
    int stride = 1; ///< rank distance between neighbours of one group
    std::vector<int> dimensions; ///< network dimensions (indices) its groups span
    std::vector<int> firstGroup; ///< the ranks of the group that holds rank 0

    bool operator==(const AxisPlacement&) const = default;
};

/// Ranks laid out innermost axis first (Megatron order tp, cp, dp, pp unless a mapping reorders them), GPU g of the
/// cluster being rank g, and GPUs numbered innermost network dimension first.
struct Placement {
    std::vector<AxisPlacement> axes; ///< innermost first: tp, cp, dp, pp in some order
    int ranks = 0;
    int expertDegree = 1; ///< ep: expert-parallel groups are consecutive slices of ep members of a dp group
    /// etp below tp: the expert layers are folded over the stage's ranks instead (Megatron-Core's expert mesh, etp
    /// innermost, then ep, over the ranks in tp, cp, dp order): an ep group takes every etp-th of etp x ep
    /// consecutive ranks. 0: etp = tp.
    int foldedExpertTensorDegree = 0;
    /// Hybrid sharding: a ZeRO/FSDP shard group holds consecutive slices of this many members of a dp group (with
    /// their cp peers); 0 = the whole dp group (RunSpec::ParallelismSpec::dpShard).
    int shardDegree = 0;
    /// cp_comm a2a+p2p: Ulysses all-to-all groups are slices of this many consecutive members of a cp group, and the
    /// K/V ring runs over the members at the same position of every slice; 0 = one group (a2a) or one ring (p2p).
    int contextAllToAllDegree = 0;

    bool operator==(const Placement&) const = default;

    /// The placement of a layout axis (tp, cp, dp, pp), or null (Ep, or a placement without that axis).
    const AxisPlacement* find(Axis axis) const;
    /// The degree of @p axis (1 when absent).
    int degree(Axis axis) const;

    /// The ranks of @p rank's group along @p axis, ascending: the ranks that differ from it in that coordinate only.
    /// Ep: the slice of ep consecutive members of @p rank's dp group that holds it, or under folding
    /// (foldedExpertTensorDegree) its ep group of the expert mesh. An absent axis gives { rank }.
    /// This is the only group-of-rank arithmetic of the project: everything else asks here.
    std::vector<int> groupOf(Axis axis, int rank) const;
    /// The ranks holding the same weights as @p rank, ascending: its dp group and those of its cp peers (gradient
    /// reductions and ZeRO/FSDP shards span them; ShardingPlan::weightReplicas).
    std::vector<int> weightReplicaGroup(int rank) const;
    /// The ranks one ZeRO/FSDP shard group spans with @p rank, ascending: the slice of shardDegree consecutive members
    /// of its dp group that holds it, with its cp peers' slices (torchtitan's dp_shard_cp mesh; dp_replicate outer).
    /// The whole weightReplicaGroup without hybrid sharding.
    std::vector<int> weightShardGroup(int rank) const;
    /// The ranks holding the same shard as @p rank in the other shard groups (same cp coordinate, same position in
    /// their slice), ascending: hybrid sharding all-reduces the reduce-scattered gradients over them. { rank } alone
    /// without hybrid sharding.
    std::vector<int> shardReplicaGroup(int rank) const;
    /// The ranks of @p rank's pipeline stage holding the same routed-expert shard, ascending (Megatron-Core's
    /// expert-data-parallel group): the same etp and ep coordinates of the expert mesh under folding, else the
    /// members of its and its cp peers' dp groups at the same place in their ep slices. Routed experts' gradients are
    /// summed over it. weightReplicaGroup when ep = 1 and etp = tp.
    std::vector<int> expertReplicaGroup(int rank) const;
    /// Of expertReplicaGroup, the members in @p rank's ZeRO/FSDP shard group (its dp slice of shardDegree under
    /// hybrid sharding, which holds whole expert blocks: the loader's check): what the experts' shards span. Their
    /// replicas in the other shard groups are shardReplicaGroup's.
    std::vector<int> expertShardGroup(int rank) const;
    /// The ranks of @p rank's context-parallel all-to-all, ascending: its slice of contextAllToAllDegree consecutive
    /// cp members, or the whole cp group.
    std::vector<int> contextAllToAllGroup(int rank) const;
    /// The ranks of @p rank's K/V ring in ring order: the cp members at its position in every slice of
    /// contextAllToAllDegree, or the whole cp group.
    std::vector<int> contextRingGroup(int rank) const;
    /// Under folding, the ep group of the expert mesh that holds @p rank (groupOf(Axis::Ep) asks here).
    std::vector<int> foldedExpertGroup(int rank) const;
    /// Under folding, the expert tensor-parallel group of @p rank: the foldedExpertTensorDegree consecutive ranks of
    /// the expert mesh that hold it, a slice of its tp group (etp divides tp). { rank } without folding.
    std::vector<int> expertTensorGroup(int rank) const;
    /// @p rank's coordinate along @p axis (0 for an absent axis).
    int coordinate(Axis axis, int rank) const;
    /// Which group of @p axis holds @p rank: groups numbered densely 0..ranks/degree-1 in order of their lowest rank.
    int groupNumber(Axis axis, int rank) const;
    /// The pipeline stage @p rank belongs to.
    int stageOf(int rank) const { return coordinate(Axis::Pp, rank); }
    /// The lowest rank of pipeline stage @p stage (all other coordinates 0): the rank a stage's costs are taken on.
    int representativeRank(int stage) const;

    /// SPMD replicas of a collective among @p gpus: every rank of the same pipeline stage runs the same collective at
    /// the same time, so the other groups are @p gpus translated to start at each rank not covered yet (ascending).
    /// A point-to-point message (@p pointToPoint) is replicated by its sender only: every rank of the stage sends.
    /// Returns the offsets (rank differences) of the replicas besides @p gpus itself; ranks beyond @p totalGpus (the
    /// GPUs of the cluster) are never used.
    std::vector<int> replicaOffsets(const std::vector<int>& gpus, bool pointToPoint, int totalGpus) const;
};

/// Coordinates of GPU @p gpu in each network dimension (innermost first).
std::vector<int> networkCoordinates(int gpu, const config::ClusterSpec& cluster);

/// Places the run's ranks on the hardware. An explicit mapping that the layout cannot honour (tp mapped to nvlink
/// while its groups must cross nodes) is reported in @p problems with the mapping's location.
Placement placeRanks(const config::HardwareSpec& hardware, const config::RunSpec& run,
    const config::SourceMap& locations, std::vector<config::Diagnostic>* problems);

} // namespace rapid::parallel
