// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "evaluation/evaluation.h"

#include "config/configloader.h"
#include "config/workspacefile.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>

#include <optional>
#include <vector>

class QUndoStack;

namespace rapid::widgets {

class EvaluationRunner;

/// One pinned result under the name the user sees in the runs list, with the documents it was evaluated from (so it
/// can be saved with the workspace and evaluated again when the workspace is opened).
struct NamedRun {
    quint64 id = 0; ///< unique in the session; keys its evaluation across undo steps
    QString name;
    QDateTime pinnedAt; ///< UTC
    config::WorkspaceDocuments source; ///< name, the three texts and the overrides evaluated (runs empty)
    /// The network model its figures come from (a run pinned from the congestion step: congestion), kept apart from
    /// the evaluation so a restored run is evaluated again on it and saved with it while it has no evaluation yet.
    sim::NetworkBackend backend = sim::NetworkBackend::Analytical;
    std::optional<Evaluation> evaluation; ///< empty while it is evaluated again, or when it no longer evaluates
    QString problem; ///< why the documents no longer evaluate (a preset changed, ...); evaluation is then empty

    bool isEvaluating() const { return !evaluation && problem.isEmpty(); }
};

/// The named runs and which one is the baseline every chart compares against. Owned by the window's
/// WorkspaceDocument, saved in the workspace file's `runs:` list and restored from it (see
/// WorkspaceDocument::load for what happens to the runs already here when another workspace is opened).
///
/// add/remove/rename/setBaselineIndex are user edits: each is one step on the undo stack given to setUndoStack(),
/// so it marks the workspace modified. Restored runs are evaluated again on the EvaluationRunner given to
/// setEvaluationRunner(), off the GUI thread; until their result arrives they are isEvaluating().
class RunSession : public QObject {
    Q_OBJECT
public:
    /// The runs and the baseline at one moment: what an undo step swaps.
    struct State {
        QList<NamedRun> runs;
        int baseline = -1;
    };

    explicit RunSession(config::ConfigLoader loader, QObject* parent = nullptr);

    /// Edits go through @p stack as undoable steps (none: applied directly).
    void setUndoStack(QUndoStack* stack) { m_undoStack = stack; }
    /// Where runs restored from a file are evaluated; runs waiting for one are sent to it now.
    void setEvaluationRunner(EvaluationRunner* runner);

    /// Pins @p evaluation, made from @p source, and returns its index; an empty or taken name gets a numbered one.
    /// The run keeps the evaluation's backend. One undo step, also when it becomes the baseline.
    int add(const QString& name, const Evaluation& evaluation, const config::WorkspaceDocuments& source,
        bool asBaseline = false);
    void remove(int index);
    void rename(int index, const QString& name);
    /// -1 clears the baseline.
    void setBaselineIndex(int index);

    const QList<NamedRun>& runs() const { return m_runs; }
    int count() const { return static_cast<int>(m_runs.size()); }
    int baselineIndex() const { return m_baseline; }
    const NamedRun* baseline() const;
    /// Runs whose evaluation has not arrived yet.
    int evaluatingCount() const;

    /// The runs as the workspace file keeps them.
    std::vector<config::PinnedRunDocuments> pinnedRunDocuments() const;
    /// Runs read from a file, evaluated again; a run equal to one already here keeps its evaluation.
    QList<NamedRun> runsFromDocuments(const std::vector<config::PinnedRunDocuments>& documents);
    /// The baseline flagged in @p documents, or -1.
    static int baselineOf(const std::vector<config::PinnedRunDocuments>& documents);

    State state() const { return { m_runs, m_baseline }; }
    /// Replaces everything, not as an edit (a workspace was loaded, or an undo step is applied).
    void setState(const State& state);
    /// Replaces everything as one undoable edit described by @p description.
    void editState(const State& state, const QString& description);

Q_SIGNALS:
    void runsChanged();
    void baselineChanged();

private:
    QString uniqueName(const QString& wanted, int ignoredIndex) const;
    /// Checks the run's documents and queues its evaluation (or records why it cannot be evaluated).
    void evaluate(const NamedRun& run);
    void evaluationArrived(quint64 id, const std::optional<Evaluation>& evaluation, const QString& problem);
    /// Fills in results that arrived for runs of @p runs.
    void applyOutcomes(QList<NamedRun>& runs) const;

    struct Outcome {
        std::optional<Evaluation> evaluation;
        QString problem;
    };

    config::ConfigLoader m_loader;
    QList<NamedRun> m_runs;
    int m_baseline = -1;
    quint64 m_nextId = 1;
    QHash<quint64, Outcome> m_outcomes; ///< results of every run ever evaluated, kept for undo
    QSet<quint64> m_requested; ///< evaluated or being evaluated
    QPointer<EvaluationRunner> m_runner;
    QUndoStack* m_undoStack = nullptr;
};

} // namespace rapid::widgets
