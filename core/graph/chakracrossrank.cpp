// SPDX-License-Identifier: GPL-3.0-or-later
// The checks of a Chakra trace set that look across ranks, fed one rank at a time: what a rank contributes is
// compared and dropped as it arrives, so a set of any size is checked in the memory of a few files.
#include "chakrainspect_p.h"

#include <algorithm>

namespace rapid::graph::detail {

CrossRankCheck::CrossRankCheck(std::set<int> ranks, const ChakraCommGroups* groups)
    : m_ranks(std::move(ranks))
    , m_groups(groups)
{
    if (!m_groups) {
        return;
    }
    for (const auto& [group, members] : *m_groups) {
        if (group.empty()) {
            continue; // collectives without pg_name are checked over every rank, whatever the file says
        }
        std::vector<int> loaded;
        for (const int member : members) {
            if (m_ranks.count(member)) {
                loaded.push_back(member);
            }
        }
        std::sort(loaded.begin(), loaded.end());
        loaded.erase(std::unique(loaded.begin(), loaded.end()), loaded.end());
        for (const int member : loaded) {
            m_fileGroupsOf[member].push_back(group);
        }
    }
}

void CrossRankCheck::add(int rank, RankFragment& fragment)
{
    static const std::vector<IssuedCollective> none;
    for (auto& [group, issued] : fragment.collectives) {
        std::stable_sort(issued.begin(), issued.end(), [](const IssuedCollective& a, const IssuedCollective& b) {
            return std::tie(a.start, a.fileIndex) < std::tie(b.start, b.fileIndex);
        });
        m_order[group].used = true;
    }
    auto issuedIn = [&fragment](const std::string& group) -> const std::vector<IssuedCollective>& {
        const auto found = fragment.collectives.find(group);
        return found == fragment.collectives.end() ? none : found->second;
    };
    // Members of a group: every rank for collectives without pg_name; the file's members for a group the file
    // names; otherwise the ranks that issue in it.
    compare(std::string(), rank, issuedIn(std::string()));
    for (const auto& [group, issued] : fragment.collectives) {
        if (!group.empty() && !(m_groups && m_groups->count(group))) {
            compare(group, rank, issued);
        }
    }
    if (const auto found = m_fileGroupsOf.find(rank); found != m_fileGroupsOf.end()) {
        for (const std::string& group : found->second) {
            compare(group, rank, issuedIn(group));
        }
        m_fileGroupsOf.erase(found);
    }
    for (const auto* endpoints : { &fragment.sends, &fragment.recvs }) {
        for (const auto& [key, endpoint] : *endpoints) {
            auto& [sends, recvs] = m_p2p[key];
            (endpoints == &fragment.sends ? sends : recvs).push_back(endpoint);
        }
    }
    fragment.collectives.clear();
    fragment.sends.clear();
    fragment.recvs.clear();
}

namespace {

std::string collectiveText(std::int64_t commType, std::uint64_t commSize, std::uint64_t id)
{
    return std::string(toString(static_cast<ChakraCollective>(commType))) + " of " + std::to_string(commSize)
        + " B (node " + std::to_string(id) + ")";
}

} // namespace

void CrossRankCheck::compare(const std::string& group, int rank, const std::vector<IssuedCollective>& issued)
{
    GroupOrder& order = m_order[group];
    if (!order.hasReference) {
        order.hasReference = true;
        order.referenceRank = rank;
        order.reference.reserve(issued.size());
        for (const IssuedCollective& collective : issued) {
            order.reference.push_back({ collective.id, collective.commType, collective.commSize });
        }
        return;
    }
    const std::vector<Compact>& expected = order.reference;
    const std::size_t common = std::min(expected.size(), issued.size());
    std::size_t i = 0;
    while (i < common && expected[i].commType == issued[i].commType && expected[i].commSize == issued[i].commSize) {
        ++i;
    }
    if (i == common && expected.size() == issued.size()) {
        return;
    }
    const std::string groupText = group.empty() ? std::string("all ranks (no pg_name)") : "group \"" + group + "\"";
    ChakraDefect defect { Kind::CollectiveOrderMismatch, kError, rank, {}, {} };
    if (i < issued.size()) {
        defect.nodeIds.push_back(issued[i].id);
    }
    defect.message = "collective #" + std::to_string(i + 1) + " in " + groupText + ": rank " + std::to_string(rank)
        + " issues "
        + (i < issued.size() ? collectiveText(issued[i].commType, issued[i].commSize, issued[i].id)
                             : std::string("nothing"))
        + ", rank " + std::to_string(order.referenceRank) + " "
        + (i < expected.size() ? collectiveText(expected[i].commType, expected[i].commSize, expected[i].id)
                               : std::string("nothing"))
        + " (" + std::to_string(issued.size()) + " vs " + std::to_string(expected.size()) + " collectives)";
    order.mismatches.push_back(std::move(defect));
}

void CrossRankCheck::finish(std::vector<ChakraDefect>& defects)
{
    if (!m_ranks.empty()) {
        std::vector<std::uint64_t> absent;
        for (int rank = 0; rank < *m_ranks.rbegin(); ++rank) {
            if (!m_ranks.count(rank)) {
                absent.push_back(static_cast<std::uint64_t>(rank));
            }
        }
        if (!absent.empty()) {
            defects.push_back({ Kind::MissingRank, kError, -1, {},
                "no file for rank(s) " + idList(absent) + " (ASTRA-sim needs <prefix>.<r>.et for every rank)" });
        }
    }
    for (const auto& [key, endpoints] : m_p2p) {
        const auto& [src, dst, tag, size] = key;
        const auto& [sends, recvs] = endpoints;
        const std::string what = std::to_string(size) + " B from rank " + std::to_string(src) + " to rank "
            + std::to_string(dst) + " with tag " + std::to_string(tag);
        for (std::size_t i = recvs.size(); i < sends.size(); ++i) {
            const bool peerLoaded = dst >= 0 && m_ranks.count(static_cast<int>(dst));
            defects.push_back({ Kind::UnmatchedSend, kError, sends[i].rank, { sends[i].id },
                "SEND (node " + std::to_string(sends[i].id) + ") of " + what + ": no matching RECV"
                    + (peerLoaded ? std::string() : " (rank " + std::to_string(dst) + " has no file)") });
        }
        for (std::size_t i = sends.size(); i < recvs.size(); ++i) {
            const bool peerLoaded = src >= 0 && m_ranks.count(static_cast<int>(src));
            defects.push_back({ Kind::UnmatchedRecv, kError, recvs[i].rank, { recvs[i].id },
                "RECV (node " + std::to_string(recvs[i].id) + ") of " + what + ": no matching SEND"
                    + (peerLoaded ? std::string() : " (rank " + std::to_string(src) + " has no file)") });
        }
    }
    // A group only some rank issued in is checked (a file group nobody uses has nothing to disagree on).
    for (auto& [group, order] : m_order) {
        if (order.used) {
            defects.insert(defects.end(), std::make_move_iterator(order.mismatches.begin()),
                std::make_move_iterator(order.mismatches.end()));
        }
    }
    m_order.clear();
    m_p2p.clear();
}

} // namespace rapid::graph::detail
