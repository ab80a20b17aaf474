// SPDX-License-Identifier: GPL-3.0-or-later
#include "results/parameterchart.h"

#include "common/plotstyle.h"

#include <qcustomplot.h>

namespace rapid::widgets {

namespace {

struct Part {
    QString label;
    double count;
};

QList<Part> partsOf(const model::ParameterCounts& counts)
{
    const auto layers = [&](auto member) {
        return static_cast<double>(counts.denseLayers) * static_cast<double>(counts.denseLayer.*member)
            + static_cast<double>(counts.moeLayers) * static_cast<double>(counts.moeLayer.*member);
    };
    return {
        { ParameterChart::tr("Embeddings"), static_cast<double>(counts.embedding + counts.positional) },
        { ParameterChart::tr("Attention"), layers(&model::LayerParameters::attention) },
        { ParameterChart::tr("MLP"), layers(&model::LayerParameters::mlp) },
        { ParameterChart::tr("Norms"), layers(&model::LayerParameters::norms) + static_cast<double>(counts.finalNorm) },
        { ParameterChart::tr("LM head"), static_cast<double>(counts.lmHead) },
    };
}

} // namespace

QString formatCount(double count)
{
    if (count >= 1e9) {
        return QStringLiteral("%1 B").arg(count / 1e9, 0, 'f', 2);
    }
    if (count >= 1e6) {
        return QStringLiteral("%1 M").arg(count / 1e6, 0, 'f', 2);
    }
    return QLocale().toString(static_cast<qint64>(count));
}

ParameterChart::ParameterChart(QWidget* parent)
    : ChartWidget(tr("Parameters by part"), parent)
{
    setObjectName(QStringLiteral("parameterChart"));
    setMinimumHeight(220);
    plot()->xAxis->setLabel(tr("Parameters (billions)"));
    refresh();
}

void ParameterChart::setCounts(const model::ParameterCounts& counts)
{
    m_counts = counts;
    m_hasCounts = true;
    refresh();
}

void ParameterChart::rebuild()
{
    if (!m_hasCounts) {
        return;
    }
    const QList<Part> parts = partsOf(m_counts);
    auto* bars = new QCPBars(plot()->yAxis, plot()->xAxis);
    bars->removeFromLegend();
    const QColor fill = style().color(0);
    bars->setPen(QPen(fill.darker(140), style().lineWidthPx() * 0.5));
    bars->setBrush(fill);
    bars->setWidth(0.6);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    double largest = 0;
    const QColor text = chartPalette().color(QPalette::Text);
    for (int i = 0; i < parts.size(); ++i) {
        const double key = i + 1;
        const double billions = parts[i].count / 1e9;
        ticker->addTick(key, parts[i].label);
        bars->addData(key, billions);
        largest = qMax(largest, billions);
        auto* label = new QCPItemText(plot());
        label->position->setCoords(billions, key);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setText(QStringLiteral(" ") + formatCount(parts[i].count));
        label->setFont(style().font());
        label->setColor(text);
    }
    plot()->yAxis->setTicker(ticker);
    plot()->yAxis->setRangeReversed(true); // first part on top, in reading order
    plot()->yAxis->setRange(0.4, parts.size() + 0.6);
    plot()->yAxis->grid()->setVisible(false);
    // Room right of the longest bar for its label.
    plot()->xAxis->setRange(0, largest > 0 ? largest * 1.3 : 1);
}

} // namespace rapid::widgets
