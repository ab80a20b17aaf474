// SPDX-License-Identifier: GPL-3.0-or-later
#include "chakrareader.h"

#include "graph/chakra/chakrawire_p.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>

namespace rapid::graph {

namespace {

/// Reads the varint32 length prefix at @p offset; advances it. At most 5 bytes, as protobuf's delimited streams.
std::uint32_t readLengthPrefix(std::string_view bytes, std::size_t& offset, const std::string& name, size_t frame)
{
    const std::size_t start = offset;
    std::uint64_t value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        if (offset >= bytes.size()) {
            throw ChakraError(name, start,
                "frame " + std::to_string(frame) + ": length prefix cut off by the end of the file (truncated file)");
        }
        const auto byte = static_cast<unsigned char>(bytes[offset++]);
        value |= std::uint64_t { byte & 0x7fu } << shift;
        if ((byte & 0x80u) == 0) {
            if (value > 0xffffffffull) {
                break;
            }
            return static_cast<std::uint32_t>(value);
        }
    }
    throw ChakraError(name, start,
        "frame " + std::to_string(frame) + ": malformed length prefix (not a varint32; corrupted file or not a trace)");
}

std::string frameLabel(size_t frame)
{
    return frame == 0 ? std::string("frame 0 (GlobalMetadata)")
                      : "frame " + std::to_string(frame) + " (node " + std::to_string(frame - 1) + ")";
}

} // namespace

ChakraTrace parseChakraTrace(std::string_view bytes, const std::string& name)
{
    ChakraTrace trace;
    trace.path = name;
    if (bytes.empty()) {
        throw ChakraError(name, 0, "empty file: a Chakra trace starts with a GlobalMetadata frame");
    }
    if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f
        && static_cast<unsigned char>(bytes[1]) == 0x8b) {
        throw ChakraError(
            name, 0, "gzip-compressed; decompress it first (ASTRA-sim reads only uncompressed .et files)");
    }
    // Frames are counted first (length prefixes only) so the nodes are placed once, not moved as the vector grows.
    std::size_t frames = 0;
    for (std::size_t offset = 0; offset < bytes.size(); ++frames) {
        const std::size_t frameStart = offset;
        const std::uint32_t length = readLengthPrefix(bytes, offset, name, frames);
        if (length > bytes.size() - offset) {
            offset = frameStart;
            break; // reported with its frame in the decoding pass
        }
        offset += length;
    }
    trace.nodes.reserve(frames > 0 ? frames - 1 : 0);
    chakrawire::NodeDecoder decoder;
    std::size_t offset = 0;
    for (size_t frame = 0; offset < bytes.size(); ++frame) {
        const std::size_t frameStart = offset;
        const std::uint32_t length = readLengthPrefix(bytes, offset, name, frame);
        const std::size_t remaining = bytes.size() - offset;
        if (length > remaining) {
            throw ChakraError(name, frameStart,
                frameLabel(frame) + " declares " + std::to_string(length) + " bytes but only "
                    + std::to_string(remaining) + " remain (truncated or corrupted file)");
        }
        const char* body = bytes.data() + offset;
        offset += length;
        if (frame == 0) {
            if (!chakrawire::decodeMetadata(body, length, trace.metadata)) {
                throw ChakraError(name, frameStart,
                    frameLabel(frame) + ": " + std::to_string(length)
                        + " bytes are not a valid GlobalMetadata message (corrupted file or not a trace)");
            }
            continue;
        }
        ChakraNode& node = trace.nodes.emplace_back();
        if (!decoder.decode(body, length, node)) {
            throw ChakraError(name, frameStart,
                frameLabel(frame) + ": " + std::to_string(length)
                    + " bytes are not a valid Node message (malformed protobuf or invalid UTF-8 in a string)");
        }
    }
    return trace;
}

ChakraTrace readChakraFile(const std::filesystem::path& path)
{
    const std::string name = path.string();
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw ChakraError(name, 0, std::string("cannot open: ") + std::strerror(errno));
    }
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    if (error) {
        throw ChakraError(name, 0, "cannot read: " + error.message());
    }
    std::string bytes(static_cast<size_t>(size), '\0');
    if (!file.read(bytes.data(), static_cast<std::streamsize>(size))) {
        throw ChakraError(name, static_cast<std::uint64_t>(std::max<std::streamsize>(0, file.gcount())),
            "cannot read the whole file");
    }
    ChakraTrace trace = parseChakraTrace(bytes, name);
    trace.rank = chakraRankFromFileName(path.filename().string()).value_or(0);
    return trace;
}

std::optional<int> chakraRankFromFileName(const std::string& fileName)
{
    constexpr std::string_view extension = ".et";
    if (fileName.size() <= extension.size() || !fileName.ends_with(extension)) {
        return std::nullopt;
    }
    const std::string_view stem(fileName.data(), fileName.size() - extension.size());
    const std::size_t dot = stem.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == stem.size()) {
        return std::nullopt;
    }
    const std::string_view digits = stem.substr(dot + 1);
    int rank = 0;
    const auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
    if (status != std::errc() || end != digits.data() + digits.size() || rank < 0) {
        return std::nullopt;
    }
    return rank;
}

std::vector<std::filesystem::path> listChakraSet(const std::filesystem::path& dirOrFile)
{
    namespace fs = std::filesystem;
    std::error_code error;
    if (fs::is_regular_file(dirOrFile, error)) {
        return { dirOrFile };
    }
    const bool isDirectory = fs::is_directory(dirOrFile, error);
    const fs::path folder = isDirectory ? dirOrFile : dirOrFile.parent_path();
    const std::string wantedPrefix = isDirectory ? std::string() : dirOrFile.filename().string();
    // prefix -> rank -> file
    std::map<std::string, std::map<int, fs::path>> sets;
    if (fs::is_directory(folder.empty() ? fs::path(".") : folder, error)) {
        for (const fs::directory_entry& entry : fs::directory_iterator(folder.empty() ? fs::path(".") : folder)) {
            const std::string fileName = entry.path().filename().string();
            const std::optional<int> rank = chakraRankFromFileName(fileName);
            if (!rank || !entry.is_regular_file()) {
                continue;
            }
            const std::string prefix = fileName.substr(0, fileName.rfind('.', fileName.size() - 4));
            if (!wantedPrefix.empty() && prefix != wantedPrefix) {
                continue;
            }
            sets[prefix][*rank] = entry.path();
        }
    }
    if (sets.empty()) {
        throw ChakraError(dirOrFile.string(), 0,
            isDirectory ? "no <prefix>.<rank>.et files in this directory"
                        : "no such file, directory or <prefix>.<rank>.et trace set");
    }
    if (sets.size() > 1) {
        std::string prefixes;
        for (const auto& [prefix, files] : sets) {
            prefixes += (prefixes.empty() ? "" : ", ") + prefix;
        }
        throw ChakraError(dirOrFile.string(), 0,
            "several trace sets (" + prefixes + "); pass one file or a prefix such as "
                + (folder / sets.begin()->first).string());
    }
    std::vector<fs::path> files;
    for (const auto& [rank, path] : sets.begin()->second) {
        files.push_back(path);
    }
    return files;
}

std::vector<ChakraTrace> readChakraDirectory(const std::filesystem::path& dirOrFile)
{
    namespace fs = std::filesystem;
    const std::vector<fs::path> files = listChakraSet(dirOrFile);
    // Stated up front: in memory a trace takes several times its file (decoded nodes, names, attribute vectors), so a
    // set past the budget is refused before anything is read.
    std::uintmax_t totalBytes = 0;
    std::error_code error;
    for (const fs::path& path : files) {
        totalBytes += fs::file_size(path, error);
    }
    if (totalBytes > kMaxChakraSetBytes) {
        throw ChakraError(dirOrFile.string(), 0,
            "the trace set is " + std::to_string(totalBytes >> 20) + " MiB; at most "
                + std::to_string(kMaxChakraSetBytes >> 20)
                + " MiB are read (several times that in memory): export fewer ranks or a coarser detail level");
    }
    std::vector<ChakraTrace> traces;
    for (const fs::path& path : files) {
        traces.push_back(readChakraFile(path));
    }
    return traces;
}

} // namespace rapid::graph
