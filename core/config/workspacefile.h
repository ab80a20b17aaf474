// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "configloader.h"
#include "figurestyle.h"
#include "presetlibrary.h"
#include "servingsettings.h"

#include <optional>
#include <string>
#include <vector>

namespace rapid::config {

/// A run pinned in the workbench, as the workspace file keeps it: its name, when it was pinned, whether it is the
/// baseline, and the three document texts (and overrides) it was evaluated from, byte for byte, so the workbench can
/// evaluate it again. The texts are not checked when a workspace is read: a run whose presets changed since must not
/// stop the workspace from opening (the workbench shows its error beside the run).
struct PinnedRunDocuments {
    std::string name;
    std::string pinnedAt; ///< ISO-8601 UTC with seconds, "2025-03-01T14:30:00Z" (fractions of a second allowed)
    bool baseline = false; ///< at most one run of a workspace is
    DocumentText model; ///< sourceName is the workspace file, baseDir its folder
    DocumentText hardware;
    DocumentText run;
    std::vector<std::string> overrides;
    /// The network model the run's time figures came from, one of pinnedRunBackends() (the names of `rapid run
    /// --backend`): a run pinned from the congestion step is evaluated on that backend again when it is reopened.
    /// Written only when it is not "analytical", so files of runs pinned before the key existed read the same.
    std::string backend = "analytical";

    /// Compares everything that is written to the file (not sourceName and baseDir).
    bool operator==(const PinnedRunDocuments& other) const;
};

/// The values `runs[i].backend` may take: "analytical", "congestion", "ideal" (sim::NetworkBackend's names; config
/// cannot depend on sim, so a test keeps the two lists equal).
const std::vector<std::string>& pinnedRunBackends();

/// The workbench's sweep set-up, kept with the workspace so that a sweep can be run again after reopening it: the
/// axis lines as typed (`KEY=VALUES`, see sweep::parseSweepAxis) and the parallel-splits option.
struct SweepSettings {
    std::vector<std::string> axes;
    bool splits = true; ///< add an axis of every split of the GPUs over splitAxes
    std::vector<std::string> splitAxes { "tp", "pp", "dp" }; ///< of tp, pp, dp, cp
    int maxTp = 0; ///< largest tensor-parallel degree of the splits; 0: the hardware's GPUs per node

    bool operator==(const SweepSettings&) const = default;
};

/// The documents a result was computed from: enough to tell whether it still describes the workspace, and to rebuild
/// what drawing it needs (a network) when it does not.
struct ResultDocuments {
    DocumentText model; ///< sourceName is the workspace file, baseDir its folder
    DocumentText hardware;
    DocumentText run;
    std::vector<std::string> overrides;

    /// Compares the texts and overrides (not sourceName and baseDir).
    bool operator==(const ResultDocuments& other) const;
};

/// A view's last result, kept with the workspace (`results:`) so that reopening it shows the result again rather
/// than an empty page. The workspace file does not interpret it: the view that wrote it reads it back.
struct SavedResult {
    std::string view; ///< which view wrote it, e.g. "resilience.fault_study"; one result per view
    /// A digest of the documents the result was computed from (the view's choice, compared by it): tells a result
    /// still current from one the workspace was edited after, also when the file was edited by hand.
    std::string fingerprint;
    /// The documents themselves, written only when they are not the workspace's own (the result was stale when
    /// saved): a current result would otherwise repeat the whole workspace. Reading gives nullopt for none.
    std::optional<ResultDocuments> documents;
    std::string data; ///< the result, as the view wrote it (JSON text)

    bool operator==(const SavedResult& other) const;
};

/// A workspace as an editor holds it: three document texts (each with its own root key `model:`, `hardware:`,
/// `run:`), a name and the workspace's overrides. Referenced presets are read in, so saving embeds them.
struct WorkspaceDocuments {
    std::string name;
    DocumentText model;
    DocumentText hardware;
    DocumentText run;
    std::vector<std::string> overrides;
    std::vector<PinnedRunDocuments> runs; ///< the optional `runs:` list, in file order
    std::optional<SweepSettings> sweep; ///< the optional `sweep:` section
    std::optional<ServingSettings> serving; ///< the optional `serving:` section (the Serving tab's set-up)
    std::optional<FigureStyle> figureStyle; ///< the optional `figure_style:` section (the export dialog's style)
    std::vector<SavedResult> results; ///< the optional `results:` list (the views' last results), in file order

    /// Everything but the results: they are outputs, and a view that compares the workspace now with the one its
    /// own result came from (the Sweep tab) must not see another view's study as an edit.
    bool operator==(const WorkspaceDocuments& other) const;
};

/// Reads a workspace file (or workspace preset name) into its three document texts. Inline documents keep their
/// text (comments included); referenced ones are the referenced files' text. Throws ConfigError.
WorkspaceDocuments readWorkspaceDocuments(const std::string& reference, const PresetLibrary& library);

/// The text of a self-contained workspace file holding the three documents inline, then the sweep and serving set-ups,
/// the pinned runs and the saved results (if any), each document text as a literal block scalar (see yamlBlockScalar).
/// readWorkspaceDocuments() of the text gives back @p documents; a workspace without runs is written as before runs
/// existed.
std::string composeWorkspace(const WorkspaceDocuments& documents);

/// `key: |` and @p text as a YAML literal block scalar whose content lines start with @p indent; the chomping
/// indicator (`|`, `|-`, `|+`) follows the text's trailing line breaks and an indentation indicator is added when the
/// first line starts with white space, so the text reads back byte for byte. Text no block scalar can hold (carriage
/// returns, control characters) is written as a double-quoted scalar with escapes instead. @p indent must be 2
/// spaces deeper than the column of @p key. Ends with a line break.
std::string yamlBlockScalar(const std::string& key, const std::string& text, const std::string& indent);

} // namespace rapid::config
