// SPDX-License-Identifier: GPL-3.0-or-later
// File > Export Step as Chakra Traces: the files are written off the GUI thread with a progress dialog; the set has
// one trace per rank of the job (tp x pp x dp x cp, counted from the run) and reads back; Cancel stops the export,
// removes what it wrote and reports no result.
#include "widgettestutils.h"

#include "editors/workspacedocument.h"
#include "mainwindow.h"
#include "tracegraph/chakraexportjob.h"

#include "graph/chakrareader.h"

#include <QDir>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace rapid;
using rapid::test::openWindow;

namespace {

constexpr int kExportTimeoutMs = 120000;

int traceFiles(const QString& directory)
{
    return static_cast<int>(QDir(directory).entryList({ QStringLiteral("rapid.*.et") }, QDir::Files).size());
}

} // namespace

class TestChakraExport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void writesOneTracePerRank()
    {
        auto window = openWindow();
        QVERIFY(window);
        QVERIFY(window->document()->scenario().has_value());
        const config::RunSpec& run = window->document()->scenario()->run;
        const int ranks = run.parallelism.tp * run.parallelism.pp * run.parallelism.dp * run.parallelism.cp;
        QCOMPARE(ranks, 64); // the default workspace: tp 8 x pp 4 x dp 2
        QTemporaryDir dir;
        QVERIFY(window->exportChakraTraces(dir.path(), sim::ChakraDetail::Chunk));
        QSignalSpy finished(window->chakraExportJob(), &widgets::ChakraExportJob::finished);
        QVERIFY(window->chakraExportProgress() && window->chakraExportProgress()->isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kExportTimeoutMs);
        QVERIFY(window->chakraExportProgress() == nullptr);
        QCOMPARE(traceFiles(dir.path()), ranks);
        QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("comm_groups.json")))); // dp 2: data-parallel groups
        const auto summary = finished.first().at(0).value<sim::ChakraExportSummary>();
        QCOMPARE(summary.files, ranks);
        const std::vector<graph::ChakraTrace> traces = graph::readChakraDirectory(dir.path().toStdString());
        QCOMPARE(static_cast<int>(traces.size()), ranks);
        size_t nodes = 0;
        for (const graph::ChakraTrace& trace : traces) {
            nodes += trace.nodes.size();
        }
        QCOMPARE(nodes, summary.nodes);
        QVERIFY(window->statusBar()->currentMessage().contains(QStringLiteral("64 Chakra trace file(s)")));
    }

    void cancelRemovesTheFilesAndReportsNothing()
    {
        auto window = openWindow();
        QVERIFY(window);
        QTemporaryDir dir;
        // Operator detail of the default workspace: every layer's operators of every pass, for 64 ranks (slow).
        QVERIFY(window->exportChakraTraces(dir.path(), sim::ChakraDetail::Operator));
        widgets::ChakraExportJob* job = window->chakraExportJob();
        QSignalSpy finished(job, &widgets::ChakraExportJob::finished);
        QSignalSpy cancelled(job, &widgets::ChakraExportJob::cancelled);
        QSignalSpy progress(job, &widgets::ChakraExportJob::progressChanged);
        QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0 || finished.count() > 0, kExportTimeoutMs);
        QCOMPARE(finished.count(), 0); // far from done after the first file
        QPushButton* cancel = window->chakraExportProgress()->findChild<QPushButton*>();
        QVERIFY(cancel);
        // The status message times out: on a loaded machine removing the files can outlast it, so every message
        // shown from the click on is kept.
        QSignalSpy messages(window->statusBar(), &QStatusBar::messageChanged);
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, kExportTimeoutMs);
        QVERIFY(!job->isRunning());
        // The worker stops at the next file and takes back what it wrote; the window stays usable meanwhile.
        QTRY_COMPARE_WITH_TIMEOUT(traceFiles(dir.path()), 0, kExportTimeoutMs);
        QTest::qWait(200);
        QCOMPARE(finished.count(), 0);
        const bool reported = std::any_of(messages.begin(), messages.end(), [](const QList<QVariant>& message) {
            return message.at(0).toString().contains(QStringLiteral("cancelled"));
        });
        QVERIFY(reported);
    }
};

QTEST_MAIN(TestChakraExport)
#include "tst_chakraexport.moc"
