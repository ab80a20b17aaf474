// SPDX-License-Identifier: GPL-3.0-or-later
#include "expertdispatch.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

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

/// Consecutive routing: the mean number of destinations a block of k consecutive experts covers, over the block
/// starts t k mod E (the multiples of gcd(k, E)); destinations hold E/d consecutive experts each.
double consecutiveBlockDestinations(const ExpertRouting& r, int destinations)
{
    const int perDestination = r.experts / destinations;
    const int step = std::gcd(r.topK, r.experts);
    double covered = 0;
    int starts = 0;
    for (int start = 0; start < r.experts; start += step, ++starts) {
        std::set<int> holders;
        for (int j = 0; j < r.topK; ++j) {
            holders.insert(((start + j) % r.experts) / perDestination);
        }
        covered += static_cast<double>(holders.size());
    }
    return covered / starts;
}

} // namespace

double deepEpShare(const ExpertRouting& routing, int destinations)
{
    if (destinations <= 1 || routing.topK <= 0 || routing.experts < destinations || routing.topK > routing.experts) {
        return 1.0;
    }
    if (routing.consecutive && routing.experts % destinations == 0) {
        return std::clamp(consecutiveBlockDestinations(routing, destinations) / routing.topK, 1e-9, 1.0);
    }
    const double remoteDestinations = (destinations - 1) * (1.0 - noneOnDestination(routing, destinations));
    const double remoteCopies = routing.topK * static_cast<double>(destinations - 1) / destinations;
    return std::clamp(remoteDestinations / remoteCopies, 1e-9, 1.0);
}

} // namespace rapid::parallel
