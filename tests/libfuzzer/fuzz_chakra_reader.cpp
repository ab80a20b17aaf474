// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer entry point for the Chakra .et reader: each input is parsed as rank 0's trace; a parsed trace is
// inspected, written and read back (it must come back unchanged) and replayed on one HGX A100 node. The reader may
// reject the input (ChakraError, at an offset inside it) and the replay may find it cannot run (ReplayDeadlock, a
// rank or group outside the network, a duration past the simulated-time ceiling); anything else, and every sanitizer
// report, is a finding: the harness aborts with the message.
#include "config/configloader.h"
#include "config/diagnostic.h"
#include "graph/chakraerror.h"
#include "graph/chakrainspect.h"
#include "graph/chakrareader.h"
#include "graph/chakrawriter.h"
#include "network/router.h"
#include "sim/tracereplay.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

using namespace rapid;

namespace {

const config::HardwareSpec& node()
{
    static const config::HardwareSpec kNode
        = config::ConfigLoader(config::PresetLibrary({ RAPID_SOURCE_CONFIG_DIR })).loadHardware("hgx-a100-8gpu");
    return kNode;
}

[[noreturn]] void finding(const char* what)
{
    std::fprintf(stderr, "fuzz_chakra_reader: %s\n", what);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    graph::ChakraTrace trace;
    try {
        trace = graph::parseChakraTrace(bytes, "fuzz.0.et");
    } catch (const graph::ChakraError& error) {
        if (error.offset() > size) {
            finding("a ChakraError points past the end of the input");
        }
        return 0;
    }
    try {
        (void)graph::inspectChakra({ trace });
        if (graph::parseChakraTrace(graph::serializeChakraTrace(trace)).nodes != trace.nodes) {
            finding("a trace written and read back changed");
        }
        (void)sim::replayChakra({ trace }, {}, node(), sim::NetworkBackend::Analytical);
    } catch (const sim::ReplayDeadlock&) {
    } catch (const std::invalid_argument&) {
    } catch (const config::InputLimitError&) {
    } catch (const network::UnreachableError&) {
    } catch (const std::exception& error) {
        finding(error.what());
    }
    return 0;
}
