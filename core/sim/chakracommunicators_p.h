// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakracommgroups.h"
#include "graph/chakraexport.h"
#include "parallel/placement.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace rapid::sim::detail {

/// The communicators of an exported step and how a stage's representative trace becomes each rank's: groups numbered
/// from 1, the data-parallel ones first (in order of their first rank; the ZeRO/FSDP shard groups, which are the
/// weight replicas unless hybrid sharding splits them), then tensor-, context- and expert-parallel ones, then hybrid
/// sharding's shard replicas, then cp_comm a2a+p2p's all-to-all slices, then expert tensor parallelism's groups, then
/// the routed experts' data-parallel groups (where they differ from the dp ones); communicators of one rank have none.
/// Representative traces name a collective's group by its axis ("dp", "tp", ...), kShardReplicaPlaceholder,
/// kContextAllToAllPlaceholder, kExpertTensorPlaceholder or kExpertDataPlaceholder.
class ChakraCommunicators {
public:
    explicit ChakraCommunicators(const parallel::Placement& placement);

    const graph::ChakraCommGroups& groups() const { return m_groups; }
    /// Peers and groups of @p rank: a pipeline peer (a stage index in the representative) becomes the rank at the same
    /// place of that stage; a context-parallel ring peer (tag from kContextTagBase) the member as far round this
    /// rank's ring as the peer is from the representative round its own; an axis name this rank's group id.
    graph::ChakraRankMapping mappingOf(int rank) const;

private:
    /// The members of @p rank's communicator named @p placeholder.
    std::vector<int> members(const std::string& placeholder, int rank) const;
    std::string groupOf(const std::string& placeholder, int rank) const;

    const parallel::Placement& m_placement;
    std::vector<std::string> m_placeholders; ///< the communicators' names, in numbering order
    std::map<std::pair<std::string, std::vector<int>>, int> m_ids;
    graph::ChakraCommGroups m_groups;
};

} // namespace rapid::sim::detail
