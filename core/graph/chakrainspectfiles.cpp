// SPDX-License-Identifier: GPL-3.0-or-later
// Inspection of a trace set straight from its files: a 1,024-rank set of a large training step is gigabytes of files
// and several times that decoded, so files are read, inspected and dropped a few at a time, on worker threads, and
// only their fragments (counts, defects, what the cross-rank checks keep) are merged, in rank order.
#include "chakrainspect.h"
#include "chakrainspect_p.h"
#include "chakrareader.h"

#include "parallelfor.h"

#include <algorithm>
#include <thread>

namespace rapid::graph {

ChakraInspection inspectChakraFiles(
    const std::vector<std::filesystem::path>& files, const ChakraCommGroups* groups, unsigned threads)
{
    if (threads == 0) {
        threads = std::max(1u, std::thread::hardware_concurrency());
    }
    std::set<int> ranks;
    int previous = -1;
    bool ascending = true;
    for (const std::filesystem::path& file : files) {
        const int rank = chakraRankFromFileName(file.filename().string()).value_or(0);
        ascending = ascending && rank > previous;
        previous = rank;
        ranks.insert(rank);
    }
    if (!ascending) { // not one file per rank in rank order (not what listChakraSet gives): the general path
        std::vector<ChakraTrace> traces;
        for (const std::filesystem::path& file : files) {
            traces.push_back(readChakraFile(file));
        }
        return inspectChakra(traces, groups);
    }
    ChakraInspection inspection;
    detail::CrossRankCheck check(ranks, groups);
    // A few files per thread in flight: enough to keep the threads busy, few enough that memory stays flat.
    const std::size_t batch = std::size_t { threads } * 4;
    std::vector<detail::RankFragment> fragments(batch);
    for (std::size_t first = 0; first < files.size(); first += batch) {
        const std::size_t last = std::min(files.size(), first + batch);
        parallelFor(last - first, threads,
            [&](std::size_t i) { fragments[i] = detail::inspectRank(readChakraFile(files[first + i]), groups); });
        for (std::size_t i = first; i < last; ++i) {
            detail::RankFragment& fragment = fragments[i - first];
            inspection.defects.insert(inspection.defects.end(), std::make_move_iterator(fragment.defects.begin()),
                std::make_move_iterator(fragment.defects.end()));
            check.add(fragment.report.rank, fragment);
            inspection.ranks.push_back(std::move(fragment.report));
        }
    }
    check.finish(inspection.defects);
    return inspection;
}

} // namespace rapid::graph
