// SPDX-License-Identifier: GPL-3.0-or-later
#include "parameterchart.h"

#include <QEvent>
#include <QVBoxLayout>

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
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
{
    setObjectName(QStringLiteral("parameterChart"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumHeight(220);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, new QCPTextElement(m_plot, tr("Parameters by part")));
    m_plot->xAxis->setLabel(tr("Parameters (billions)"));
    m_plot->yAxis->setRangeReversed(true); // first part on top, in reading order
    applyPalette();
}

void ParameterChart::setCounts(const model::ParameterCounts& counts)
{
    m_counts = counts;
    m_hasCounts = true;
    rebuild();
}

void ParameterChart::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        rebuild();
    }
}

void ParameterChart::applyPalette()
{
    // QCustomPlot draws black on white by default; follow the palette so dark mode stays readable.
    const QPalette& colours = palette();
    const QColor text = colours.color(QPalette::Text);
    m_plot->setBackground(colours.brush(QPalette::Base));
    for (QCPAxis* axis : { m_plot->xAxis, m_plot->yAxis }) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        QColor grid = text;
        grid.setAlphaF(0.15F);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    }
    if (auto* title = qobject_cast<QCPTextElement*>(m_plot->plotLayout()->element(0, 0))) {
        title->setTextColor(text);
    }
}

void ParameterChart::rebuild()
{
    m_plot->clearPlottables();
    m_plot->clearItems();
    if (!m_hasCounts) {
        m_plot->replot();
        return;
    }
    const QList<Part> parts = partsOf(m_counts);
    auto* bars = new QCPBars(m_plot->yAxis, m_plot->xAxis);
    QColor fill = palette().color(QPalette::Highlight);
    bars->setPen(QPen(fill.darker(120)));
    fill.setAlphaF(0.75F);
    bars->setBrush(fill);
    bars->setWidth(0.6);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    double largest = 0;
    for (int i = 0; i < parts.size(); ++i) {
        const double key = i + 1;
        const double billions = parts[i].count / 1e9;
        ticker->addTick(key, parts[i].label);
        bars->addData(key, billions);
        largest = qMax(largest, billions);
        auto* label = new QCPItemText(m_plot);
        label->position->setCoords(billions, key);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->setText(QStringLiteral(" ") + formatCount(parts[i].count));
        label->setColor(palette().color(QPalette::Text));
    }
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setRange(0.4, parts.size() + 0.6);
    // Room right of the longest bar for its label.
    m_plot->xAxis->setRange(0, largest > 0 ? largest * 1.3 : 1);
    m_plot->replot();
}

} // namespace rapid::widgets
