// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QToolButton;

namespace rapid::widgets {

/// The Graph view's controls above the drawing, built and arranged: Open, the rank chooser, Fit, the defects button
/// and the pop-out button on the first row; the filter, the id range and the search on the second; then a line that
/// sums up what is drawn. The view connects them.
class GraphControls : public QWidget {
    Q_OBJECT
public:
    explicit GraphControls(QAction* openAction, QWidget* parent = nullptr);

    QComboBox* rankChooser() const { return m_rank; }
    QToolButton* fitButton() const { return m_fit; }
    QToolButton* defectsButton() const { return m_defects; }
    QToolButton* popOutButton() const { return m_popOut; }
    QLineEdit* filterEdit() const { return m_filter; }
    QLineEdit* idRangeEdit() const { return m_idRange; }
    QLineEdit* searchEdit() const { return m_search; }
    QLabel* searchCount() const { return m_searchCount; }
    QLabel* summary() const { return m_summary; }

private:
    QComboBox* m_rank;
    QToolButton* m_fit;
    QToolButton* m_defects;
    QToolButton* m_popOut;
    QLineEdit* m_filter;
    QLineEdit* m_idRange;
    QLineEdit* m_search;
    QLabel* m_searchCount;
    QLabel* m_summary;
};

} // namespace rapid::widgets
