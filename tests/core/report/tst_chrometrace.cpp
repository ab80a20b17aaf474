// SPDX-License-Identifier: GPL-3.0-or-later
// Chrome trace export: a hand-made timeline of three events comes out as JSON that Qt's parser accepts, with one
// complete event per timeline event (times in microseconds, worked out by hand), named processes and threads, and
// properly escaped strings.
#include "report/chrometrace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <limits>

using namespace rapid;
using graph::NodeKind;
using graph::Stream;
using report::TimelineEvent;

namespace {

/// Stage 0 computes forward micro-batch 2 of chunk 1 and sends it on; stage 1 later reduces chunk 0's gradients.
report::TrainingResult threeEvents()
{
    report::TrainingResult result;
    result.stepTimeSeconds = 0.004;
    result.timeline = {
        { 0, Stream::Compute, NodeKind::Compute, 0.0, 0.0015, 2, 1, false },
        { 0, Stream::PipelineComm, NodeKind::PipelineSend, 0.0015, 0.00175, 2, 1, false },
        { 1, Stream::DataParallelComm, NodeKind::DataParallel, 0.002, 0.0035, -1, 0, false },
    };
    return result;
}

QJsonObject parse(const std::string& json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    if (error.error != QJsonParseError::NoError) {
        qWarning("%s at offset %d", qPrintable(error.errorString()), error.offset);
    }
    return document.object();
}

QList<QJsonObject> eventsWithPhase(const QJsonObject& trace, const QString& phase)
{
    QList<QJsonObject> events;
    for (const QJsonValue& value : trace.value(QStringLiteral("traceEvents")).toArray()) {
        if (value.toObject().value(QStringLiteral("ph")).toString() == phase) {
            events.append(value.toObject());
        }
    }
    return events;
}

/// The "args.name" of the metadata event @p name of process @p pid (and thread @p tid when positive).
QString metadataName(const QJsonObject& trace, const QString& name, int pid, int tid = 0)
{
    for (const QJsonObject& event : eventsWithPhase(trace, QStringLiteral("M"))) {
        if (event.value(QStringLiteral("name")).toString() == name && event.value(QStringLiteral("pid")).toInt() == pid
            && (tid == 0 || event.value(QStringLiteral("tid")).toInt() == tid)) {
            return event.value(QStringLiteral("args")).toObject().value(QStringLiteral("name")).toString();
        }
    }
    return {};
}

} // namespace

class TstChromeTrace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void completeEventsInMicroseconds();
    void processesAndThreadsAreNamed();
    void stringsAreEscaped();
    void emptyAndNonFiniteTimelines();
    void eventNames();
};

void TstChromeTrace::completeEventsInMicroseconds()
{
    const QJsonObject trace = parse(report::chromeTraceJson(threeEvents(), "three events"));
    const QList<QJsonObject> events = eventsWithPhase(trace, QStringLiteral("X"));
    QCOMPARE(events.size(), 3);

    // 0 .. 1.5 ms
    QCOMPARE(events[0].value(QStringLiteral("ts")).toDouble(), 0.0);
    QCOMPARE(events[0].value(QStringLiteral("dur")).toDouble(), 1500.0);
    QCOMPARE(events[0].value(QStringLiteral("pid")).toInt(), 1);
    QCOMPARE(events[0].value(QStringLiteral("tid")).toInt(), 1);
    QCOMPARE(events[0].value(QStringLiteral("name")).toString(), QStringLiteral("forward mb 2 chunk 1"));
    QCOMPARE(events[0].value(QStringLiteral("cat")).toString(), QStringLiteral("compute"));
    const QJsonObject args = events[0].value(QStringLiteral("args")).toObject();
    QCOMPARE(args.value(QStringLiteral("micro_batch")).toInt(), 2);
    QCOMPARE(args.value(QStringLiteral("chunk")).toInt(), 1);
    QCOMPARE(args.value(QStringLiteral("pass")).toString(), QStringLiteral("forward"));
    QCOMPARE(args.value(QStringLiteral("stage")).toInt(), 0);

    // 1.5 .. 1.75 ms on stage 0's pipeline stream
    QCOMPARE(events[1].value(QStringLiteral("ts")).toDouble(), 1500.0);
    QCOMPARE(events[1].value(QStringLiteral("dur")).toDouble(), 250.0);
    QCOMPARE(events[1].value(QStringLiteral("tid")).toInt(), 2);
    QCOMPARE(events[1].value(QStringLiteral("cat")).toString(), QStringLiteral("pipeline send"));

    // 2 .. 3.5 ms on stage 1's data-parallel stream; a reduction has no micro-batch and so no pass
    QCOMPARE(events[2].value(QStringLiteral("ts")).toDouble(), 2000.0);
    QCOMPARE(events[2].value(QStringLiteral("dur")).toDouble(), 1500.0);
    QCOMPARE(events[2].value(QStringLiteral("pid")).toInt(), 2);
    QCOMPARE(events[2].value(QStringLiteral("tid")).toInt(), 3);
    const QJsonObject reductionArgs = events[2].value(QStringLiteral("args")).toObject();
    QVERIFY(!reductionArgs.contains(QStringLiteral("micro_batch")));
    QVERIFY(!reductionArgs.contains(QStringLiteral("pass")));
    QCOMPARE(reductionArgs.value(QStringLiteral("chunk")).toInt(), 0);

    const QJsonObject other = trace.value(QStringLiteral("otherData")).toObject();
    QCOMPARE(other.value(QStringLiteral("step_time_us")).toDouble(), 4000.0);
}

void TstChromeTrace::processesAndThreadsAreNamed()
{
    const QJsonObject trace = parse(report::chromeTraceJson(threeEvents(), "three events"));
    // Two stages with a name and a sort index each; three (stage, stream) threads with a name and a sort index each.
    QCOMPARE(eventsWithPhase(trace, QStringLiteral("M")).size(), 10);
    QCOMPARE(metadataName(trace, QStringLiteral("process_name"), 1), QStringLiteral("stage 0"));
    QCOMPARE(metadataName(trace, QStringLiteral("process_name"), 2), QStringLiteral("stage 1"));
    QCOMPARE(metadataName(trace, QStringLiteral("thread_name"), 1, 1), QStringLiteral("compute"));
    QCOMPARE(metadataName(trace, QStringLiteral("thread_name"), 1, 2), QStringLiteral("pipeline comm"));
    QCOMPARE(metadataName(trace, QStringLiteral("thread_name"), 2, 3), QStringLiteral("data-parallel comm"));
    // Stage 1 has no compute in this timeline, so no thread is named for it.
    QCOMPARE(metadataName(trace, QStringLiteral("thread_name"), 2, 1), QString());
}

void TstChromeTrace::stringsAreEscaped()
{
    const std::string title = "Llama \"70B\" \\ tp8\n\tpp4 \x01 · µs";
    const QJsonObject trace = parse(report::chromeTraceJson(threeEvents().timeline, title));
    QVERIFY(!trace.isEmpty());
    QCOMPARE(trace.value(QStringLiteral("otherData")).toObject().value(QStringLiteral("title")).toString(),
        QString::fromStdString(title));
}

void TstChromeTrace::emptyAndNonFiniteTimelines()
{
    const QJsonObject empty = parse(report::chromeTraceJson(std::vector<TimelineEvent>(), "empty"));
    QVERIFY(empty.value(QStringLiteral("traceEvents")).isArray());
    QCOMPARE(empty.value(QStringLiteral("traceEvents")).toArray().size(), 0);

    report::TrainingResult result = threeEvents();
    result.timeline[1].finish = std::numeric_limits<double>::infinity();
    result.timeline[2].start = std::numeric_limits<double>::quiet_NaN();
    const QJsonObject trace = parse(report::chromeTraceJson(result, "broken"));
    QCOMPARE(eventsWithPhase(trace, QStringLiteral("X")).size(), 1);
}

void TstChromeTrace::eventNames()
{
    TimelineEvent event { 3, Stream::PipelineComm, NodeKind::PipelineSend, 0, 1, 7, 0, true };
    QCOMPARE(report::timelineEventName(event), std::string("pipeline send backward mb 7 chunk 0"));
    event = { 3, Stream::Compute, NodeKind::Optimizer, 0, 1, -1, -1, false };
    QCOMPARE(report::timelineEventName(event), std::string("optimizer"));
    event = { 3, Stream::Compute, NodeKind::Compute, 0, 1, 4, -1, true };
    QCOMPARE(report::timelineEventName(event), std::string("backward mb 4"));
    QCOMPARE(report::streamName(Stream::DataParallelComm), std::string("data-parallel comm"));
}

QTEST_GUILESS_MAIN(TstChromeTrace)
#include "tst_chrometrace.moc"
