// SPDX-License-Identifier: GPL-3.0-or-later
// MapReader's schema-driven accessors: the range, choices, default and whether a key is required come from schema.h.
#include "yamlreader_p.h"

#include <stdexcept>
#include <string>

namespace rapid::config::detail {

namespace {

/// The schema key at @p prefix + @p key, joined in a reused per-thread buffer: readers look up every key they read.
const schema::Key* findScoped(schema::Document document, const std::string& prefix, std::string_view key)
{
    thread_local std::string path;
    path.assign(prefix).append(key);
    return schema::find(document, path);
}

std::int64_t wholeNumber(double value)
{
    return static_cast<std::int64_t>(value);
}

} // namespace

const schema::Key& MapReader::schemaKey(const std::string& key) const
{
    if (!m_scope) {
        throw std::logic_error("MapReader for \"" + m_path + "\" has no schema scope; cannot read \"" + key + "\"");
    }
    if (const schema::Key* found = findScoped(m_scope->document, m_scope->prefix, key)) {
        m_lastDeclared = found; // record() of the same key, next, need not look it up again
        return *found;
    }
    return schema::at(m_scope->document, m_scope->prefix + key); // throws, naming the key
}

void MapReader::checkDeclared(const std::string& key) const
{
    if (!m_scope
        || (m_lastDeclared && m_lastDeclared->path.size() == m_scope->prefix.size() + key.size()
            && m_lastDeclared->path.ends_with(key))
        || findScoped(m_scope->document, m_scope->prefix, key)) {
        return;
    }
    for (const KeyUnit& unit : keyUnits()) {
        const size_t length = unit.suffix.size();
        if (key.size() > length && key.compare(key.size() - length, length, unit.suffix) == 0) {
            const schema::Key* base
                = findScoped(m_scope->document, m_scope->prefix, std::string_view(key).substr(0, key.size() - length));
            if (base && base->type == schema::Type::Quantity && base->dimension == unit.dimension) {
                return;
            }
        }
    }
    schemaKey(key); // throws, naming the key
}

void MapReader::throwNoDefault(const schema::Key& declared)
{
    throw std::logic_error("schema key \"" + declared.path
        + "\" has no default value; its reader must pass the derived default (" + declared.defaultText() + ")");
}

std::optional<SchemaScope> MapReader::childScope(const std::string& key) const
{
    if (!m_scope) {
        return std::nullopt;
    }
    return SchemaScope { m_scope->document, m_scope->prefix + key + "." };
}

std::string MapReader::text(const std::string& key)
{
    const schema::Key& declared = schemaKey(key);
    return text(key, declared.required ? std::nullopt : std::optional<std::string>(declared.defaultValue));
}

std::int64_t MapReader::integer(const std::string& key)
{
    const schema::Key& declared = schemaKey(key);
    std::optional<std::int64_t> fallback;
    if (!declared.required) {
        if (declared.defaultValue.empty()) {
            throwNoDefault(declared);
        }
        fallback = std::stoll(declared.defaultValue);
    }
    return integer(key, fallback, wholeNumber(declared.minimum), wholeNumber(declared.maximum));
}

std::int64_t MapReader::integer(const std::string& key, std::optional<std::int64_t> derivedFallback)
{
    const schema::Key& declared = schemaKey(key);
    return integer(key, derivedFallback, wholeNumber(declared.minimum), wholeNumber(declared.maximum));
}

double MapReader::number(const std::string& key)
{
    const schema::Key& declared = schemaKey(key);
    std::optional<double> fallback;
    if (!declared.required) {
        if (declared.defaultValue.empty()) {
            throwNoDefault(declared);
        }
        fallback = std::stod(declared.defaultValue);
    }
    return number(key, fallback, declared.minimum, declared.maximum);
}

bool MapReader::boolean(const std::string& key)
{
    const schema::Key& declared = schemaKey(key);
    std::optional<bool> fallback;
    if (!declared.required) {
        if (declared.defaultValue != "true" && declared.defaultValue != "false") {
            throwNoDefault(declared);
        }
        fallback = declared.defaultValue == "true";
    }
    return boolean(key, fallback);
}

double MapReader::quantity(const std::string& base)
{
    const schema::Key& declared = schemaKey(base);
    std::optional<double> fallback;
    if (!declared.required) {
        // "0" needs no unit: nothing is the same amount in every unit.
        fallback = declared.defaultValue == "0" ? std::optional<double>(0.0)
                                                : parseQuantity(declared.defaultValue, declared.dimension, nullptr);
        if (!fallback) {
            throwNoDefault(declared);
        }
    }
    return quantity(base, declared.dimension, fallback, declared.minimum, declared.maximum);
}

double MapReader::quantity(const std::string& base, double derivedFallback)
{
    const schema::Key& declared = schemaKey(base);
    return quantity(base, declared.dimension, derivedFallback, declared.minimum, declared.maximum);
}

MapReader MapReader::map(const std::string& key)
{
    return map(key, schemaKey(key).required);
}

MapReader MapReader::mapRequiredIf(const std::string& key, bool required)
{
    schemaKey(key);
    return map(key, required);
}

std::vector<std::pair<std::string, YAML::Node>> MapReader::list(const std::string& key)
{
    return list(key, schemaKey(key).required);
}

} // namespace rapid::config::detail
