// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/faultlist.h"

#include "config/linkid.h"
#include "config/yamledit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace rapid::widgets {

namespace {

constexpr double kHealthTolerance = 1e-9;

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

std::string quoted(const std::string& text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out.push_back('\\');
        }
        out.push_back(c);
    }
    return out + "\"";
}

std::string faultsBlock(const std::vector<FaultEntry>& faults, const std::string& indent)
{
    std::string block = indent + "faults:\n";
    for (const FaultEntry& fault : faults) {
        block += indent + "  - {link: " + quoted(fault.link) + ", health: " + formatHealth(fault.health) + "}\n";
    }
    return block;
}

std::string flowList(const std::vector<FaultEntry>& faults)
{
    std::string list = "[";
    for (const FaultEntry& fault : faults) {
        list += (list.size() > 1 ? ", " : "") + std::string("{link: ") + quoted(fault.link)
            + ", health: " + formatHealth(fault.health) + "}";
    }
    return list + "]";
}

/// The text with the lines of the faults list replaced, by scanning lines: the `hardware:` root key at column 0, its
/// children's indentation, and the `faults:` child with every line below it that is indented deeper (or is a "- "
/// item at the key's own indentation, which YAML also allows). std::nullopt for layouts this does not cover (a flow
/// mapping under `hardware:`, no hardware root), which the caller hands to setYamlValue instead.
std::optional<std::string> replaceByLines(const std::string& text, const std::vector<FaultEntry>& faults)
{
    const std::vector<Line> lines = splitLines(text);
    auto view = [&](size_t index) {
        return std::string_view(text).substr(lines[index].begin, lines[index].end - lines[index].begin);
    };
    size_t root = lines.size();
    for (size_t i = 0; i < lines.size(); ++i) {
        if (!isBlankOrComment(view(i)) && indentOf(view(i)) == 0 && startsKey(view(i), "hardware")) {
            root = i;
            break;
        }
    }
    if (root == lines.size() || !inlineValue(view(root), "hardware").empty()) {
        return std::nullopt;
    }
    // The hardware mapping runs to the next line at column 0 that holds something (another root key, "---").
    size_t rootEnd = lines.size();
    size_t childIndent = 0;
    size_t lastContent = root;
    for (size_t i = root + 1; i < lines.size(); ++i) {
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
    const std::string block = faults.empty() ? std::string() : faultsBlock(faults, indent);
    for (size_t i = root + 1; i < rootEnd; ++i) {
        const std::string_view line = view(i);
        if (isBlankOrComment(line) || indentOf(line) != childIndent || !startsKey(line.substr(childIndent), "faults")) {
            continue;
        }
        const std::string_view value = inlineValue(line.substr(childIndent), "faults");
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
    if (faults.empty()) {
        return text; // nothing to remove
    }
    // No faults yet: the list goes after the hardware mapping's last line, before the comments that follow it.
    const Line& after = lines[lastContent];
    const bool endsWithNewline = after.next > after.end;
    return text.substr(0, after.next) + (endsWithNewline ? "" : "\n") + block + text.substr(after.next);
}

bool sameFaults(const std::vector<FaultEntry>& a, const std::vector<FaultEntry>& b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
        return x.link == y.link && std::abs(x.health - y.health) < kHealthTolerance;
    });
}

/// The edit did what it should: the faults read back as written and the rest of the hardware mapping is still
/// there (its name, the first GPU and network keys).
bool readsBack(const std::string& before, const std::string& after, const std::vector<FaultEntry>& faults)
{
    std::vector<FaultEntry> expected = faults;
    for (FaultEntry& fault : expected) {
        fault.health = std::strtod(formatHealth(fault.health).c_str(), nullptr);
    }
    if (!sameFaults(faultsInText(after), expected)) {
        return false;
    }
    for (const char* key :
        { "hardware.name", "hardware.gpu", "hardware.cluster.gpus_per_node", "hardware.cluster.network[0].name" }) {
        if (config::yamlScalarAt(before, key) != config::yamlScalarAt(after, key)) {
            return false;
        }
    }
    return true;
}

} // namespace

std::vector<FaultEntry> faultsInText(const std::string& hardwareText)
{
    std::vector<FaultEntry> faults;
    for (size_t index = 0;; ++index) {
        const std::string item = "hardware.faults[" + std::to_string(index) + "]";
        const auto link = config::yamlScalarAt(hardwareText, item + ".link");
        const auto health = config::yamlScalarAt(hardwareText, item + ".health");
        if (!link && !health) {
            break;
        }
        faults.push_back({ link.value_or(std::string()), health ? std::strtod(health->c_str(), nullptr) : 1.0 });
    }
    return faults;
}

bool sameLink(const std::string& a, const std::string& b)
{
    return config::sameLinkId(a, b);
}

std::vector<FaultEntry> withLinkHealth(
    std::vector<FaultEntry> faults, const std::vector<std::string>& linkIds, double health)
{
    const bool healthy = health >= 1.0 - kHealthTolerance;
    const double clamped = std::clamp(health, 0.0, 1.0);
    for (const std::string& id : linkIds) {
        auto names = [&id](const FaultEntry& fault) { return sameLink(fault.link, id); };
        auto first = std::find_if(faults.begin(), faults.end(), names);
        if (healthy) {
            faults.erase(std::remove_if(faults.begin(), faults.end(), names), faults.end());
            continue;
        }
        if (first == faults.end()) {
            faults.push_back({ id, clamped });
            continue;
        }
        // Several entries on one link: the loader takes the lowest, so one entry at the new health says it exactly.
        first->health = clamped;
        faults.erase(std::remove_if(std::next(first), faults.end(), names), faults.end());
    }
    return faults;
}

std::optional<std::string> replaceFaults(
    const std::string& hardwareText, const std::vector<FaultEntry>& faults, std::string* why)
{
    if (auto edited = replaceByLines(hardwareText, faults); edited && readsBack(hardwareText, *edited, faults)) {
        return edited;
    }
    std::string reason;
    auto emitted = config::setYamlValue(hardwareText, "hardware.faults", flowList(faults), &reason);
    if (emitted && readsBack(hardwareText, *emitted, faults)) {
        return emitted;
    }
    if (why) {
        *why = reason.empty() ? "the faults list of the hardware document could not be rewritten" : reason;
    }
    return std::nullopt;
}

std::string formatHealth(double health)
{
    const double rounded = std::round(std::clamp(health, 0.0, 1.0) * 100.0) / 100.0;
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%.2f", rounded);
    std::string text = buffer;
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') {
        text.pop_back();
    }
    return text;
}

} // namespace rapid::widgets
