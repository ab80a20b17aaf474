// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "config/presetlibrary.h"
#include "validation/performancedatasets.h"
#include "validation/servedmemo.h"

#include <string>
#include <vector>

namespace rapid::validation {

struct CaseResult {
    const ValidationCase* source = nullptr;
    double predicted = 0;
    double errorPercent = 0; ///< signed, 100 * (predicted / measured - 1)
    double predictedTtft = -1;
    double predictedItl = -1;
    /// Whether the configuration the case assumes fits in GPU memory by our memory model, and its peak. A case that
    /// does not fit was measured with a setup other than the one assumed (offloading, sharded optimizer states,
    /// recomputation...), which the dataset does not record: its time is a prediction for a run that cannot happen.
    bool fitsInMemory = true;
    double peakMemoryBytes = 0;
    double capacityBytes = 0;
    std::string failure; ///< non-empty when the case could not be evaluated (the message)
};

struct DatasetResult {
    Dataset dataset;
    std::vector<CaseResult> cases;
    double meanAbsolutePercentageError = 0;
    /// Mean absolute percentage error of each comparator tool over the cases it predicted.
    std::vector<std::pair<std::string, double>> comparatorErrors;
    double seconds = 0; ///< wall time of our evaluations
    /// Served cases answered by ValidateOptions::servedMemo (closed loops an earlier dataset of the run served).
    int servedFromMemo = 0;
    double medianSignedErrorPercent = 0; ///< over the evaluated cases
    /// Whether the dataset is judged by a bar at all (see Dataset::noBarReason).
    bool hasBar() const { return dataset.noBarReason.empty(); }
    bool meetsBar() const { return !hasBar() || meanAbsolutePercentageError <= dataset.barPercent; }
};

struct ValidateOptions {
    unsigned threads = 0; ///< cases evaluated at once; 0: one per hardware thread
    /// Closed loops already served by another dataset of the same run (the TTFT and ITL views of one file), shared
    /// and filled; none: every served case is simulated.
    ServedMemo* servedMemo = nullptr;
};

/// Predicts every case of @p dataset with the analytical step model and compares with the measurements. The result
/// does not depend on options.threads.
DatasetResult validateDataset(
    Dataset dataset, const config::PresetLibrary& library, const ValidateOptions& options = {});

} // namespace rapid::validation
