// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QPushButton;

namespace rapid::widgets {

/// The notice above a partial drawing: which part of the selection is drawn, and Previous/Next buttons that step to
/// the neighbouring windows of ids. Hidden while the whole selection is drawn.
class GraphPager : public QWidget {
    Q_OBJECT
public:
    explicit GraphPager(QWidget* parent = nullptr);

    /// Shows @p text with the buttons enabled where there is more to see.
    void showWindow(const QString& text, bool hasPrevious, bool hasNext);

    QLabel* label() const { return m_label; }
    QPushButton* previousButton() const { return m_previous; }
    QPushButton* nextButton() const { return m_next; }

Q_SIGNALS:
    void previousRequested();
    void nextRequested();

private:
    QLabel* m_label;
    QPushButton* m_previous;
    QPushButton* m_next;
};

} // namespace rapid::widgets
