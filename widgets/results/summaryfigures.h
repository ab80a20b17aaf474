// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "evaluation/evaluation.h"

#include <QWidget>

#include <array>

class QLabel;

namespace rapid::widgets {

/// The headline figures in a row of four: step time, tokens/s, MFU and the memory verdict for training (TTFT, ITL,
/// tokens/s and memory for inference). A figure without a prediction shows a dash, never a guess. With a baseline,
/// each figure shows its change, green when better and red when worse.
class SummaryFigures : public QWidget {
    Q_OBJECT
public:
    explicit SummaryFigures(QWidget* parent = nullptr);

    /// @p congestion: the congestion backend's step for @p current, shown under the analytical figures it changes.
    void setEvaluation(
        const Evaluation& current, const Evaluation* baseline, const report::TrainingResult* congestion = nullptr);

    static constexpr int kFigureCount = 5;
    static constexpr int kEnergyFigure = 3;
    static constexpr int kMemoryFigure = 4;
    QLabel* captionLabel(int index) const { return m_figures[static_cast<size_t>(index)].caption; }
    QLabel* valueLabel(int index) const { return m_figures[static_cast<size_t>(index)].value; }
    QLabel* deltaLabel(int index) const { return m_figures[static_cast<size_t>(index)].delta; }

private:
    struct Figure {
        QLabel* caption = nullptr;
        QLabel* value = nullptr;
        QLabel* delta = nullptr;
    };
    /// @p lowerIsBetter decides the colour of the change; @p current / @p baseline are absent without a prediction.
    void showFigure(int index, const QString& caption, const QString& value, std::optional<double> current,
        std::optional<double> baseline, bool lowerIsBetter);
    void showMemory(int index, const Evaluation& current, const Evaluation* baseline);
    void showEnergy(int index, const Evaluation& current, const Evaluation* baseline);
    /// Adds "congestion backend: <value> (<change>)" under figure @p index.
    void showCongestion(int index, const QString& value, double congestion, double analytical, bool lowerIsBetter);

    std::array<Figure, kFigureCount> m_figures;
};

} // namespace rapid::widgets
