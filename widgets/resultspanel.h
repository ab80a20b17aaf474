// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "evaluation.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace rapid::widgets {

class ParameterChart;

/// What core can compute about the current scenario today: parameter counts (chart), the rank placement (table) and
/// GPU counts. It says plainly that there is no time prediction yet rather than showing a made-up number.
class ResultsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ResultsPanel(QWidget* parent = nullptr);

    void showEvaluation(const Evaluation& evaluation);
    /// The configuration has problems: the results shown are those of the last valid one.
    void setStale(bool stale);

    QLabel* summaryLabel() const { return m_summary; }
    QLabel* noteLabel() const { return m_note; }
    QTableWidget* placementTable() const { return m_placement; }
    ParameterChart* chart() const { return m_chart; }

private:
    QLabel* m_note;
    QLabel* m_stale;
    QLabel* m_summary;
    ParameterChart* m_chart;
    QTableWidget* m_placement;
};

} // namespace rapid::widgets
