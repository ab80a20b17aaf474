// SPDX-License-Identifier: GPL-3.0-or-later
// The step and serving models against the published measurements in ../shared/validation (the same runs as
// `rapid validate`): every case evaluates, and each dataset's mean absolute percentage error meets the bar.
// Datasets that do not meet their bar yet are expected failures that name the figure, so a regression on a met bar
// fails and an improvement past a missed bar shows up as XPASS (then move it to the met list).
#include "testutils.h"
#include "validation/performancevalidation.h"

#include <QFileInfo>
#include <QTest>

#include <cmath>
#include <set>

using namespace rapid;

class TstPerformanceValidation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void datasetMeetsItsBar_data();
    void datasetMeetsItsBar();
};

void TstPerformanceValidation::datasetMeetsItsBar_data()
{
    QTest::addColumn<QString>("name");
    for (const std::string& name : validation::performanceDatasetNames()) {
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }
}

void TstPerformanceValidation::datasetMeetsItsBar()
{
    QFETCH(QString, name);
    const std::string shared = RAPID_SHARED_DIR;
    if (!QFileInfo::exists(QString::fromStdString(shared + "/validation"))) {
        QSKIP("shared validation data not present");
    }
    const validation::DatasetResult result = validation::validateDataset(
        validation::readPerformanceDataset(name.toStdString(), shared), test::projectPresets());
    QVERIFY(!result.cases.empty());
    for (const validation::CaseResult& c : result.cases) {
        QVERIFY2(c.failure.empty(), (c.source->label + ": " + c.failure).c_str());
        QVERIFY2(std::isfinite(c.predicted) && c.predicted > 0, c.source->label.c_str());
    }
    qInfo("%s: mean absolute error %.2f%% (bar %.0f%%)", qPrintable(name), result.meanAbsolutePercentageError,
        result.dataset.barPercent);
    // Bars not met yet (issues #3/#4 say why): the lab's PyTorch stack for uci-llama2, NeMo's per-layer overheads at
    // high TP for imec, the long-context batch-8/32 decode rows for koyeb.
    static const std::set<QString> kMissed
        = { QStringLiteral("uci-llama2"), QStringLiteral("imec"), QStringLiteral("koyeb") };
    if (kMissed.count(name)) {
        QEXPECT_FAIL("", "bar not met yet (see the issue notes)", Continue);
    }
    QVERIFY2(result.meetsBar(),
        qPrintable(QStringLiteral("%1: %2% > bar %3%")
                       .arg(name)
                       .arg(result.meanAbsolutePercentageError, 0, 'f', 2)
                       .arg(result.dataset.barPercent)));
}

QTEST_GUILESS_MAIN(TstPerformanceValidation)
#include "tst_performancevalidation.moc"
