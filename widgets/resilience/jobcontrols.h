// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace rapid::widgets {

/// The Run / Cancel row of a Resilience page: Run, a progress bar and Cancel while a job runs, and a status line
/// under them (counts, the inline reason a run cannot start, "cancelled", a stale result's note).
class JobControls : public QWidget {
    Q_OBJECT
public:
    JobControls(const QString& runText, const QString& objectPrefix, QWidget* parent = nullptr);

    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QProgressBar* progressBar() const { return m_progress; }
    QLabel* statusLabel() const { return m_status; }

    /// Shows the progress bar and Cancel (and disables Run) while @p running.
    void setRunning(bool running);
    void setProgress(qint64 done, qint64 total);
    /// The status line; @p problem colours it as an inline problem.
    void setStatus(const QString& text, bool problem = false);

private:
    QPushButton* m_run;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_status;
};

} // namespace rapid::widgets
