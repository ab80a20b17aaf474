// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLayout>
#include <QList>
#include <QStyle>

namespace rapid::widgets {

/// A row of controls (buttons, check boxes, a status label) that wraps onto further lines when its panel is narrower
/// than the row: the narrowest it asks for is its widest control, so a row of buttons does not hold the main window
/// wider than the screen. Items keep their preferred width; an item that expands horizontally (a label given
/// QSizePolicy::Expanding, or any item wider than the line) takes the rest of its line, and a word-wrapped label is
/// as tall as its text needs at that width. Hidden widgets take no room.
class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr);
    ~FlowLayout() override;
    FlowLayout(const FlowLayout&) = delete;
    FlowLayout& operator=(const FlowLayout&) = delete;

    void addItem(QLayoutItem* item) override;
    int count() const override;
    QLayoutItem* itemAt(int index) const override;
    QLayoutItem* takeAt(int index) override;

    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect& rect) override;

    /// The number of lines the items took at the last setGeometry (for tests and for the panels' own checks).
    int lineCount() const { return m_lines; }

private:
    /// Places the items in @p rect line by line (only when @p apply); returns the height they need.
    int arrange(const QRect& rect, bool apply, int* lines = nullptr) const;
    int horizontalGap() const;
    int verticalGap() const;
    int gap(QStyle::PixelMetric metric) const;

    QList<QLayoutItem*> m_items;
    int m_lines = 0;
};

} // namespace rapid::widgets
