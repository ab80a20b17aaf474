// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/captionedfigure.h"

#include <QEvent>
#include <QLabel>
#include <QStyle>

#include <algorithm>

namespace rapid::widgets {

namespace {

/// Between the figure and its caption.
constexpr int kGap = 4;

} // namespace

CaptionedFigure::CaptionedFigure(QWidget* figure, QLabel* caption, QWidget* parent)
    : QWidget(parent)
    , m_figure(figure)
    , m_caption(caption)
{
    m_figure->setParent(this);
    m_caption->setParent(this);
    m_caption->setWordWrap(true);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
}

int CaptionedFigure::captionHeight(int width) const
{
    if (m_caption->isHidden() || m_caption->text().isEmpty()) {
        return 0;
    }
    return m_caption->heightForWidth(std::max(1, width)) + kGap;
}

QSize CaptionedFigure::minimumSizeHint() const
{
    const QSize figure = m_figure->minimumSizeHint().expandedTo(m_figure->minimumSize());
    return { figure.width(), figure.height() + captionHeight(std::max(width(), figure.width())) };
}

QSize CaptionedFigure::sizeHint() const
{
    const QSize figure = m_figure->sizeHint().expandedTo(m_figure->minimumSize());
    return { figure.width(), figure.height() + captionHeight(std::max(width(), figure.width())) };
}

bool CaptionedFigure::event(QEvent* event)
{
    // The caption's text changed (QLabel asks its parent for a new layout): place it again and tell the splitter or
    // layout holding this figure that the minimum moved.
    if (event->type() == QEvent::LayoutRequest) {
        place();
        updateGeometry();
    }
    return QWidget::event(event);
}

void CaptionedFigure::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const int before = m_placedCaptionHeight;
    place();
    // A narrower caption wraps onto more lines: the minimum height changed with the width.
    if (m_placedCaptionHeight != before) {
        updateGeometry();
    }
}

void CaptionedFigure::place()
{
    const int caption = captionHeight(width());
    m_placedCaptionHeight = caption;
    m_figure->setGeometry(0, 0, width(), std::max(0, height() - caption));
    m_caption->setGeometry(0, height() - caption + (caption > 0 ? kGap : 0), width(), std::max(0, caption - kGap));
}

} // namespace rapid::widgets
