// SPDX-License-Identifier: GPL-3.0-or-later
// configs/README.md's key tables, generated from the schema.
#include "schema.h"

namespace rapid::config::schema {

namespace {

std::string number(double value)
{
    return formatNumber(value);
}

const char* quantityWord(Dimension dimension)
{
    switch (dimension) {
    case Dimension::Bytes:
        return "size";
    case Dimension::Seconds:
        return "time";
    case Dimension::BytesPerSecond:
        return "bandwidth";
    case Dimension::FlopsPerSecond:
        return "compute rate";
    case Dimension::Hertz:
        return "frequency";
    case Dimension::Watts:
        return "power";
    case Dimension::Joules:
        return "energy";
    case Dimension::Dimensionless:
        break;
    }
    return "number";
}

std::string typeText(const Key& key)
{
    // Limits this large only guard against overflow; the table shows the lower bound alone.
    constexpr double kGuardLimit = double(1 << 20);
    switch (key.type) {
    case Type::Integer:
        return key.maximum >= kGuardLimit ? "int >= " + number(key.minimum)
                                          : "int " + number(key.minimum) + "-" + number(key.maximum);
    case Type::Number:
        return "number " + number(key.minimum) + "-" + number(key.maximum);
    case Type::Choice: {
        std::string words;
        for (const std::string& choice : key.choices) {
            words += (words.empty() ? "`" : " `") + choice + "`";
        }
        return words;
    }
    case Type::Quantity:
        return quantityWord(key.dimension);
    default:
        return toString(key.type);
    }
}

std::string defaultCell(const Key& key)
{
    if (!key.defaultValue.empty()) {
        return "`" + key.defaultValue + "`";
    }
    return key.defaultText();
}

} // namespace

std::string markdownTable(Document document)
{
    std::string table = "| key | type | default | meaning |\n|---|---|---|---|\n";
    for (const Key& key : keys(document)) {
        table
            += "| `" + key.writtenPath() + "` | " + typeText(key) + " | " + defaultCell(key) + " | " + key.doc + " |\n";
    }
    return table;
}

std::string withSchemaTables(const std::string& markdown, int* sectionsFound)
{
    std::string text = markdown;
    int found = 0;
    for (Document document : documents()) {
        const std::string open = std::string("<!-- schema:") + toString(document) + " -->\n";
        const std::string close = std::string("<!-- /schema:") + toString(document) + " -->";
        size_t searchFrom = 0;
        while (true) {
            const size_t begin = text.find(open, searchFrom);
            if (begin == std::string::npos) {
                break;
            }
            const size_t contentBegin = begin + open.size();
            const size_t end = text.find(close, contentBegin);
            if (end == std::string::npos) {
                break;
            }
            const std::string table = markdownTable(document);
            text.replace(contentBegin, end - contentBegin, table);
            searchFrom = contentBegin + table.size() + close.size();
            ++found;
        }
    }
    if (sectionsFound) {
        *sectionsFound = found;
    }
    return text;
}

} // namespace rapid::config::schema
