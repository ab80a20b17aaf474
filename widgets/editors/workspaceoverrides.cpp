// SPDX-License-Identifier: GPL-3.0-or-later
// WorkspaceDocument's reading of the workspace file's overrides: which one sets a form field, and to what.
#include "editors/workspacedocument.h"

#include "config/yamledit.h"

namespace rapid::widgets {

std::optional<WorkspaceDocument::FieldOverride> WorkspaceDocument::overrideAt(const QString& keyPath) const
{
    const std::string key = keyPath.toStdString();
    for (auto it = m_documents.overrides.rbegin(); it != m_documents.overrides.rend(); ++it) {
        const size_t equals = it->find('=');
        if (equals == std::string::npos) {
            continue;
        }
        // The key exactly as the loader reads it (it takes no spaces around the key).
        const std::string assigned = it->substr(0, equals);
        const std::string valueText = it->substr(equals + 1);
        const FieldOverride found { QString::fromStdString(*it), std::nullopt };
        if (assigned == key) {
            return FieldOverride { found.assignment, QString::fromStdString(valueText).trimmed() };
        }
        // A mapping above the key, replaced whole: the key takes the entry the new mapping gives it, or its default.
        const bool above = key.size() > assigned.size() && key.compare(0, assigned.size(), assigned) == 0
            && (key[assigned.size()] == '.' || key[assigned.size()] == '[');
        if (above) {
            const size_t rest = assigned.size() + (key[assigned.size()] == '.' ? 1 : 0);
            const auto value = config::yamlScalarAt(valueText, key.substr(rest));
            return FieldOverride { found.assignment,
                value ? std::optional<QString>(QString::fromStdString(*value)) : std::nullopt };
        }
    }
    return std::nullopt;
}

} // namespace rapid::widgets
