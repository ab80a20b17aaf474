// SPDX-License-Identifier: GPL-3.0-or-later
#include "csvtable.h"

#include <cmath>

#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace rapid::validation {

CsvTable CsvTable::read(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot read " + path);
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return parse(buffer.str());
}

CsvTable CsvTable::parse(const std::string& input)
{
    std::string text = input;
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) {
        text.erase(0, 3);
    }
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> record;
    std::string field;
    bool quoted = false;
    bool any = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field.push_back('"');
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field.push_back(c);
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
            any = true;
        } else if (c == ',') {
            record.push_back(field);
            field.clear();
            any = true;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
                ++i;
            }
            if (any || !field.empty()) {
                record.push_back(field);
                records.push_back(record);
            }
            record.clear();
            field.clear();
            any = false;
        } else {
            field.push_back(c);
            any = true;
        }
    }
    if (any || !field.empty()) {
        record.push_back(field);
        records.push_back(record);
    }
    CsvTable table;
    if (!records.empty()) {
        table.m_header = records.front();
        table.m_rows.assign(records.begin() + 1, records.end());
    }
    return table;
}

std::optional<size_t> CsvTable::column(const std::string& name) const
{
    for (size_t i = 0; i < m_header.size(); ++i) {
        if (m_header[i] == name) {
            return i;
        }
    }
    return std::nullopt;
}

const std::string& CsvTable::cell(size_t row, const std::string& name) const
{
    static const std::string empty;
    const auto index = column(name);
    if (!index || row >= m_rows.size() || *index >= m_rows[row].size()) {
        return empty;
    }
    return m_rows[row][*index];
}

std::optional<double> CsvTable::number(size_t row, const std::string& name) const
{
    const std::string& text = cell(row, name);
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr == text.data()) {
        return std::nullopt;
    }
    return value;
}

int CsvTable::integer(size_t row, const std::string& name, const std::string& source) const
{
    const std::optional<double> value = number(row, name);
    if (!value || *value != std::floor(*value) || std::abs(*value) > 1e9) {
        throw std::runtime_error(source + ": column \"" + name + "\" of line " + std::to_string(row + 2)
            + " is not a whole number (\"" + cell(row, name) + "\")");
    }
    return static_cast<int>(*value);
}

} // namespace rapid::validation
