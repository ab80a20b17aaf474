// SPDX-License-Identifier: GPL-3.0-or-later
#include "mpisplit.h"

#include "graph/parallelfor.h"
#include "network/topology.h"

#include <cstdlib>
#include <stdexcept>
#include <vector>

#ifdef RAPID_WITH_MPI
#include <mpi.h>
#endif

namespace rapid::cli {

#ifdef RAPID_WITH_MPI
namespace {

/// Whether this process was started by an MPI launcher (Open MPI's mpirun, or a PMI-based one such as srun).
bool launchedByMpirun()
{
    return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr;
}

} // namespace
#endif

MpiSplit::MpiSplit()
{
#ifdef RAPID_WITH_MPI
    if (launchedByMpirun()) {
        MPI_Init(nullptr, nullptr);
        m_initialised = true;
        MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &m_size);
    }
#endif
}

MpiSplit::~MpiSplit()
{
#ifdef RAPID_WITH_MPI
    if (m_initialised) {
        MPI_Finalize();
    }
#endif
}

resilience::FaultStudyResult MpiSplit::runFaultStudy(
    const config::Scenario& scenario, const resilience::FaultStudySpec& spec, unsigned threads) const
{
    if (m_size == 1) {
        return resilience::runFaultStudy(scenario, spec, threads);
    }
    const network::Topology topology(scenario.hardware);
    const std::vector<resilience::FaultUnit> pool = resilience::faultPool(topology, spec);
    resilience::FaultStudyResult result;
    result.baselineSeconds = resilience::stepSeconds(scenario, spec.backend);
    if (result.baselineSeconds == 0) {
        throw std::invalid_argument("hardware.faults: the scenario's own faults cut GPUs apart");
    }
    // This rank's trials: m_rank, m_rank + size, ...
    std::vector<double> mine;
    for (int index = m_rank; index < spec.trials; index += m_size) {
        mine.push_back(0);
    }
    graph::parallelFor(mine.size(), threads, [&](std::size_t i) {
        const int index = m_rank + static_cast<int>(i) * m_size;
        mine[i] = resilience::runFaultTrial(scenario, spec, topology, pool, index).stepSeconds;
    });
#ifdef RAPID_WITH_MPI
    std::vector<int> counts(static_cast<std::size_t>(m_size));
    std::vector<int> offsets(static_cast<std::size_t>(m_size));
    for (int rank = 0; rank < m_size; ++rank) {
        counts[static_cast<std::size_t>(rank)] = (spec.trials - rank + m_size - 1) / m_size;
        offsets[static_cast<std::size_t>(rank)]
            = rank == 0 ? 0 : offsets[static_cast<std::size_t>(rank - 1)] + counts[static_cast<std::size_t>(rank - 1)];
    }
    std::vector<double> gathered(m_rank == 0 ? static_cast<std::size_t>(spec.trials) : 0);
    MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, gathered.data(), counts.data(), offsets.data(),
        MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (m_rank != 0) {
        return result;
    }
    // Rank r's j-th value is trial r + j * size; the links are drawn again from the trial's seed (no strings sent).
    for (int index = 0; index < spec.trials; ++index) {
        const int rank = index % m_size;
        resilience::FaultTrial trial;
        if (spec.slowGpus > 0) {
            trial.slowGpus = resilience::drawSlowGpus(spec, topology.gpuCount(), index);
        } else {
            trial.links = resilience::drawFaultLinks(spec, topology, pool, index);
        }
        trial.stepSeconds
            = gathered[static_cast<std::size_t>(offsets[static_cast<std::size_t>(rank)] + index / m_size)];
        trial.disconnected = trial.stepSeconds == 0;
        result.trials.push_back(std::move(trial));
    }
    resilience::summariseFaultStudy(result);
#endif
    return result;
}

} // namespace rapid::cli
