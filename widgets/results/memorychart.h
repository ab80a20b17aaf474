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
    std::optional<memory::MemoryEstimate> m_estimate;
    QString m_problem;
    std::optional<memory::MemoryEstimate> m_baseline;
    QString m_baselineName;
    QCPTextElement* m_verdict;
    QList<QCPBars*> m_currentBars;
    QList<QCPBars*> m_baselineBars;
    QString m_currentValueText;
};

} // namespace rapid::widgets
