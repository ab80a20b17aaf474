// SPDX-License-Identifier: GPL-3.0-or-later
// Replacing a list under a top-level key by scanning lines, so that everything else in the text (comments, key order,
// layout) stays as written: what yaml-cpp's emitter cannot do.
#include "yamledit.h"

#include <string_view>
#include <vector>

namespace rapid::config {

namespace {

struct Line {
    size_t begin = 0; ///< first character
    size_t end = 0; ///< one past the last character before '\n'
    size_t next = 0; ///< start of the following line
};

std::vector<Line> splitLines(const std::string& text)
{
    std::vector<Line> lines;
    size_t begin = 0;
    while (begin < text.size()) {
        const size_t newline = text.find('\n', begin);
        const size_t end = newline == std::string::npos ? text.size() : newline;
        lines.push_back({ begin, end, newline == std::string::npos ? text.size() : newline + 1 });
        begin = lines.back().next;
    }
    return lines;
}

size_t indentOf(std::string_view line)
{
    const size_t first = line.find_first_not_of(' ');
    return first == std::string_view::npos ? line.size() : first;
}

/// Blank lines and comment lines belong to no key: they neither end a block nor start one.
bool isBlankOrComment(std::string_view line)
{
    const size_t first = line.find_first_not_of(" \t\r");
    return first == std::string_view::npos || line[first] == '#';
}

/// Whether @p content (a line without its indentation) starts the mapping key @p key.
bool startsKey(std::string_view content, std::string_view key)
{
    if (content.substr(0, key.size()) != key || content.size() <= key.size() || content[key.size()] != ':') {
        return false;
    }
    const std::string_view rest = content.substr(key.size() + 1);
    return rest.empty() || rest.front() == ' ' || rest.front() == '\t' || rest.front() == '\r';
}

/// What follows "key:" on its line, without a trailing comment: empty for a block value.
std::string_view inlineValue(std::string_view content, std::string_view key)
{
    std::string_view rest = content.substr(key.size() + 1);
    const size_t comment = rest.find(" #");
    rest = rest.substr(0, comment);
    const size_t first = rest.find_first_not_of(" \t\r");
    return first == std::string_view::npos ? std::string_view() : rest.substr(first);
}

std::string listBlock(std::string_view child, const std::vector<std::string>& items, const std::string& indent)
{
    std::string block = indent + std::string(child) + ":\n";
    for (const std::string& item : items) {
        block += indent + "  - " + item + "\n";
    }
    return block;
}

/// See replaceYamlListInPlace: @p root and @p child are the two keys of the path.
std::optional<std::string> replaceListByLines(
    const std::string& text, std::string_view root, std::string_view child, const std::vector<std::string>& items)
{
    const std::vector<Line> lines = splitLines(text);
    auto view = [&](size_t index) {
        return std::string_view(text).substr(lines[index].begin, lines[index].end - lines[index].begin);
    };
    size_t rootLine = lines.size();
    for (size_t i = 0; i < lines.size(); ++i) {
        if (!isBlankOrComment(view(i)) && indentOf(view(i)) == 0 && startsKey(view(i), root)) {
            rootLine = i;
            break;
        }
    }
    if (rootLine == lines.size() || !inlineValue(view(rootLine), root).empty()) {
        return std::nullopt;
    }
    // The hardware mapping runs to the next line at column 0 that holds something (another root key, "---").
    size_t rootEnd = lines.size();
    size_t childIndent = 0;
    size_t lastContent = rootLine;
    for (size_t i = rootLine + 1; i < lines.size(); ++i) {
        if (isBlankOrComment(view(i))) {
            continue;
        }
        const size_t indent = indentOf(view(i));
        if (indent == 0) {
            rootEnd = i;
            break;
        }
        childIndent = childIndent == 0 ? indent : childIndent;
        lastContent = i;
    }
    if (childIndent == 0) {
        return std::nullopt;
    }
    const std::string indent(childIndent, ' ');
    const std::string block = items.empty() ? std::string() : listBlock(child, items, indent);
    for (size_t i = rootLine + 1; i < rootEnd; ++i) {
        const std::string_view line = view(i);
        if (isBlankOrComment(line) || indentOf(line) != childIndent || !startsKey(line.substr(childIndent), child)) {
            continue;
        }
        const std::string_view value = inlineValue(line.substr(childIndent), child);
        if (!value.empty() && value.front() != '[') {
            return std::nullopt; // an anchor, alias or tag: leave it to the YAML library
        }
        size_t last = i; // the last line of the list itself; comments after it stay where they are
        for (size_t j = i + 1; j < rootEnd; ++j) {
            const std::string_view below = view(j);
            if (isBlankOrComment(below)) {
                continue;
            }
            const size_t belowIndent = indentOf(below);
            const std::string_view content = below.substr(belowIndent);
            const bool item = belowIndent == childIndent && (content == "-" || content.substr(0, 2) == "- ");
            if (belowIndent < childIndent || (belowIndent == childIndent && !item)) {
                break;
            }
            last = j;
        }
        return text.substr(0, lines[i].begin) + block + text.substr(lines[last].next);
    }
    if (items.empty()) {
        return text; // nothing to remove
    }
    // No list yet: it goes after the hardware mapping's last line, before the comments that follow it.
    const Line& after = lines[lastContent];
    const bool endsWithNewline = after.next > after.end;
    return text.substr(0, after.next) + (endsWithNewline ? "" : "\n") + block + text.substr(after.next);
}

} // namespace

std::optional<std::string> replaceYamlListInPlace(
    const std::string& text, const std::string& keyPath, const std::vector<std::string>& items)
{
    const size_t dot = keyPath.find('.');
    if (dot == std::string::npos || keyPath.find_first_of(".[", dot + 1) != std::string::npos
        || keyPath.find('[') < dot) {
        return std::nullopt;
    }
    return replaceListByLines(
        text, std::string_view(keyPath).substr(0, dot), std::string_view(keyPath).substr(dot + 1), items);
}

} // namespace rapid::config
