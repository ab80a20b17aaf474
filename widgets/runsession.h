// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "evaluation.h"

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QString>

namespace rapid::widgets {

/// One pinned result: what was evaluated, under the name the user sees in the runs list.
struct NamedRun {
    QString name;
    Evaluation evaluation;
    QDateTime pinnedAt;
};

/// The named runs of this session and which one is the baseline every chart compares against. Lives as long as the
/// window's WorkspaceDocument and outlives opening another workspace, so runs of different workspaces can be
/// compared. Not written to the workspace file (yet): the runs are gone when the window closes.
class RunSession : public QObject {
    Q_OBJECT
public:
    explicit RunSession(QObject* parent = nullptr);

    /// Adds a run and returns its index; an empty or taken name gets a numbered one.
    int add(const QString& name, const Evaluation& evaluation);
    void remove(int index);
    void rename(int index, const QString& name);
    /// -1 clears the baseline.
    void setBaselineIndex(int index);

    const QList<NamedRun>& runs() const { return m_runs; }
    int count() const { return static_cast<int>(m_runs.size()); }
    int baselineIndex() const { return m_baseline; }
    const NamedRun* baseline() const;

Q_SIGNALS:
    void runsChanged();
    void baselineChanged();

private:
    QString uniqueName(const QString& wanted, int ignoredIndex) const;

    QList<NamedRun> m_runs;
    int m_baseline = -1;
};

} // namespace rapid::widgets
