// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reader of the flow-program format (docs/flow-program.md), written independently of core/sim so that the ns-3 replay
// checks the flow-level simulator without sharing code with it. No ns-3 here: the parser is plain C++.

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace flowreplay {

/// A malformed program. what() is "FILE:LINE: what is wrong; what is expected" (LINE omitted for whole-file errors).
class ParseError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// One direction of a physical link.
struct Link {
    int id = 0; ///< the program's link id (need not be dense)
    int from = 0;
    int to = 0;
    double bandwidth = 0; ///< bytes per second
    std::int64_t latencyNs = 0;
    int line = 0; ///< where it was declared
};

struct Path {
    double fraction = 1.0;
    std::vector<int>
        links; ///< indices into FlowProgram::links (not ids), in order from src to dst; empty iff src == dst
};

struct Flow {
    int id = 0;
    int src = 0;
    int dst = 0;
    std::uint64_t bytes = 0;
    std::int64_t delayNs = 0;
    std::vector<int> deps; ///< flow ids, each lower than id
    /// Version 2: flows (lower ids, same src and dst) this one is queued behind on their connection, FIFO.
    std::vector<int> afterSent;
    std::vector<Path> paths;
    int line = 0;
};

struct FlowProgram {
    std::string fileName;
    int nodeCount = 0;
    int gpuCount = 0;
    std::vector<Link> links; ///< in declaration order
    std::vector<Flow> flows; ///< flows[i].id == i

    /// Sum of the latencies of a path (ns).
    std::int64_t pathLatencyNs(const Path& path) const;
};

/// Parses and validates a whole program: record syntax, ranges, unique link ids, dense flow ids, dependencies on lower
/// ids, fractions summing to 1, and every path a chain of listed links from src to dst that visits no node twice.
/// Throws ParseError naming the file and line.
FlowProgram parseFlowProgram(std::istream& in, const std::string& fileName);
FlowProgram loadFlowProgram(const std::string& path);

/// An expected value written into a program as a comment, for the harness's own closed-form tests:
///   # expect completion_ns <ns> <tolerance>%
///   # expect finish_ns <flow> <ns> <tolerance>%
///   # expect start_ns <flow> <ns> <tolerance>%
struct Expectation {
    enum class Kind { Completion, Finish, Start };
    Kind kind = Kind::Completion;
    int flow = -1;
    double valueNs = 0;
    double tolerance = 0; ///< relative, e.g. 0.02
    int line = 0;
};

/// The `# expect` comments of a program file (throws ParseError for a malformed one).
std::vector<Expectation> loadExpectations(const std::string& path, const FlowProgram& program);

} // namespace flowreplay
