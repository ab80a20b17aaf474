// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "servingspec.h"

#include <vector>

namespace rapid::serving {

/// The workload of @p replicas identical replicas.
struct ReplicaShare {
    int replicas = 1;
    WorkloadSpec workload;
};

/// How data-parallel replicas share @p workload, as a router dealing clients and requests round-robin does: a closed
/// loop's clients go one to each replica in turn (c % r replicas get one more; with fewer clients than replicas the
/// rest stay idle), each client sending the same number of requests; Poisson arrivals split into r thinned streams
/// of rate / r (a thinned Poisson process is Poisson; gamma arrivals thinned at random, WorkloadSpec::thinning) and the
/// requests one to each replica in turn. At most two
/// shares come back, the busier first; replicas left without a request are in none. A count that cannot be dealt
/// without changing it is refused (std::invalid_argument naming the nearest counts that can): requests that are not
/// a multiple of the clients when the clients do not split evenly, a warm-up that does not split as the requests
/// do. A trace is served by one replica (more is refused).
std::vector<ReplicaShare> replicaShares(const WorkloadSpec& workload, int replicas);

} // namespace rapid::serving
