// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakraerror.h"

namespace rapid::graph {

ChakraError::ChakraError(std::string file, std::uint64_t offset, const std::string& problem)
    : std::runtime_error(file + ": byte " + std::to_string(offset) + ": " + problem)
    , m_file(std::move(file))
    , m_offset(offset)
    , m_problem(problem)
{
}

} // namespace rapid::graph
