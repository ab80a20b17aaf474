// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/summaryfigures.h"

#include "common/figureformat.h"
#include "common/plotstyle.h"

#include <QFrame>
#include <QGridLayout>
#include <QLabel>

namespace rapid::widgets {

namespace {

const QString kNoPrediction = QStringLiteral("—");

QString colouredText(const QString& text, const QColor& colour)
{
    return QStringLiteral("<span style=\"color:%1\">%2</span>").arg(colour.name(), text.toHtmlEscaped());
}

template <typename Result, typename Member>
std::optional<double> figureOf(const std::optional<Result>& result, Member member)
{
    return result ? std::optional<double>((*result).*member) : std::nullopt;
}

} // namespace

SummaryFigures::SummaryFigures(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("summaryFigures"));
    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setHorizontalSpacing(6);
    layout->setVerticalSpacing(4);
    for (int index = 0; index < kFigureCount; ++index) {
        auto* box = new QFrame(this);
        box->setFrameShape(QFrame::StyledPanel);
        auto* boxLayout = new QVBoxLayout(box);
        boxLayout->setContentsMargins(6, 4, 6, 4);
        boxLayout->setSpacing(1);
        Figure& figure = m_figures[static_cast<size_t>(index)];
        figure.caption = new QLabel(box);
        figure.value = new QLabel(kNoPrediction, box);
        figure.delta = new QLabel(box);
        figure.caption->setObjectName(QStringLiteral("figureCaption%1").arg(index));
        figure.value->setObjectName(QStringLiteral("figureValue%1").arg(index));
        figure.delta->setObjectName(QStringLiteral("figureDelta%1").arg(index));
        QFont big = figure.value->font();
        big.setPointSizeF(big.pointSizeF() * 1.35);
        big.setBold(true);
        figure.value->setFont(big);
        figure.value->setTextFormat(Qt::RichText);
        figure.delta->setTextFormat(Qt::RichText);
        QFont small = figure.caption->font();
        small.setPointSizeF(small.pointSizeF() * 0.9);
        figure.caption->setFont(small);
        figure.delta->setFont(small);
        figure.delta->setWordWrap(true); // "does not fit by …, +x% vs baseline" is longer than the box
        boxLayout->addWidget(figure.caption);
        boxLayout->addWidget(figure.value);
        boxLayout->addWidget(figure.delta);
        // Two rows, so each figure keeps room for its value at the results column's usual width: time, throughput
        // and MFU on top; energy and the memory verdict (which has the most to say, two columns) below.
        if (index < kEnergyFigure) {
            layout->addWidget(box, 0, index);
        } else if (index == kEnergyFigure) {
            layout->addWidget(box, 1, 0);
        } else {
            layout->addWidget(box, 1, 1, 1, 2);
        }
    }
    for (int column = 0; column < 3; ++column) {
        layout->setColumnStretch(column, 1);
    }
}

void SummaryFigures::setEvaluation(
    const Evaluation& current, const Evaluation* baseline, const report::TrainingResult* congestion)
{
    using report::InferenceResult;
    using report::TrainingResult;
    const std::optional<TrainingResult> none;
    const std::optional<InferenceResult> noInference;
    if (current.inferenceMode) {
        const auto& result = current.inference;
        const auto& base = baseline ? baseline->inference : noInference;
        showFigure(0, tr("Time to first token"), result ? formatSeconds(result->ttftSeconds) : kNoPrediction,
            figureOf(result, &InferenceResult::ttftSeconds), figureOf(base, &InferenceResult::ttftSeconds), true);
        showFigure(1, tr("Inter-token latency"), result ? formatSeconds(result->itlSeconds) : kNoPrediction,
            figureOf(result, &InferenceResult::itlSeconds), figureOf(base, &InferenceResult::itlSeconds), true);
        showFigure(2, tr("Output tokens/s"), result ? formatTokensPerSecond(result->tokensPerSecond) : kNoPrediction,
            figureOf(result, &InferenceResult::tokensPerSecond), figureOf(base, &InferenceResult::tokensPerSecond),
            false);
    } else {
        const auto& result = current.training;
        const auto& base = baseline ? baseline->training : none;
        // The network model behind the time figures is named on each card.
        const QString backend = tr("analytical");
        showFigure(0, tr("Step time · %1").arg(backend),
            result ? formatSeconds(result->stepTimeSeconds) : kNoPrediction,
            figureOf(result, &TrainingResult::stepTimeSeconds), figureOf(base, &TrainingResult::stepTimeSeconds), true);
        showFigure(1, tr("Tokens/s · %1").arg(backend),
            result ? formatTokensPerSecond(result->tokensPerSecond) : kNoPrediction,
            figureOf(result, &TrainingResult::tokensPerSecond), figureOf(base, &TrainingResult::tokensPerSecond),
            false);
        showFigure(2, tr("MFU · %1").arg(backend), result ? formatPercent(result->mfu) : kNoPrediction,
            figureOf(result, &TrainingResult::mfu), figureOf(base, &TrainingResult::mfu), false);
        if (result && congestion) {
            showCongestion(0, formatSeconds(congestion->stepTimeSeconds), congestion->stepTimeSeconds,
                result->stepTimeSeconds, true);
            showCongestion(1, formatTokensPerSecond(congestion->tokensPerSecond), congestion->tokensPerSecond,
                result->tokensPerSecond, false);
            showCongestion(2, formatPercent(congestion->mfu), congestion->mfu, result->mfu, false);
        }
    }
    showEnergy(kEnergyFigure, current, baseline);
    showMemory(kMemoryFigure, current, baseline);
}

void SummaryFigures::showEnergy(int index, const Evaluation& current, const Evaluation* baseline)
{
    const auto energyOf = [](const Evaluation& evaluation) -> std::optional<report::EnergyEstimate> {
        if (evaluation.inferenceMode) {
            return evaluation.inference ? std::optional(evaluation.inference->energy) : std::nullopt;
        }
        return evaluation.training ? std::optional(evaluation.training->energy) : std::nullopt;
    };
    const std::optional<report::EnergyEstimate> energy = energyOf(current);
    const std::optional<report::EnergyEstimate> base = baseline ? energyOf(*baseline) : std::nullopt;
    const bool known = energy && energy->known();
    const QString caption = current.inferenceMode ? tr("Energy per output token") : tr("Energy per token");
    showFigure(index, caption, known ? tr("%1 J").arg(energy->joulesPerToken, 0, 'g', 3) : kNoPrediction,
        known ? std::optional(energy->joulesPerToken) : std::nullopt,
        base && base->known() ? std::optional(base->joulesPerToken) : std::nullopt, true);
    const Figure& figure = m_figures[static_cast<size_t>(index)];
    figure.value->setToolTip(known ? tr("%1 kJ %2 on all GPUs, %3 W per GPU on average (TDP while computing, idle "
                                        "power otherwise)")
                                         .arg(energy->joules / 1e3, 0, 'g', 4)
                                         .arg(current.inferenceMode ? tr("for the request batch") : tr("per step"))
                                         .arg(energy->averageWattsPerGpu, 0, 'f', 0)
                                   : tr("The GPU preset gives no power figures"));
}

void SummaryFigures::showFigure(int index, const QString& caption, const QString& value, std::optional<double> current,
    std::optional<double> baseline, bool lowerIsBetter)
{
    const Figure& figure = m_figures[static_cast<size_t>(index)];
    figure.caption->setText(caption);
    figure.value->setText(value.toHtmlEscaped());
    figure.value->setToolTip(current ? QString() : tr("No time prediction yet"));
    QString delta;
    if (current && baseline) {
        if (const auto change = relativeChange(*current, *baseline)) {
            const bool better = lowerIsBetter ? *change < 0 : *change > 0;
            const bool same = std::abs(*change) < 0.05;
            const QColor colour = same ? palette().color(QPalette::WindowText)
                : better               ? PlotStyle::standard().goodColor()
                                       : PlotStyle::standard().badColor();
            delta = colouredText(tr("%1 vs baseline").arg(formatDelta(*change)), colour);
        }
    }
    figure.delta->setText(delta.isEmpty() ? QStringLiteral("&nbsp;") : delta);
}

void SummaryFigures::showCongestion(
    int index, const QString& value, double congestion, double analytical, bool lowerIsBetter)
{
    const Figure& figure = m_figures[static_cast<size_t>(index)];
    QString line = tr("congestion backend: %1").arg(value.toHtmlEscaped());
    if (const auto change = relativeChange(congestion, analytical); change && std::abs(*change) >= 0.05) {
        const bool better = lowerIsBetter ? *change < 0 : *change > 0;
        line += QLatin1Char(' ')
            + colouredText(QStringLiteral("(%1)").arg(formatDelta(*change)),
                better ? PlotStyle::standard().goodColor() : PlotStyle::standard().badColor());
    }
    const QString before = figure.delta->text();
    figure.delta->setText(before == QLatin1String("&nbsp;") ? line : before + QStringLiteral("<br>") + line);
}

void SummaryFigures::showMemory(int index, const Evaluation& current, const Evaluation* baseline)
{
    const Figure& figure = m_figures[static_cast<size_t>(index)];
    if (!current.memory) {
        figure.caption->setText(tr("Memory per GPU"));
        figure.value->setText(kNoPrediction);
        figure.delta->setText(QString::fromStdString(current.memoryProblem).toHtmlEscaped());
        return;
    }
    const memory::MemoryEstimate& estimate = *current.memory;
    const PlotStyle& style = PlotStyle::standard();
    figure.caption->setText(tr("Memory per GPU"));
    figure.value->setToolTip(tr("Peak per GPU; the GPU holds %1").arg(formatGiB(estimate.capacityBytes)));
    figure.value->setText(
        colouredText(formatGiB(estimate.peakBytes), estimate.fits ? style.goodColor() : style.badColor()));
    QString verdict = estimate.fits ? tr("fits in %1").arg(formatGiB(estimate.capacityBytes))
                                    : tr("does not fit by %1").arg(formatGiB(-estimate.marginBytes));
    verdict = colouredText(verdict, estimate.fits ? style.goodColor() : style.badColor());
    if (baseline && baseline->memory) {
        if (const auto change = relativeChange(estimate.peakBytes, baseline->memory->peakBytes)) {
            verdict += QStringLiteral("<br>") + tr("%1 vs baseline").arg(formatDelta(*change)).toHtmlEscaped();
        }
    }
    figure.delta->setText(verdict);
}

} // namespace rapid::widgets
