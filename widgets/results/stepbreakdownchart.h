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

    const QList<QCPBars*>& currentBars() const { return m_currentBars; }
    const QList<QCPBars*>& baselineBars() const { return m_baselineBars; }
    QString currentValueText() const { return m_currentValueText; }

    /// Segment names in segment order: the time classes, then the bubble.
    static QStringList segmentNames();

protected:
    void rebuild() override;

private:
    std::optional<report::TrainingResult> m_result;
    std::optional<report::TrainingResult> m_baseline;
    QList<QCPBars*> m_currentBars;
    QList<QCPBars*> m_baselineBars;
    QString m_currentValueText;
};

} // namespace rapid::widgets
