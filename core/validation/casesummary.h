// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "validation/performancevalidation.h"

#include <cstddef>
#include <string>
#include <vector>

namespace rapid::validation {

/// One slice of a dataset's cases (ValidationCase::group: an engine and its version, a GPU, a model...) and how well
/// the model predicts it, counted as the dataset's own figure counts: a case that could not be evaluated is a 100%
/// error and has no signed error.
struct GroupSummary {
    std::string group;
    std::size_t cases = 0;
    std::size_t failed = 0;
    double meanAbsolutePercentageError = 0;
    double medianSignedErrorPercent = 0; ///< over the evaluated cases; 0 when none was
    /// This group's part of the dataset's summed absolute error, 0 to 1: where the dataset's figure comes from.
    double shareOfAbsoluteError = 0;
};

/// The groups of @p result's cases, the largest share of the absolute error first (ties: by name). Cases without a
/// group form none; empty when no case has one.
std::vector<GroupSummary> summarizeGroups(const DatasetResult& result);

/// The @p count cases furthest from their measurement, furthest first: cases that could not be evaluated first, then
/// by absolute error; ties keep the dataset's order.
std::vector<const CaseResult*> worstCases(const DatasetResult& result, std::size_t count);

/// A set larger than this lists only its worst cases, kWorstCasesListed of them, unless every case is asked for.
inline constexpr std::size_t kListEveryCaseUpTo = 50;
inline constexpr std::size_t kWorstCasesListed = 15;

/// The cases `rapid validate` lists for @p result: every one in the dataset's order when @p every or when the set has
/// at most kListEveryCaseUpTo, else the kWorstCasesListed worst (worstCases).
std::vector<const CaseResult*> listedCases(const DatasetResult& result, bool every);

/// Median of @p values (the mean of the middle two for an even count); 0 for none.
double median(std::vector<double> values);

} // namespace rapid::validation
