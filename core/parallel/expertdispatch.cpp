// SPDX-License-Identifier: GPL-3.0-or-later
#include "expertdispatch.h"

#include <algorithm>
#include <cmath>

namespace rapid::parallel {

namespace {

/// C(n - m, k) / C(n, k): the chance that k draws without replacement from n miss m given items.
double missAll(double n, double m, int k)
{
    double chance = 1.0;
    for (int i = 0; i < k; ++i) {
        chance *= std::max(0.0, (n - m - i) / (n - i));
    }
    return chance;
}

double logChoose(double n, double k)
{
    return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
}

/// The chance that one destination holds none of a token's experts.
double noneOnDestination(const ExpertRouting& r, int destinations)
{
    const double perDestination = static_cast<double>(r.experts) / destinations;
    const bool limited = r.groupsPerToken < r.groups;
    if (!limited) {
        return missAll(r.experts, perDestination, r.topK);
    }
    const double perGroup = static_cast<double>(r.experts) / r.groups;
    const double pool = r.groupsPerToken * perGroup; // the experts of the chosen groups
    if (r.groups % destinations == 0) {
        const int held = r.groups / destinations; // whole groups on this destination
        double none = 0;
        for (int j = 0; j <= std::min(held, r.groupsPerToken); ++j) {
            if (r.groupsPerToken - j > r.groups - held) {
                continue;
            }
            const double chosen = std::exp(logChoose(held, j) + logChoose(r.groups - held, r.groupsPerToken - j)
                - logChoose(r.groups, r.groupsPerToken));
            none += chosen * missAll(pool, j * perGroup, r.topK);
        }
        return none;
    }
    if (destinations % r.groups == 0) {
        const double groupChosen = static_cast<double>(r.groupsPerToken) / r.groups;
        return 1 - groupChosen + groupChosen * missAll(pool, perDestination, r.topK);
    }
    return missAll(r.experts, perDestination, r.topK);
}

} // namespace

double deepEpShare(const ExpertRouting& routing, int destinations)
{
    if (destinations <= 1 || routing.topK <= 0 || routing.experts < destinations || routing.topK > routing.experts) {
        return 1.0;
    }
    const double remoteDestinations = (destinations - 1) * (1.0 - noneOnDestination(routing, destinations));
    const double remoteCopies = routing.topK * static_cast<double>(destinations - 1) / destinations;
    return std::clamp(remoteDestinations / remoteCopies, 1e-9, 1.0);
}

} // namespace rapid::parallel
