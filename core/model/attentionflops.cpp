// SPDX-License-Identifier: GPL-3.0-or-later
#include "attentionflops.h"

namespace rapid::model {

double attentionPairs(const AttentionDims& dims)
{
    const double queries = static_cast<double>(dims.queryLength);
    const double keys = static_cast<double>(dims.keyLength);
    return dims.causal ? queries * (keys + 1) / 2 : queries * keys;
}

double attentionForwardFlops(const AttentionDims& dims)
{
    return 2.0 * static_cast<double>(dims.batch) * static_cast<double>(dims.heads) * attentionPairs(dims)
        * static_cast<double>(dims.headDimQk + dims.headDimV);
}

double attentionBackwardFlops(const AttentionDims& dims, bool recomputeScores)
{
    const double perPair = 2.0 * static_cast<double>(dims.headDimQk + dims.headDimV)
        + (recomputeScores ? static_cast<double>(dims.headDimQk) : 0.0);
    return 2.0 * static_cast<double>(dims.batch) * static_cast<double>(dims.heads) * attentionPairs(dims) * perPair;
}

} // namespace rapid::model
