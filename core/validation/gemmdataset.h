// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compute/gemmmodel.h"
#include "config/hardwarespec.h"

#include <string>
#include <vector>

namespace rapid::validation {

/// One GEMM of ../shared/validation/gemm/ncu_a100_gemm.csv: half-precision tensor-core GEMMs profiled with Nsight
/// Compute on an A100, each at the SM clock of its clock_Ghz column (Nsight locks the clock).
struct GemmMeasurement {
    compute::GemmShape shape;
    double measuredSeconds = 0;
    double clockGhz = 0;
};

/// Reads the file; throws std::runtime_error naming the file, the column and the line when a value is missing.
std::vector<GemmMeasurement> readNcuGemms(const std::string& path);

struct GemmValidationRow {
    const GemmMeasurement* measurement = nullptr;
    compute::GemmEstimate estimate;
    double errorPercent = 0; ///< signed: (predicted - measured) / measured
};

struct GemmValidationSummary {
    std::vector<GemmValidationRow> rows;
    double meanAbsolutePercentageError = 0; ///< every row
    double matrixMeanAbsolutePercentageError = 0; ///< the rows with n > 1 (the GEMVs left out)
    int matrixRows = 0;
};

/// Predicts every measurement on @p preset with its clock derated to the row's SM clock (HBM does not follow it).
GemmValidationSummary validateGemms(const std::vector<GemmMeasurement>& measurements, const config::GpuSpec& preset);

} // namespace rapid::validation
