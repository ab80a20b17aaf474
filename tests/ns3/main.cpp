// SPDX-License-Identifier: GPL-3.0-or-later
// ns3-flowreplay: replays a flow program (docs/flow-program.md) at packet level in ns-3 and prints its completion time.

#include "flowprogram.h"
#include "replay.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

namespace {

constexpr int kExitCheckFailed = 1;
constexpr int kExitUsage = 2;

const char* const kUsage
    = "usage: ns3-flowreplay PROGRAM [--mtu BYTES] [--json] [--check] [--tcp TYPE] [--window-bdp X]\n"
      "                      [--queue fair|fifo|droptail] [--queue-packets N] [--initial-cwnd N] [--min-rto-us US]\n"
      "Replays a flow program (docs/flow-program.md) over TCP in ns-3 and prints its completion time in ns.\n"
      "  --mtu BYTES         IP MTU of every link (default 9000); TCP segments carry MTU-40 bytes\n"
      "  --json              print {\"completion_ns\", \"flows\": [{id, start_ns, finish_ns}], \"events\", ...}\n"
      "  --check             compare with the program's '# expect' comments; exit 1 if one is off\n"
      "  --tcp TYPE          congestion control, an ns-3 type (default ns3::TcpNewReno)\n"
      "  --window-bdp X      receive window of a flow, in bandwidth-delay products of the longest path (default 4)\n"
      "  --queue-packets N   device queues of N packets (default: sized so that nothing is ever dropped)\n"
      "  --queue fair        device queues: pure ACKs first, data weighted-fair between connections (default)\n"
      "  --queue fifo        pure ACKs first, data first come first served\n"
      "  --queue droptail    ns-3's drop-tail FIFO for everything\n"
      "  --initial-cwnd N    TCP initial window in segments (default 10; 0: one bandwidth-delay product of the path)\n"
      "  --min-rto-us US     TCP minimum retransmission timeout (default 200000)\n";

struct UsageError {
    std::string message;
};

template <typename T> T number(std::string_view option, const char* text)
{
    T value {};
    const std::string_view view(text);
    auto [ptr, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
    if (ec != std::errc() || ptr != view.data() + view.size()) {
        throw UsageError { std::string(option) + " \"" + std::string(view) + "\": not a number" };
    }
    return value;
}

/// Fixed-point with picosecond digits, no exponent (valid JSON, easy to diff).
std::string ns(double value)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.3f", value);
    return buffer;
}

void printJson(std::ostream& out, const flowreplay::ReplayResult& result, const flowreplay::ReplayOptions& options)
{
    out << "{\"completion_ns\": " << ns(result.completionNs)
        << ", \"complete\": " << (result.complete ? "true" : "false") << ", \"flows\": [";
    for (size_t i = 0; i < result.flows.size(); ++i) {
        const flowreplay::FlowTiming& flow = result.flows[i];
        out << (i == 0 ? "" : ", ") << "\n  {\"id\": " << flow.id << ", \"start_ns\": " << ns(flow.startNs)
            << ", \"finish_ns\": " << ns(flow.finishNs) << "}";
    }
    out << "],\n \"events\": " << result.events << ", \"wall_seconds\": " << ns(result.wallSeconds)
        << ", \"events_per_second\": " << ns(result.wallSeconds > 0 ? result.events / result.wallSeconds : 0)
        << ", \"connections\": " << result.connections << ", \"setup_ns\": " << ns(result.setupNs)
        << ", \"drops\": " << result.drops << ", \"fast_retransmits\": " << result.fastRetransmits
        << ", \"timeouts\": " << result.timeouts << ", \"mtu\": " << options.mtu << ", \"tcp\": \"" << options.tcp
        << "\"}\n";
}

void printText(std::ostream& out, const flowreplay::ReplayResult& result)
{
    out << "completion_ns: " << ns(result.completionNs) << "\n"
        << "flows: " << result.flows.size() << (result.complete ? "" : " (NOT all finished)") << "\n"
        << "connections: " << result.connections << "\n"
        << "events: " << result.events << "\n"
        << "wall_seconds: " << ns(result.wallSeconds) << "\n"
        << "events_per_second: " << std::llround(result.wallSeconds > 0 ? result.events / result.wallSeconds : 0)
        << "\n"
        << "drops: " << result.drops << ", fast retransmits: " << result.fastRetransmits
        << ", timeouts: " << result.timeouts << "\n";
}

/// Prints one line per expectation; false if any is outside its tolerance.
bool check(const std::vector<flowreplay::Expectation>& expectations, const flowreplay::ReplayResult& result)
{
    using Kind = flowreplay::Expectation::Kind;
    bool ok = !expectations.empty();
    if (expectations.empty()) {
        std::cout << "check: the program has no '# expect' comments\n";
    }
    for (const flowreplay::Expectation& expectation : expectations) {
        double got = result.completionNs;
        std::string what = "completion_ns";
        if (expectation.kind != Kind::Completion) {
            const flowreplay::FlowTiming& flow = result.flows[static_cast<size_t>(expectation.flow)];
            got = expectation.kind == Kind::Finish ? flow.finishNs : flow.startNs;
            what = (expectation.kind == Kind::Finish ? "finish_ns " : "start_ns ") + std::to_string(expectation.flow);
        }
        const double error = expectation.valueNs != 0 ? (got - expectation.valueNs) / expectation.valueNs
                                                      : (got == 0 ? 0.0 : INFINITY);
        const bool pass = std::abs(error) <= expectation.tolerance && got >= 0;
        ok = ok && pass;
        char line[256];
        std::snprintf(line, sizeof line, "%s line %d: %-16s expected %16.3f  got %16.3f  error %+7.3f%% (limit %.3g%%)",
            pass ? "ok  " : "FAIL", expectation.line, what.c_str(), expectation.valueNs, got, 100 * error,
            100 * expectation.tolerance);
        std::cout << line << "\n";
    }
    return ok;
}

} // namespace

int main(int argc, char** argv)
{
    std::string programPath;
    bool json = false;
    bool checkExpectations = false;
    flowreplay::ReplayOptions options;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string_view arg = argv[i];
            auto value = [&]() -> const char* {
                if (i + 1 >= argc) {
                    throw UsageError { std::string(arg) + " needs a value" };
                }
                return argv[++i];
            };
            if (arg == "--help" || arg == "-h") {
                std::cout << kUsage;
                return 0;
            } else if (arg == "--json") {
                json = true;
            } else if (arg == "--check") {
                checkExpectations = true;
            } else if (arg == "--mtu") {
                options.mtu = number<std::uint32_t>(arg, value());
            } else if (arg == "--tcp") {
                options.tcp = value();
                if (options.tcp.find("::") == std::string::npos) {
                    options.tcp = "ns3::" + options.tcp;
                }
            } else if (arg == "--window-bdp") {
                options.windowBdp = number<double>(arg, value());
                if (!(options.windowBdp > 0)) {
                    throw UsageError { "--window-bdp must be positive" };
                }
            } else if (arg == "--queue-packets") {
                options.queuePackets = number<std::uint32_t>(arg, value());
            } else if (arg == "--queue") {
                const std::string_view name = value();
                if (name == "fair") {
                    options.queue = flowreplay::QueueDiscipline::Fair;
                } else if (name == "fifo") {
                    options.queue = flowreplay::QueueDiscipline::Fifo;
                } else if (name == "droptail") {
                    options.queue = flowreplay::QueueDiscipline::DropTail;
                } else {
                    throw UsageError { "--queue \"" + std::string(name) + "\": expected fair, fifo or droptail" };
                }
            } else if (arg == "--initial-cwnd") {
                options.initialCwnd = number<std::uint32_t>(arg, value());
            } else if (arg == "--min-rto-us") {
                options.minRtoUs = number<double>(arg, value());
            } else if (!arg.empty() && arg.front() == '-') {
                throw UsageError { "unknown option " + std::string(arg) };
            } else if (programPath.empty()) {
                programPath = arg;
            } else {
                throw UsageError { "more than one PROGRAM given" };
            }
        }
        if (programPath.empty()) {
            throw UsageError { "no PROGRAM given" };
        }
    } catch (const UsageError& error) {
        std::cerr << "ns3-flowreplay: " << error.message << "\n" << kUsage;
        return kExitUsage;
    }

    try {
        const flowreplay::FlowProgram program = flowreplay::loadFlowProgram(programPath);
        std::vector<flowreplay::Expectation> expectations;
        if (checkExpectations) {
            expectations = flowreplay::loadExpectations(programPath, program);
        }
        const flowreplay::ReplayResult result = flowreplay::replay(program, options);
        for (const std::string& warning : result.warnings) {
            std::cerr << "ns3-flowreplay: warning: " << warning << "\n";
        }
        if (json) {
            printJson(std::cout, result, options);
        } else {
            printText(std::cout, result);
        }
        if (!result.complete) {
            std::cerr << "ns3-flowreplay: " << programPath << ": not every flow finished\n";
            return kExitCheckFailed;
        }
        if (checkExpectations && !check(expectations, result)) {
            return kExitCheckFailed;
        }
    } catch (const flowreplay::ParseError& error) {
        std::cerr << "ns3-flowreplay: " << error.what() << "\n";
        return kExitUsage;
    } catch (const std::exception& error) {
        std::cerr << "ns3-flowreplay: " << programPath << ": " << error.what() << "\n";
        return kExitUsage;
    }
    return 0;
}
