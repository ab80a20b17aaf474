// SPDX-License-Identifier: GPL-3.0-or-later
// The GEMM model against 48 GEMMs profiled with Nsight Compute on an A100 (shared validation data, never edited). Each
// row ran at the SM clock in its clock_Ghz column, so the preset's clock derate is set to that clock over the
// preset's boost clock; HBM bandwidth does not follow the SM clock. No per-row fitting: the only calibration is the
// preset's documented computeEfficiency. Prints the table and the mean absolute percentage error (ctest -V).
#include "compute/gemmmodel.h"
#include "testutils.h"
#include "validation/gemmdataset.h"
#include "validationfigure.h"

#include <QFileInfo>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

using namespace rapid;

namespace {

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

} // namespace

class TstGemmValidation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ncuA100Gemms();
};

void TstGemmValidation::ncuA100Gemms()
{
    const std::string path = RAPID_SHARED_DIR "/validation/gemm/ncu_a100_gemm.csv";
    if (!QFileInfo::exists(QString::fromStdString(path))) {
        QSKIP("validation/gemm/ncu_a100_gemm.csv not found under RAPID_SHARED_DIR");
    }
    // The same evaluation as `rapid validate --dataset gemm` (validation/gemmdataset.h).
    const std::vector<validation::GemmMeasurement> rows = validation::readNcuGemms(path);
    QCOMPARE(rows.size(), std::size_t(48));
    const config::GpuSpec preset = test::projectLoader().loadHardware("A100-SXM4-80GB").gpu;
    const validation::GemmValidationSummary summary = validation::validateGemms(rows, preset);
    QCOMPARE(summary.rows.size(), rows.size());

    std::vector<double> achievedFractions; // calibration evidence: compute-bound rows at efficiency 1
    std::vector<std::pair<double, QString>> worst;
    qInfo("%6s %6s %6s  %10s  %10s  %7s  %-13s  %s", "m", "k", "n", "meas ms", "pred ms", "err %", "bound", "tile");
    for (const validation::GemmValidationRow& result : summary.rows) {
        const validation::GemmMeasurement& row = *result.measurement;
        const compute::GemmEstimate& estimate = result.estimate;
        const double error = result.errorPercent;
        // Independently of the dataset code: the error is the prediction at the row's clock against the measurement.
        config::GpuSpec gpu = preset;
        gpu.clockScale = row.clockGhz / (preset.clockHz / 1e9);
        QCOMPARE(compute::estimateGemm(gpu, row.shape).totalSeconds, estimate.totalSeconds);
        const QString line = QString::asprintf("%6lld %6lld %6lld  %10.4f  %10.4f  %+7.1f  %-13s  %dx%dx%d/%d x%d/SM",
            static_cast<long long>(row.shape.m), static_cast<long long>(row.shape.k),
            static_cast<long long>(row.shape.n), row.measuredSeconds * 1e3, estimate.totalSeconds * 1e3, error,
            toString(estimate.bound), estimate.tile.ctaM, estimate.tile.ctaN, estimate.tile.ctaK, estimate.tile.stages,
            estimate.ctasPerSm);
        qInfo("%s", qPrintable(line));
        worst.emplace_back(std::fabs(error), line);

        if (estimate.bound == compute::GemmBound::Compute && estimate.waves >= 4) {
            gpu.computeEfficiency = 1;
            const compute::GemmEstimate ideal = compute::estimateGemm(gpu, row.shape);
            const double overheads = ideal.pipelineSeconds + ideal.launchSeconds;
            achievedFractions.push_back(ideal.computeSeconds / (row.measuredSeconds - overheads));
        }
    }
    const double mape = summary.meanAbsolutePercentageError;
    const double mapeMatrix = summary.matrixMeanAbsolutePercentageError;
    const int matrixRows = summary.matrixRows;
    std::sort(worst.begin(), worst.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    qInfo("worst rows:");
    for (std::size_t index = 0; index < 8 && index < worst.size(); ++index) {
        qInfo("%s", qPrintable(worst[index].second));
    }
    qInfo("MAPE over %zu GEMMs: %.2f%%; over the %d with n > 1: %.2f%%", rows.size(), mape, matrixRows, mapeMatrix);
    qInfo("preset computeEfficiency %.3f; compute-bound rows (>= 4 waves, %zu) achieve a median %.4f of the "
          "wave-quantised peak",
        preset.computeEfficiency, achievedFractions.size(),
        achievedFractions.empty() ? 0.0 : median(achievedFractions));

    test::checkValidationFigure({ QStringLiteral("GEMM MAPE (n > 1) %"), mapeMatrix, 12.0, std::nullopt, false });
    // The six n = 1 rows ran a 2-stage 64x64 tile kernel that streams A at 3-33% of HBM bandwidth (one 4 KiB K-slice
    // in flight per CTA). The model's memory-latency bound does not reach them: the best candidate keeps 2-3 slices in
    // flight, and even cuBLAS's own tile and grid under Little's law with the published latencies (0.2-0.4 us) give a
    // third of the measured 1.2-1.7 us per K-step. The bar (12%) is not met over all rows: held at 14.85% (the figure
    // on 2026-11-24) plus one point. Since the A100 preset's compute efficiency (0.98, fitted on these rows) left for
    // the MAMF method every GPU uses (docs/calibration.md, 2026-11-28) the figure was 15.64% (7.85% with n > 1); since
    // the preset's fitted efficiency.memory (0.816) moved to the A100 serving datasets it stood for (2026-12-05), the
    // HBM-bound rows stream at the measured BabelStream shares: 16.83% (8.63% with n > 1), the GEMVs further below
    // their measured times.
    test::checkValidationFigure({ QStringLiteral("GEMM MAPE (all rows) %"), mape, 12.0, 17.1, false });
}

QTEST_GUILESS_MAIN(TstGemmValidation)
#include "tst_gemmvalidation.moc"
