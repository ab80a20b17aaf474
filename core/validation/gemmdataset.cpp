// SPDX-License-Identifier: GPL-3.0-or-later
#include "gemmdataset.h"

#include "validation/csvtable.h"

#include <cmath>
#include <stdexcept>

namespace rapid::validation {

std::vector<GemmMeasurement> readNcuGemms(const std::string& path)
{
    const CsvTable table = CsvTable::read(path);
    const std::string source = "GEMM dataset " + path;
    std::vector<GemmMeasurement> measurements;
    for (size_t row = 0; row < table.rows(); ++row) {
        GemmMeasurement m;
        m.shape.m = table.integer(row, "m", source);
        m.shape.k = table.integer(row, "k", source);
        m.shape.n = table.integer(row, "n", source);
        m.shape.precision = config::Precision::Fp16; // the profiled kernels are half-precision tensor-core GEMMs
        const auto latency = table.number(row, "latency_ms");
        const auto clock = table.number(row, "clock_Ghz");
        if (!latency || !clock || *latency <= 0 || *clock <= 0) {
            throw std::runtime_error(
                source + ": row " + std::to_string(row + 2) + " needs positive latency_ms and clock_Ghz");
        }
        m.measuredSeconds = *latency * 1e-3;
        m.clockGhz = *clock;
        measurements.push_back(m);
    }
    return measurements;
}

GemmValidationSummary validateGemms(const std::vector<GemmMeasurement>& measurements, const config::GpuSpec& preset)
{
    GemmValidationSummary summary;
    double errorSum = 0;
    double matrixErrorSum = 0;
    for (const GemmMeasurement& m : measurements) {
        config::GpuSpec gpu = preset;
        gpu.clockScale = m.clockGhz / (preset.clockHz / 1e9);
        GemmValidationRow row { &m, compute::estimateGemm(gpu, m.shape), 0 };
        row.errorPercent = (row.estimate.totalSeconds - m.measuredSeconds) / m.measuredSeconds * 100;
        errorSum += std::fabs(row.errorPercent);
        if (m.shape.n > 1) {
            matrixErrorSum += std::fabs(row.errorPercent);
            ++summary.matrixRows;
        }
        summary.rows.push_back(row);
    }
    if (!summary.rows.empty()) {
        summary.meanAbsolutePercentageError = errorSum / static_cast<double>(summary.rows.size());
    }
    if (summary.matrixRows > 0) {
        summary.matrixMeanAbsolutePercentageError = matrixErrorSum / summary.matrixRows;
    }
    return summary;
}

} // namespace rapid::validation
