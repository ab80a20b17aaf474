// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "resilience/faultstudy.h"

namespace rapid::cli {

/// The processes of an mpirun launch sharing a fault study: trial i runs on rank i mod size (its outcome depends on
/// i alone), the step times are gathered on rank 0, which alone has the whole result. Without MPI in the build, or
/// when not launched by mpirun, one process does everything. Initialises MPI on construction, finalises it after.
class MpiSplit {
public:
    MpiSplit();
    ~MpiSplit();
    MpiSplit(const MpiSplit&) = delete;
    MpiSplit& operator=(const MpiSplit&) = delete;

    int rank() const { return m_rank; }
    int size() const { return m_size; }
    bool isRoot() const { return m_rank == 0; }

    /// The study of @p spec: complete on rank 0; other ranks return their own share's summary only.
    resilience::FaultStudyResult runFaultStudy(
        const config::Scenario& scenario, const resilience::FaultStudySpec& spec, unsigned threads) const;

private:
    bool m_initialised = false;
    int m_rank = 0;
    int m_size = 1;
};

} // namespace rapid::cli
