// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/flowlayout.h"

#include <QStyle>
#include <QWidget>

#include <algorithm>

namespace rapid::widgets {

namespace {

bool expandsHorizontally(const QLayoutItem* item)
{
    return (item->expandingDirections() & Qt::Horizontal) != 0;
}

int itemHeight(const QLayoutItem* item, int width)
{
    return item->hasHeightForWidth() ? std::max(item->heightForWidth(width), item->minimumSize().height())
                                     : item->sizeHint().height();
}

} // namespace

FlowLayout::FlowLayout(QWidget* parent)
    : QLayout(parent)
{
}

FlowLayout::~FlowLayout()
{
    while (QLayoutItem* item = takeAt(0)) {
        delete item;
    }
}

void FlowLayout::addItem(QLayoutItem* item)
{
    m_items.append(item);
}

int FlowLayout::count() const
{
    return static_cast<int>(m_items.size());
}

QLayoutItem* FlowLayout::itemAt(int index) const
{
    return index >= 0 && index < m_items.size() ? m_items.at(index) : nullptr;
}

QLayoutItem* FlowLayout::takeAt(int index)
{
    if (index < 0 || index >= m_items.size()) {
        return nullptr;
    }
    QLayoutItem* item = m_items.takeAt(index);
    invalidate();
    return item;
}

Qt::Orientations FlowLayout::expandingDirections() const
{
    // Wider room lets the items share fewer lines, so the row takes what it is given.
    return Qt::Horizontal;
}

bool FlowLayout::hasHeightForWidth() const
{
    return true;
}

int FlowLayout::heightForWidth(int width) const
{
    return arrange(QRect(0, 0, width, 0), false);
}

QSize FlowLayout::minimumSize() const
{
    QSize size;
    for (const QLayoutItem* item : m_items) {
        if (!item->isEmpty()) {
            size = size.expandedTo(item->minimumSize());
        }
    }
    const QMargins margins = contentsMargins();
    return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom());
}

QSize FlowLayout::sizeHint() const
{
    // Everything on one line.
    int width = 0;
    int height = 0;
    int shown = 0;
    for (const QLayoutItem* item : m_items) {
        if (item->isEmpty()) {
            continue;
        }
        width += item->sizeHint().width();
        height = std::max(height, item->sizeHint().height());
        ++shown;
    }
    const QMargins margins = contentsMargins();
    width += std::max(0, shown - 1) * horizontalGap();
    return { width + margins.left() + margins.right(), height + margins.top() + margins.bottom() };
}

void FlowLayout::setGeometry(const QRect& rect)
{
    QLayout::setGeometry(rect);
    arrange(rect, true, &m_lines);
}

int FlowLayout::horizontalGap() const
{
    return gap(QStyle::PM_LayoutHorizontalSpacing);
}

int FlowLayout::verticalGap() const
{
    return gap(QStyle::PM_LayoutVerticalSpacing);
}

int FlowLayout::gap(QStyle::PixelMetric metric) const
{
    if (spacing() >= 0) {
        return spacing();
    }
    // The style's spacing between widgets, as QBoxLayout takes it when none is set.
    const QWidget* widget = parentWidget();
    const int styled = widget ? widget->style()->pixelMetric(metric, nullptr, widget) : -1;
    return styled >= 0 ? styled : 6;
}

int FlowLayout::arrange(const QRect& rect, bool apply, int* lines) const
{
    const QRect area = rect.marginsRemoved(contentsMargins());
    const int gapX = horizontalGap();
    const int gapY = verticalGap();
    // Lines are filled greedily; each line is placed once its items are known, so an expanding last item can take the
    // line's remaining width and every item sits on the line's top.
    int top = area.top();
    int lineCount = 0;
    auto first = m_items.cbegin();
    while (first != m_items.cend()) {
        int used = 0;
        auto end = first;
        for (; end != m_items.cend(); ++end) {
            if ((*end)->isEmpty()) {
                continue;
            }
            const int width = std::min((*end)->sizeHint().width(), area.width());
            if (used > 0 && used + gapX + width > area.width()) {
                break;
            }
            used += (used > 0 ? gapX : 0) + width;
        }
        // Widths and heights first, then the items centred on the line (a check box is shorter than a button).
        struct Placed {
            QLayoutItem* item;
            int width;
            int height;
        };
        QList<Placed> line;
        int x = area.left();
        int lineHeight = 0;
        for (auto it = first; it != end; ++it) {
            QLayoutItem* item = *it;
            if (item->isEmpty()) {
                continue;
            }
            int width = std::min(item->sizeHint().width(), area.width());
            const bool lastOfLine = std::none_of(it + 1, end, [](const QLayoutItem* next) { return !next->isEmpty(); });
            if (lastOfLine && expandsHorizontally(item)) {
                width = std::max(width, area.right() + 1 - x);
            }
            const int height = itemHeight(item, width);
            line.append({ item, width, height });
            x += width + gapX;
            lineHeight = std::max(lineHeight, height);
        }
        if (apply) {
            x = area.left();
            for (const Placed& placed : line) {
                placed.item->setGeometry(QRect(x, top + (lineHeight - placed.height) / 2, placed.width, placed.height));
                x += placed.width + gapX;
            }
        }
        if (lineHeight > 0) {
            ++lineCount;
            top += lineHeight + gapY;
        }
        first = end;
    }
    if (lines) {
        *lines = lineCount;
    }
    const int height = lineCount > 0 ? top - gapY - area.top() : 0;
    const QMargins margins = contentsMargins();
    return height + margins.top() + margins.bottom();
}

} // namespace rapid::widgets
