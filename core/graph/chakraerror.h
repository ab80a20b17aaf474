// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace rapid::graph {

/// A Chakra trace file that cannot be read: truncated, corrupted, not a trace, or unreadable. what() reads
/// "<file>: byte <offset>: <problem>".
class ChakraError : public std::runtime_error {
public:
    ChakraError(std::string file, std::uint64_t offset, const std::string& problem);

    const std::string& file() const { return m_file; }
    /// Byte offset in the file where the problem starts (start of the offending frame or length prefix).
    std::uint64_t offset() const { return m_offset; }
    const std::string& problem() const { return m_problem; }

private:
    std::string m_file;
    std::uint64_t m_offset;
    std::string m_problem;
};

} // namespace rapid::graph
