// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/chartwidget.h"

#include "report/stepresult.h"

#include <optional>

class QCPBars;
class QCPBarsGroup;

namespace rapid::widgets {

/// Inference latencies (time to first token, inter-token latency, end to end) as bars on a logarithmic axis, since
/// they span three orders of magnitude, plus output throughput in the subtitle. A pinned baseline gets its own bar
/// beside each current one and the current labels carry the change.
class InferenceChart : public ChartWidget {
    Q_OBJECT
public:
    explicit InferenceChart(QWidget* parent = nullptr);

    void setResult(const std::optional<report::InferenceResult>& result);
    void setBaseline(const std::optional<report::InferenceResult>& baseline);

    QCPBars* currentBars() const { return m_currentBars; }
    QCPBars* baselineBars() const { return m_baselineBars; }
    QStringList currentValueTexts() const { return m_currentValueTexts; }
    QString throughputText() const;

protected:
    void rebuild() override;

private:
    std::optional<report::InferenceResult> m_result;
    std::optional<report::InferenceResult> m_baseline;
    QCPBarsGroup* m_group; ///< owned by the plot; lives as long as the chart, so rebuilds do not pile groups up
    QCPBars* m_currentBars = nullptr;
    QCPBars* m_baselineBars = nullptr;
    QStringList m_currentValueTexts;
};

} // namespace rapid::widgets
