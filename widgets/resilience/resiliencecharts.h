// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/chartwidget.h"
#include "resilience/goodputfigures.h"

#include <QString>

#include <optional>
#include <vector>

namespace rapid::widgets {

/// One curve of the slowdown CDF: a (k, h) row's connected trials.
struct SlowdownSeries {
    QString name; ///< "k 1, h 0.5"
    std::vector<double> slowdowns; ///< step / baseline per connected trial, any order
};

/// The fault study's slowdown distributions as empirical CDFs, one step curve per (k, h): the share of connected
/// trials (up) whose step slowdown is at most the value (right). A CDF rather than a box plot so that rows with a
/// few distinct outcomes (a ring: every link alike) read as the steps they are.
class SlowdownCdfChart : public ChartWidget {
    Q_OBJECT
public:
    explicit SlowdownCdfChart(QWidget* parent = nullptr);
    void setSeries(std::vector<SlowdownSeries> series);
    const std::vector<SlowdownSeries>& series() const { return m_series; }

protected:
    void rebuild() override;

private:
    std::vector<SlowdownSeries> m_series;
};

/// One curve pair of the straggler chart: a share of slow GPUs over the slowdowns it was studied at.
struct StragglerSeries {
    QString name; ///< "8 slow GPUs (12.5%)"
    std::vector<double> slowdowns; ///< a slow GPU's slowdown S, ascending
    std::vector<double> p50; ///< the step slowdown's median at each S
    std::vector<double> p99;
};

/// Straggler curves: the step slowdown (up) against a slow GPU's slowdown (right), the median solid and the 99th
/// percentile dashed, one colour per share of slow GPUs, with the bound "step slowdown = S" as a grey diagonal.
class StragglerChart : public ChartWidget {
    Q_OBJECT
public:
    explicit StragglerChart(QWidget* parent = nullptr);
    void setSeries(std::vector<StragglerSeries> series);
    const std::vector<StragglerSeries>& series() const { return m_series; }
    QCPAxis* valueAxis() const override;

protected:
    void rebuild() override;

private:
    std::vector<StragglerSeries> m_series;
};

/// Goodput against the checkpoint interval: the expected share of wall time that trains (up, %) for intervals on a
/// log axis (right), with Young's, Daly's and the exact optimum's intervals as vertical lines, and the simulated runs'
/// mean goodput at a few intervals as points with their 95% confidence intervals (the curve is Daly's exact
/// expectation of the simulated process, so the points fall on it within their bars).
class GoodputChart : public ChartWidget {
    Q_OBJECT
public:
    explicit GoodputChart(QWidget* parent = nullptr);
    void setFigures(std::optional<GoodputFigures> figures);
    const std::optional<GoodputFigures>& figures() const { return m_figures; }
    QCPAxis* valueAxis() const override;

protected:
    void rebuild() override;

private:
    std::optional<GoodputFigures> m_figures;
};

} // namespace rapid::widgets
