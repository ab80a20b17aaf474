// SPDX-License-Identifier: GPL-3.0-or-later
#include "replicashares.h"

#include <stdexcept>
#include <string>

namespace rapid::serving {

namespace {

/// Refuses @p count when it is not a multiple of @p unit, naming the nearest multiples and why they must be.
void requireMultiple(const std::string& what, int count, int unit, const std::string& why)
{
    if (count % unit == 0) {
        return;
    }
    const int below = count / unit * unit;
    const int above = below + unit;
    throw std::invalid_argument(what + " " + std::to_string(count) + " is not a multiple of " + why + ": "
        + (below > 0 ? std::to_string(below) + " or " : std::string()) + std::to_string(above) + " splits evenly");
}

/// The shares of @p replicas when @p busier of them get @p perReplica + 1 and the rest @p perReplica (clients or
/// requests), the busier first; a share of none is left out unless it is the only one. @p share(replicas, count)
/// builds one.
template <typename MakeShare>
std::vector<ReplicaShare> dealt(int replicas, int perReplica, int busier, const MakeShare& share)
{
    std::vector<ReplicaShare> shares;
    if (busier > 0) {
        shares.push_back(share(busier, perReplica + 1));
    }
    if (perReplica > 0 || shares.empty()) {
        // A workload of nothing (no client or request) is still one share: every replica serves nothing.
        shares.push_back(share(replicas - busier, perReplica));
    }
    return shares;
}

std::vector<ReplicaShare> closedLoopShares(const WorkloadSpec& workload, int replicas)
{
    const int clients = workload.concurrency;
    if (clients < 1) {
        throw std::invalid_argument("concurrency " + std::to_string(clients) + ": expected at least one client");
    }
    const int perReplica = clients / replicas;
    const int busier = clients % replicas; // replicas with one client more
    const std::string overReplicas = "the " + std::to_string(replicas)
        + " data-parallel replicas (run.parallelism.dp), each of which serves an equal share";
    const std::string overClients
        = "the " + std::to_string(clients) + " clients, each of which sends the same number of requests";
    if (busier == 0) {
        requireMultiple("requests", workload.requests, replicas, overReplicas);
        requireMultiple("warm-up requests", workload.warmupRequests, replicas, overReplicas);
    } else {
        requireMultiple("requests", workload.requests, clients, overClients);
        requireMultiple("warm-up requests", workload.warmupRequests, clients, overClients);
    }
    const auto share = [&](int count, int replicaClients) {
        WorkloadSpec part = workload;
        part.concurrency = replicaClients;
        // Evenly split clients need the requests to split over the replicas only; otherwise per client.
        part.requests = busier == 0 ? workload.requests / replicas : workload.requests / clients * replicaClients;
        part.warmupRequests
            = busier == 0 ? workload.warmupRequests / replicas : workload.warmupRequests / clients * replicaClients;
        // Round-robin dealing keeps the clients' start spacing of the ramp: rampSeconds / clients between two.
        part.rampSeconds = workload.rampSeconds * replicaClients / clients * replicas;
        return ReplicaShare { count, part };
    };
    return dealt(replicas, perReplica, busier, share);
}

std::vector<ReplicaShare> poissonShares(const WorkloadSpec& workload, int replicas)
{
    requireMultiple("warm-up requests", workload.warmupRequests, replicas,
        "the " + std::to_string(replicas)
            + " data-parallel replicas (run.parallelism.dp), which the requests are dealt to in turn");
    const int perReplica = workload.requests / replicas;
    const int busier = workload.requests % replicas;
    const auto share = [&](int count, int requests) {
        WorkloadSpec part = workload;
        part.ratePerSecond = workload.ratePerSecond / replicas;
        part.thinning = workload.thinning * replicas;
        part.requests = requests;
        part.warmupRequests = workload.warmupRequests / replicas;
        if (part.warmupRequests >= requests) {
            throw std::invalid_argument("warm-up requests " + std::to_string(workload.warmupRequests)
                + " leave no request to measure on a replica that serves " + std::to_string(requests) + " of the "
                + std::to_string(workload.requests) + " (" + std::to_string(replicas)
                + " data-parallel replicas): fewer warm-up requests or more requests");
        }
        return ReplicaShare { count, part };
    };
    return dealt(replicas, perReplica, busier, share);
}

} // namespace

std::vector<ReplicaShare> replicaShares(const WorkloadSpec& workload, int replicas)
{
    if (replicas < 1) {
        throw std::invalid_argument("replicas: expected at least one data-parallel replica");
    }
    switch (workload.arrival) {
    case ArrivalKind::Trace:
        if (replicas > 1) {
            throw std::invalid_argument("a request trace is served by one replica: set run.parallelism.dp to 1");
        }
        return { { 1, workload } };
    case ArrivalKind::ClosedLoop:
        return closedLoopShares(workload, replicas);
    case ArrivalKind::Poisson:
        break;
    }
    return poissonShares(workload, replicas);
}

} // namespace rapid::serving
