// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakrawriter.h"

#include "graph/chakra/chakrawire_p.h"

#include <fstream>
#include <stdexcept>

namespace rapid::graph {

namespace {

void appendFrame(std::string& out, const std::string& message)
{
    if (message.size() > 0xffffffffull) {
        throw std::invalid_argument("Chakra message of " + std::to_string(message.size()) + " bytes exceeds 4 GiB");
    }
    auto length = static_cast<std::uint32_t>(message.size());
    while (length >= 0x80u) {
        out.push_back(static_cast<char>((length & 0x7fu) | 0x80u));
        length >>= 7;
    }
    out.push_back(static_cast<char>(length));
    out += message;
}

} // namespace

std::string serializeChakraTrace(const ChakraTrace& trace)
{
    std::string out;
    appendFrame(out, chakrawire::encodeMetadata(trace.metadata));
    for (const ChakraNode& node : trace.nodes) {
        appendFrame(out, chakrawire::encodeNode(node));
    }
    return out;
}

void writeChakraFile(const std::filesystem::path& path, const ChakraTrace& trace)
{
    const std::string bytes = serializeChakraTrace(trace);
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    file.close();
    if (!file) {
        throw std::runtime_error("cannot write Chakra trace " + path.string());
    }
}

std::vector<std::filesystem::path> writeChakraDirectory(
    const std::filesystem::path& directory, const std::string& prefix, const std::vector<ChakraTrace>& traces)
{
    std::filesystem::create_directories(directory);
    std::vector<std::filesystem::path> paths;
    for (const ChakraTrace& trace : traces) {
        paths.push_back(directory / (prefix + "." + std::to_string(trace.rank) + ".et"));
        writeChakraFile(paths.back(), trace);
    }
    return paths;
}

} // namespace rapid::graph
