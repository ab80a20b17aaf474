// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFrame>

class QLabel;
class QPushButton;

namespace rapid::widgets {

/// A strip at the top of the window offering to restore unsaved edits found in an autosave. Not a dialog: the user
/// can look at the file first and decide later.
class RestoreBanner : public QFrame {
    Q_OBJECT
public:
    explicit RestoreBanner(QWidget* parent = nullptr);

    void setMessage(const QString& message);
    QPushButton* restoreButton() const { return m_restore; }
    QPushButton* discardButton() const { return m_discard; }

Q_SIGNALS:
    void restoreRequested();
    void discardRequested();

private:
    QLabel* m_message;
    QPushButton* m_restore;
    QPushButton* m_discard;
};

} // namespace rapid::widgets
