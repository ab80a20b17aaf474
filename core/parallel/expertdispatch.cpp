// SPDX-License-Identifier: GPL-3.0-or-later
#include "expertdispatch.h"

#include <algorithm>

namespace rapid::parallel {

double deepEpShare(int experts, int topK, int destinations)
{
    if (destinations <= 1 || topK <= 0 || experts < destinations || topK > experts) {
        return 1.0;
    }
    const double perDestination = static_cast<double>(experts) / destinations;
    // P(a given node holds none of the token's experts) = prod_{i<k} (E - E/n - i) / (E - i).
    double none = 1.0;
    for (int i = 0; i < topK; ++i) {
        none *= std::max(0.0, (experts - perDestination - i) / (experts - i));
    }
    const double remoteNodes = (destinations - 1) * (1.0 - none);
    const double remoteCopies = topK * static_cast<double>(destinations - 1) / destinations;
    return std::clamp(remoteNodes / remoteCopies, 1e-9, 1.0);
}

} // namespace rapid::parallel
