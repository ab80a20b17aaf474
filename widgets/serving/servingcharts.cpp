// SPDX-License-Identifier: GPL-3.0-or-later
#include "serving/servingcharts.h"

#include "common/chartlines.h"
#include "common/plotstyle.h"
#include "common/pointlabels.h"
#include "common/stackedbars.h"
#include "serving/servingrunner.h"

#include <qcustomplot.h>

#include <QToolTip>

#include <algorithm>
#include <array>
#include <cmath>

namespace rapid::widgets {

namespace {

QString loadText(serving::SweepLoad load, double value)
{
    return load == serving::SweepLoad::Concurrency ? QStringLiteral("c%1").arg(value)
                                                   : QStringLiteral("%1/s").arg(value);
}

/// Loads spanning more than a factor of 8 are read on a log axis (concurrency 1, 2, 4 ... 256).
void setLoadAxis(QCPAxis* axis, const ServingCurve& curve)
{
    const auto [low, high] = std::minmax_element(curve.loads.begin(), curve.loads.end());
    axis->setLabel(curve.load == serving::SweepLoad::Concurrency ? QObject::tr("Concurrent clients")
                                                                 : QObject::tr("Requests per second"));
    if (*low > 0 && *high / *low > 8) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        axis->setRange(*low / 1.3, *high * 1.3);
    } else {
        axis->setScaleType(QCPAxis::stLinear);
        axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        axis->setRange(paddedRange(*low, *high));
    }
}

QColor faded(QColor colour, float alpha)
{
    colour.setAlphaF(alpha);
    return colour;
}

} // namespace

QString ServingChart::titleForPoint(const QString& base) const
{
    if (!m_curve || m_curve->results.empty()) {
        return base;
    }
    return tr("%1 at %2").arg(base, loadText(m_curve->load, m_curve->loads.at(static_cast<size_t>(m_point))));
}

void ServingChart::setCurve(std::shared_ptr<const ServingCurve> curve, int point)
{
    m_curve = std::move(curve);
    m_point = m_curve ? std::clamp(point, 0, static_cast<int>(m_curve->results.size()) - 1) : 0;
    refresh();
}

LatencyThroughputChart::LatencyThroughputChart(QWidget* parent)
    : ServingChart(tr("Throughput per GPU against speed per user"), parent)
{
    setObjectName(QStringLiteral("latencyThroughputChart"));
    setMinimumSize(260, 180);
    placeLegendBelow(plot(), 3);
    // Where the labels fit depends on the pixels the points land on: placed again after every layout (resize, export
    // at paper size, a new range).
    connect(plot(), &QCustomPlot::afterLayout, this, &LatencyThroughputChart::arrangeLabels);
    // Hovering a marker names its load (a crowded one may have no label); clicking it selects the load.
    plot()->setMouseTracking(true);
    connect(plot(), &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        const int point = pointAt(event->position());
        if (point >= 0) {
            QToolTip::showText(event->globalPosition().toPoint(), pointText(point), plot());
        } else {
            QToolTip::hideText();
        }
    });
    connect(plot(), &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        const int point = event->button() == Qt::LeftButton ? pointAt(event->position()) : -1;
        if (point >= 0) {
            Q_EMIT pointClicked(point);
        }
    });
    refresh();
}

int LatencyThroughputChart::pointAt(const QPointF& pixel) const
{
    constexpr double kReach = 10; // pixels from the marker's centre
    if (!m_curve) {
        return -1;
    }
    int nearest = -1;
    double best = kReach * kReach;
    for (size_t i = 0; i < m_curve->results.size(); ++i) {
        const serving::ServingSummary& s = m_curve->results[i].summary;
        const double dx = plot()->xAxis->coordToPixel(s.outputTokensPerSecondPerUser) - pixel.x();
        const double dy = plot()->yAxis->coordToPixel(s.outputTokensPerSecondPerGpu) - pixel.y();
        if (dx * dx + dy * dy <= best) {
            best = dx * dx + dy * dy;
            nearest = static_cast<int>(i);
        }
    }
    return nearest;
}

QString LatencyThroughputChart::pointText(int point) const
{
    const auto index = static_cast<size_t>(point);
    const serving::ServingSummary& s = m_curve->results.at(index).summary;
    return tr("%1%2\n%3 tok/s per GPU, %4 tok/s per user\nTTFT p50 %5 ms, ITL p50 %6 ms")
        .arg(loadText(m_curve->load, m_curve->loads.at(index)),
            m_curve->pareto.at(index) ? tr(" (Pareto front)") : QString())
        .arg(s.outputTokensPerSecondPerGpu, 0, 'f', 0)
        .arg(s.outputTokensPerSecondPerUser, 0, 'f', 1)
        .arg(s.ttft.p50 * 1e3, 0, 'g', 3)
        .arg(s.itl.p50 * 1e3, 0, 'g', 3);
}

void LatencyThroughputChart::arrangeLabels()
{
    constexpr double kGap = 4;
    constexpr double kMarkerRadius = 5; // the 7-pixel circle and its pen
    std::vector<QPointF> points;
    std::vector<QSizeF> sizes;
    for (const QPointer<QCPItemText>& label : m_labels) {
        if (!label) {
            return; // cleared by a refresh that has not rebuilt yet
        }
        points.push_back(label->position->pixelPosition());
        sizes.push_back(QFontMetricsF(label->font())
                            .boundingRect(QRectF(), Qt::TextDontClip | label->textAlignment(), label->text())
                            .size());
    }
    const std::vector<LabelPlacement> placed
        = placePointLabels(points, sizes, plot()->axisRect()->rect(), kMarkerRadius, kGap);
    for (size_t i = 0; i < placed.size(); ++i) {
        QCPItemText* label = m_labels[i];
        label->setVisible(placed[i].shown);
        const bool right = isRightOfPoint(placed[i].corner);
        const bool above = isAbovePoint(placed[i].corner);
        label->setPositionAlignment(
            (right ? Qt::AlignLeft : Qt::AlignRight) | (above ? Qt::AlignBottom : Qt::AlignTop));
        const int gap = static_cast<int>(kGap);
        label->setPadding(QMargins(right ? gap : 0, above ? 0 : gap, right ? 0 : gap, above ? gap : 0));
    }
}

QCPAxis* LatencyThroughputChart::valueAxis() const
{
    return plot()->yAxis;
}

void LatencyThroughputChart::rebuild()
{
    plot()->legend->setVisible(false);
    plot()->xAxis->setLabel(tr("Output tokens/s per user"));
    plot()->yAxis->setLabel(tr("Output tokens/s per GPU"));
    if (!m_curve || m_curve->results.empty()) {
        showPlaceholder(tr("Run a load sweep to see the latency-throughput curve"));
        return;
    }
    const QList<QColor> colours = style().categoryColors(2);
    const double width = style().lineWidthPx() * 1.3;
    QVector<double> users;
    QVector<double> gpus;
    QVector<double> frontUsers;
    QVector<double> frontGpus;
    for (size_t i = 0; i < m_curve->results.size(); ++i) {
        const serving::ServingSummary& s = m_curve->results[i].summary;
        users.append(s.outputTokensPerSecondPerUser);
        gpus.append(s.outputTokensPerSecondPerGpu);
        if (m_curve->pareto[i]) {
            frontUsers.append(s.outputTokensPerSecondPerUser);
            frontGpus.append(s.outputTokensPerSecondPerGpu);
        }
    }
    QCPGraph* all = addLineGraph(plot(), tr("loads"), QPen(colours[0], width));
    all->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(colours[0], width), Qt::NoBrush, 7));
    all->setData(users, gpus); // in load order: the curve runs from light load (right) to heavy (left)
    QCPGraph* front = addLineGraph(plot(), tr("Pareto front"), Qt::NoPen);
    front->setLineStyle(QCPGraph::lsNone);
    front->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(colours[0], width), colours[0], 7));
    front->setData(frontUsers, frontGpus);
    if (m_curve->results.size() > 1) {
        // The load whose requests the timeline and KV-cache charts show.
        QCPGraph* selected = addLineGraph(plot(), tr("selected load"), Qt::NoPen);
        selected->setLineStyle(QCPGraph::lsNone);
        selected->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(colours[1], width * 1.5), Qt::NoBrush, 14));
        const auto chosen = static_cast<int>(std::clamp<size_t>(static_cast<size_t>(m_point), 0, users.size() - 1));
        selected->setData({ users[chosen] }, { gpus[chosen] });
        selected->removeFromLegend(); // the table's highlighted row names it; a ring icon clips in the legend
    }
    // Labels in the order they claim room: the Pareto front's loads first, then the others, each in load order.
    m_labels.clear();
    for (const bool onFront : { true, false }) {
        for (int i = 0; i < users.size(); ++i) {
            if (m_curve->pareto[static_cast<size_t>(i)] != onFront) {
                continue;
            }
            auto* label = new QCPItemText(plot());
            label->position->setCoords(users[i], gpus[i]);
            label->setText(loadText(m_curve->load, m_curve->loads[static_cast<size_t>(i)]));
            label->setColor(chartPalette().color(QPalette::Text));
            label->setFont(style().font());
            m_labels.emplace_back(label);
        }
    }
    double rightmost = *std::max_element(users.begin(), users.end());
    if (m_curve->slo.itlSeconds > 0) {
        const double needed = 1 / m_curve->slo.itlSeconds;
        rightmost = std::max(rightmost, needed);
        QCPGraph* slo = addLineGraph(plot(), tr("ITL SLO (%1 ms)").arg(m_curve->slo.itlSeconds * 1e3),
            QPen(style().badColor(), width, Qt::DashLine));
        slo->setData({ needed, needed }, { 0, *std::max_element(gpus.begin(), gpus.end()) * 1.1 });
    }
    plot()->legend->setVisible(true);
    plot()->xAxis->setRange(0, rightmost * 1.15);
    plot()->yAxis->setRange(0, *std::max_element(gpus.begin(), gpus.end()) * 1.15);
}

PercentileChart::PercentileChart(Metric metric, QWidget* parent)
    : ServingChart(
        metric == Metric::Ttft ? tr("Time to first token against load") : tr("Inter-token latency against load"),
        parent)
    , m_metric(metric)
{
    setObjectName(metric == Metric::Ttft ? QStringLiteral("ttftChart") : QStringLiteral("itlChart"));
    setMinimumSize(260, 180);
    placeLegendBelow(plot(), 4);
    refresh();
}

QCPAxis* PercentileChart::valueAxis() const
{
    return plot()->yAxis;
}

void PercentileChart::rebuild()
{
    plot()->legend->setVisible(false);
    const bool ttft = m_metric == Metric::Ttft;
    plot()->yAxis->setLabel(ttft ? tr("TTFT (ms)") : tr("ITL (ms)"));
    if (!m_curve || m_curve->results.empty()) {
        plot()->xAxis->setLabel(tr("Load"));
        showPlaceholder(tr("Run a load sweep to see the latency percentiles"));
        return;
    }
    const QColor colour = style().categoryColors(1).front();
    const double width = style().lineWidthPx() * 1.3;
    QVector<double> loads(m_curve->loads.begin(), m_curve->loads.end());
    QVector<double> p50;
    QVector<double> p90;
    QVector<double> p99;
    for (const serving::ServingResult& result : m_curve->results) {
        const serving::LatencyStats& stats = ttft ? result.summary.ttft : result.summary.itl;
        p50.append(stats.p50 * 1e3);
        p90.append(stats.p90 * 1e3);
        p99.append(stats.p99 * 1e3);
    }
    QCPGraph* tail = addLineGraph(plot(), tr("p99"), QPen(faded(colour, 0.5F), width * 0.7));
    tail->setData(loads, p99, true);
    QCPGraph* median = addLineGraph(plot(), tr("p50"), QPen(colour, width));
    median->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    median->setData(loads, p50, true);
    // The band between the median and the 99th percentile.
    tail->setBrush(faded(colour, 0.18F));
    tail->setChannelFillGraph(median);
    QCPGraph* p90Line = addLineGraph(plot(), tr("p90"), QPen(colour, width * 0.8, Qt::DashLine));
    p90Line->setData(loads, p90, true);
    setLoadAxis(plot()->xAxis, *m_curve);
    double top = *std::max_element(p99.begin(), p99.end());
    const double slo = (ttft ? m_curve->slo.ttftSeconds : m_curve->slo.itlSeconds) * 1e3;
    if (slo > 0) {
        QCPGraph* limit = addLineGraph(plot(), tr("SLO %1 ms").arg(slo), QPen(style().badColor(), width, Qt::DashLine));
        limit->setData({ plot()->xAxis->range().lower, plot()->xAxis->range().upper }, { slo, slo }, true);
        top = std::max(top, slo);
    }
    plot()->legend->setVisible(true);
    plot()->yAxis->setRange(0, top * 1.1);
}

RequestTimelineChart::RequestTimelineChart(QWidget* parent)
    : ServingChart(tr("Request timeline"), parent)
{
    setObjectName(QStringLiteral("requestTimelineChart"));
    setMinimumSize(260, 180);
    placeLegendBelow(plot(), 2);
    refresh();
}

void RequestTimelineChart::rebuild()
{
    setTitle(titleForPoint(tr("Request timeline")));
    plot()->legend->setVisible(false);
    plot()->xAxis->setLabel(tr("Time (s)"));
    plot()->yAxis->setLabel(tr("Request"));
    if (!m_curve || m_curve->results.empty()) {
        showPlaceholder(tr("Run a load sweep, then pick a load to see its requests"));
        return;
    }
    const serving::ServingTrace& trace = m_curve->results[static_cast<size_t>(m_point)].trace;
    const int shown = std::min(static_cast<int>(trace.requests.size()), kMaxRequests);
    const QList<QColor> colours = style().categoryColors(2);
    // Two legend entries for the two kinds of bar; the bars themselves are rectangles.
    QCPGraph* waitKey = addLineGraph(plot(), tr("queued + prefill"), QPen(colours[0], 6));
    QCPGraph* decodeKey = addLineGraph(plot(), tr("decode"), QPen(colours[1], 6));
    waitKey->setData(QVector<double>(), QVector<double>());
    decodeKey->setData(QVector<double>(), QVector<double>());
    double end = 0;
    for (int i = 0; i < shown; ++i) {
        const serving::RequestRecord& r = trace.requests[static_cast<size_t>(i)];
        const auto bar = [&](double from, double to, const QColor& colour) {
            auto* rect = new QCPItemRect(plot());
            rect->topLeft->setCoords(from, i + 0.9);
            rect->bottomRight->setCoords(to, i + 0.1);
            rect->setPen(Qt::NoPen);
            rect->setBrush(colour);
        };
        bar(r.arrivalSeconds, r.firstTokenSeconds, colours[0]);
        bar(r.firstTokenSeconds, r.finishSeconds, colours[1]);
        end = std::max(end, r.finishSeconds);
    }
    if (static_cast<int>(trace.requests.size()) > shown) {
        plot()->yAxis->setLabel(tr("Request (first %1 of %2)").arg(shown).arg(trace.requests.size()));
    }
    plot()->legend->setVisible(true);
    plot()->xAxis->setRange(0, end * 1.02);
    plot()->yAxis->setRange(0, shown);
}

KvOccupancyChart::KvOccupancyChart(QWidget* parent)
    : ServingChart(tr("KV-cache occupancy"), parent)
{
    setObjectName(QStringLiteral("kvOccupancyChart"));
    setMinimumSize(260, 180);
    placeLegendBelow(plot(), 3);
    refresh();
}

QCPAxis* KvOccupancyChart::valueAxis() const
{
    return plot()->yAxis;
}

void KvOccupancyChart::rebuild()
{
    setTitle(titleForPoint(tr("KV-cache occupancy")));
    plot()->legend->setVisible(false);
    plot()->xAxis->setLabel(tr("Time (s)"));
    plot()->yAxis->setLabel(tr("KV-cache blocks in use (%)"));
    plot()->yAxis2->setVisible(false);
    if (!m_curve || m_curve->results.empty()) {
        showPlaceholder(tr("Run a load sweep, then pick a load to see its KV cache"));
        return;
    }
    const serving::ServingTrace& trace = m_curve->results[static_cast<size_t>(m_point)].trace;
    const QList<QColor> colours = style().categoryColors(5);
    const double width = style().lineWidthPx() * 1.2;
    QVector<double> time;
    QVector<double> used;
    // Requests on the second axis: running, waiting, swapped out, and the preemptions so far.
    std::array<QVector<double>, 4> requests;
    for (const serving::OccupancySample& sample : trace.iterations) {
        time.append(sample.seconds);
        used.append(trace.kvBlocks > 0 ? 100.0 * static_cast<double>(sample.usedBlocks) / trace.kvBlocks : 0);
        requests[0].append(sample.running);
        requests[1].append(sample.waiting);
        requests[2].append(sample.swapped);
        requests[3].append(sample.preemptions);
    }
    QCPGraph* occupancy = addLineGraph(plot(), tr("blocks in use"), QPen(colours[0], width));
    occupancy->setLineStyle(QCPGraph::lsStepLeft);
    occupancy->setBrush(faded(colours[0], 0.15F));
    occupancy->setData(time, used, true);
    plot()->yAxis2->setVisible(true);
    plot()->yAxis2->setLabel(tr("Requests"));
    const QString names[] = { tr("running"), tr("waiting"), tr("swapped out"), tr("preempted (total)") };
    const Qt::PenStyle dashes[] = { Qt::SolidLine, Qt::DashLine, Qt::DashDotLine, Qt::DotLine };
    double most = 0;
    for (size_t i = 0; i < requests.size(); ++i) {
        const double largest = requests[i].isEmpty() ? 0 : *std::max_element(requests[i].begin(), requests[i].end());
        if (i >= 2 && largest == 0) {
            continue; // no swap, no preemption: no line to read
        }
        QCPGraph* graph = plot()->addGraph(plot()->xAxis, plot()->yAxis2);
        graph->setName(names[i]);
        graph->setPen(QPen(colours[static_cast<int>(i) + 1], width * 0.8, dashes[i]));
        graph->setLineStyle(QCPGraph::lsStepLeft);
        graph->setData(time, requests[i], true);
        most = std::max(most, largest);
    }
    plot()->legend->setVisible(true);
    plot()->xAxis->setRange(0, time.isEmpty() ? 1 : time.back() * 1.02);
    plot()->yAxis->setRange(0, std::max(5.0, *std::max_element(used.begin(), used.end()) * 1.15));
    plot()->yAxis2->setRange(0, std::max(1.0, most * 1.15));
}

} // namespace rapid::widgets
