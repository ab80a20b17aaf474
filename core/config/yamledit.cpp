// SPDX-License-Identifier: GPL-3.0-or-later
#include "yamledit.h"
#include "yamlnode_p.h"

#include <yaml-cpp/yaml.h>

#include <vector>

namespace rapid::config {

using detail::isMapNode;
using detail::isNullNode;
using detail::isScalarNode;
using detail::isSequenceNode;

namespace {

struct PathStep {
    std::string key;
    int index = -1; ///< >= 0 for a list item
};

std::optional<std::vector<PathStep>> splitPath(const std::string& keyPath)
{
    std::vector<PathStep> steps;
    std::string current;
    for (size_t i = 0; i < keyPath.size(); ++i) {
        const char c = keyPath[i];
        if (c == '.' || c == '[') {
            if (!current.empty()) {
                steps.push_back({ current, -1 });
                current.clear();
            }
            if (c == '[') {
                const size_t close = keyPath.find(']', i);
                if (close == std::string::npos || close == i + 1 || close - i > 8) {
                    return std::nullopt;
                }
                const std::string digits = keyPath.substr(i + 1, close - i - 1);
                if (digits.find_first_not_of("0123456789") != std::string::npos) {
                    return std::nullopt;
                }
                steps.push_back({ {}, std::stoi(digits) });
                i = close;
            }
        } else {
            current.push_back(c);
        }
    }
    if (!current.empty()) {
        steps.push_back({ current, -1 });
    }
    if (steps.empty()) {
        return std::nullopt;
    }
    return steps;
}

/// Follows @p steps from @p root with const lookups (no node is created). Returns the deepest node reached and how
/// many steps were followed.
std::pair<YAML::Node, size_t> follow(const YAML::Node& root, const std::vector<PathStep>& steps)
{
    YAML::Node node;
    node.reset(root);
    size_t followed = 0;
    for (const PathStep& step : steps) {
        const YAML::Node& current = node;
        YAML::Node next;
        if (step.index >= 0) {
            if (!isSequenceNode(current) || static_cast<size_t>(step.index) >= current.size()) {
                break;
            }
            next.reset(current[static_cast<size_t>(step.index)]);
        } else {
            if (!isMapNode(current) || !current[step.key].IsDefined()) {
                break;
            }
            next.reset(current[step.key]);
        }
        node.reset(next);
        ++followed;
    }
    return { node, followed };
}

/// End (exclusive) of the scalar token starting at @p begin in @p text.
size_t scalarEnd(const std::string& text, size_t begin)
{
    if (begin >= text.size()) {
        return begin;
    }
    const char first = text[begin];
    if (first == '"' || first == '\'') {
        for (size_t i = begin + 1; i < text.size(); ++i) {
            if (first == '"' && text[i] == '\\') {
                ++i;
                continue;
            }
            if (text[i] == first) {
                if (first == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
                    ++i; // '' is an escaped quote inside single quotes
                    continue;
                }
                return i + 1;
            }
        }
        return text.size();
    }
    const size_t lineStart = text.rfind('\n', begin) == std::string::npos ? 0 : text.rfind('\n', begin) + 1;
    const std::string before = text.substr(lineStart, begin - lineStart);
    const bool inFlow = before.find_first_of("{[") != std::string::npos;
    size_t end = begin;
    while (end < text.size() && text[end] != '\n') {
        if (text[end] == '#' && end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t')) {
            break;
        }
        if (inFlow && (text[end] == ',' || text[end] == '}' || text[end] == ']')) {
            break;
        }
        ++end;
    }
    while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r')) {
        --end;
    }
    return end;
}

std::string emitDocument(const YAML::Node& root)
{
    YAML::Emitter out;
    out << root;
    return std::string(out.c_str()) + "\n";
}

} // namespace

std::string yamlQuoted(const std::string& text)
{
    if (text.empty()) {
        return "\"\"";
    }
    const bool risky = text.find(": ") != std::string::npos || text.find(" #") != std::string::npos
        || std::string("-?:,[]{}#&*!|>'\"%@`").find(text.front()) != std::string::npos || text.back() == ' '
        || text.back() == ':' || text.find('\n') != std::string::npos;
    if (!risky) {
        return text;
    }
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            quoted.push_back('\\');
        }
        if (c == '\n') {
            quoted += "\\n";
            continue;
        }
        quoted.push_back(c);
    }
    return quoted + "\"";
}

namespace {

/// The node at @p keyPath, if the text parses and the whole path exists.
std::optional<YAML::Node> nodeAt(const std::string& text, const std::string& keyPath)
{
    const auto steps = splitPath(keyPath);
    if (!steps) {
        return std::nullopt;
    }
    try {
        auto [node, followed] = follow(YAML::Load(text), *steps);
        if (followed == steps->size() && node.IsDefined()) {
            return node;
        }
    } catch (const YAML::Exception&) {
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> yamlScalarAt(const std::string& text, const std::string& keyPath)
{
    const auto node = nodeAt(text, keyPath);
    if (node && isScalarNode(*node)) {
        return node->Scalar();
    }
    return std::nullopt;
}

std::optional<int> yamlLineAt(const std::string& text, const std::string& keyPath)
{
    const auto node = nodeAt(text, keyPath);
    if (node && node->Mark().line >= 0) {
        return node->Mark().line;
    }
    return std::nullopt;
}

bool yamlEditable(const std::string& text, std::string* why)
{
    try {
        const YAML::Node root = YAML::Load(text);
        if (!root.IsDefined() || root.IsNull() || root.IsMap()) {
            return true;
        }
        if (why) {
            *why = "the document is not a mapping of keys";
        }
    } catch (const YAML::Exception& error) {
        if (why) {
            *why = "the YAML does not parse (" + error.msg + ")";
        }
    }
    return false;
}

namespace {

/// @p entry ("key: value") as a new last line of the block mapping whose first key starts at @p keyPos: after the
/// mapping's last line with content (nested values included), before any blank or comment lines that follow it and
/// the next line indented less. std::nullopt when the first key is not alone at the start of its line.
std::optional<std::string> appendToBlockMapping(const std::string& text, size_t keyPos, const std::string& entry)
{
    const size_t lineStart = text.rfind('\n', keyPos) == std::string::npos ? 0 : text.rfind('\n', keyPos) + 1;
    const std::string indent = text.substr(lineStart, keyPos - lineStart);
    if (indent.find_first_not_of(' ') != std::string::npos) {
        return std::nullopt;
    }
    size_t insertAt = text.find('\n', keyPos);
    insertAt = insertAt == std::string::npos ? text.size() : insertAt + 1;
    for (size_t line = insertAt; line < text.size();) {
        const size_t next = text.find('\n', line) == std::string::npos ? text.size() : text.find('\n', line) + 1;
        const size_t content = text.find_first_not_of(' ', line);
        const bool blank = content >= next || text[content] == '\n' || text[content] == '\r' || text[content] == '#';
        if (!blank) {
            const bool marker = text.compare(line, 3, "---") == 0 || text.compare(line, 3, "...") == 0;
            if (content - line < indent.size() || marker) {
                break; // the next key of a parent mapping, or the document ends
            }
            insertAt = next;
        }
        line = next;
    }
    const std::string newline = insertAt > 0 && text[insertAt - 1] != '\n' ? "\n" : "";
    return text.substr(0, insertAt) + newline + indent + entry + "\n" + text.substr(insertAt);
}

} // namespace

std::optional<std::string> setYamlValue(
    const std::string& text, const std::string& keyPath, const std::string& valueYaml, std::string* why)
{
    auto fail = [&](std::string reason) -> std::optional<std::string> {
        if (why) {
            *why = std::move(reason);
        }
        return std::nullopt;
    };
    const auto steps = splitPath(keyPath);
    if (!steps) {
        return fail("malformed key path \"" + keyPath + "\"");
    }
    YAML::Node root;
    YAML::Node value;
    try {
        root = YAML::Load(text);
        value = YAML::Load(valueYaml);
    } catch (const YAML::Exception& error) {
        return fail("cannot edit: the YAML does not parse (" + error.msg + ")");
    }
    const bool valueIsScalar = isScalarNode(value) || isNullNode(value);
    auto [node, followed] = follow(root, *steps);

    // The key exists and holds a scalar: replace its token in place.
    if (followed == steps->size() && isScalarNode(node) && valueIsScalar && !node.Mark().is_null()) {
        const size_t begin = static_cast<size_t>(node.Mark().pos);
        if (begin <= text.size()) {
            const size_t end = scalarEnd(text, begin);
            return text.substr(0, begin) + valueYaml + text.substr(end);
        }
    }
    // Only the last key is missing from a block mapping that has other keys: append a line after its last entry.
    if (followed + 1 == steps->size() && steps->back().index < 0 && isMapNode(node) && node.size() > 0
        && node.Style() == YAML::EmitterStyle::Block && valueIsScalar) {
        const YAML::Node firstKey = node.begin()->first;
        if (!firstKey.Mark().is_null() && static_cast<size_t>(firstKey.Mark().pos) <= text.size()) {
            if (auto appended = appendToBlockMapping(
                    text, static_cast<size_t>(firstKey.Mark().pos), steps->back().key + ": " + valueYaml)) {
                return appended;
            }
        }
    }
    // Otherwise rebuild the tree and emit it (loses comments; rare: new sections, lists, mappings).
    YAML::Node cursor;
    cursor.reset(root);
    if (!root.IsDefined() || isNullNode(root)) {
        root = YAML::Node(YAML::NodeType::Map);
        cursor.reset(root);
    }
    for (size_t i = 0; i < steps->size(); ++i) {
        const PathStep& step = (*steps)[i];
        const bool last = i + 1 == steps->size();
        if (step.index >= 0) {
            if (!isSequenceNode(cursor) || static_cast<size_t>(step.index) > cursor.size()) {
                return fail("\"" + keyPath + "\": no list item [" + std::to_string(step.index) + "]");
            }
            if (static_cast<size_t>(step.index) == cursor.size()) {
                cursor.push_back(last ? value : YAML::Node(YAML::NodeType::Map));
            } else if (last) {
                cursor[static_cast<size_t>(step.index)] = value;
            }
            if (!last) {
                YAML::Node next = cursor[static_cast<size_t>(step.index)];
                cursor.reset(next);
            }
            continue;
        }
        if (!isMapNode(cursor) && !isNullNode(cursor)) {
            return fail("\"" + keyPath + "\": a parent is not a mapping");
        }
        if (last) {
            cursor[step.key] = value;
            break;
        }
        const YAML::Node& constCursor = cursor;
        if (!constCursor[step.key].IsDefined() || isNullNode(constCursor[step.key])) {
            const bool nextIsList = (*steps)[i + 1].index >= 0;
            cursor[step.key] = YAML::Node(nextIsList ? YAML::NodeType::Sequence : YAML::NodeType::Map);
        }
        YAML::Node next = cursor[step.key];
        cursor.reset(next);
    }
    return emitDocument(root);
}

} // namespace rapid::config
