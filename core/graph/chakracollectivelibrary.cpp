// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakracollectivelibrary.h"

#include "graph/chakraexport.h"

#include <stdexcept>
#include <string>
#include <string_view>

namespace rapid::graph {

std::optional<network::CollectiveLibrary> recordedCollectiveLibrary(const std::vector<ChakraTrace>& traces)
{
    std::optional<network::CollectiveLibrary> recorded;
    std::string recordedIn;
    for (const ChakraTrace& trace : traces) {
        for (const ChakraAttribute& attribute : trace.metadata.attributes) {
            if (attribute.name != kCollectiveLibraryAttribute) {
                continue;
            }
            const std::string where = trace.path.empty() ? "rank " + std::to_string(trace.rank) : trace.path;
            const std::optional<std::string> text = attribute.string();
            const std::optional<network::CollectiveLibrary> library
                = text ? network::parseCollectiveLibrary(*text) : std::nullopt;
            if (!library) {
                throw std::invalid_argument(where + ": metadata attribute " + kCollectiveLibraryAttribute + " is "
                    + attribute.valueText() + "; expected \"custom\" or \"nccl\"");
            }
            if (recorded && *recorded != *library) {
                throw std::invalid_argument(where + ": metadata attribute " + kCollectiveLibraryAttribute + " is "
                    + network::toString(*library) + " but " + recordedIn + " records " + network::toString(*recorded)
                    + "; pass --collectives to choose");
            }
            recorded = library;
            recordedIn = where;
        }
    }
    return recorded;
}

std::optional<network::CollectiveLibrary> kernelNamedCollectiveLibrary(const std::vector<ChakraTrace>& traces)
{
    bool anyCollective = false;
    for (const ChakraTrace& trace : traces) {
        for (const ChakraNode& node : trace.nodes) {
            // CPU-side c10d nodes of a converted PyTorch trace are COMM_COLL_NODEs without comm_type: the host call,
            // not the collective the replay times.
            if (node.type != ChakraNodeType::Collective || !node.integerAttribute("comm_type")) {
                continue;
            }
            const std::string_view name = node.name;
            if (!name.starts_with("ncclKernel_") && !name.starts_with("ncclDevKernel_")) {
                return std::nullopt;
            }
            anyCollective = true;
        }
    }
    return anyCollective ? std::optional(network::CollectiveLibrary::Nccl) : std::nullopt;
}

} // namespace rapid::graph
