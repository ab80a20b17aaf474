// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "resilience/studyrowspage.h"

class QComboBox;
class QSpinBox;

namespace rapid::widgets {

class NumberListEdit;
class StragglerChart;

/// The Resilience tab's straggler study (`rapid resilience --slow-gpus F --slowdown S`): for every share F of slow
/// GPUs (round(F x GPUs), at least one) and slowdown S, trials that each make that many random GPUs S times slower;
/// the step slowdown's p50 and p99 against S, one colour per share, and a table of every row.
class StragglerPage : public StudyRowsPage {
    Q_OBJECT
public:
    explicit StragglerPage(WorkspaceDocument* document, QWidget* parent = nullptr);

    bool run() override;
    NumberListEdit* sharesEdit() const { return m_shares; }
    NumberListEdit* slowdownsEdit() const { return m_slowdowns; }
    QSpinBox* trialsSpin() const { return m_trials; }
    QComboBox* backendCombo() const { return m_backend; }
    StragglerChart* chart() const { return m_chart; }

protected:
    void showStudy(const StudyRows& rows) override;
    void clearChart() override;
    /// The slowdowns, trials, seed and backend; the shares stay as typed (the rows keep only the GPU counts).
    void showInputsOf(const StudyRows& rows) override;

private:
    NumberListEdit* m_shares;
    NumberListEdit* m_slowdowns;
    QSpinBox* m_trials;
    QSpinBox* m_seed;
    QComboBox* m_backend;
    StragglerChart* m_chart;
};

} // namespace rapid::widgets
