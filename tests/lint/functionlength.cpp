// SPDX-License-Identifier: GPL-3.0-or-later
#include "functionlength.h"

#include <cctype>

namespace rapid::lint {

namespace {

/// @p source with comments, literals and preprocessor lines blanked (newlines kept, so line numbers hold).
std::string codeOnly(const std::string& source)
{
    std::string out = source;
    size_t i = 0;
    const auto blank = [&](size_t from, size_t to) {
        for (size_t k = from; k < to && k < out.size(); ++k) {
            if (out[k] != '\n') {
                out[k] = ' ';
            }
        }
    };
    bool lineStart = true;
    while (i < source.size()) {
        const char c = source[i];
        if (lineStart && c == '#') {
            size_t end = i;
            while (end < source.size() && !(source[end] == '\n' && source[end - 1] != '\\')) {
                ++end;
            }
            blank(i, end);
            i = end;
            continue;
        }
        if (c == '/' && i + 1 < source.size() && source[i + 1] == '/') {
            const size_t end = source.find('\n', i);
            blank(i, end == std::string::npos ? source.size() : end);
            i = end == std::string::npos ? source.size() : end;
            continue;
        }
        if (c == '/' && i + 1 < source.size() && source[i + 1] == '*') {
            const size_t end = source.find("*/", i + 2);
            const size_t stop = end == std::string::npos ? source.size() : end + 2;
            blank(i, stop);
            i = stop;
            continue;
        }
        if (c == 'R' && i + 1 < source.size() && source[i + 1] == '"'
            && (i == 0 || !(std::isalnum(static_cast<unsigned char>(source[i - 1])) || source[i - 1] == '_'))) {
            const size_t open = source.find('(', i + 2);
            const std::string delimiter = ")" + source.substr(i + 2, open - i - 2) + "\"";
            const size_t end = source.find(delimiter, open);
            const size_t stop = end == std::string::npos ? source.size() : end + delimiter.size();
            blank(i, stop);
            i = stop;
            continue;
        }
        if (c == '"' || (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(source[i - 1]))))) {
            size_t end = i + 1;
            while (end < source.size() && source[end] != c && source[end] != '\n') {
                end += source[end] == '\\' ? 2 : 1;
            }
            blank(i, end + 1);
            i = end + 1;
            continue;
        }
        if (c == '\n') {
            lineStart = true;
        } else if (!std::isspace(static_cast<unsigned char>(c))) {
            lineStart = false;
        }
        ++i;
    }
    return out;
}

bool hasWord(const std::string& text, const std::string& word)
{
    size_t at = text.find(word);
    while (at != std::string::npos) {
        const bool before = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
        const size_t after = at + word.size();
        const bool behind
            = after >= text.size() || !(std::isalnum(static_cast<unsigned char>(text[after])) || text[after] == '_');
        if (before && behind) {
            return true;
        }
        at = text.find(word, at + 1);
    }
    return false;
}

/// The name in a function header: the identifier (with its qualifiers) before the first top-level '('.
std::string nameOf(const std::string& header)
{
    const size_t paren = header.find('(');
    size_t end = paren;
    while (end > 0 && std::isspace(static_cast<unsigned char>(header[end - 1]))) {
        --end;
    }
    size_t start = end;
    while (start > 0
        && (std::isalnum(static_cast<unsigned char>(header[start - 1])) || header[start - 1] == '_'
            || header[start - 1] == ':' || header[start - 1] == '~' || header[start - 1] == '='
            || header[start - 1] == '<' || header[start - 1] == '>' || header[start - 1] == '!'
            || header[start - 1] == '+' || header[start - 1] == '-' || header[start - 1] == '*'
            || header[start - 1] == '[' || header[start - 1] == ']')) {
        --start;
    }
    return header.substr(start, end - start);
}

/// "public", "private Q_SLOTS", "Q_SIGNALS", ...: a label inside a class, ended by ':'.
bool isAccessLabel(const std::string& header)
{
    for (const char* word : { "public", "protected", "private", "Q_SIGNALS", "signals" }) {
        if (header.rfind(word, 0) == 0 && header.find('(') == std::string::npos
            && header.find(':') == std::string::npos) {
            return true;
        }
    }
    return false;
}

enum class Scope { Namespace, Class, Function, Block };

} // namespace

std::vector<FunctionSpan> findFunctions(const std::string& source)
{
    const std::string code = codeOnly(source);
    std::vector<FunctionSpan> functions;
    std::vector<Scope> scopes;
    std::vector<FunctionSpan> open; // one per Function scope on the stack
    std::string header;
    int headerLine = 0;
    int line = 1;
    for (char c : code) {
        if (c == '\n') {
            ++line;
        }
        const bool inFunction = !scopes.empty() && (scopes.back() == Scope::Function || scopes.back() == Scope::Block);
        if (c == '{') {
            Scope scope = Scope::Block;
            if (!inFunction) {
                const bool initialiser = header.find('=') != std::string::npos && header.find('(') == std::string::npos;
                if (hasWord(header, "namespace") || hasWord(header, "extern")) {
                    scope = Scope::Namespace;
                } else if ((hasWord(header, "class") || hasWord(header, "struct") || hasWord(header, "union"))
                    && header.find('(') == std::string::npos) {
                    scope = Scope::Class;
                } else if (header.find('(') != std::string::npos && !hasWord(header, "enum") && !initialiser) {
                    scope = Scope::Function;
                    open.push_back({ nameOf(header), headerLine, 0 });
                }
            }
            scopes.push_back(scope);
            header.clear();
            continue;
        }
        if (c == '}') {
            if (!scopes.empty()) {
                if (scopes.back() == Scope::Function && !open.empty()) {
                    open.back().lastLine = line;
                    functions.push_back(open.back());
                    open.pop_back();
                }
                scopes.pop_back();
            }
            header.clear();
            continue;
        }
        if (inFunction) {
            continue;
        }
        if (c == ';' || (c == ':' && isAccessLabel(header))) {
            header.clear();
            continue;
        }
        if (header.empty() && std::isspace(static_cast<unsigned char>(c))) {
            continue;
        }
        if (header.empty()) {
            headerLine = line;
        }
        header.push_back(c);
    }
    return functions;
}

} // namespace rapid::lint
