// SPDX-License-Identifier: GPL-3.0-or-later
// The Timeline view on a real prediction (Llama-3.1-70B on 64 H100, pp 4 with 5 virtual stages, ~2*10^4 events):
// rows per stage and stream counted from the timeline, wheel zoom around the cursor, drag to pan, hover details of
// a known bar, folding a stage, the Chrome trace export, repaint time, and screenshots.
#include "timeline/timelineaxis.h"
#include "timeline/timelinecanvas.h"
#include "timeline/timelineview.h"
#include "widgettestutils.h"

#include "sim/stepmodel.h"
#include "testutils.h"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScrollBar>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace rapid;
using widgets::TimelineCanvas;
using widgets::TimelineRowKind;
using widgets::TimelineView;

namespace {

/// One wheel notch (or several, negative zooms out) at @p pos of @p widget.
void wheel(QWidget* widget, const QPoint& pos, int notches, Qt::KeyboardModifiers modifiers = {})
{
    QWheelEvent event(QPointF(pos), QPointF(widget->mapToGlobal(pos)), QPoint(), QPoint(0, 120 * notches), Qt::NoButton,
        modifiers, Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget, &event);
}

/// A mouse move without buttons, as the window system delivers while hovering (QTest::mouseMove would only move
/// the cursor, and the offscreen platform does not turn that into events).
void hover(QWidget* widget, const QPoint& pos)
{
    QMouseEvent event(
        QEvent::MouseMove, QPointF(pos), QPointF(widget->mapToGlobal(pos)), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(widget, &event);
}

/// The index of the first event matching the description, or -1.
int findEvent(const std::vector<report::TimelineEvent>& timeline, int stage, graph::NodeKind kind, int microBatch,
    int chunk, bool backward)
{
    for (size_t i = 0; i < timeline.size(); ++i) {
        const report::TimelineEvent& e = timeline[i];
        if (e.rank == stage && e.kind == kind && e.microBatch == microBatch && e.chunk == chunk
            && e.backward == backward) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

/// The row of @p stage's header.
int headerRow(const TimelineCanvas& canvas, int stage)
{
    const auto& rows = canvas.rows().rows();
    for (size_t r = 0; r < rows.size(); ++r) {
        if (rows[r].kind == TimelineRowKind::StageHeader && rows[r].stage == stage) {
            return static_cast<int>(r);
        }
    }
    return -1;
}

} // namespace

class TstTimelineView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void rowsPerStageAndStream();
    void wheelZoomsAroundTheCursor();
    void dragPans();
    void rowsScrollWhenTheyDoNotFit();
    void manyStagesStartFolded();
    void hoverNamesTheBar();
    void clickingAHeaderFoldsTheStage();
    void exportWritesChromeTrace();
    void clearShowsAMessage();
    void axisTicks();
    void repaintIsFast();
    void screenshots();

private:
    report::TrainingResult m_training;
    std::unique_ptr<TimelineView> m_view;
};

void TstTimelineView::initTestCase()
{
    sim::StepModel model(test::projectLoader().loadWorkspace("llama-3.1-70b-64xh100"));
    m_training = model.training(true);
    QVERIFY(m_training.timeline.size() > 10000);
}

void TstTimelineView::init()
{
    m_view = std::make_unique<TimelineView>();
    m_view->resize(1200, 600);
    m_view->setTimeline(m_training, QStringLiteral("Llama-3.1-70B · tp8 pp4 dp2"));
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
}

void TstTimelineView::cleanup()
{
    m_view.reset();
}

void TstTimelineView::rowsPerStageAndStream()
{
    QSet<int> stages;
    QSet<QPair<int, int>> lanes;
    for (const report::TimelineEvent& event : m_training.timeline) {
        stages.insert(event.rank);
        lanes.insert({ event.rank, static_cast<int>(event.stream) });
    }
    QCOMPARE(stages.size(), 4); // pp 4
    QCOMPARE(lanes.size(), 12); // every stage computes, sends and reduces gradients (dp 2)
    const TimelineCanvas* canvas = m_view->canvas();
    // A header per stage plus a row per stream of the stage.
    QCOMPARE(canvas->rowCount(), stages.size() + lanes.size());
    const auto& rows = canvas->rows().rows();
    QVERIFY(rows[0].kind == TimelineRowKind::StageHeader);
    QVERIFY(rows[1].kind == TimelineRowKind::Stream);
    QVERIFY(canvas->rows().lanes()[static_cast<size_t>(rows[1].lanes[0])].stream == graph::Stream::Compute);
    QVERIFY(canvas->rows().lanes()[static_cast<size_t>(rows[3].lanes[0])].stream == graph::Stream::DataParallelComm);
    QCOMPARE(rows[4].stage, 1);
    // Fitted: the whole step is in view.
    QVERIFY(canvas->visibleFrom() <= 0.0);
    QVERIFY(canvas->visibleTo() >= m_training.stepTimeSeconds * 0.999);
}

void TstTimelineView::wheelZoomsAroundTheCursor()
{
    TimelineCanvas* canvas = m_view->canvas();
    const QRect plot = canvas->plotRect();
    const QPoint cursor(plot.left() + plot.width() * 3 / 10, plot.top() + 40);
    const double anchor = canvas->timeAtX(cursor.x());
    const double span = canvas->visibleTo() - canvas->visibleFrom();

    wheel(canvas->viewport(), cursor, 2);
    const double zoomed = canvas->visibleTo() - canvas->visibleFrom();
    QVERIFY2(std::abs(zoomed - span / (1.25 * 1.25)) < span * 1e-9, qPrintable(QString::number(zoomed / span)));
    QVERIFY(std::abs(canvas->timeAtX(cursor.x()) - anchor) < zoomed * 1e-9); // the time under the cursor stays
    QVERIFY(canvas->visibleFrom() > -span && canvas->visibleFrom() < anchor && canvas->visibleTo() > anchor);

    wheel(canvas->viewport(), cursor, -2); // back out
    QVERIFY(std::abs((canvas->visibleTo() - canvas->visibleFrom()) - span) < span * 1e-9);
    wheel(canvas->viewport(), cursor, -10); // never wider than the step
    QVERIFY(std::abs((canvas->visibleTo() - canvas->visibleFrom()) - span) < span * 1e-9);

    // A double click on the bars fits the whole step again.
    wheel(canvas->viewport(), cursor, 6);
    QVERIFY(canvas->visibleTo() - canvas->visibleFrom() < span / 3);
    QTest::mouseDClick(canvas->viewport(), Qt::LeftButton, {}, cursor);
    QVERIFY(std::abs((canvas->visibleTo() - canvas->visibleFrom()) - span) < span * 1e-9);
}

void TstTimelineView::dragPans()
{
    TimelineCanvas* canvas = m_view->canvas();
    const QRect plot = canvas->plotRect();
    canvas->zoomBy(8.0, plot.center().x());
    const double from = canvas->visibleFrom();
    const double span = canvas->visibleTo() - from;
    const QPoint start(plot.center().x(), plot.top() + 30);
    const QPoint end = start - QPoint(200, 0);

    QTest::mousePress(canvas->viewport(), Qt::LeftButton, {}, start);
    QTest::mouseMove(canvas->viewport(), start - QPoint(100, 0));
    QTest::mouseMove(canvas->viewport(), end);
    QTest::mouseRelease(canvas->viewport(), Qt::LeftButton, {}, end);
    // Dragged 200 px to the left: later times come into view, the zoom stays.
    const double expected = from + 200.0 * span / plot.width();
    QVERIFY2(std::abs(canvas->visibleFrom() - expected) < span * 1e-6,
        qPrintable(QStringLiteral("%1 vs %2").arg(canvas->visibleFrom()).arg(expected)));
    QVERIFY(std::abs((canvas->visibleTo() - canvas->visibleFrom()) - span) < span * 1e-9);
    // A drag is no click: no stage was folded on the way.
    QCOMPARE(canvas->rowCount(), 16);
}

void TstTimelineView::rowsScrollWhenTheyDoNotFit()
{
    m_view->resize(900, 220);
    QCoreApplication::processEvents();
    TimelineCanvas* canvas = m_view->canvas();
    QScrollBar* bar = canvas->verticalScrollBar();
    QVERIFY(bar->maximum() > 0);
    const QPoint inside = canvas->plotRect().center();
    const int firstVisible = canvas->rowAt(TimelineCanvas::kAxisHeight + 1);
    wheel(canvas->viewport(), inside, -2, Qt::ShiftModifier); // Shift+wheel scrolls, it does not zoom
    QVERIFY(bar->value() > 0);
    QVERIFY(canvas->rowAt(TimelineCanvas::kAxisHeight + 1) > firstVisible);
    const double span = canvas->visibleTo() - canvas->visibleFrom();
    // Dragging up scrolls further down.
    const int value = bar->value();
    QTest::mousePress(canvas->viewport(), Qt::LeftButton, {}, inside);
    QTest::mouseMove(canvas->viewport(), inside - QPoint(0, 20));
    QTest::mouseMove(canvas->viewport(), inside - QPoint(0, 40));
    QTest::mouseRelease(canvas->viewport(), Qt::LeftButton, {}, inside - QPoint(0, 40));
    QCOMPARE(bar->value(), std::min(bar->maximum(), value + 40));
    QCOMPARE(canvas->visibleTo() - canvas->visibleFrom(), span);
}

void TstTimelineView::manyStagesStartFolded()
{
    // Sixteen stages of three streams would need ~1,000 pixels; folded, the overview fits.
    report::TrainingResult result;
    for (int stage = 0; stage < 16; ++stage) {
        for (int s = 0; s < graph::kStreamCount; ++s) {
            result.timeline.push_back({ stage, static_cast<graph::Stream>(s), graph::NodeKind::Compute, 0.001 * stage,
                0.001 * stage + 0.0005, 0, 0, false });
        }
    }
    m_view->setTimeline(result);
    QCOMPARE(m_view->canvas()->rowCount(), 16);
    m_view->canvas()->setStageCollapsed(4, false);
    QCOMPARE(m_view->canvas()->rowCount(), 19);
}

void TstTimelineView::hoverNamesTheBar()
{
    TimelineCanvas* canvas = m_view->canvas();
    const int index = findEvent(m_training.timeline, 1, graph::NodeKind::Compute, 3, 0, false);
    QVERIFY(index >= 0);
    const report::TimelineEvent& event = m_training.timeline[static_cast<size_t>(index)];
    const double duration = event.finish - event.start;
    canvas->setVisibleRange(event.start - 2 * duration, event.finish + 2 * duration);
    const QRectF bar = canvas->eventRect(index);
    QVERIFY(canvas->plotRect().contains(bar.center().toPoint()));
    QVERIFY(bar.width() > 100);

    hover(canvas->viewport(), bar.center().toPoint());
    QCOMPARE(canvas->hoveredEvent(), index);
    const QString text = canvas->hoverText();
    QVERIFY2(text.startsWith(QStringLiteral("forward mb 3 chunk 0\n")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("Stage 1, compute stream")));
    QVERIFY(text.contains(QStringLiteral("Kind: compute")));
    QVERIFY(text.contains(QStringLiteral("Pass: forward")));
    QVERIFY(text.contains(QStringLiteral("Micro-batch: 3")));
    QVERIFY(text.contains(QStringLiteral("Chunk: 0")));
    QVERIFY(text.contains(QStringLiteral("Start: ") + widgets::formatTimelineTime(event.start)));
    QVERIFY(text.contains(QStringLiteral("Duration: ") + widgets::formatTimelineTime(duration)));
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), text);

    // Off the bars (the label column) nothing is hovered.
    hover(canvas->viewport(), QPoint(10, bar.center().toPoint().y()));
    QCOMPARE(canvas->hoveredEvent(), -1);
    QVERIFY(canvas->hoverText().isEmpty());
}

void TstTimelineView::clickingAHeaderFoldsTheStage()
{
    TimelineCanvas* canvas = m_view->canvas();
    const int before = canvas->rowCount();
    const int header = headerRow(*canvas, 1);
    QVERIFY(header > 0);
    const QPoint label = canvas->rowRect(header).center() - QPoint(canvas->rowRect(header).width() / 2 - 40, 0);
    QTest::mouseClick(canvas->viewport(), Qt::LeftButton, {}, label);
    QVERIFY(canvas->isStageCollapsed(1));
    QCOMPARE(canvas->rowCount(), before - canvas->rows().laneCount(1));

    // The folded row still shows (and hovers) the stage's events, its lanes stacked.
    const int index = findEvent(m_training.timeline, 1, graph::NodeKind::Compute, 3, 0, true);
    QVERIFY(index >= 0);
    const report::TimelineEvent& event = m_training.timeline[static_cast<size_t>(index)];
    canvas->setVisibleRange(event.start - (event.finish - event.start), event.finish + (event.finish - event.start));
    QCOMPARE(canvas->rows().rowOfEvent(index), header);
    hover(canvas->viewport(), canvas->eventRect(index).center().toPoint());
    QCOMPARE(canvas->hoveredEvent(), index);

    QTest::mouseClick(canvas->viewport(), Qt::LeftButton, {}, label);
    QVERIFY(!canvas->isStageCollapsed(1));
    QCOMPARE(canvas->rowCount(), before);

    canvas->setAllCollapsed(true);
    QCOMPARE(canvas->rowCount(), 4);
}

void TstTimelineView::exportWritesChromeTrace()
{
    QTemporaryDir directory;
    QVERIFY(directory.isValid());
    const QString path = directory.filePath(QStringLiteral("trace.json"));
    QString error;
    QVERIFY2(m_view->exportChromeTrace(path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    QVERIFY2(parseError.error == QJsonParseError::NoError, qPrintable(parseError.errorString()));
    int complete = 0;
    int processNames = 0;
    for (const QJsonValue& value : document.object().value(QStringLiteral("traceEvents")).toArray()) {
        const QJsonObject event = value.toObject();
        complete += event.value(QStringLiteral("ph")).toString() == QLatin1String("X") ? 1 : 0;
        processNames += event.value(QStringLiteral("name")).toString() == QLatin1String("process_name") ? 1 : 0;
    }
    QCOMPARE(complete, static_cast<int>(m_training.timeline.size()));
    QCOMPARE(processNames, 4);
    QCOMPARE(document.object().value(QStringLiteral("otherData")).toObject().value(QStringLiteral("title")).toString(),
        QStringLiteral("Llama-3.1-70B · tp8 pp4 dp2"));

    // An unwritable place fails with a reason.
    QVERIFY(!m_view->exportChromeTrace(directory.filePath(QStringLiteral("missing/trace.json")), &error));
    QVERIFY(error.contains(QLatin1String("trace.json")));
}

void TstTimelineView::clearShowsAMessage()
{
    const QString message = QStringLiteral("Inference runs have no training-step timeline.");
    m_view->clear(message);
    QVERIFY(!m_view->hasTimeline());
    QCOMPARE(m_view->canvas()->rowCount(), 0);
    QCOMPARE(m_view->canvas()->message(), message);
    QVERIFY(!m_view->exportAction()->isEnabled());
    QString error;
    QVERIFY(!m_view->exportChromeTrace(QStringLiteral("/tmp/unused.json"), &error));
    QVERIFY(!error.isEmpty());
    wheel(m_view->canvas()->viewport(), QPoint(300, 100), 1); // harmless without a timeline
    hover(m_view->canvas()->viewport(), QPoint(300, 100));
    QCOMPARE(m_view->canvas()->hoveredEvent(), -1);

    m_view->setTimeline(m_training);
    QVERIFY(m_view->exportAction()->isEnabled());
    QCOMPARE(m_view->canvas()->rowCount(), 16);
}

void TstTimelineView::axisTicks()
{
    // 0 .. 10 s on 1000 px, labels at least 90 px apart: every second, in seconds.
    auto ticks = widgets::timelineTicks(0.0, 10.0, 1000.0);
    QCOMPARE(ticks.size(), size_t(11));
    QCOMPARE(ticks[3].label, QStringLiteral("3 s"));
    // A deep zoom late in the step keeps the unit of the step and adds decimals.
    ticks = widgets::timelineTicks(9.5, 9.5001, 1000.0);
    QVERIFY(ticks.size() >= 5);
    QCOMPARE(ticks[1].label, QStringLiteral("9.50001 s"));
    // Below a millisecond: microseconds.
    ticks = widgets::timelineTicks(0.0, 4e-4, 800.0);
    QCOMPARE(ticks[1].label, QStringLiteral("50 µs"));
    QCOMPARE(widgets::formatTimelineTime(0.0123456), QStringLiteral("12.346 ms"));
}

void TstTimelineView::repaintIsFast()
{
    // Fitted, every one of the ~2*10^4 bars is in range; merging keeps a repaint to the pixels.
    TimelineCanvas* canvas = m_view->canvas();
    canvas->fitToView();
    QElapsedTimer timer;
    timer.start();
    constexpr int kRepaints = 10;
    for (int i = 0; i < kRepaints; ++i) {
        canvas->viewport()->repaint();
    }
    const double perRepaintMs = static_cast<double>(timer.elapsed()) / kRepaints;
    qInfo("repaint of %zu events: %.1f ms", m_training.timeline.size(), perRepaintMs);
    QVERIFY2(perRepaintMs < 250.0, qPrintable(QString::number(perRepaintMs)));
}

void TstTimelineView::screenshots()
{
    m_view->resize(1400, 560);
    TimelineCanvas* canvas = m_view->canvas();
    // The pipeline's warm-up into its steady state, zoomed in until bars carry labels; one stage folded, a bar
    // hovered.
    canvas->setVisibleRange(0.0, m_training.stepTimeSeconds * 0.012);
    canvas->setStageCollapsed(3, true);
    const int index = findEvent(m_training.timeline, 1, graph::NodeKind::Compute, 5, 1, false);
    QVERIFY(index >= 0);
    hover(canvas->viewport(), canvas->eventRect(index).center().toPoint());
    QCOMPARE(canvas->hoveredEvent(), index);
    QToolTip::hideText();
    QCoreApplication::processEvents();
    QVERIFY(test::saveScreenshot(m_view->grab(), QStringLiteral("timeline.png")));

    // The whole step, and the dark palette, to check by eye (build directory only).
    canvas->fitToView();
    QCoreApplication::processEvents();
    QVERIFY(m_view->grab().save(QStringLiteral(RAPID_SCREENSHOT_DIR "/timeline-fitted.png")));
    const QPalette original = QApplication::palette();
    QApplication::setPalette(test::darkPalette());
    canvas->setVisibleRange(0.0, m_training.stepTimeSeconds * 0.012);
    QCoreApplication::processEvents();
    QVERIFY(m_view->grab().save(QStringLiteral(RAPID_SCREENSHOT_DIR "/timeline-dark.png")));
    canvas->fitToView();
    QCoreApplication::processEvents();
    QVERIFY(m_view->grab().save(QStringLiteral(RAPID_SCREENSHOT_DIR "/timeline-fitted-dark.png")));
    QApplication::setPalette(original);
}

QTEST_MAIN(TstTimelineView)
#include "tst_timelineview.moc"
