// SPDX-License-Identifier: GPL-3.0-or-later
#include "validategemms.h"

#include "config/configloader.h"
#include "validation/gemmdataset.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace rapid::cli {

namespace {

constexpr double kBarPercent = 12.0; // issue #15: A100 GEMMs including the GEMV rows

std::string rowText(const validation::GemmValidationRow& row)
{
    const compute::GemmShape& s = row.measurement->shape;
    const compute::GemmEstimate& e = row.estimate;
    char line[200];
    std::snprintf(line, sizeof line, "   %6lld %6lld %6lld  %10.4f  %10.4f  %+7.1f%%  %-13s %dx%dx%d/%d\n",
        static_cast<long long>(s.m), static_cast<long long>(s.k), static_cast<long long>(s.n),
        row.measurement->measuredSeconds * 1e3, e.totalSeconds * 1e3, row.errorPercent, toString(e.bound), e.tile.ctaM,
        e.tile.ctaN, e.tile.ctaK, e.tile.stages);
    return line;
}

} // namespace

bool validateGemmDataset(
    const std::string& sharedDir, bool verbose, const std::optional<std::string>& csvPath, std::ostream& out)
{
    const std::string path = sharedDir + "/validation/gemm/ncu_a100_gemm.csv";
    const std::vector<validation::GemmMeasurement> measurements = validation::readNcuGemms(path);
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    const validation::GemmValidationSummary summary
        = validation::validateGemms(measurements, loader.loadHardware("a100-sxm4-80gb").gpu);
    out << "== gemm: " << measurements.size()
        << " fp16 GEMMs on an A100 profiled with Nsight Compute, each at its locked SM clock (" << path << ")\n";
    std::vector<const validation::GemmValidationRow*> order;
    for (const validation::GemmValidationRow& row : summary.rows) {
        order.push_back(&row);
    }
    if (!verbose) {
        // The worst rows only.
        std::sort(order.begin(), order.end(),
            [](const auto* a, const auto* b) { return std::abs(a->errorPercent) > std::abs(b->errorPercent); });
        order.resize(std::min<size_t>(order.size(), 6));
    }
    out << "        m      k      n     meas ms     pred ms     error  bound         tile"
        << (verbose ? "" : " (worst)") << '\n';
    for (const validation::GemmValidationRow* row : order) {
        out << rowText(*row);
    }
    const bool met = summary.meanAbsolutePercentageError <= kBarPercent;
    char line[300];
    std::snprintf(line, sizeof line,
        "   mean absolute error %.2f%% (bar %.0f%%: %s); %.2f%% over the %d with n > 1 (the GEMVs, n = 1, stream the "
        "matrix with one K-slice in flight per CTA)\n\n",
        summary.meanAbsolutePercentageError, kBarPercent, met ? "met" : "MISSED",
        summary.matrixMeanAbsolutePercentageError, summary.matrixRows);
    out << line;
    if (csvPath) {
        std::ofstream csv(*csvPath);
        csv << "m,k,n,measured_seconds,predicted_seconds,error_percent,bound\n";
        for (const validation::GemmValidationRow& row : summary.rows) {
            const compute::GemmShape& s = row.measurement->shape;
            csv << s.m << ',' << s.k << ',' << s.n << ',' << row.measurement->measuredSeconds << ','
                << row.estimate.totalSeconds << ',' << row.errorPercent << ',' << toString(row.estimate.bound) << '\n';
        }
    }
    return met;
}

} // namespace rapid::cli
