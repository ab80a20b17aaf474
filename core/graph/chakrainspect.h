// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "graph/chakracommgroups.h"
#include "graph/chakratrace.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace rapid::graph {

/// What is wrong in a trace set, judged by what ASTRA-sim's feeder and workload layer accept.
enum class ChakraDefectKind {
    MissingRank, ///< a rank between 0 and the highest loaded rank has no file
    DuplicateId, ///< two nodes of one file share an id (ASTRA-sim: the later wins)
    MissingDependency, ///< a ctrl/data dependency names an id not in the file (ASTRA-sim: fatal)
    Cycle, ///< nodes that depend on each other (ASTRA-sim: deadlock)
    NoRootNode, ///< no node without parents (ASTRA-sim: fatal)
    UnknownNodeType, ///< a type value outside the NodeType enum
    InvalidNode, ///< INVALID_NODE (skipped by ASTRA-sim)
    AttributeWithoutValue, ///< an attribute with no oneof member (ASTRA-sim: error)
    UnknownAttribute, ///< a name no known producer/consumer uses
    AttributeWrongType, ///< a known name with a member ASTRA-sim cannot convert (e.g. float for an integer)
    MissingAttribute, ///< a required attribute of a COMM node is absent
    UnsupportedCollective, ///< comm_type ASTRA-sim aborts on, or outside the enum
    CpuCommunication, ///< a COMM node with is_cpu_op = true (ASTRA-sim aborts)
    BadPeer, ///< comm_src/comm_dst naming a rank outside the set, or not the own rank where required
    UnmatchedSend, ///< a SEND with no RECV of the same (src, dst, tag, size) on the peer
    UnmatchedRecv, ///< a RECV with no SEND of the same (src, dst, tag, size) on the peer
    CollectiveOrderMismatch, ///< members of a group issue different collectives (kind or size) at the same position
    UnknownGroup, ///< pg_name not in the comm-group file, or issued by a rank that is not a member
    DurationBeyondCeiling, ///< duration_micros above 10^14 us (3.2 years): beyond what `rapid chakra simulate` runs
};
const char* toString(ChakraDefectKind kind);

/// Error: ASTRA-sim would fail, deadlock or silently mismatch. Warning: suspicious, or ignored by ASTRA-sim.
enum class ChakraSeverity { Error, Warning };
const char* toString(ChakraSeverity severity);

/// One defect, with the node ids involved (ids are local to `rank`'s file).
struct ChakraDefect {
    ChakraDefectKind kind = ChakraDefectKind::MissingDependency;
    ChakraSeverity severity = ChakraSeverity::Error;
    int rank = -1; ///< the rank whose file holds nodeIds; -1 for the whole set
    std::vector<std::uint64_t> nodeIds;
    std::string message;
    bool operator==(const ChakraDefect&) const = default;
};

/// How many collectives of one kind, size and group one rank issues.
struct ChakraCollectiveCount {
    std::int64_t commType = 0; ///< ChakraCollective value (may be outside the enum)
    std::uint64_t commSize = 0; ///< bytes (meaning per kind: see the format note, 1.8)
    std::string group; ///< pg_name, empty when none
    std::size_t count = 0;
    bool operator==(const ChakraCollectiveCount&) const = default;
};

/// Counts and the critical path of one rank's trace.
struct ChakraRankReport {
    int rank = 0;
    std::string path;
    std::string version; ///< GlobalMetadata.version
    /// GlobalMetadata.attr in file order (rapid records its collective library there, kCollectiveLibraryAttribute).
    std::vector<ChakraAttribute> metadata;
    std::size_t nodeCount = 0;
    std::array<std::size_t, kChakraNodeTypeCount> nodesByType {}; ///< by ChakraNodeType value
    std::size_t unknownTypeNodes = 0;
    std::size_t ctrlEdges = 0; ///< entries of ctrl_deps, including those naming missing nodes
    std::size_t dataEdges = 0; ///< entries of data_deps, including those naming missing nodes
    std::vector<ChakraCollectiveCount> collectives; ///< sorted by group, kind, size
    std::size_t sends = 0;
    std::size_t recvs = 0;
    std::uint64_t sendBytes = 0;
    std::uint64_t recvBytes = 0;
    std::uint64_t totalDurationMicros = 0; ///< sum of duration_micros over all nodes
    /// Longest path through ctrl+data dependencies weighted by duration_micros (communication nodes count with their
    /// recorded duration, usually 0: ASTRA-sim simulates them). Nodes in or behind a cycle are left out.
    std::uint64_t criticalPathMicros = 0;
    std::vector<std::uint64_t> criticalPath; ///< node ids from the first to the last node of that path
    std::string criticalPathFirstName; ///< name of the path's first node (empty when there is no path)
    std::string criticalPathLastName; ///< name of the path's last node
    bool operator==(const ChakraRankReport&) const = default;
};

/// The inspection of a trace set: per-rank counts and every defect found (per rank and across ranks).
struct ChakraInspection {
    std::vector<ChakraRankReport> ranks; ///< in the order of the traces given
    std::vector<ChakraDefect> defects; ///< per-rank defects in rank order, then cross-rank ones
    std::size_t count(ChakraSeverity severity) const;
    bool operator==(const ChakraInspection&) const = default;
};

/// Inspects a set of per-rank traces (as readChakraDirectory returns them; ranks from ChakraTrace::rank).
/// Cross-rank checks: send/recv matching by (src, dst, tag, size), and for each communicator group (pg_name, or all
/// ranks when absent) that every member issues the same sequence of (comm_type, comm_size). Issue order is
/// approximated by each collective's earliest start in a duration-weighted as-soon-as-possible schedule of its
/// rank, ties broken by file order. @p groups (optional) gives the group members; without it a group's members are
/// the ranks that use its pg_name.
ChakraInspection inspectChakra(const std::vector<ChakraTrace>& traces, const ChakraCommGroups* groups = nullptr);

/// The same inspection of the trace files @p files (as listChakraSet returns them: one file per rank, ascending),
/// without holding the set in memory: each file is read, inspected and dropped on one of @p threads worker threads
/// (0: one per core), and only what the cross-rank checks need is kept (per group the first member's collective
/// sequence, the point-to-point endpoints). The result equals inspectChakra of readChakraDirectory's traces; memory
/// is a few decoded files, whatever the set's size. Throws ChakraError for the first file (in rank order) that
/// cannot be read.
ChakraInspection inspectChakraFiles(
    const std::vector<std::filesystem::path>& files, const ChakraCommGroups* groups = nullptr, unsigned threads = 0);

} // namespace rapid::graph
