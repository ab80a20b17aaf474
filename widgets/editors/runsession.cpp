// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/runsession.h"

#include "evaluation/evaluationrunner.h"

#include <QUndoCommand>
#include <QUndoStack>

namespace rapid::widgets {

namespace {

/// One edit of the runs: swaps whole states, which are small (a handful of runs), so every kind of edit is the same
/// command.
class RunSessionCommand : public QUndoCommand {
public:
    RunSessionCommand(RunSession* session, RunSession::State before, RunSession::State after, const QString& text)
        : QUndoCommand(text)
        , m_session(session)
        , m_before(std::move(before))
        , m_after(std::move(after))
    {
    }

    void undo() override { m_session->setState(m_before); }
    void redo() override
    {
        if (m_applied) {
            m_applied = false; // the edit was made before it was pushed
            return;
        }
        m_session->setState(m_after);
    }

private:
    RunSession* m_session;
    RunSession::State m_before;
    RunSession::State m_after;
    bool m_applied = true;
};

QString pinnedAtText(const QDateTime& pinnedAt)
{
    const QDateTime utc = pinnedAt.toUTC();
    return utc.toString(utc.time().msec() != 0 ? Qt::ISODateWithMs : Qt::ISODate);
}

bool samePinnedRun(const NamedRun& run, const config::PinnedRunDocuments& documents)
{
    return run.name.toStdString() == documents.name && pinnedAtText(run.pinnedAt).toStdString() == documents.pinnedAt
        && run.source.model.text == documents.model.text && run.source.hardware.text == documents.hardware.text
        && run.source.run.text == documents.run.text && run.source.overrides == documents.overrides
        && sim::toString(run.backend) == documents.backend;
}

QString describeProblem(const config::ConfigError& error)
{
    const auto& diagnostics = error.diagnostics();
    if (diagnostics.empty()) {
        return QString::fromUtf8(error.what());
    }
    const config::Diagnostic& first = diagnostics.front();
    QString text = first.keyPath.empty()
        ? QString::fromStdString(first.message)
        : QStringLiteral("%1: %2").arg(QString::fromStdString(first.keyPath), QString::fromStdString(first.message));
    if (diagnostics.size() > 1) {
        text += RunSession::tr(" (and %n more)", nullptr, static_cast<int>(diagnostics.size() - 1));
    }
    return text;
}

} // namespace

RunSession::RunSession(config::ConfigLoader loader, QObject* parent)
    : QObject(parent)
    , m_loader(std::move(loader))
{
}

void RunSession::setEvaluationRunner(EvaluationRunner* runner)
{
    if (m_runner) {
        disconnect(m_runner, nullptr, this, nullptr);
    }
    m_runner = runner;
    if (!runner) {
        return;
    }
    connect(runner, &EvaluationRunner::keyedEvaluationAvailable, this,
        [this](quint64 id, const Evaluation& evaluation) { evaluationArrived(id, evaluation, {}); });
    connect(runner, &EvaluationRunner::keyedEvaluationFailed, this, [this](quint64 id, const QString& message) {
        evaluationArrived(id, std::nullopt, tr("evaluation failed: %1").arg(message));
    });
    // Runs restored while there was no runner.
    for (const NamedRun& run : std::as_const(m_runs)) {
        if (run.isEvaluating() && !m_requested.contains(run.id)) {
            evaluate(run);
        }
    }
}

int RunSession::add(
    const QString& name, const Evaluation& evaluation, const config::WorkspaceDocuments& source, bool asBaseline)
{
    NamedRun run;
    run.id = m_nextId++;
    run.name = uniqueName(name, -1);
    // Whole seconds: the time is written to the workspace file and must read back equal.
    run.pinnedAt = QDateTime::fromSecsSinceEpoch(QDateTime::currentSecsSinceEpoch(), Qt::UTC);
    run.source = source;
    run.source.runs.clear();
    run.backend = evaluation.backend;
    run.evaluation = evaluation;
    m_outcomes.insert(run.id, { evaluation, {} });
    m_requested.insert(run.id);
    State next = state();
    next.runs.append(run);
    if (asBaseline) {
        next.baseline = static_cast<int>(next.runs.size()) - 1;
    }
    editState(next, asBaseline ? tr("Pin “%1” as baseline").arg(run.name) : tr("Pin “%1”").arg(run.name));
    return count() - 1;
}

void RunSession::remove(int index)
{
    if (index < 0 || index >= count()) {
        return;
    }
    State next = state();
    const QString name = next.runs.takeAt(index).name;
    if (next.baseline == index) {
        next.baseline = -1;
    } else if (next.baseline > index) {
        --next.baseline; // same run, new position: the charts need not change
    }
    editState(next, tr("Remove run “%1”").arg(name));
}

void RunSession::rename(int index, const QString& name)
{
    if (index < 0 || index >= count() || m_runs[index].name == name.trimmed()) {
        return;
    }
    State next = state();
    next.runs[index].name = uniqueName(name, index);
    editState(next, tr("Rename run to “%1”").arg(next.runs[index].name));
}

void RunSession::setBaselineIndex(int index)
{
    const int wanted = index >= 0 && index < count() ? index : -1;
    if (wanted == m_baseline) {
        return;
    }
    State next = state();
    next.baseline = wanted;
    editState(next, wanted >= 0 ? tr("Use “%1” as baseline").arg(m_runs[wanted].name) : tr("Clear baseline"));
}

const NamedRun* RunSession::baseline() const
{
    return m_baseline >= 0 ? &m_runs[m_baseline] : nullptr;
}

int RunSession::evaluatingCount() const
{
    return static_cast<int>(
        std::count_if(m_runs.begin(), m_runs.end(), [](const NamedRun& run) { return run.isEvaluating(); }));
}

std::vector<config::PinnedRunDocuments> RunSession::pinnedRunDocuments() const
{
    std::vector<config::PinnedRunDocuments> documents;
    for (int index = 0; index < count(); ++index) {
        const NamedRun& run = m_runs[index];
        config::PinnedRunDocuments pinned;
        pinned.name = run.name.toStdString();
        pinned.pinnedAt = pinnedAtText(run.pinnedAt).toStdString();
        pinned.baseline = index == m_baseline;
        pinned.model = run.source.model;
        pinned.hardware = run.source.hardware;
        pinned.run = run.source.run;
        pinned.overrides = run.source.overrides;
        pinned.backend = sim::toString(run.backend);
        documents.push_back(std::move(pinned));
    }
    return documents;
}

QList<NamedRun> RunSession::runsFromDocuments(const std::vector<config::PinnedRunDocuments>& documents)
{
    QList<NamedRun> runs;
    for (const config::PinnedRunDocuments& pinned : documents) {
        const auto existing = std::find_if(
            m_runs.cbegin(), m_runs.cend(), [&pinned](const NamedRun& run) { return samePinnedRun(run, pinned); });
        if (existing != m_runs.cend()) {
            runs.append(*existing); // reopening the same file need not evaluate again
            continue;
        }
        NamedRun run;
        run.id = m_nextId++;
        run.name = QString::fromStdString(pinned.name);
        run.pinnedAt = QDateTime::fromString(QString::fromStdString(pinned.pinnedAt), Qt::ISODateWithMs).toUTC();
        run.source.name = pinned.name;
        run.source.model = pinned.model;
        run.source.hardware = pinned.hardware;
        run.source.run = pinned.run;
        run.source.overrides = pinned.overrides;
        if (const std::optional<sim::NetworkBackend> backend = sim::parseNetworkBackend(pinned.backend)) {
            run.backend = *backend;
            evaluate(run);
        } else {
            // The file's reader refuses other names; documents made in code could still carry one.
            m_requested.insert(run.id);
            m_outcomes.insert(run.id,
                { std::nullopt,
                    tr("unknown network backend “%1”; expected %2")
                        .arg(QString::fromStdString(pinned.backend),
                            QString::fromStdString(sim::networkBackendChoices())) });
        }
        runs.append(run);
    }
    applyOutcomes(runs);
    return runs;
}

int RunSession::baselineOf(const std::vector<config::PinnedRunDocuments>& documents)
{
    for (size_t index = 0; index < documents.size(); ++index) {
        if (documents[index].baseline) {
            return static_cast<int>(index);
        }
    }
    return -1;
}

void RunSession::setState(const State& state)
{
    const NamedRun* oldBaseline = baseline();
    const quint64 oldBaselineId = oldBaseline ? oldBaseline->id : 0;
    const QString oldBaselineName = oldBaseline ? oldBaseline->name : QString();
    const bool oldBaselineEvaluated = oldBaseline && oldBaseline->evaluation;
    m_runs = state.runs;
    applyOutcomes(m_runs);
    m_baseline = state.baseline >= 0 && state.baseline < count() ? state.baseline : -1;
    const NamedRun* newBaseline = baseline();
    Q_EMIT runsChanged();
    if ((newBaseline ? newBaseline->id : 0) != oldBaselineId
        || (newBaseline
            && (newBaseline->name != oldBaselineName || bool(newBaseline->evaluation) != oldBaselineEvaluated))) {
        Q_EMIT baselineChanged();
    }
}

void RunSession::editState(const State& state, const QString& description)
{
    State before = this->state();
    setState(state);
    if (m_undoStack) {
        m_undoStack->push(new RunSessionCommand(this, std::move(before), this->state(), description));
    }
}

QString RunSession::uniqueName(const QString& wanted, int ignoredIndex) const
{
    const auto taken = [this, ignoredIndex](const QString& candidate) {
        for (int index = 0; index < count(); ++index) {
            if (index != ignoredIndex && m_runs[index].name == candidate) {
                return true;
            }
        }
        return false;
    };
    const QString base = wanted.trimmed().isEmpty() ? tr("Run") : wanted.trimmed();
    QString candidate = base;
    for (int number = 2; taken(candidate); ++number) {
        candidate = QStringLiteral("%1 (%2)").arg(base).arg(number);
    }
    return candidate;
}

void RunSession::evaluate(const NamedRun& run)
{
    // Each text under its root key as source name, as the editors check them: its line numbers are the text's own.
    auto named = [](config::DocumentText document, const char* rootKey) {
        document.sourceName = rootKey;
        return document;
    };
    try {
        config::Scenario scenario = m_loader.loadTexts(named(run.source.model, "model"),
            named(run.source.hardware, "hardware"), named(run.source.run, "run"), run.source.overrides);
        scenario.name = run.source.name;
        if (m_runner) {
            m_requested.insert(run.id);
            m_runner->requestKeyed(run.id, scenario, run.backend);
        }
    } catch (const config::ConfigError& error) {
        m_requested.insert(run.id);
        m_outcomes.insert(run.id, { std::nullopt, describeProblem(error) });
    }
}

void RunSession::evaluationArrived(quint64 id, const std::optional<Evaluation>& evaluation, const QString& problem)
{
    if (!m_requested.contains(id) || m_outcomes.contains(id)) {
        return; // another session's request on a shared runner
    }
    m_outcomes.insert(id, { evaluation, problem });
    for (int index = 0; index < count(); ++index) {
        if (m_runs[index].id == id) {
            m_runs[index].evaluation = evaluation;
            m_runs[index].problem = problem;
            Q_EMIT runsChanged();
            if (index == m_baseline) {
                Q_EMIT baselineChanged();
            }
            return;
        }
    }
}

void RunSession::applyOutcomes(QList<NamedRun>& runs) const
{
    for (NamedRun& run : runs) {
        if (run.isEvaluating()) {
            if (const auto outcome = m_outcomes.constFind(run.id); outcome != m_outcomes.constEnd()) {
                run.evaluation = outcome->evaluation;
                run.problem = outcome->problem;
            }
        }
    }
}

} // namespace rapid::widgets
