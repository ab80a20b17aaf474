// SPDX-License-Identifier: GPL-3.0-or-later
// The `results:` section of a workspace: the views' last results, opaque to the configuration (see SavedResult).
#include "workspacefile.h"
#include "workspacefile_p.h"
#include "yamlnode_p.h"

#include <filesystem>

namespace rapid::config {

using detail::isMapNode;
using detail::isNullNode;
using detail::isScalarNode;
using detail::isSequenceNode;

bool ResultDocuments::operator==(const ResultDocuments& other) const
{
    return model.text == other.model.text && hardware.text == other.hardware.text && run.text == other.run.text
        && overrides == other.overrides;
}

bool SavedResult::operator==(const SavedResult& other) const
{
    return view == other.view && fingerprint == other.fingerprint && documents == other.documents && data == other.data;
}

namespace detail {

namespace {

/// The scalar of a required text key, or a problem naming what it should hold.
std::string requiredText(ReadContext& context, MapReader& item, const char* key, const std::string& what)
{
    const YAML::Node value = item.raw(key);
    if (!value.IsDefined() || isNullNode(value)) {
        context.error(item.childPath(key), value.IsDefined() ? value : item.node(),
            "required key \"" + std::string(key) + "\" is missing; expected " + what);
        return {};
    }
    if (!isScalarNode(value)) {
        context.error(item.childPath(key), value, "expected " + what + ", got " + describeNode(value));
        return {};
    }
    return value.Scalar();
}

} // namespace

std::vector<SavedResult> readSavedResults(
    ReadContext& context, const YAML::Node& results, const std::string& workspacePath)
{
    std::vector<SavedResult> read;
    if (!results.IsDefined() || isNullNode(results)) {
        return read;
    }
    if (!isSequenceNode(results)) {
        context.error("results", results,
            "expected a list of saved results (each with view, fingerprint and data), got " + describeNode(results));
        return read;
    }
    const std::string baseDir = std::filesystem::path(workspacePath).parent_path().string();
    for (size_t index = 0; index < results.size(); ++index) {
        const std::string path = "results[" + std::to_string(index) + "]";
        MapReader item(context, results[index], path);
        if (!item.valid()) {
            continue;
        }
        SavedResult result;
        result.view = requiredText(context, item, "view", "the name of the view that saved the result");
        result.fingerprint = requiredText(context, item, "fingerprint", "the digest of the documents it came from");
        result.data = requiredText(context, item, "data", "the result as text");
        // The documents come as a whole or not at all: a result computed from a part of them means nothing.
        if (item.has("model") || item.has("hardware") || item.has("run")) {
            ResultDocuments documents;
            for (const auto& [key, document] : { std::pair<const char*, DocumentText*> { "model", &documents.model },
                     { "hardware", &documents.hardware }, { "run", &documents.run } }) {
                document->text = requiredText(
                    context, item, key, std::string("the ") + key + " document the result was computed from, as text");
                document->sourceName = workspacePath;
                document->baseDir = baseDir;
            }
            for (const auto& [itemPath, assignment] : item.list("overrides", false)) {
                if (!isScalarNode(assignment)) {
                    context.error(itemPath, assignment, "expected \"key.path=value\", got " + describeNode(assignment));
                    continue;
                }
                documents.overrides.push_back(assignment.Scalar());
            }
            result.documents = std::move(documents);
        }
        item.finish();
        read.push_back(std::move(result));
    }
    return read;
}

std::string composeSavedResults(const std::vector<SavedResult>& results)
{
    if (results.empty()) {
        return {};
    }
    std::string text = "results:\n";
    for (const SavedResult& result : results) {
        // Quoted always, as the pinned runs' names are: a plain "null" or "1e5" would read back as something else.
        text += "  - view: " + yamlDoubleQuoted(result.view) + "\n";
        text += "    fingerprint: " + yamlDoubleQuoted(result.fingerprint) + "\n";
        if (const std::optional<ResultDocuments>& documents = result.documents) {
            if (!documents->overrides.empty()) {
                text += "    overrides:\n";
                for (const std::string& assignment : documents->overrides) {
                    text += "      - " + yamlDoubleQuoted(assignment) + "\n";
                }
            }
            text += "    " + yamlBlockScalar("model", documents->model.text, "      ");
            text += "    " + yamlBlockScalar("hardware", documents->hardware.text, "      ");
            text += "    " + yamlBlockScalar("run", documents->run.text, "      ");
        }
        text += "    " + yamlBlockScalar("data", result.data, "      ");
    }
    return text;
}

} // namespace detail

} // namespace rapid::config
