// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweepfiles.h"

#include "clioutput.h"

namespace rapid::cli {

SweepFiles::SweepFiles(const sweep::SweepSpace& space)
    : m_space(space)
{
}

std::optional<std::string> SweepFiles::open(
    const std::optional<std::string>& csvPath, const std::optional<std::string>& jsonPath, const Invocation& invocation)
{
    if (csvPath) {
        m_csvPath = *csvPath;
        m_csvStream = openOutput(*csvPath, m_csvFile, invocation);
        if (!m_csvStream) {
            return csvPath;
        }
        m_csv.emplace(*m_csvStream, m_space);
    }
    if (jsonPath) {
        m_jsonPath = *jsonPath;
        m_jsonStream = openOutput(*jsonPath, m_jsonFile, invocation);
        if (!m_jsonStream) {
            return jsonPath;
        }
        m_json.emplace(*m_jsonStream, m_space);
    }
    m_onStandardOutput = (csvPath && *csvPath == "-") || (jsonPath && *jsonPath == "-");
    return std::nullopt;
}

void SweepFiles::begin()
{
    if (m_csv) {
        m_csv->header();
    }
    if (m_json) {
        m_json->begin();
    }
    flush();
}

void SweepFiles::row(const sweep::SweepRow& row)
{
    if (m_csv) {
        m_csv->row(row);
    }
    if (m_json) {
        m_json->row(row);
    }
    if (++m_unflushed >= kFlushRows
        || std::chrono::duration<double>(std::chrono::steady_clock::now() - m_lastFlush).count() >= kFlushSeconds) {
        flush();
    }
}

std::optional<std::string> SweepFiles::finish(const sweep::SweepResult& result)
{
    if (m_csv) {
        m_csv->finish(result);
    }
    if (m_json) {
        m_json->finish(result);
    }
    flush();
    if (m_csvStream && !*m_csvStream) {
        return m_csvPath;
    }
    if (m_jsonStream && !*m_jsonStream) {
        return m_jsonPath;
    }
    return std::nullopt;
}

void SweepFiles::flush()
{
    for (std::ostream* stream : { m_csvStream, m_jsonStream }) {
        if (stream) {
            stream->flush();
        }
    }
    m_unflushed = 0;
    m_lastFlush = std::chrono::steady_clock::now();
}

} // namespace rapid::cli
