// SPDX-License-Identifier: GPL-3.0-or-later
#include "schema.h"

#include "schemabuilder_p.h"

#include <array>
#include <stdexcept>
#include <unordered_map>

namespace rapid::config::schema {

const char* toString(Document document)
{
    switch (document) {
    case Document::Model:
        return "model";
    case Document::Gpu:
        return "gpu";
    case Document::Hardware:
        return "hardware";
    case Document::Run:
        return "run";
    }
    return "?";
}

std::string scenarioPrefix(Document document)
{
    return document == Document::Gpu ? "hardware.gpu." : std::string(toString(document)) + ".";
}

const std::vector<Document>& documents()
{
    static const std::vector<Document> kAll = { Document::Model, Document::Gpu, Document::Hardware, Document::Run };
    return kAll;
}

const char* toString(Type type)
{
    switch (type) {
    case Type::Text:
        return "text";
    case Type::Integer:
        return "int";
    case Type::Number:
        return "number";
    case Type::Boolean:
        return "bool";
    case Type::Choice:
        return "choice";
    case Type::Quantity:
        return "quantity";
    case Type::Mapping:
        return "mapping";
    case Type::List:
        return "list";
    }
    return "?";
}

std::string Key::name() const
{
    const size_t dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
}

std::string Key::writtenName() const
{
    return type == Type::Quantity && !unit.empty() ? name() + "_" + unit : name();
}

std::string Key::writtenPath() const
{
    return type == Type::Quantity && !unit.empty() ? path + "_" + unit : path;
}

std::string Key::defaultText() const
{
    if (!defaultValue.empty()) {
        return defaultValue;
    }
    if (!defaultNote.empty()) {
        return defaultNote;
    }
    return required ? "required" : "optional";
}

const std::vector<Key>& keys(Document document)
{
    // Built on first use; the tables are constant afterwards, so concurrent readers share them.
    static const std::array<std::vector<Key>, 4> kTables
        = { detail::modelKeys(), detail::gpuKeys(), detail::hardwareKeys(), detail::runKeys() };
    return kTables[static_cast<size_t>(document)];
}

const Key* find(Document document, std::string_view path)
{
    // Readers look every key up as they read it (sweeps read thousands of documents): hash, not scan.
    using Index = std::unordered_map<std::string_view, const Key*>;
    static const std::array<Index, 4> kIndexes = [] {
        std::array<Index, 4> indexes;
        for (Document each : documents()) {
            for (const Key& key : keys(each)) {
                indexes[static_cast<size_t>(each)].emplace(key.path, &key);
            }
        }
        return indexes;
    }();
    const Index& index = kIndexes[static_cast<size_t>(document)];
    const auto found = index.find(path);
    return found == index.end() ? nullptr : found->second;
}

const Key& at(Document document, std::string_view path)
{
    if (const Key* key = find(document, path)) {
        return *key;
    }
    throw std::logic_error(std::string("the ") + toString(document) + " schema has no key \"" + std::string(path)
        + "\"; declare it in core/config/schema*.cpp");
}

} // namespace rapid::config::schema
