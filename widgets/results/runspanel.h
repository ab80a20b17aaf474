// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace rapid::widgets {

class RunSession;

/// The session's named runs (dock content): rename in place, choose the baseline, remove. Two slot groups, as in the
/// editors: "edited in the list" writes to the session, "changed in the session" rebuilds the list, and a guard flag
/// keeps the rebuild from counting as an edit.
class RunsPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunsPanel(RunSession* session, QWidget* parent = nullptr);

    QListWidget* list() const { return m_list; }
    QPushButton* baselineButton() const { return m_useAsBaseline; }
    QPushButton* removeButton() const { return m_remove; }

private:
    // Changed in the session.
    void rebuild();
    // Edited in the list.
    void itemEdited(QListWidgetItem* item);
    void useSelectedAsBaseline();
    void removeSelected();
    void updateButtons();

    RunSession* m_session;
    QListWidget* m_list;
    QPushButton* m_useAsBaseline;
    QPushButton* m_clearBaseline;
    QPushButton* m_remove;
    bool m_rebuilding = false;
};

} // namespace rapid::widgets
