// SPDX-License-Identifier: GPL-3.0-or-later
#include "presetsource.h"

#include "yamledit.h"

#include <sstream>
#include <vector>

namespace rapid::config {

namespace {

std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        lines.push_back(std::move(line));
    }
    return lines;
}

/// Whether @p line is a whole-line comment; if so @p text gets what follows its '#'.
bool commentText(const std::string& line, std::string& text)
{
    const size_t hash = line.find_first_not_of(" \t");
    if (hash == std::string::npos || line[hash] != '#') {
        return false;
    }
    text = line.substr(hash + 1);
    return true;
}

std::string trimmed(const std::string& text)
{
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) {
        return {};
    }
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

/// Appends @p piece to @p paragraph with one space between.
void join(std::string& paragraph, const std::string& piece)
{
    const std::string text = trimmed(piece);
    if (text.empty()) {
        return;
    }
    if (!paragraph.empty()) {
        paragraph += ' ';
    }
    paragraph += text;
}

/// The comment after a value on the same line ("key: 1.47  # measured"), ignoring '#' inside quotes.
std::string trailingComment(const std::string& line)
{
    char quote = 0;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quote) {
            quote = c == quote ? 0 : quote;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '#' && i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t')) {
            return trimmed(line.substr(i + 1));
        }
    }
    return {};
}

/// The header paragraph (comment lines before the first YAML line; a paragraph is a line "# X..." followed by
/// indented continuation lines "#   ...") whose first line starts with @p prefix.
std::string headerParagraph(const std::vector<std::string>& lines, const std::string& prefix)
{
    std::string paragraph;
    bool inside = false;
    for (const std::string& line : lines) {
        std::string text;
        if (!commentText(line, text)) {
            if (trimmed(line).empty()) {
                continue;
            }
            break; // the document starts
        }
        const bool continuation = text.size() > 1 && text[0] == ' ' && text[1] == ' ';
        if (!continuation) {
            if (inside) {
                break;
            }
            inside = trimmed(text).rfind(prefix, 0) == 0;
        }
        if (inside) {
            join(paragraph, text);
        }
    }
    return paragraph;
}

} // namespace

std::string presetValueSource(const std::string& yaml, const std::string& keyPath, bool headerSourceFallback)
{
    const std::vector<std::string> lines = splitLines(yaml);
    if (const auto line = yamlLineAt(yaml, keyPath); line && *line < static_cast<int>(lines.size())) {
        // The comment block directly above the key (stopping at a blank line or another key), then a trailing one.
        int first = *line;
        std::string text;
        while (first > 0 && commentText(lines[static_cast<size_t>(first - 1)], text)) {
            --first;
        }
        std::string source;
        for (int i = first; i < *line; ++i) {
            commentText(lines[static_cast<size_t>(i)], text);
            join(source, text);
        }
        join(source, trailingComment(lines[static_cast<size_t>(*line)]));
        // A comment block that opens the document is the header (read below), not this key's.
        size_t headerEnd = 0;
        while (headerEnd < lines.size() && (commentText(lines[headerEnd], text) || trimmed(lines[headerEnd]).empty())) {
            ++headerEnd;
        }
        if (!source.empty() && static_cast<size_t>(first) >= headerEnd) {
            return source;
        }
    } else {
        return {};
    }
    const std::string leaf = keyPath.substr(keyPath.find_last_of('.') + 1);
    std::string paragraph = headerParagraph(lines, leaf + ":");
    if (paragraph.empty() && headerSourceFallback) {
        paragraph = headerParagraph(lines, "Source:");
    }
    return paragraph;
}

} // namespace rapid::config
