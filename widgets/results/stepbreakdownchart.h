// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/chartwidget.h"

#include "report/stepresult.h"

#include <QList>

#include <optional>

class QCPBars;

namespace rapid::widgets {

/// Where a training step's time goes on its busiest pipeline stage: a stacked bar of compute by operator class,
/// exposed communication by kind, the pipeline bubble and the optimizer, labelled with the step time. With a
/// baseline pinned, its bar sits above and the current bar carries the change of the step time. Without a time
/// prediction it says so and draws nothing.
class StepBreakdownChart : public ChartWidget {
    Q_OBJECT
public:
    explicit StepBreakdownChart(QWidget* parent = nullptr);

    void setResult(const std::optional<report::TrainingResult>& result);
    void setBaseline(const std::optional<report::TrainingResult>& baseline);

    /// One bar of a comparison: a run's name and its result.
    struct Row {
        QString label;
        report::TrainingResult result;
    };
    /// Any number of runs, top to bottom, each end label with its change against row @p reference (-1: none).
    /// While rows are set they are drawn instead of the baseline/current pair; an empty list goes back to it.
    void setRows(const QList<Row>& rows, int reference);

    const QList<QCPBars*>& currentBars() const { return m_currentBars; }
    const QList<QCPBars*>& baselineBars() const { return m_baselineBars; }
    QString currentValueText() const { return m_currentValueText; }

    /// Segment names in segment order: the time classes, then the bubble.
    static QStringList segmentNames();

protected:
    void rebuild() override;

private:
    /// The rows to draw: the comparison's, or baseline and current; @p reference gets the row deltas refer to.
    QList<Row> drawnRows(int* reference) const;

    std::optional<report::TrainingResult> m_result;
    std::optional<report::TrainingResult> m_baseline;
    QList<Row> m_rows;
    int m_reference = -1;
    QList<QCPBars*> m_currentBars;
    QList<QCPBars*> m_baselineBars;
    QString m_currentValueText;
};

} // namespace rapid::widgets
