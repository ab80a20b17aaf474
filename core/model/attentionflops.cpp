// SPDX-License-Identifier: GPL-3.0-or-later
#include "attentionflops.h"

namespace rapid::model {

double attentionPairs(const AttentionDims& dims)
{
    const double queries = static_cast<double>(dims.queryLength);
    const double keys = static_cast<double>(dims.keyLength);
    const double full = dims.causal ? queries * (keys + 1) / 2 : queries * keys;
    if (dims.window <= 0 || dims.windowedShare <= 0) {
        return full;
    }
    const double w = static_cast<double>(dims.window);
    double windowed = 0;
    if (dims.causal) {
        // Over a sequence of keys tokens: the first w queries see 1..w keys, the rest w each; this GPU's queries
        // take their share of it, as for full causal attention.
        const double sequencePairs = keys <= w ? keys * (keys + 1) / 2 : w * (w + 1) / 2 + (keys - w) * w;
        windowed = sequencePairs * queries / keys;
    } else {
        windowed = queries * (keys < w ? keys : w);
    }
    return dims.windowedShare * windowed + (1 - dims.windowedShare) * full;
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
