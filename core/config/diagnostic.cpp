// SPDX-License-Identifier: GPL-3.0-or-later
#include "diagnostic.h"

#include <algorithm>

namespace rapid::config {

namespace {
std::string joinDiagnostics(const std::vector<Diagnostic>& diagnostics)
{
    std::string text;
    for (const Diagnostic& diagnostic : diagnostics) {
        if (!text.empty()) {
            text += '\n';
        }
        text += diagnostic.toString();
    }
    return text;
}
} // namespace

std::string Diagnostic::toString() const
{
    std::string text = location.source.empty() ? std::string("<input>") : location.source;
    if (location.line > 0) {
        text += ':' + std::to_string(location.line) + ':' + std::to_string(location.column);
    }
    text += ": ";
    if (!keyPath.empty()) {
        text += keyPath + ": ";
    }
    text += message;
    return text;
}

ConfigError::ConfigError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(joinDiagnostics(diagnostics))
    , m_diagnostics(std::move(diagnostics))
{
}

void DiagnosticSink::add(SourceLocation location, std::string keyPath, std::string message)
{
    // One problem per key: a key that could not be read is reported once, not again by the checks that then see
    // its fallback value ("hidden_size (1) is not a multiple of num_heads" after "expected a whole number").
    const bool reported = !keyPath.empty()
        && std::any_of(m_diagnostics.begin(), m_diagnostics.end(),
            [&](const Diagnostic& diagnostic) { return diagnostic.keyPath == keyPath; });
    if (!reported) {
        m_diagnostics.push_back({ std::move(location), std::move(keyPath), std::move(message) });
    }
}

void DiagnosticSink::throwIfAny() const
{
    if (!m_diagnostics.empty()) {
        throw ConfigError(m_diagnostics);
    }
}

} // namespace rapid::config
