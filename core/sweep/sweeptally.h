// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "sweep/sweeprunner.h"

#include <cstdint>
#include <vector>

namespace rapid::sweep {

/// Whether row @p a takes row @p b off the Pareto front (both evaluated): at least the throughput per GPU and at most
/// the cost (memory peak for training, end-to-end latency for inference), not equal in both, or equal in both with
/// the lower index. The front of markParetoFront is the rows no other row beats.
bool beatsOnFront(const SweepRow& a, const SweepRow& b);

/// What a sweep keeps of its rows when it does not keep them all: counts per status, the best rows by throughput per
/// GPU, the Pareto front (maintained row by row), the first distinct rejection reasons. Rows must come in increasing
/// index order; memory is bounded by the top rows and the front, not by the rows added.
class SweepTally {
public:
    explicit SweepTally(int keepTop);

    void add(const SweepRow& row);

    /// Writes the tallies into @p result: statusCounts (NotRun = the points of its space not added), top (pareto
    /// marked), paretoFront (best throughput first), rejections.
    void finish(SweepResult& result);

private:
    void addToTop(const SweepRow& row);
    void addToFront(const SweepRow& row);

    size_t m_keepTop;
    std::int64_t m_added = 0;
    std::array<std::int64_t, 5> m_counts {};
    std::vector<SweepRow> m_top; ///< a heap, the worst row on top
    std::vector<SweepRow> m_front; ///< rows no row added so far beats
    std::vector<SweepRow> m_rejections;
};

} // namespace rapid::sweep
