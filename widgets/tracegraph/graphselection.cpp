// SPDX-License-Identifier: GPL-3.0-or-later
#include "tracegraph/graphselection.h"

#include <QCoreApplication>

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_set>

namespace rapid::widgets {

namespace {

std::string lowerAscii(std::string text)
{
    std::transform(
        text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

QString tr(const char* text)
{
    return QCoreApplication::translate("GraphSelection", text);
}

std::optional<std::uint64_t> parseId(const QString& text, bool* ok)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) {
        *ok = true;
        return std::nullopt;
    }
    const qulonglong value = trimmed.toULongLong(ok);
    return *ok ? std::optional<std::uint64_t>(value) : std::nullopt;
}

} // namespace

std::optional<graph::ChakraDotFilter> makeGraphFilter(const QString& text, const QString& idRange, QString* error)
{
    graph::ChakraDotFilter filter;
    const QString range = idRange.trimmed();
    if (!range.isEmpty()) {
        const qsizetype dash = range.indexOf(u'-');
        bool firstOk = false;
        bool lastOk = false;
        if (dash < 0) {
            filter.firstId = parseId(range, &firstOk);
            filter.lastId = filter.firstId;
            lastOk = true;
        } else {
            filter.firstId = parseId(range.left(dash), &firstOk);
            filter.lastId = parseId(range.mid(dash + 1), &lastOk);
        }
        if (!firstOk || !lastOk || (filter.firstId && filter.lastId && *filter.firstId > *filter.lastId)) {
            if (error) {
                *error = tr("Ids: expected FIRST-LAST (e.g. 100-250), FIRST-, -LAST or one id, not \u201c%1\u201d.")
                             .arg(range);
            }
            return std::nullopt;
        }
    }
    const std::string needle = lowerAscii(text.trimmed().toStdString());
    if (!needle.empty()) {
        // The type is matched too so that "COMP" or "SEND" selects by kind even when names do not say it.
        filter.predicate = [needle](const graph::ChakraNode& node) {
            return lowerAscii(node.name).find(needle) != std::string::npos
                || lowerAscii(graph::toString(node.type)).find(needle) != std::string::npos;
        };
    }
    return filter;
}

GraphSelectionSize measureSelection(const graph::ChakraTrace& trace, const graph::ChakraDotFilter& filter)
{
    GraphSelectionSize size;
    std::unordered_set<std::uint64_t> selected;
    for (const graph::ChakraNode& node : trace.nodes) {
        if (filter.accepts(node)) {
            selected.insert(node.id);
        }
    }
    size.nodes = selected.size();
    for (const graph::ChakraNode& node : trace.nodes) {
        if (!selected.count(node.id)) {
            continue;
        }
        for (const auto* deps : { &node.dataDeps, &node.ctrlDeps }) {
            size.edges += static_cast<std::size_t>(std::count_if(
                deps->begin(), deps->end(), [&](std::uint64_t parent) { return selected.count(parent); }));
        }
    }
    return size;
}

} // namespace rapid::widgets
