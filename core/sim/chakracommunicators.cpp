// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakracommunicators_p.h"

#include "chakrapasspieces_p.h"

#include <algorithm>
#include <array>

namespace rapid::sim::detail {

namespace {

constexpr std::array<parallel::Axis, 4> kGroupAxes
    = { parallel::Axis::Dp, parallel::Axis::Tp, parallel::Axis::Cp, parallel::Axis::Ep };

std::ptrdiff_t indexIn(const std::vector<int>& members, int member)
{
    return std::find(members.begin(), members.end(), member) - members.begin();
}

} // namespace

ChakraCommunicators::ChakraCommunicators(const parallel::Placement& placement)
    : m_placement(placement)
{
    for (const parallel::Axis axis : kGroupAxes) {
        m_placeholders.push_back(groupPlaceholder(axis));
    }
    m_placeholders.emplace_back(kShardReplicaPlaceholder);
    m_placeholders.emplace_back(kContextAllToAllPlaceholder);
    m_placeholders.emplace_back(kExpertTensorPlaceholder);
    m_placeholders.emplace_back(kExpertDataPlaceholder);
    for (const std::string& placeholder : m_placeholders) {
        if (members(placeholder, 0).size() < 2) {
            continue;
        }
        // The experts' data-parallel groups are the dp ones unless ep > 1 or etp < tp: no second name for them.
        if (placeholder == kExpertDataPlaceholder && members(placeholder, 0) == placement.weightShardGroup(0)) {
            continue;
        }
        for (int rank = 0; rank < placement.ranks; ++rank) {
            std::vector<int> group = members(placeholder, rank);
            const auto [it, added] = m_ids.emplace(std::make_pair(placeholder, group), 0);
            if (added) {
                it->second = static_cast<int>(m_ids.size());
                m_groups[std::to_string(it->second)] = std::move(group);
            }
        }
    }
}

std::vector<int> ChakraCommunicators::members(const std::string& placeholder, int rank) const
{
    if (placeholder == kShardReplicaPlaceholder) {
        return m_placement.shardReplicaGroup(rank);
    }
    if (placeholder == kContextAllToAllPlaceholder) {
        return m_placement.contextAllToAllDegree > 0 ? m_placement.contextAllToAllGroup(rank)
                                                     : std::vector<int> { rank };
    }
    if (placeholder == kExpertTensorPlaceholder) {
        return m_placement.expertTensorGroup(rank);
    }
    if (placeholder == kExpertDataPlaceholder) {
        return m_placement.expertShardGroup(rank);
    }
    for (const parallel::Axis axis : kGroupAxes) {
        if (placeholder == groupPlaceholder(axis)) {
            // The data-parallel communicator is the one gradient reductions and ZeRO gathers use: the shard group
            // (dp x cp, or dp_shard x cp under hybrid sharding).
            return axis == parallel::Axis::Dp ? m_placement.weightShardGroup(rank) : m_placement.groupOf(axis, rank);
        }
    }
    return { rank };
}

std::string ChakraCommunicators::groupOf(const std::string& placeholder, int rank) const
{
    const auto found = m_ids.find({ placeholder, members(placeholder, rank) });
    return found == m_ids.end() ? std::string() : std::to_string(found->second);
}

graph::ChakraRankMapping ChakraCommunicators::mappingOf(int rank) const
{
    const int representative = m_placement.representativeRank(m_placement.stageOf(rank));
    graph::ChakraRankMapping mapping;
    mapping.peer = [this, rank, representative](const graph::ChakraNode& node, int peer) {
        const std::optional<std::int64_t> tag = node.integerAttribute("comm_tag");
        if (tag && *tag >= kContextTagBase) {
            const std::vector<int> ring = m_placement.contextRingGroup(representative);
            const std::vector<int> own = m_placement.contextRingGroup(rank);
            const auto size = static_cast<std::ptrdiff_t>(own.size());
            const std::ptrdiff_t step = indexIn(ring, peer) - indexIn(ring, representative);
            return own[static_cast<size_t>(((indexIn(own, rank) + step) % size + size) % size)];
        }
        return m_placement.representativeRank(peer) + (rank - representative);
    };
    mapping.group = [this, rank](const std::string& placeholder) { return groupOf(placeholder, rank); };
    return mapping;
}

} // namespace rapid::sim::detail
