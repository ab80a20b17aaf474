// SPDX-License-Identifier: GPL-3.0-or-later
#include "flowprogram.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>

namespace flowreplay {

namespace {

std::vector<std::string_view> splitFields(std::string_view line)
{
    std::vector<std::string_view> fields;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
            ++i;
        }
        const size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
            ++i;
        }
        if (i > start) {
            fields.push_back(line.substr(start, i - start));
        }
    }
    return fields;
}

/// Reads the fields of one record left to right; every error names the file, the line and the field.
class Record {
public:
    Record(const std::string& fileName, int line, std::vector<std::string_view> fields)
        : m_fileName(fileName)
        , m_line(line)
        , m_fields(std::move(fields))
    {
    }

    [[noreturn]] void fail(const std::string& message) const
    {
        throw ParseError(m_fileName + ":" + std::to_string(m_line) + ": " + message);
    }

    bool atEnd() const { return m_next >= m_fields.size(); }

    std::string_view next(const char* what)
    {
        if (atEnd()) {
            fail(std::string(m_fields.front()) + " record ends before <" + what + ">");
        }
        return m_fields[m_next++];
    }

    std::int64_t integer(const char* what, std::int64_t min, std::int64_t max)
    {
        const std::string_view text = next(what);
        std::int64_t value = 0;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || ptr != text.data() + text.size()) {
            fail("<" + std::string(what) + "> \"" + std::string(text) + "\" is not a decimal integer");
        }
        if (value < min || value > max) {
            fail("<" + std::string(what) + "> " + std::string(text) + " is out of range; expected "
                + std::to_string(min) + ".." + std::to_string(max));
        }
        return value;
    }

    int small(const char* what, int min, int max) { return static_cast<int>(integer(what, min, max)); }

    double real(const char* what)
    {
        const std::string_view text = next(what);
        double value = 0;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) {
            fail("<" + std::string(what) + "> \"" + std::string(text) + "\" is not a finite decimal number");
        }
        return value;
    }

    void expectEnd()
    {
        if (!atEnd()) {
            fail(std::to_string(m_fields.size() - m_next) + " extra field(s) after the record, starting at \""
                + std::string(m_fields[m_next]) + "\"");
        }
    }

    int line() const { return m_line; }

private:
    const std::string& m_fileName;
    int m_line;
    std::vector<std::string_view> m_fields;
    size_t m_next = 1; // field 0 is the keyword
};

constexpr std::int64_t kMaxInt = 2147483647;

struct RawPath {
    double fraction = 0;
    std::vector<int> linkIds;
};

} // namespace

std::int64_t FlowProgram::pathLatencyNs(const Path& path) const
{
    std::int64_t sum = 0;
    for (int link : path.links) {
        sum += links[static_cast<size_t>(link)].latencyNs;
    }
    return sum;
}

FlowProgram parseFlowProgram(std::istream& in, const std::string& fileName)
{
    FlowProgram program;
    program.fileName = fileName;
    bool haveHeader = false;
    std::int64_t version = 1;
    bool haveNodes = false;
    std::unordered_map<int, size_t> linkById;
    std::map<int, size_t> flowById; // id -> index into rawFlows
    std::vector<Flow> rawFlows;
    std::vector<std::vector<RawPath>> rawPaths;

    std::string text;
    int lineNumber = 0;
    while (std::getline(in, text)) {
        ++lineNumber;
        if (!text.empty() && text.back() == '\r') {
            text.pop_back();
        }
        std::vector<std::string_view> fields = splitFields(text);
        if (fields.empty() || fields.front().front() == '#') {
            continue;
        }
        Record record(fileName, lineNumber, fields);
        const std::string_view keyword = fields.front();
        if (!haveHeader) {
            if (keyword != "rapid-flow-program") {
                record.fail("expected the header \"rapid-flow-program 1\" before \"" + std::string(keyword) + "\"");
            }
            version = record.integer("version", 0, kMaxInt);
            if (version != 1 && version != 2) {
                record.fail("flow-program version " + std::to_string(version) + " is not supported; expected 1 or 2");
            }
            record.expectEnd();
            haveHeader = true;
        } else if (keyword == "nodes") {
            if (haveNodes) {
                record.fail("a second \"nodes\" record; expected exactly one");
            }
            program.nodeCount = record.small("nodeCount", 1, 1 << 24);
            program.gpuCount = record.small("gpuCount", 1, program.nodeCount);
            record.expectEnd();
            haveNodes = true;
        } else if (keyword == "link" || keyword == "flow") {
            if (!haveNodes) {
                record.fail("\"" + std::string(keyword) + "\" before the \"nodes\" record");
            }
            if (keyword == "link") {
                Link link;
                link.line = lineNumber;
                link.id = record.small("id", 0, kMaxInt);
                link.from = record.small("from", 0, program.nodeCount - 1);
                link.to = record.small("to", 0, program.nodeCount - 1);
                if (link.from == link.to) {
                    record.fail(
                        "link " + std::to_string(link.id) + " joins node " + std::to_string(link.from) + " to itself");
                }
                link.bandwidth = record.real("bandwidth");
                if (!(link.bandwidth > 0)) {
                    record.fail("link " + std::to_string(link.id)
                        + ": <bandwidth> must be positive (failed links are left out of the program)");
                }
                link.latencyNs = record.integer("latencyNs", 0, std::int64_t(1) << 50);
                record.expectEnd();
                auto [it, inserted] = linkById.emplace(link.id, program.links.size());
                if (!inserted) {
                    record.fail("link id " + std::to_string(link.id) + " was already declared on line "
                        + std::to_string(program.links[it->second].line));
                }
                program.links.push_back(link);
            } else {
                Flow flow;
                flow.line = lineNumber;
                flow.id = record.small("id", 0, kMaxInt);
                flow.src = record.small("src", 0, program.gpuCount - 1);
                flow.dst = record.small("dst", 0, program.gpuCount - 1);
                // An integer by the format; core/sim writes its double with %.17g, so a fractional byte count of an
                // uneven split (or an exponent) is accepted and rounded to the nearest byte.
                const double bytes = record.real("bytes");
                if (bytes < 0 || bytes > 1e15) {
                    record.fail("<bytes> " + std::to_string(bytes) + " is out of range; expected 0..1e15");
                }
                flow.bytes = static_cast<std::uint64_t>(std::llround(bytes));
                flow.delayNs = record.integer("delayNs", 0, std::int64_t(1) << 50);
                const int depCount = record.small("depCount", 0, kMaxInt);
                for (int i = 0; i < depCount; ++i) {
                    const int dep = record.small("dep", 0, kMaxInt);
                    if (dep >= flow.id) {
                        record.fail("flow " + std::to_string(flow.id) + " depends on flow " + std::to_string(dep)
                            + "; a dependency must have a lower id");
                    }
                    for (int seen : flow.deps) {
                        if (seen == dep) {
                            record.fail("flow " + std::to_string(flow.id) + " lists dependency " + std::to_string(dep)
                                + " twice");
                        }
                    }
                    flow.deps.push_back(dep);
                }
                // Version 2: the flows it is queued behind on the same connection (it may start once they are sent).
                const int sentCount = version >= 2 ? record.small("sentCount", 0, kMaxInt) : 0;
                for (int i = 0; i < sentCount; ++i) {
                    const int dep = record.small("sent", 0, kMaxInt);
                    if (dep >= flow.id) {
                        record.fail("flow " + std::to_string(flow.id) + " is queued behind flow " + std::to_string(dep)
                            + "; it must have a lower id");
                    }
                    flow.afterSent.push_back(dep);
                }
                const int pathCount = record.small("pathCount", 0, 1 << 16);
                std::vector<RawPath> paths;
                for (int p = 0; p < pathCount; ++p) {
                    RawPath path;
                    path.fraction = record.real("fraction");
                    if (path.fraction < 0 || path.fraction > 1) {
                        record.fail("path " + std::to_string(p) + " of flow " + std::to_string(flow.id)
                            + ": <fraction> must be in 0..1");
                    }
                    const int hops = record.small("hopCount", 0, 1 << 16);
                    for (int h = 0; h < hops; ++h) {
                        path.linkIds.push_back(record.small("link", 0, kMaxInt));
                    }
                    paths.push_back(std::move(path));
                }
                record.expectEnd();
                auto [it, inserted] = flowById.emplace(flow.id, rawFlows.size());
                if (!inserted) {
                    record.fail("flow id " + std::to_string(flow.id) + " was already declared on line "
                        + std::to_string(rawFlows[it->second].line));
                }
                rawFlows.push_back(std::move(flow));
                rawPaths.push_back(std::move(paths));
            }
        } else {
            record.fail("unknown record \"" + std::string(keyword) + "\"; expected nodes, link or flow");
        }
    }
    if (!haveHeader) {
        throw ParseError(fileName + ": empty program; expected the header \"rapid-flow-program 1\"");
    }
    if (!haveNodes) {
        throw ParseError(fileName + ": no \"nodes\" record");
    }

    // Flow ids must be dense; resolve and check the paths now that every link is known.
    program.flows.resize(rawFlows.size());
    int expectedId = 0;
    for (const auto& [id, index] : flowById) {
        if (id != expectedId) {
            throw ParseError(fileName + ":" + std::to_string(rawFlows[index].line) + ": flow ids must be dense 0.."
                + std::to_string(rawFlows.size() - 1) + " but flow " + std::to_string(expectedId)
                + " is missing (next id is " + std::to_string(id) + ")");
        }
        ++expectedId;
    }
    std::vector<int> visitedStamp(static_cast<size_t>(program.nodeCount), -1);
    int stamp = 0;
    for (size_t index = 0; index < rawFlows.size(); ++index) {
        Flow flow = std::move(rawFlows[index]);
        const std::string where = fileName + ":" + std::to_string(flow.line) + ": flow " + std::to_string(flow.id);
        const std::vector<RawPath>& paths = rawPaths[index];
        if (paths.empty() && flow.bytes > 0 && flow.src != flow.dst) {
            throw ParseError(
                where + " carries " + std::to_string(flow.bytes) + " bytes between different GPUs but lists no path");
        }
        for (size_t p = 0; p < paths.size(); ++p) {
            if ((flow.src == flow.dst) != paths[p].linkIds.empty()) {
                throw ParseError(where + " path " + std::to_string(p) + " has "
                    + std::to_string(paths[p].linkIds.size()) + " hops; a path has no hops exactly when src == dst");
            }
        }
        double sum = 0;
        for (size_t p = 0; p < paths.size(); ++p) {
            const std::string pathWhere = where + " path " + std::to_string(p);
            Path path;
            path.fraction = paths[p].fraction;
            sum += path.fraction;
            ++stamp;
            int at = flow.src;
            visitedStamp[static_cast<size_t>(at)] = stamp;
            for (int linkId : paths[p].linkIds) {
                auto it = linkById.find(linkId);
                if (it == linkById.end()) {
                    throw ParseError(pathWhere + ": link " + std::to_string(linkId) + " is not listed");
                }
                const Link& link = program.links[it->second];
                if (link.from != at) {
                    throw ParseError(pathWhere + ": link " + std::to_string(linkId) + " starts at node "
                        + std::to_string(link.from) + " but the path is at node " + std::to_string(at));
                }
                at = link.to;
                if (visitedStamp[static_cast<size_t>(at)] == stamp) {
                    throw ParseError(pathWhere + " visits node " + std::to_string(at) + " twice; paths must be simple");
                }
                visitedStamp[static_cast<size_t>(at)] = stamp;
                path.links.push_back(static_cast<int>(it->second));
            }
            if (at != flow.dst) {
                throw ParseError(
                    pathWhere + " ends at node " + std::to_string(at) + ", not at dst " + std::to_string(flow.dst));
            }
            flow.paths.push_back(std::move(path));
        }
        if (!paths.empty() && std::abs(sum - 1.0) > 1e-6) {
            std::ostringstream message;
            message.precision(12);
            message << where << ": the path fractions sum to " << sum << "; expected 1";
            throw ParseError(message.str());
        }
        program.flows[static_cast<size_t>(flow.id)] = std::move(flow);
    }
    for (const Flow& flow : program.flows) {
        for (int before : flow.afterSent) {
            const Flow& ahead = program.flows[static_cast<size_t>(before)];
            if (ahead.src != flow.src || ahead.dst != flow.dst) {
                throw ParseError(fileName + ":" + std::to_string(flow.line) + ": flow " + std::to_string(flow.id)
                    + " is queued behind flow " + std::to_string(before)
                    + ", which goes between other GPUs; a queue is one connection");
            }
        }
    }
    return program;
}

FlowProgram loadFlowProgram(const std::string& path)
{
    std::ifstream file(path);
    if (!file) {
        throw ParseError(path + ": cannot open the file");
    }
    return parseFlowProgram(file, path);
}

std::vector<Expectation> loadExpectations(const std::string& path, const FlowProgram& program)
{
    std::ifstream file(path);
    if (!file) {
        throw ParseError(path + ": cannot open the file");
    }
    std::vector<Expectation> expectations;
    std::string text;
    int lineNumber = 0;
    while (std::getline(file, text)) {
        ++lineNumber;
        std::vector<std::string_view> fields = splitFields(text);
        if (fields.size() < 2 || fields[0] != "#" || fields[1] != "expect") {
            continue;
        }
        fields.erase(fields.begin()); // "#": the record reader treats "expect" as the keyword
        Record record(path, lineNumber, fields);
        Expectation expectation;
        expectation.line = lineNumber;
        const std::string_view what = record.next("what");
        if (what == "completion_ns") {
            expectation.kind = Expectation::Kind::Completion;
        } else if (what == "finish_ns" || what == "start_ns") {
            expectation.kind = what == "finish_ns" ? Expectation::Kind::Finish : Expectation::Kind::Start;
            expectation.flow = record.small("flow", 0, static_cast<int>(program.flows.size()) - 1);
        } else {
            record.fail(
                "unknown expectation \"" + std::string(what) + "\"; expected completion_ns, finish_ns or start_ns");
        }
        expectation.valueNs = record.real("ns");
        std::string_view tolerance = record.next("tolerance%");
        if (tolerance.empty() || tolerance.back() != '%') {
            record.fail("the tolerance \"" + std::string(tolerance) + "\" must end in %");
        }
        tolerance.remove_suffix(1);
        double percent = 0;
        auto [ptr, ec] = std::from_chars(tolerance.data(), tolerance.data() + tolerance.size(), percent);
        if (ec != std::errc() || ptr != tolerance.data() + tolerance.size() || !(percent >= 0)) {
            record.fail("the tolerance must be a non-negative percentage such as 2%");
        }
        expectation.tolerance = percent / 100.0;
        record.expectEnd();
        expectations.push_back(expectation);
    }
    return expectations;
}

} // namespace flowreplay
