// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;

namespace rapid::widgets {

/// A figure with a word-wrapped caption under it (the goodput curve and its figures). Its minimum height is the
/// figure's minimum plus the caption's height at the current width, so a splitter or layout above it never squeezes
/// the caption over the figure, and a longer caption asks its panel for the room.
class CaptionedFigure : public QWidget {
public:
    /// Takes @p figure and @p caption as children; the caption is made word-wrapped.
    CaptionedFigure(QWidget* figure, QLabel* caption, QWidget* parent = nullptr);

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    bool event(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    /// The caption's height at @p width; none when it is empty or hidden.
    int captionHeight(int width) const;
    void place();

    QWidget* m_figure;
    QLabel* m_caption;
    int m_placedCaptionHeight = -1;
};

} // namespace rapid::widgets
