// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "resilience/resiliencepage.h"

class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace rapid::widgets {

class GoodputChart;
struct GoodputFigures;

/// The Resilience tab's goodput (`rapid goodput`): the workspace's step time and checkpoint size, a failure rate
/// (the Llama 3 run's for its GPUs unless given), the storage bandwidth, detection and relaunch times; the expected
/// share of wall time that trains against the checkpoint interval, with Young's, Daly's and the exact optimum's
/// intervals marked, and the figures behind them; the discrete-event simulation of the run (`rapid goodput --trials`)
/// at a few intervals around the optimum, drawn as points with their 95% confidence intervals and listed in a table
/// beside the expected goodput at the same interval.
class GoodputPage : public ResiliencePage {
    Q_OBJECT
public:
    explicit GoodputPage(WorkspaceDocument* document, QWidget* parent = nullptr);

    bool run() override;
    QDoubleSpinBox* tokensSpin() const { return m_tokens; }
    QDoubleSpinBox* mtbfSpin() const { return m_mtbf; }
    QDoubleSpinBox* storageSpin() const { return m_storage; }
    QDoubleSpinBox* detectSpin() const { return m_detect; }
    QDoubleSpinBox* relaunchSpin() const { return m_relaunch; }
    QSpinBox* trialsSpin() const { return m_trials; }
    QSpinBox* seedSpin() const { return m_seed; }
    GoodputChart* chart() const { return m_chart; }
    QLabel* figuresLabel() const { return m_figures; }
    /// A row per simulated interval: interval, expected, simulated mean, its 95% CI, p10–p90, interruptions.
    QTableWidget* table() const { return m_table; }

protected:
    void clearResult() override;
    QJsonObject resultJson() const override;
    bool restoreResult(const QJsonObject& json, const std::optional<config::ResultDocuments>& from) override;

private:
    void showFigures(const GoodputFigures& figures);
    void showSimulatedRows(const GoodputFigures& figures);

    QDoubleSpinBox* m_tokens;
    QDoubleSpinBox* m_mtbf;
    QDoubleSpinBox* m_storage;
    QDoubleSpinBox* m_detect;
    QDoubleSpinBox* m_relaunch;
    QSpinBox* m_trials;
    QSpinBox* m_seed;
    GoodputChart* m_chart;
    QLabel* m_figures;
    QTableWidget* m_table;
};

} // namespace rapid::widgets
