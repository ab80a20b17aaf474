// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/chartwidget.h"

#include <QPointer>

#include <memory>
#include <vector>

class QCPItemText;

namespace rapid::widgets {

struct ServingCurve;

/// Base of the Serving tab's charts: they draw from one ServingCurve (null: a placeholder) and, for the request
/// timeline and the KV-cache occupancy, from its selected point.
class ServingChart : public ChartWidget {
    Q_OBJECT
public:
    using ChartWidget::ChartWidget;
    void setCurve(std::shared_ptr<const ServingCurve> curve, int point);
    const ServingCurve* curve() const { return m_curve.get(); }
    int point() const { return m_point; }

protected:
    /// @p base with the selected point's load ("Request timeline at c64"), so an exported chart says which load it is.
    QString titleForPoint(const QString& base) const;

    std::shared_ptr<const ServingCurve> m_curve;
    int m_point = 0;
};

/// The latency-throughput curve serving results are read as: output tokens/s per GPU (up) against tokens/s each user
/// sees (right), one marker per load labelled with it where the label has room (crowded loads give way, the Pareto
/// front's first), the Pareto front's points filled, and the ITL SLO as the vertical line users need to stay right of.
class LatencyThroughputChart : public ServingChart {
    Q_OBJECT
public:
    explicit LatencyThroughputChart(QWidget* parent = nullptr);
    QCPAxis* valueAxis() const override;
    /// The load labels, Pareto front first (placePointLabels decides which show and in which corner).
    const std::vector<QPointer<QCPItemText>>& loadLabels() const { return m_labels; }
    /// The load whose marker is nearest @p pixel (plot coordinates) within reach of the pointer, or -1.
    int pointAt(const QPointF& pixel) const;
    /// What the tooltip over load @p point says: the load, its throughputs and median latencies.
    QString pointText(int point) const;

Q_SIGNALS:
    /// A load's marker was clicked: the panel selects it (its row, request timeline and KV-cache occupancy).
    void pointClicked(int point);

protected:
    void rebuild() override;

private:
    void arrangeLabels();

    std::vector<QPointer<QCPItemText>> m_labels;
};

/// One latency against the load: the median as a line, the band from it to the 99th percentile shaded, the 90th
/// dashed, and the SLO as a horizontal line.
class PercentileChart : public ServingChart {
    Q_OBJECT
public:
    enum class Metric { Ttft, Itl };
    PercentileChart(Metric metric, QWidget* parent = nullptr);
    QCPAxis* valueAxis() const override;

protected:
    void rebuild() override;

private:
    Metric m_metric;
};

/// The selected point's requests as a Gantt chart (the first kMaxRequests of one replica): from arrival to the first
/// token (queueing and prefill, chunks included) and from the first token to the last (decode), one row each.
class RequestTimelineChart : public ServingChart {
    Q_OBJECT
public:
    static constexpr int kMaxRequests = 200;
    explicit RequestTimelineChart(QWidget* parent = nullptr);

protected:
    void rebuild() override;
};

/// The selected point's KV-cache blocks in use after each engine iteration, as a share of the replica's cache, with
/// the requests running and waiting on a second axis, and, when there are any, those swapped out and the preemptions
/// so far.
class KvOccupancyChart : public ServingChart {
    Q_OBJECT
public:
    explicit KvOccupancyChart(QWidget* parent = nullptr);
    QCPAxis* valueAxis() const override;

protected:
    void rebuild() override;
};

} // namespace rapid::widgets
