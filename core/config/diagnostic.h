// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace rapid::config {

/// Where a value came from: a file (or a pseudo-source such as "--set run.parallelism.tp=4" or
/// "<workbench YAML tab>") and a 1-based line and column. line == 0 means "no position known".
struct SourceLocation {
    std::string source;
    int line = 0;
    int column = 0;

    bool operator==(const SourceLocation&) const = default;
};

/// One problem found in configuration input. keyPath is the dotted path from the document root
/// ("run.parallelism.tp", "hardware.network.dimensions[1].kind") so that editors can mark the field.
struct Diagnostic {
    SourceLocation location;
    std::string keyPath;
    std::string message; ///< says what is wrong and what is expected

    /// "file:line:column: key.path: message" — the one-line form the CLI prints.
    std::string toString() const;
    bool operator==(const Diagnostic&) const = default;
};

/// Thrown by loaders when input is invalid; carries every problem found, in input order.
class ConfigError : public std::runtime_error {
public:
    explicit ConfigError(std::vector<Diagnostic> diagnostics);
    const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }

private:
    std::vector<Diagnostic> m_diagnostics;
};

/// Thrown when an input is valid on its own but asks for more than the tool computes or represents: a simulated time
/// beyond the ceiling, a step of more micro-batches or a run of more packets than the documented budget. what() names
/// the key or option to change and the cheaper alternative. The CLI exits 1 with it; it is never an internal error.
class InputLimitError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Collects diagnostics while a document is read; loaders throw ConfigError at the end if any.
class DiagnosticSink {
public:
    /// Adds a problem unless @p keyPath already has one (the first, usually the key's own reading error, stands).
    void add(SourceLocation location, std::string keyPath, std::string message);
    void add(Diagnostic diagnostic) { m_diagnostics.push_back(std::move(diagnostic)); }
    bool empty() const { return m_diagnostics.empty(); }
    const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }
    /// Throws ConfigError holding everything collected, if anything was.
    void throwIfAny() const;

private:
    std::vector<Diagnostic> m_diagnostics;
};

} // namespace rapid::config
