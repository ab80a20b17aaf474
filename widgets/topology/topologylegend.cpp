// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/topologylegend.h"

#include "topology/topologystyle.h"

#include <QLinearGradient>
#include <QPainter>

#include <algorithm>

namespace rapid::widgets {

namespace {

constexpr int kSampleWidth = 36;
constexpr int kHealthRows = 4;
constexpr int kScaleRows = 3; ///< caption, bar, tick labels
constexpr int kPadding = 4; ///< inside the card's border
constexpr int kTextGap = 10; ///< between a sample line and its text
constexpr int kScaleMinimumWidth = 200; ///< the colour scale's three tick labels apart

} // namespace

TopologyLegend::TopologyLegend(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("topologyLegend"));
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    setScaleLabels(
        tr("utilisation (busier direction)"), QStringLiteral("0%"), QStringLiteral("50%"), QStringLiteral("100%"));
}

void TopologyLegend::setScaleLabels(
    const QString& caption, const QString& low, const QString& middle, const QString& high)
{
    m_caption = caption;
    m_low = low;
    m_middle = middle;
    m_high = high;
    update();
}

void TopologyLegend::setShowsUtilisation(bool shows)
{
    if (m_utilisation == shows) {
        return;
    }
    m_utilisation = shows;
    updateGeometry();
    update();
}

int TopologyLegend::rowHeight() const
{
    return fontMetrics().height() + 4;
}

void TopologyLegend::setStrip(bool strip)
{
    m_strip = strip;
    setSizePolicy(strip ? QSizePolicy::Expanding : QSizePolicy::Preferred, QSizePolicy::Fixed);
    updateGeometry();
    update();
}

QStringList TopologyLegend::sampleTexts()
{
    return { tr("healthy"), tr("degraded (health shown)"), tr("failed"), tr("selected") };
}

QSize TopologyLegend::sizeHint() const
{
    if (m_strip) {
        return QSize(kScaleMinimumWidth, 2 * rowHeight() + 2 * kPadding);
    }
    // As wide as its longest line in the current font (a fixed width clipped "degraded (health shown)" with larger
    // fonts), the caption of the scale included when it is shown.
    int width = 0;
    for (const QString& text : sampleTexts()) {
        width = std::max(width, kSampleWidth + kTextGap + fontMetrics().horizontalAdvance(text) + kPadding);
    }
    if (m_utilisation) {
        width = std::max({ width, kScaleMinimumWidth, 8 + fontMetrics().horizontalAdvance(m_caption) + kPadding });
    }
    const int rows = kHealthRows + (m_utilisation ? kScaleRows : 0);
    return QSize(width + 2 * kPadding, rows * rowHeight() + 4 + 2 * kPadding);
}

void TopologyLegend::paintEvent(QPaintEvent* /*event*/)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    if (m_strip) {
        paintStrip(painter);
        return;
    }
    const QPalette colours = palette();
    // Drawn over the network: an almost opaque card, so that links under it do not run through the text.
    QColor card = colours.color(QPalette::Base);
    card.setAlpha(235);
    painter.setPen(colours.color(QPalette::Mid));
    painter.setBrush(card);
    painter.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
    painter.translate(kPadding, kPadding);
    const int width = this->width() - 2 * kPadding;
    const int row = rowHeight();
    const int textLeft = kSampleWidth + kTextGap;
    auto sample = [&](int index, const QPen& pen, const QString& text, bool halo) {
        const int y = index * row + row / 2;
        if (halo) {
            painter.setPen(QPen(topologystyle::selection(colours), pen.widthF() + 6, Qt::SolidLine, Qt::RoundCap));
            painter.drawLine(4, y, kSampleWidth, y);
        }
        painter.setPen(pen);
        painter.drawLine(4, y, kSampleWidth, y);
        painter.setPen(colours.color(QPalette::WindowText));
        painter.drawText(QRect(textLeft, index * row, width - textLeft, row), Qt::AlignLeft | Qt::AlignVCenter, text);
    };
    const QStringList texts = sampleTexts();
    sample(0, topologystyle::linkPen(colours, 1.0, std::nullopt), texts[0], false);
    sample(1, topologystyle::linkPen(colours, 0.5, std::nullopt), texts[1], false);
    sample(2, topologystyle::linkPen(colours, 0.0, std::nullopt), texts[2], false);
    sample(3, topologystyle::linkPen(colours, 1.0, std::nullopt), texts[3], true);
    if (!m_utilisation) {
        return;
    }
    int y = kHealthRows * row;
    painter.setPen(colours.color(QPalette::WindowText));
    painter.drawText(QRect(4, y, width - 8, row), Qt::AlignLeft | Qt::AlignVCenter, m_caption);
    y += row;
    paintScale(painter, QRect(4, y + 3, width - 12, row - 6), y + row);
}

void TopologyLegend::paintStrip(QPainter& painter)
{
    painter.translate(kPadding, kPadding);
    const int width = this->width() - 2 * kPadding;
    const int row = rowHeight();
    painter.setPen(palette().color(QPalette::WindowText));
    const int captionWidth = std::min(fontMetrics().horizontalAdvance(m_caption) + 12, width / 2);
    painter.drawText(QRect(0, 0, captionWidth, row), Qt::AlignLeft | Qt::AlignVCenter, m_caption);
    paintScale(painter, QRect(captionWidth, 3, width - captionWidth, row - 6), row);
}

void TopologyLegend::paintScale(QPainter& painter, const QRect& bar, int labelsTop)
{
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    for (double t : { 0.0, 0.25, 0.5, 0.75, 1.0 }) {
        gradient.setColorAt(t, topologystyle::utilisation(t));
    }
    painter.setPen(Qt::NoPen);
    painter.setBrush(gradient);
    painter.drawRect(bar);
    const QRect labels(bar.left(), labelsTop, bar.width(), rowHeight());
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, m_low);
    painter.drawText(labels, Qt::AlignHCenter | Qt::AlignVCenter, m_middle);
    painter.drawText(labels, Qt::AlignRight | Qt::AlignVCenter, m_high);
}

} // namespace rapid::widgets
