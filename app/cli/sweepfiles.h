// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "commands.h"

#include "sweep/sweepoutput.h"

#include <chrono>
#include <fstream>
#include <optional>
#include <string>

namespace rapid::cli {

/// The --csv and --json outputs of `rapid sweep`, written while the sweep runs: the CSV header and the head of the
/// JSON document first, each row as it finishes (flushed every kFlushRows rows or kFlushSeconds), the tails when the
/// sweep ends, interrupted or not. A file that cannot be written is found before any point is evaluated.
class SweepFiles {
public:
    static constexpr std::int64_t kFlushRows = 1000;
    static constexpr double kFlushSeconds = 0.5;

    explicit SweepFiles(const sweep::SweepSpace& space);

    /// Opens the file of @p csvPath and of @p jsonPath ("-": @p invocation's standard output). Returns the path it
    /// could not open, if any.
    std::optional<std::string> open(const std::optional<std::string>& csvPath,
        const std::optional<std::string>& jsonPath, const Invocation& invocation);
    /// Whether a row goes to standard output (the command's tables then go to standard error).
    bool writesToStandardOutput() const { return m_onStandardOutput; }

    void begin();
    void row(const sweep::SweepRow& row);
    /// Writes the tails and flushes. Returns the path of an output that failed (disk full, closed pipe), if any.
    std::optional<std::string> finish(const sweep::SweepResult& result);

private:
    void flush();

    const sweep::SweepSpace& m_space;
    std::ofstream m_csvFile;
    std::ofstream m_jsonFile;
    std::ostream* m_csvStream = nullptr;
    std::ostream* m_jsonStream = nullptr;
    std::string m_csvPath;
    std::string m_jsonPath;
    std::optional<sweep::SweepCsvWriter> m_csv;
    std::optional<sweep::SweepJsonWriter> m_json;
    bool m_onStandardOutput = false;
    std::int64_t m_unflushed = 0;
    std::chrono::steady_clock::time_point m_lastFlush;
};

} // namespace rapid::cli
