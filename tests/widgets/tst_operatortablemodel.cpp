// SPDX-License-Identifier: GPL-3.0-or-later
// OperatorTableModel under QAbstractItemModelTester (alone and behind the sorting proxy the results panel uses), and
// numeric sorting through its SortRole.
#include "results/operatortablemodel.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QTest>

using rapid::widgets::OperatorRow;
using rapid::widgets::OperatorTableModel;

namespace {

std::vector<OperatorRow> sampleRows()
{
    using rapid::compute::OperatorBound;
    using rapid::model::Phase;
    // Seconds chosen so that text order (1e-05 < 2 < 9) differs from numeric order.
    return {
        { "attention.qkv_projection", Phase::Forward, "Gemm 8192x8192x1280", 1.7e11, 0, 9e-4, OperatorBound::Compute },
        { "attention.norm", Phase::Forward, "Norm", 1e8, 6.7e7, 1e-5, OperatorBound::Hbm },
        { "mlp.down_projection.dx", Phase::Backward, "Gemm 8192x3584x8192", 4.8e11, 0, 2e-3, OperatorBound::Compute },
    };
}

} // namespace

class TstOperatorTableModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void passesModelTester();
    void sortsNumerically();
};

void TstOperatorTableModel::passesModelTester()
{
    OperatorTableModel model;
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(OperatorTableModel::SortRole);
    proxy.sort(OperatorTableModel::Time, Qt::DescendingOrder);
    QAbstractItemModelTester modelTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), int(OperatorTableModel::ColumnCount));
    model.setRows(sampleRows());
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(proxy.rowCount(), 3);
    model.setRows({});
    QCOMPARE(proxy.rowCount(), 0);
    model.setRows(sampleRows());
    // A header click while filled: the proxy reorders under the testers.
    proxy.sort(OperatorTableModel::Name, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, OperatorTableModel::Name).data().toString(), QStringLiteral("attention.norm"));
    QCOMPARE(model.index(0, OperatorTableModel::Phase).data().toString(), QStringLiteral("forward"));
    QCOMPARE(model.index(1, OperatorTableModel::Bound).data().toString().isEmpty(), false);
    QCOMPARE(model.index(0, OperatorTableModel::Time).data().toString(), QStringLiteral("0.900"));
    QCOMPARE(model.headerData(OperatorTableModel::Time, Qt::Horizontal, Qt::InitialSortOrderRole).toInt(),
        int(Qt::DescendingOrder));
}

void TstOperatorTableModel::sortsNumerically()
{
    OperatorTableModel model;
    model.setRows(sampleRows());
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(OperatorTableModel::SortRole);
    proxy.sort(OperatorTableModel::Time, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, OperatorTableModel::Name).data().toString(), QStringLiteral("mlp.down_projection.dx"));
    QCOMPARE(proxy.index(2, OperatorTableModel::Name).data().toString(), QStringLiteral("attention.norm"));
    proxy.sort(OperatorTableModel::Flops, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, OperatorTableModel::Name).data().toString(), QStringLiteral("attention.norm"));
}

QTEST_MAIN(TstOperatorTableModel)
#include "tst_operatortablemodel.moc"
