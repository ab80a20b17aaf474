// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/workspacedocument.h"

#include "editors/editsettingscommand.h"
#include "editors/edittextcommand.h"
#include "editors/gpupresetinliner.h"
#include "editors/keepfigurestylecommand.h"
#include "editors/runsession.h"
#include "editors/setvaluecommand.h"

#include "config/presetsource.h"
#include "config/yamledit.h"
#include "parallel/placement.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <algorithm>

namespace rapid::widgets {

namespace {

const QString kGpuPrefix = QStringLiteral("hardware.gpu.");
const QString kGpuReferenceKey = QStringLiteral("hardware.gpu");

QString firstMessage(const config::ConfigError& error)
{
    return error.diagnostics().empty() ? QString::fromUtf8(error.what())
                                       : QString::fromStdString(error.diagnostics().front().toString());
}

} // namespace

WorkspaceDocument::WorkspaceDocument(config::PresetLibrary library, QObject* parent)
    : QObject(parent)
    , m_loader(std::move(library))
    , m_session(new RunSession(m_loader, this))
{
    m_session->setUndoStack(&m_undoStack);
    connect(&m_undoStack, &QUndoStack::cleanChanged, this, [this] { Q_EMIT dirtyChanged(isDirty()); });
}

void WorkspaceDocument::load(const config::WorkspaceDocuments& documents, const QString& filePath)
{
    const RunSession::State before = m_session->state();
    m_documents = documents;
    m_documents.runs.clear(); // the session holds them
    adoptResults(documents.results);
    m_resultsModified = false;
    m_lastLoaded.reset(); // another workspace: the last one's scenario says nothing about it
    m_undoStack.clear();
    m_undoStack.setClean();
    m_session->setState({ m_session->runsFromDocuments(documents.runs), RunSession::baselineOf(documents.runs) });
    m_presetTextCache.clear();
    for (DocumentKind kind : kAllDocumentKinds) {
        updateParses(kind);
    }
    if (m_filePath != filePath) {
        m_filePath = filePath;
        Q_EMIT filePathChanged(m_filePath);
    }
    revalidate();
    for (DocumentKind kind : kAllDocumentKinds) {
        Q_EMIT documentChanged(kind);
    }
    Q_EMIT workspaceLoaded();
    if (m_documents.sweep) {
        Q_EMIT sweepSettingsChanged();
    }
    Q_EMIT servingSettingsChanged();
    Q_EMIT dirtyChanged(false);
    keepRunsPinnedBefore(before);
}

void WorkspaceDocument::keepRunsPinnedBefore(const RunSession::State& before)
{
    // Runs pinned before another workspace is opened stay, ahead of the opened file's own runs: comparing one
    // workspace against a run of another is what the runs list is for, and replacing the list would throw away
    // runs that were perhaps never saved. They now belong to this workspace's list and would be saved with it, so
    // keeping them is an edit: the workspace shows as modified and Undo takes them out, back to the file as saved.
    const RunSession::State opened = m_session->state();
    const auto inOpened = [&opened](const NamedRun& run) {
        return std::any_of(
            opened.runs.begin(), opened.runs.end(), [&run](const NamedRun& own) { return own.id == run.id; });
    };
    RunSession::State merged;
    for (const NamedRun& run : before.runs) {
        if (!inOpened(run)) { // reopening the same file brings its runs back once
            merged.runs.append(run);
        }
    }
    if (merged.runs.isEmpty()) {
        return;
    }
    const qsizetype kept = merged.runs.size();
    for (const NamedRun& run : opened.runs) {
        NamedRun renamed = run;
        const auto taken = [&merged](const QString& name) {
            return std::any_of(
                merged.runs.begin(), merged.runs.end(), [&name](const NamedRun& other) { return other.name == name; });
        };
        for (int number = 2; taken(renamed.name); ++number) {
            renamed.name = QStringLiteral("%1 (%2)").arg(run.name).arg(number);
        }
        merged.runs.append(renamed);
    }
    // The baseline compared against so far stays the baseline; without one, the file's applies.
    const quint64 baselineId = before.baseline >= 0 ? before.runs[before.baseline].id : 0;
    merged.baseline = opened.baseline >= 0 ? static_cast<int>(kept) + opened.baseline : -1;
    for (int index = 0; baselineId != 0 && index < merged.runs.size(); ++index) {
        if (merged.runs[index].id == baselineId) {
            merged.baseline = index;
        }
    }
    m_session->editState(
        merged, tr("Keep %n run(s) pinned before opening %1", nullptr, static_cast<int>(kept)).arg(name()));
}

void WorkspaceDocument::loadRecovered(const config::WorkspaceDocuments& documents)
{
    load(documents, QString());
    m_undoStack.resetClean(); // no saved state to return to: the workspace stays modified until saved
}

bool WorkspaceDocument::open(const QString& reference, QString* error)
{
    try {
        const config::WorkspaceDocuments documents
            = config::readWorkspaceDocuments(reference.toStdString(), m_loader.library());
        // A reference that is not an existing file is a preset name: it opens untitled.
        const QFileInfo info(reference);
        load(documents, info.isFile() ? info.absoluteFilePath() : QString());
        return true;
    } catch (const config::ConfigError& problem) {
        if (error) {
            *error = firstMessage(problem);
        }
    }
    return false;
}

bool WorkspaceDocument::save(const QString& filePath, QString* error)
{
    QSaveFile file(filePath);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error) {
            *error = file.errorString();
        }
        return false;
    }
    file.write(composedText().toUtf8());
    if (!file.commit()) {
        if (error) {
            *error = file.errorString();
        }
        return false;
    }
    const QString absolute = QFileInfo(filePath).absoluteFilePath();
    if (m_filePath != absolute) {
        m_filePath = absolute;
        Q_EMIT filePathChanged(m_filePath);
    }
    m_undoStack.setClean();
    setResultsModified(false);
    return true;
}

QString WorkspaceDocument::composedText() const
{
    config::WorkspaceDocuments documents = m_documents;
    documents.runs = m_session->pinnedRunDocuments();
    // A result of the documents as they are written needs no copy of them: its fingerprint says they match.
    const std::string current = fingerprintOf(resultDocuments());
    for (config::SavedResult& result : documents.results) {
        if (result.fingerprint == current) {
            result.documents.reset();
        }
    }
    return QString::fromStdString(config::composeWorkspace(documents));
}

QString WorkspaceDocument::text(DocumentKind kind) const
{
    return QString::fromStdString(documentText(kind).text);
}

std::optional<QString> WorkspaceDocument::valueAt(const QString& keyPath) const
{
    if (keyPath == kGpuReferenceKey && hardwareIsOneGpu()) {
        return oneGpuPresetName();
    }
    const std::string& text = documentText(documentOfKeyPath(keyPath)).text;
    if (const auto value = config::yamlScalarAt(text, textPath(keyPath))) {
        return QString::fromStdString(*value);
    }
    if (keyPath.startsWith(kGpuPrefix)) {
        if (const auto preset = gpuPresetText()) {
            const std::string presetPath = "gpu." + keyPath.mid(kGpuPrefix.size()).toStdString();
            if (const auto value = config::yamlScalarAt(*preset, presetPath)) {
                return QString::fromStdString(*value);
            }
        }
    }
    return std::nullopt;
}

QString WorkspaceDocument::valueSource(const QString& keyPath) const
{
    if (keyPath.startsWith(kGpuPrefix)) {
        if (const auto preset = gpuPresetText()) {
            const std::string presetPath = "gpu." + keyPath.mid(kGpuPrefix.size()).toStdString();
            return QString::fromStdString(config::presetValueSource(*preset, presetPath, true));
        }
    }
    const DocumentKind kind = documentOfKeyPath(keyPath);
    return QString::fromStdString(config::presetValueSource(documentText(kind).text, textPath(keyPath), false));
}

bool WorkspaceDocument::setValue(const QString& keyPath, const QString& valueYaml, QString* error)
{
    const DocumentKind kind = documentOfKeyPath(keyPath);
    const std::string oldText = documentText(kind).text;
    if (keyPath == kGpuReferenceKey && hardwareIsOneGpu()) {
        // One GPU and no network: the hardware is the GPU document itself, so choosing another preset replaces the
        // text by that preset's (one undoable edit), as naming it as the workspace's hardware would.
        QString name = valueYaml.trimmed(); // the picker's item text: a plain preset name
        if (name.size() >= 2 && (name.front() == QLatin1Char('"') || name.front() == QLatin1Char('\''))) {
            name = name.mid(1, name.size() - 2);
        }
        const auto preset = gpuPresetFileText(name.toStdString());
        if (!preset) {
            if (error) {
                *error = tr("no GPU preset named %1").arg(valueYaml);
            }
            return false;
        }
        replaceText(kind, QString::fromStdString(*preset), tr("Set gpu = %1").arg(valueYaml));
        return true;
    }
    std::string base = oldText;
    std::string why;
    if (keyPath.startsWith(kGpuPrefix)) {
        if (const auto preset = gpuPresetText()) {
            const auto inlined = inlineGpuPreset(base, *preset, &why);
            if (!inlined) {
                if (error) {
                    *error = QString::fromStdString(why);
                }
                return false;
            }
            base = *inlined;
        }
    }
    const auto newText = config::setYamlValue(base, textPath(keyPath), valueYaml.toStdString(), &why);
    if (!newText) {
        if (error) {
            *error = QString::fromStdString(why);
        }
        return false;
    }
    if (*newText == oldText) {
        return true;
    }
    const QString leaf = keyPath.section(QLatin1Char('.'), -1);
    m_undoStack.push(new SetValueCommand(this, kind, QString::fromStdString(oldText), QString::fromStdString(*newText),
        tr("Set %1 = %2").arg(leaf, valueYaml)));
    return true;
}

void WorkspaceDocument::replaceText(DocumentKind kind, const QString& text, const QString& description)
{
    const QString oldText = this->text(kind);
    if (oldText != text) {
        m_undoStack.push(new SetValueCommand(this, kind, oldText, text, description));
    }
}

void WorkspaceDocument::setText(DocumentKind kind, const QString& text)
{
    const QString oldText = this->text(kind);
    if (oldText == text) {
        return;
    }
    m_undoStack.push(new EditTextCommand(this, kind, oldText, text));
}

void WorkspaceDocument::replaceTexts(const config::WorkspaceDocuments& documents, const QString& description)
{
    const config::DocumentText* replacements[] = { &documents.model, &documents.hardware, &documents.run };
    m_undoStack.beginMacro(description);
    for (DocumentKind kind : kAllDocumentKinds) {
        const QString oldText = text(kind);
        const QString newText = QString::fromStdString(replacements[static_cast<int>(kind)]->text);
        if (oldText != newText) {
            m_undoStack.push(new SetValueCommand(this, kind, oldText, newText, description));
        }
    }
    if (m_session->pinnedRunDocuments() != documents.runs) {
        m_session->editState(
            { m_session->runsFromDocuments(documents.runs), RunSession::baselineOf(documents.runs) }, description);
    }
    if (documents.sweep != m_documents.sweep) {
        m_undoStack.push(editSweepCommand(this, m_documents.sweep, documents.sweep));
    }
    if (documents.serving != m_documents.serving) {
        m_undoStack.push(editServingCommand(this, m_documents.serving, documents.serving));
    }
    if (documents.figureStyle != m_documents.figureStyle) {
        m_undoStack.push(new KeepFigureStyleCommand(m_documents, documents.figureStyle));
    }
    m_undoStack.endMacro();
    // After the texts: results written without their documents are of the restored texts.
    if (documents.results != m_documents.results) {
        adoptResults(documents.results);
        setResultsModified(true);
        Q_EMIT savedResultsReplaced();
    }
}

void WorkspaceDocument::keepResult(config::SavedResult result)
{
    auto& results = m_documents.results;
    const auto same = std::find_if(results.begin(), results.end(),
        [&result](const config::SavedResult& kept) { return kept.view == result.view; });
    if (same != results.end()) {
        *same = std::move(result);
    } else {
        results.push_back(std::move(result));
    }
    setResultsModified(true);
    Q_EMIT resultKept();
}

void WorkspaceDocument::adoptResults(std::vector<config::SavedResult> results)
{
    const config::ResultDocuments own = resultDocuments();
    const std::string current = fingerprintOf(own);
    for (config::SavedResult& result : results) {
        if (!result.documents && result.fingerprint == current) {
            result.documents = own;
        }
    }
    m_documents.results = std::move(results);
}

void WorkspaceDocument::setResultsModified(bool modified)
{
    const bool wasDirty = isDirty();
    m_resultsModified = modified;
    if (isDirty() != wasDirty) {
        Q_EMIT dirtyChanged(isDirty());
    }
}

config::ResultDocuments WorkspaceDocument::resultDocuments() const
{
    return { m_documents.model, m_documents.hardware, m_documents.run, m_documents.overrides };
}

std::string WorkspaceDocument::fingerprintOf(const config::ResultDocuments& documents)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    // Each part with its length first, so that moving text from one document to the next changes the digest.
    const auto add = [&hash](const std::string& part) {
        const QByteArray length = QByteArray::number(static_cast<qulonglong>(part.size())) + QByteArray(":");
        hash.addData(length);
        hash.addData(QByteArrayView(part.data(), static_cast<qsizetype>(part.size())));
    };
    add(documents.model.text);
    add(documents.hardware.text);
    add(documents.run.text);
    for (const std::string& assignment : documents.overrides) {
        add(assignment);
    }
    return hash.result().toHex().toStdString();
}

std::optional<config::Scenario> WorkspaceDocument::scenarioOf(const config::ResultDocuments& documents) const
{
    try {
        return m_loader.loadTexts(documents.model, documents.hardware, documents.run, documents.overrides);
    } catch (const std::exception&) {
        return std::nullopt; // presets named by the documents may be gone
    }
}

void WorkspaceDocument::setSweepSettings(const config::SweepSettings& settings)
{
    if (m_documents.sweep == settings) {
        return;
    }
    m_undoStack.push(editSweepCommand(this, m_documents.sweep, settings));
}

void WorkspaceDocument::setServingSettings(const config::ServingSettings& settings)
{
    if (m_documents.serving == settings) {
        return;
    }
    m_undoStack.push(editServingCommand(this, m_documents.serving, settings));
}

std::optional<config::Scenario> WorkspaceDocument::loadWith(const std::vector<std::string>& overrides) const
{
    std::vector<std::string> all = m_documents.overrides;
    all.insert(all.end(), overrides.begin(), overrides.end());
    try {
        config::Scenario scenario = m_loader.loadTexts(m_documents.model, m_documents.hardware, m_documents.run, all);
        std::vector<config::Diagnostic> problems;
        parallel::placeRanks(scenario.hardware, scenario.run, scenario.locations, &problems);
        if (problems.empty()) {
            return scenario;
        }
    } catch (const std::exception&) {
        // Not a valid set of overrides: nothing to offer.
    }
    return std::nullopt;
}

bool WorkspaceDocument::setValues(const QList<std::pair<QString, QString>>& values, const QString& description)
{
    m_undoStack.beginMacro(description);
    bool applied = true;
    for (const auto& [keyPath, valueYaml] : values) {
        applied = setValue(keyPath, valueYaml) && applied;
    }
    m_undoStack.endMacro();
    return applied;
}

void WorkspaceDocument::setFigureStyle(const config::FigureStyle& style)
{
    if (m_documents.figureStyle != style) {
        m_undoStack.push(new KeepFigureStyleCommand(m_documents, style));
    }
}

void WorkspaceDocument::applySweepSettings(const std::optional<config::SweepSettings>& settings)
{
    m_documents.sweep = settings;
    Q_EMIT sweepSettingsChanged();
}

void WorkspaceDocument::applyServingSettings(const std::optional<config::ServingSettings>& settings)
{
    m_documents.serving = settings;
    Q_EMIT servingSettingsChanged();
}

void WorkspaceDocument::applyText(DocumentKind kind, const QString& text)
{
    documentText(kind).text = text.toStdString();
    updateParses(kind);
    revalidate();
    Q_EMIT documentChanged(kind);
}

config::DocumentText& WorkspaceDocument::documentText(DocumentKind kind)
{
    switch (kind) {
    case DocumentKind::Model:
        return m_documents.model;
    case DocumentKind::Hardware:
        return m_documents.hardware;
    case DocumentKind::Run:
        break;
    }
    return m_documents.run;
}

const config::DocumentText& WorkspaceDocument::documentText(DocumentKind kind) const
{
    return const_cast<WorkspaceDocument*>(this)->documentText(kind);
}

std::string WorkspaceDocument::textPath(const QString& keyPath) const
{
    // A GPU preset named as the hardware (one GPU) keeps its own `gpu:` document as the hardware text (the
    // workspace writes it under `hardware:`): the fields' hardware.gpu.* keys are its gpu.* keys.
    if (keyPath.startsWith(kGpuPrefix) && hardwareIsOneGpu()) {
        return "gpu." + keyPath.mid(kGpuPrefix.size()).toStdString();
    }
    return keyPath.toStdString();
}

std::optional<std::string> WorkspaceDocument::gpuPresetText() const
{
    const auto reference = config::yamlScalarAt(m_documents.hardware.text, "hardware.gpu");
    return reference ? gpuPresetFileText(*reference) : std::nullopt;
}

bool WorkspaceDocument::hardwareIsOneGpu() const
{
    const std::string& hardware = m_documents.hardware.text;
    return config::yamlScalarAt(hardware, "gpu.name") || config::yamlScalarAt(hardware, "gpu.sm_count");
}

std::optional<QString> WorkspaceDocument::oneGpuPresetName() const
{
    for (const std::string& name : m_loader.library().names(config::PresetKind::Gpu)) {
        const auto preset = gpuPresetFileText(name);
        if (preset && *preset == m_documents.hardware.text) {
            return QString::fromStdString(name);
        }
    }
    return std::nullopt;
}

std::optional<std::string> WorkspaceDocument::gpuPresetFileText(const std::string& reference) const
{
    const auto path = m_loader.library().resolve(config::PresetKind::Gpu, reference, m_documents.hardware.baseDir);
    if (!path) {
        return std::nullopt;
    }
    const QString key = QString::fromStdString(*path);
    if (const auto cached = m_presetTextCache.constFind(key); cached != m_presetTextCache.constEnd()) {
        return *cached;
    }
    QFile file(key);
    if (!file.open(QIODevice::ReadOnly)) {
        return std::nullopt;
    }
    std::string text = file.readAll().toStdString();
    m_presetTextCache.insert(key, text);
    return text;
}

void WorkspaceDocument::updateParses(DocumentKind kind)
{
    // A text the forms can show and edit: it parses and its root is a mapping.
    m_parses[static_cast<size_t>(kind)] = config::yamlEditable(documentText(kind).text);
}

void WorkspaceDocument::revalidate()
{
    // Each text is checked under its root key as source name, so a diagnostic's line refers to the editor's text
    // (the documents of a workspace file are slices of it, and their own line numbers start at 1).
    auto named = [](const config::DocumentText& document, DocumentKind kind) {
        config::DocumentText copy = document;
        copy.sourceName = rootKeyOf(kind).toStdString();
        return copy;
    };
    std::vector<config::Diagnostic> diagnostics;
    std::optional<config::Scenario> scenario;
    try {
        scenario = m_loader.loadTexts(named(m_documents.model, DocumentKind::Model),
            named(m_documents.hardware, DocumentKind::Hardware), named(m_documents.run, DocumentKind::Run),
            m_documents.overrides);
        scenario->name = m_documents.name;
        // The loader checks the documents and that their GPU counts agree; whether the network mapping can hold
        // the ranks' layout only the placement tells (tp 4 dp 4 puts dp groups on NVLink where the mapping says
        // ib). It takes microseconds, and without it such a workspace looked valid everywhere but the placement
        // tab (issue #18).
        parallel::placeRanks(scenario->hardware, scenario->run, scenario->locations, &diagnostics);
    } catch (const config::ConfigError& error) {
        diagnostics = error.diagnostics();
    } catch (const std::exception& error) {
        // The loader promises ConfigError only; anything else still must not take the editor down.
        diagnostics.push_back({ {}, {}, std::string("internal error while checking: ") + error.what() });
    }
    const bool diagnosticsDiffer = diagnostics != m_diagnostics;
    m_diagnostics = std::move(diagnostics);
    m_scenario = std::move(scenario);
    if (m_scenario) {
        m_lastLoaded = m_scenario;
    }
    if (diagnosticsDiffer) {
        Q_EMIT diagnosticsChanged();
    }
    if (m_scenario) {
        Q_EMIT scenarioChanged(*m_scenario);
    }
}

} // namespace rapid::widgets
