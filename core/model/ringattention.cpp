// SPDX-License-Identifier: GPL-3.0-or-later
#include "ringattention.h"

#include <stdexcept>

namespace rapid::model {

namespace {
constexpr double kFp32 = 4;
} // namespace

RingAttentionBytes pytorchRingAttentionBytes(
    double queryElements, double outputElements, double kvElements, std::int64_t contextParallel, double act)
{
    if (contextParallel < 2 || queryElements < 0 || outputElements < 0 || kvElements < 0 || act <= 0) {
        throw std::invalid_argument("ring attention: at least two context-parallel ranks and non-negative sizes");
    }
    const double later = static_cast<double>(contextParallel - 1); // steps after the first
    const double steps = static_cast<double>(contextParallel);
    const double cast = act + kFp32; // bf16 <-> fp32, read one write the other
    const double merge = (kFp32 + kFp32 + kFp32) + (kFp32 + kFp32) + (kFp32 + kFp32 + kFp32);
    const double accumulate = kFp32 + act + kFp32;
    const double concatenate = 2 * act;
    RingAttentionBytes bytes;
    bytes.forward = outputElements * (cast + later * (cast + merge) + cast) + kvElements * later * concatenate;
    bytes.backward = queryElements * (kFp32 + steps * accumulate + cast)
        + kvElements * (kFp32 + steps * accumulate + later * (2 * kFp32 + 2 * kFp32) + later * concatenate + cast);
    // Casts, the merge's five ops per later step, the K/V concatenations; backward zeroing, accumulations,
    // concatenations and casts.
    bytes.forwardKernels = static_cast<int>(2 + 6 * later + later);
    bytes.backwardKernels = static_cast<int>(3 + 3 * steps + 3 * later + 3);
    return bytes;
}

} // namespace rapid::model
