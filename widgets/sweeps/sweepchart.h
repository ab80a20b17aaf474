// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/chartwidget.h"

#include "sweep/sweeprunner.h"

#include <memory>
#include <vector>

class QCPGraph;

namespace rapid::widgets {

/// A sweep's trade-off as a scatter: tokens/s per GPU (up) against memory peak per GPU (training) or end-to-end
/// latency (inference) (right). Every evaluated point in one colour, the Pareto front highlighted and joined by a
/// line; optionally the training points that do not fit, greyed at their memory on the bottom axis (they were pruned
/// before the step model, so they have no throughput), with the GPU's capacity as a dashed line. Clicking near a
/// point reports its index in the result; the selected point is ringed.
class SweepChart : public ChartWidget {
    Q_OBJECT
public:
    explicit SweepChart(QWidget* parent = nullptr);

    void setResult(std::shared_ptr<const sweep::SweepResult> result, bool inference);
    void setShowNotFitting(bool show);
    bool showsNotFitting() const { return m_showNotFitting; }

    /// For tests: points drawn per series.
    int evaluatedPointCount() const { return static_cast<int>(m_evaluatedRows.size()); }
    int paretoPointCount() const { return static_cast<int>(m_paretoRows.size()); }
    int notFittingPointCount() const { return static_cast<int>(m_notFittingRows.size()); }
    /// The plotted position (x, y) of a drawn point, by the point's index in the result; false when not drawn.
    bool pointPosition(std::int64_t rowIndex, double* x, double* y) const;
    /// Where that point is drawn, in this widget's coordinates (as laid out at the last replot); (-1, -1) when not.
    QPoint pointPixel(std::int64_t rowIndex) const;
    /// Rings the point of @p rowIndex (the table's selection); -1 for none.
    void setHighlightedPoint(std::int64_t rowIndex);
    std::int64_t highlightedPoint() const { return m_highlighted; }

Q_SIGNALS:
    /// A point was clicked: its index in the result (SweepRow::index).
    void pointClicked(qint64 rowIndex);

protected:
    void rebuild() override;

private:
    double xOf(const sweep::SweepRow& row) const;
    void updateHighlight();
    /// The drawn point nearest to @p pixel (plot coordinates) within a few pixels, or -1.
    std::int64_t pointAt(const QPointF& pixel) const;

    std::shared_ptr<const sweep::SweepResult> m_result;
    bool m_inference = false;
    bool m_showNotFitting = true;
    // Drawn series and the result row of each of their data points, in the graph's key order.
    QCPGraph* m_evaluated = nullptr;
    QCPGraph* m_pareto = nullptr;
    QCPGraph* m_notFitting = nullptr;
    QCPGraph* m_highlight = nullptr;
    std::int64_t m_highlighted = -1;
    std::vector<std::int64_t> m_evaluatedRows;
    std::vector<std::int64_t> m_paretoRows;
    std::vector<std::int64_t> m_notFittingRows;
};

} // namespace rapid::widgets
