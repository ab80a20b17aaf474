// SPDX-License-Identifier: GPL-3.0-or-later
// SweepTableModel under QAbstractItemModelTester, alone and behind a sorting proxy as the Sweep tab uses it, while it
// is filled with a training sweep, refilled with an inference one (other columns), sorted and cleared.
#include "sweeps/sweeptablemodel.h"
#include "testutils.h"

#include "sweep/sweepspace.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using rapid::widgets::SweepTableModel;
namespace sweep = rapid::sweep;

namespace {

std::shared_ptr<const sweep::SweepResult> sweepOf(
    const std::string& workspace, const std::vector<std::string>& base, const sweep::SweepSpace& space)
{
    const sweep::ScenarioFactory factory = [workspace, base](const std::vector<std::string>& overrides) {
        std::vector<std::string> all = base;
        all.insert(all.end(), overrides.begin(), overrides.end());
        return rapid::test::projectLoader().loadWorkspace(workspace, all);
    };
    sweep::SweepOptions options;
    options.threads = 1;
    return std::make_shared<const sweep::SweepResult>(sweep::runSweep(space, factory, options));
}

} // namespace

class TstSweepTableModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void passesModelTester();
};

void TstSweepTableModel::passesModelTester()
{
    SweepTableModel model;
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(SweepTableModel::SortRole);
    QAbstractItemModelTester modelTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);

    // Training: 3 micro-batch values x 2 recompute modes = 6 points, one axis column each.
    const auto training = sweepOf("llama-3.1-70b-64xh100", { "run.training.global_batch=32" },
        sweep::SweepSpace({ sweep::parseSweepAxis("run.training.micro_batch=1,2,4"),
            sweep::parseSweepAxis("run.training.recompute=none,full") }));
    QVERIFY(training->count(sweep::PointStatus::Ok) > 0);
    model.setResult(training, false);
    QCOMPARE(model.rowCount(), 6);
    QCOMPARE(proxy.rowCount(), 6);
    QVERIFY(model.column(SweepTableModel::Figure::StepTime) >= 2);
    QCOMPARE(model.column(SweepTableModel::Figure::Ttft), -1);
    proxy.sort(model.column(SweepTableModel::Figure::StepTime), Qt::AscendingOrder);
    proxy.sort(0, Qt::DescendingOrder);

    // Inference: other columns, fewer rows.
    const auto inference = sweepOf("llama-3.1-70b-64xh100",
        { "run.mode=inference", "run.training=null", "run.inference.batch=1", "run.inference.prompt_length=128",
            "run.inference.decode_length=16", "run.parallelism.pp=1", "run.parallelism.dp=8",
            "run.parallelism.schedule=1f1b", "run.parallelism.virtual_stages=1" },
        sweep::SweepSpace({ sweep::parseSweepAxis("run.inference.batch=1,8") }));
    QVERIFY2(inference->count(sweep::PointStatus::Ok) == 2, inference->rows.front().message.c_str());
    model.setResult(inference, true);
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(model.column(SweepTableModel::Figure::Ttft) >= 1);

    model.setResult(nullptr, false);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(proxy.rowCount(), 0);
}

QTEST_MAIN(TstSweepTableModel)
#include "tst_sweeptablemodel.moc"
