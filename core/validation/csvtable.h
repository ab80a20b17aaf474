// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rapid::validation {

/// A CSV file read whole: a header row and data rows (RFC 4180 quoting, a UTF-8 byte-order mark ignored).
class CsvTable {
public:
    /// Throws std::runtime_error naming the file when it cannot be read.
    static CsvTable read(const std::string& path);
    static CsvTable parse(const std::string& text);

    const std::vector<std::string>& header() const { return m_header; }
    size_t rows() const { return m_rows.size(); }
    /// Column index by name, if present.
    std::optional<size_t> column(const std::string& name) const;
    /// The cell of @p row in column @p name ("" when the column or cell is missing).
    const std::string& cell(size_t row, const std::string& name) const;
    /// The cell as a number, if it is one.
    std::optional<double> number(size_t row, const std::string& name) const;
    /// The cell as a whole number; throws std::runtime_error naming @p source, the column and the file's line when
    /// it is not one (a dataset's required degree or batch size).
    int integer(size_t row, const std::string& name, const std::string& source) const;

private:
    std::vector<std::string> m_header;
    std::vector<std::vector<std::string>> m_rows;
};

} // namespace rapid::validation
