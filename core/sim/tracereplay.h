// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/hardwarespec.h"
#include "graph/chakracommgroups.h"
#include "graph/chakratrace.h"
#include "sim/stepmodel.h"

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

namespace rapid::sim {

/// A trace set that cannot run to the end (a dependency cycle, a collective some members never issue, a send
/// without its receive). Names the first stuck nodes as "rank R node ID (name)".
class ReplayDeadlock : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// When one node of one rank ran (seconds from the start).
struct ReplayNodeTime {
    double start = 0; ///< ready (dependencies finished); compute may then wait for its rank's compute stream
    double finish = 0;
};

struct ReplayRank {
    int rank = 0;
    double finish = 0; ///< when its last node finished
    double computeBusy = 0; ///< sum of compute and memory node times
    double communication = 0; ///< time covered by at least one communication node
    double exposedCommunication = 0; ///< communication time during which no compute ran
    int nodes = 0;
};

struct ReplayResult {
    double makespan = 0;
    std::vector<ReplayRank> ranks; ///< in trace order
    std::vector<std::vector<ReplayNodeTime>> nodeTimes; ///< [trace][node index in file order]
    int collectives = 0; ///< collective instances (one per group and issue index)
    int pointToPoint = 0; ///< matched send/recv pairs
    int flows = 0;
    std::vector<std::string> notes; ///< approximations made (unsupported collective kinds, missing dependencies)
};

/// Replays Chakra traces (one per rank; rank r runs on GPU r of @p hardware) on our backends, as ASTRA-sim's
/// workload layer does: a node becomes ready when all its data and control parents have finished; compute and
/// memory nodes run one at a time per rank in the order they become ready, for `duration_micros` (or, without a
/// duration, the roofline of `num_ops` and `tensor_size` on the hardware's GPU); collectives are matched across the
/// members of their communicator group (`pg_name` in @p groups, else all ranks) by issue order and start when every
/// member has issued them; a send and its receive (same peers, tag and size) start when both are issued. Collective
/// and message times come from @p backend: the analytical closed forms, or the congestion simulator with every
/// concurrent collective and message sharing the links. `comm_size` follows ASTRA-sim (an all-gather's is the
/// per-rank shard). Reductions and gathers use the algorithms of @p library (a trace does not say which library ran
/// them; ASTRA-sim's system configuration chooses its implementations the same way). Throws ReplayDeadlock,
/// std::invalid_argument (a rank outside the network, a group naming an unknown rank), network::UnreachableError,
/// SimulationCancelled.
ReplayResult replayChakra(const std::vector<graph::ChakraTrace>& traces, const graph::ChakraCommGroups& groups,
    const config::HardwareSpec& hardware, NetworkBackend backend,
    network::CollectiveLibrary library = network::CollectiveLibrary::Custom, const std::atomic<bool>* stop = nullptr);

/// The replayed per-rank timeline in the Chrome Trace Event Format (chrome://tracing, Perfetto): one process per
/// rank (pid rank + 1), a "compute" thread for compute and memory nodes and a "communication" thread for
/// collectives, sends and receives; one complete event per node from its start (ready) to its finish, in
/// microseconds, named by the node and carrying its id and type. Zero-length metadata nodes are left out.
std::string replayChromeTraceJson(const std::vector<graph::ChakraTrace>& traces, const ReplayResult& result);

} // namespace rapid::sim
