// SPDX-License-Identifier: GPL-3.0-or-later
#include "casesummary.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace rapid::validation {

namespace {

/// A case's absolute error as the dataset's figure counts it.
double countedAbsoluteError(const CaseResult& c)
{
    return c.failure.empty() ? std::fabs(c.errorPercent) : 100.0;
}

/// Every case of @p result, in the dataset's order.
std::vector<const CaseResult*> allCases(const DatasetResult& result)
{
    std::vector<const CaseResult*> all;
    all.reserve(result.cases.size());
    for (const CaseResult& c : result.cases) {
        all.push_back(&c);
    }
    return all;
}

} // namespace

double median(std::vector<double> values)
{
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

std::vector<GroupSummary> summarizeGroups(const DatasetResult& result)
{
    struct Sums {
        std::size_t cases = 0;
        std::size_t failed = 0;
        double absoluteError = 0;
        std::vector<double> signedErrors;
    };
    std::map<std::string, Sums> byGroup;
    double total = 0;
    for (const CaseResult& c : result.cases) {
        const double absolute = countedAbsoluteError(c);
        total += absolute;
        if (c.source == nullptr || c.source->group.empty()) {
            continue;
        }
        Sums& sums = byGroup[c.source->group];
        ++sums.cases;
        sums.absoluteError += absolute;
        if (c.failure.empty()) {
            sums.signedErrors.push_back(c.errorPercent);
        } else {
            ++sums.failed;
        }
    }
    std::vector<GroupSummary> groups;
    for (auto& [name, sums] : byGroup) {
        GroupSummary group;
        group.group = name;
        group.cases = sums.cases;
        group.failed = sums.failed;
        group.meanAbsolutePercentageError = sums.absoluteError / static_cast<double>(sums.cases);
        group.medianSignedErrorPercent = median(std::move(sums.signedErrors));
        group.shareOfAbsoluteError = total > 0 ? sums.absoluteError / total : 0;
        groups.push_back(group);
    }
    std::stable_sort(groups.begin(), groups.end(),
        [](const GroupSummary& a, const GroupSummary& b) { return a.shareOfAbsoluteError > b.shareOfAbsoluteError; });
    return groups;
}

std::vector<const CaseResult*> worstCases(const DatasetResult& result, std::size_t count)
{
    std::vector<const CaseResult*> order = allCases(result);
    std::stable_sort(order.begin(), order.end(), [](const CaseResult* a, const CaseResult* b) {
        if (a->failure.empty() != b->failure.empty()) {
            return !a->failure.empty();
        }
        return countedAbsoluteError(*a) > countedAbsoluteError(*b);
    });
    order.resize(std::min(count, order.size()));
    return order;
}

std::vector<const CaseResult*> listedCases(const DatasetResult& result, bool every)
{
    if (!every && result.cases.size() > kListEveryCaseUpTo) {
        return worstCases(result, kWorstCasesListed);
    }
    return allCases(result);
}

} // namespace rapid::validation
