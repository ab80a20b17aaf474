// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to core/config: typed, position-aware reading of yaml-cpp nodes. Not part of the public API
// (yaml-cpp types never leave core/config).
#pragma once

#include "diagnostic.h"
#include "enumnames_p.h"
#include "schema.h"
#include "sourcemap.h"
#include "units.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rapid::config::detail {

/// Which file (or --set argument) each subtree of a combined configuration tree came from.
struct Origins {
    std::string defaultSource;
    /// Subtrees substituted from other files (a GPU preset under hardware.gpu), longest prefix wins.
    std::vector<std::pair<std::string, std::string>> subtreeSources;
    /// Keys replaced by an override, in order; errors below them point at the last override that wrote them.
    std::vector<std::pair<std::string, SourceLocation>> overrides;

    SourceLocation locate(const std::string& keyPath, const YAML::Node& node) const;
};

/// Shared state of one read: where errors go and where key locations are recorded.
struct ReadContext {
    DiagnosticSink& sink;
    const Origins& origins;
    SourceMap& locations;

    void error(const std::string& keyPath, const YAML::Node& node, std::string message)
    {
        sink.add(origins.locate(keyPath, node), keyPath, std::move(message));
    }
};

std::string describeNode(const YAML::Node& node);

/// Which part of which document's schema a MapReader reads: its keys are `prefix` + key in schema::keys(document).
struct SchemaScope {
    schema::Document document;
    std::string prefix; ///< "" for the document root, "parallelism.", "cluster.network[]."
};

/// Reads one YAML mapping key by key. Every accessor marks its key as known; finish() reports the rest as unknown
/// with the list of keys that are allowed. Wrong types are reported and the default is returned, so one read
/// collects every problem of a document.
class MapReader {
public:
    MapReader(ReadContext& context, YAML::Node node, std::string path, std::optional<SchemaScope> scope = {});

    const std::string& path() const { return m_path; }
    const YAML::Node& node() const { return m_node; }
    bool valid() const { return m_valid; }
    bool has(const std::string& key) const;
    std::string childPath(const std::string& key) const { return m_path.empty() ? key : m_path + '.' + key; }

    /// The raw node of @p key (marked as known), or an invalid node.
    YAML::Node raw(const std::string& key);

    std::string text(const std::string& key, std::optional<std::string> fallback);
    std::int64_t integer(
        const std::string& key, std::optional<std::int64_t> fallback, std::int64_t min, std::int64_t max);
    double number(const std::string& key, std::optional<double> fallback, double min, double max);
    bool boolean(const std::string& key, std::optional<bool> fallback);

    /// One of a fixed set of words; the message lists them.
    template <typename Enum>
    Enum choice(
        const std::string& key, const std::vector<std::pair<std::string, Enum>>& words, std::optional<Enum> fallback)
    {
        std::vector<std::string> names;
        for (const auto& word : words) {
            names.push_back(word.first);
        }
        const int index = choiceIndex(key, names, fallback.has_value());
        if (index < 0) {
            return fallback.value_or(words.front().second);
        }
        return words[static_cast<size_t>(index)].second;
    }

    /// A quantity written as `<base>` with a unit string or `<base>_<unit>` with a number (or a unit string).
    /// Returns the value in SI base units.
    double quantity(
        const std::string& base, Dimension dimension, std::optional<double> fallback, double minExclusive, double max);

    /// A nested mapping; reports a missing one when required.
    MapReader map(const std::string& key, bool required);
    /// A sequence; reports a wrong type. Returns the items with their paths.
    std::vector<std::pair<std::string, YAML::Node>> list(const std::string& key, bool required);

    // Schema-driven reads: range, choices, whether the key is required and its default come from the schema
    // (schema.h). The overloads with a fallback are for defaults that depend on other keys (the schema says so in
    // words). Only for readers constructed with a SchemaScope; a key the schema lacks throws std::logic_error.
    std::string text(const std::string& key);
    std::int64_t integer(const std::string& key);
    /// @p derivedFallback: the default other keys imply; nullopt when they make the key required.
    std::int64_t integer(const std::string& key, std::optional<std::int64_t> derivedFallback);
    double number(const std::string& key);
    bool boolean(const std::string& key);
    double quantity(const std::string& base);
    double quantity(const std::string& base, double derivedFallback);
    template <typename Enum> Enum choice(const std::string& key)
    {
        const schema::Key& declared = schemaKey(key);
        return choice(key, enumWordPairs<Enum>(),
            declared.required ? std::nullopt : std::optional<Enum>(defaultWord<Enum>(declared)));
    }
    template <typename Enum> Enum choice(const std::string& key, Enum derivedFallback)
    {
        schemaKey(key);
        return choice(key, enumWordPairs<Enum>(), std::optional<Enum>(derivedFallback));
    }
    /// A nested mapping, required when the schema says so; its reader reads the keys under this one.
    MapReader map(const std::string& key);
    /// A nested mapping required or not by other keys' values.
    MapReader mapRequiredIf(const std::string& key, bool required);
    std::vector<std::pair<std::string, YAML::Node>> list(const std::string& key);
    /// The schema entry of @p key in this reader's scope.
    const schema::Key& schemaKey(const std::string& key) const;
    /// Throws std::logic_error unless the schema declares @p key as written (a quantity with any unit suffix).
    void checkDeclared(const std::string& key) const;
    /// Reads the keys of another schema path (a mapping with two spellings that hold the same keys).
    void setScope(SchemaScope scope) { m_scope = std::move(scope); }

    /// Reports keys that no accessor asked for.
    void finish();

private:
    template <typename Enum> static std::vector<std::pair<std::string, Enum>> enumWordPairs()
    {
        std::vector<std::pair<std::string, Enum>> pairs;
        for (const auto& [word, value] : enumWords<Enum>()) {
            pairs.emplace_back(word, value);
        }
        return pairs;
    }
    template <typename Enum> static Enum defaultWord(const schema::Key& declared)
    {
        for (const auto& [word, value] : enumWords<Enum>()) {
            if (declared.defaultValue == word) {
                return value;
            }
        }
        throwNoDefault(declared);
    }
    [[noreturn]] static void throwNoDefault(const schema::Key& declared);
    std::optional<SchemaScope> childScope(const std::string& key) const;

    int choiceIndex(const std::string& key, const std::vector<std::string>& names, bool optional);
    void missing(const std::string& key, const std::string& what);
    YAML::Node valueOf(const std::string& key);
    void record(const std::string& key);

    ReadContext& m_context;
    YAML::Node m_node;
    std::string m_path;
    std::optional<SchemaScope> m_scope;
    mutable const schema::Key* m_lastDeclared = nullptr; ///< the key schemaKey() found last
    bool m_valid = false;
    struct Entry {
        std::string name;
        YAML::Node key;
        YAML::Node value;
    };
    std::vector<Entry> m_keys; // in document order, keys as written
    std::set<std::string> m_known;
};

/// Reads a scalar node as one of the helpers above do, for list items.
std::optional<std::int64_t> readInteger(
    ReadContext& context, const std::string& path, const YAML::Node& node, std::int64_t min, std::int64_t max);

} // namespace rapid::config::detail
