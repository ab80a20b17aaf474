// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/inputscolumnlayout.h"

#include <QAbstractItemModel>
#include <QFontMetrics>
#include <QHeaderView>
#include <QStyle>
#include <QTableView>
#include <QWidget>

#include <algorithm>

namespace rapid::widgets {

InputsColumnLayout::InputsColumnLayout(
    QWidget* panel, QWidget* inputs, QWidget* results, std::function<int()> resultsMinimumWidth, InputsSide side)
    // The inputs are the first item: a reversed direction puts them after the results.
    : QBoxLayout(side == InputsSide::Leading ? QBoxLayout::LeftToRight : QBoxLayout::RightToLeft, panel)
    , m_inputs(inputs)
    , m_results(results)
    , m_resultsMinimumWidth(std::move(resultsMinimumWidth))
    , m_side(side)
{
    setContentsMargins(4, 4, 4, 4);
    addWidget(inputs);
    addWidget(results, 1);
    m_inputs->setFixedWidth(kInputsWidth);
}

int InputsColumnLayout::besideWidth() const
{
    const QMargins margins = contentsMargins();
    return margins.left() + margins.right() + std::max(0, spacing()) + kInputsWidth + m_resultsMinimumWidth();
}

QSize InputsColumnLayout::minimumSize() const
{
    const QMargins margins = contentsMargins();
    const int stacked = margins.left() + margins.right()
        + std::max(m_inputs->minimumSizeHint().width(), m_results->minimumSizeHint().width());
    QSize size = QBoxLayout::minimumSize();
    size.setWidth(std::min(size.width(), stacked));
    return size;
}

void InputsColumnLayout::setGeometry(const QRect& rect)
{
    arrange(rect.size());
    QBoxLayout::setGeometry(rect);
}

void InputsColumnLayout::arrange(QSize panel)
{
    // Only what changes is set: each setter asks for another layout pass, which must find nothing left to do.
    const bool beside = panel.width() >= besideWidth();
    const bool leading = m_side == InputsSide::Leading;
    const Direction wanted = beside ? (leading ? QBoxLayout::LeftToRight : QBoxLayout::RightToLeft)
                                    : (leading ? QBoxLayout::TopToBottom : QBoxLayout::BottomToTop);
    if (direction() != wanted) {
        setDirection(wanted);
        // Stacked, the inputs take up to the cap below (two fifths): a resilience form shows four of its rows.
        setStretch(0, beside ? 0 : 2);
        setStretch(1, beside ? 1 : 3);
    }
    // A cap, not a fixed height, above the results: a minimum would raise the main window's minimum and push its docks
    // off the screen. The results' minimum comes first (a chart and its caption drawn over each other is worse than a
    // form that scrolls), the inputs' own minimum before both.
    const int minimumWidth = beside ? kInputsWidth : 0;
    const int maximumWidth = beside ? kInputsWidth : QWIDGETSIZE_MAX;
    const QMargins margins = contentsMargins();
    const int resultsMinimum = m_results->minimumSizeHint().expandedTo(m_results->minimumSize()).height();
    const int leftByResults
        = panel.height() - margins.top() - margins.bottom() - std::max(0, spacing()) - resultsMinimum;
    const int maximumHeight = beside
        ? QWIDGETSIZE_MAX
        : std::max(m_inputs->minimumSizeHint().height(), std::min(panel.height() * 2 / 5, leftByResults));
    if (m_inputs->minimumWidth() != minimumWidth) {
        m_inputs->setMinimumWidth(minimumWidth);
    }
    if (m_inputs->maximumWidth() != maximumWidth) {
        m_inputs->setMaximumWidth(maximumWidth);
    }
    if ((!beside || m_heightCapped) && m_inputs->maximumHeight() != maximumHeight) {
        m_inputs->setMaximumHeight(maximumHeight);
    }
    m_heightCapped = !beside;
}

int tableHeadersWidth(const QTableView* table)
{
    const QHeaderView* header = table->horizontalHeader();
    const QAbstractItemModel* model = table->model();
    if (!model) {
        return 2 * table->frameWidth();
    }
    const QFontMetrics metrics(header->font());
    const int margins = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header) + 1;
    int widest = 0;
    int sum = 0;
    bool stretched = false;
    for (int column = 0; column < model->columnCount(); ++column) {
        int lineWidth = 0;
        const QString text = model->headerData(column, Qt::Horizontal).toString();
        for (const QString& line : text.split(QLatin1Char('\n'))) {
            lineWidth = std::max(lineWidth, metrics.horizontalAdvance(line));
        }
        widest = std::max(widest, lineWidth + margins);
        sum += lineWidth + margins;
        stretched = stretched || header->sectionResizeMode(column) == QHeaderView::Stretch;
    }
    return (stretched ? widest * model->columnCount() : sum) + 2 * table->frameWidth();
}

} // namespace rapid::widgets
