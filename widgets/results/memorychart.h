// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/chartwidget.h"

#include "memory/memorymodel.h"

#include <QList>

#include <optional>

class QCPBars;
class QCPTextElement;

namespace rapid::widgets {

/// Per-GPU memory at the peak as a stacked bar by category against a vertical GPU-capacity line. When the peak does
/// not fit, the bar's outline, the part past the capacity and the verdict line turn red. With a baseline pinned, its
/// bar sits above the current one and the current bar carries the change of the peak.
class MemoryChart : public ChartWidget {
    Q_OBJECT
public:
    explicit MemoryChart(QWidget* parent = nullptr);

    void setEstimate(const std::optional<memory::MemoryEstimate>& estimate, const QString& problem = {});
    void setBaseline(const std::optional<memory::MemoryEstimate>& baseline, const QString& name = {});

    /// One bar of a comparison: a run's name and its estimate.
    struct Row {
        QString label;
        memory::MemoryEstimate estimate;
    };
    /// Any number of runs, top to bottom, each against its own GPU's capacity (one dashed line per size), each end
    /// label with its change against row @p reference (-1: none). While rows are set they are drawn instead of the
    /// baseline/current pair; an empty list goes back to it.
    void setRows(const QList<Row>& rows, int reference);

    /// For tests and exports: the drawn segments of the current bar (bottom first) and the baseline's.
    const QList<QCPBars*>& currentBars() const { return m_currentBars; }
    const QList<QCPBars*>& baselineBars() const { return m_baselineBars; }
    /// "Peak 74.2 GiB of 80 GiB: fits, 5.8 GiB free" or "… does not fit by 12.3 GiB".
    QString verdictText() const;
    QColor verdictColor() const;
    /// The current bar's end label, with the change against the baseline when one is pinned.
    QString currentValueText() const { return m_currentValueText; }

    /// Display names of the memory categories, in MemoryCategory order.
    static QString categoryName(memory::MemoryCategory category);

protected:
    void rebuild() override;

private:
    /// The rows to draw: the comparison's, or baseline and current; @p reference gets the row deltas refer to.
    QList<Row> drawnRows(int* reference) const;
    void markOverflow(const memory::MemoryEstimate& estimate, double key, const QList<QCPBars*>& bars);

    std::optional<memory::MemoryEstimate> m_estimate;
    QString m_problem;
    std::optional<memory::MemoryEstimate> m_baseline;
    QString m_baselineName;
    QList<Row> m_rows;
    int m_reference = -1;
    QCPTextElement* m_verdict;
    QList<QCPBars*> m_currentBars;
    QList<QCPBars*> m_baselineBars;
    QString m_currentValueText;
};

} // namespace rapid::widgets
