// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

class QAction;
class QLabel;
class QVBoxLayout;
class QWidget;

namespace rapid::widgets {

/// Moves the Graph view's contents between their place in the results panel and a top-level window of their own
/// ("Open in Window"), where a graph has room: the results panel shares a 1280-pixel screen with the editors. While
/// the contents are out, a placeholder in the panel says where they are and brings them back; closing the window
/// does the same. The window is a child of the panel's widget, so it closes with the main window and never keeps the
/// application running on its own.
class GraphPopOut : public QObject {
    Q_OBJECT
public:
    /// @p content must be the first widget of @p home's layout, @p homeLayout.
    GraphPopOut(QWidget* content, QWidget* home, QVBoxLayout* homeLayout);

    void setPoppedOut(bool out);
    bool isPoppedOut() const { return m_out; }
    /// Checkable: checked while the contents are in their own window.
    QAction* action() const { return m_action; }
    /// The own window (null until first opened).
    QWidget* window() const { return m_window; }
    /// The window title ("Graph — chakra.0.et").
    void setTitle(const QString& title);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void createWindow();

    QWidget* m_content;
    QWidget* m_home;
    QVBoxLayout* m_homeLayout;
    QWidget* m_placeholder;
    QWidget* m_window = nullptr;
    QAction* m_action;
    QString m_title;
    bool m_out = false;
};

} // namespace rapid::widgets
