// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the Chakra tests: the sample folder, and an independent frame walk (a few lines of varint decoding, not
// the reader under test) to count what the samples hold.
#pragma once

#include <QTest>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace rapid::test {

inline std::filesystem::path chakraSamples()
{
    return std::filesystem::path(RAPID_SHARED_DIR) / "chakra-samples";
}

inline std::string readBytes(const std::filesystem::path& path)
{
    std::ifstream file(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>() };
}

/// The message bodies of a length-delimited stream, or nullopt if the framing is broken.
inline std::optional<std::vector<std::string>> splitFrames(const std::string& bytes)
{
    std::vector<std::string> frames;
    size_t offset = 0;
    while (offset < bytes.size()) {
        std::uint64_t length = 0;
        int shift = 0;
        unsigned char byte = 0x80;
        while (byte & 0x80) {
            if (offset >= bytes.size() || shift > 28) {
                return std::nullopt;
            }
            byte = static_cast<unsigned char>(bytes[offset++]);
            length |= std::uint64_t { byte & 0x7fu } << shift;
            shift += 7;
        }
        if (length > bytes.size() - offset) {
            return std::nullopt;
        }
        frames.push_back(bytes.substr(offset, length));
        offset += length;
    }
    return frames;
}

/// Every `.et` file of the samples, relative to chakraSamples().
inline std::vector<std::filesystem::path> chakraSampleFiles()
{
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(chakraSamples())) {
        if (entry.path().extension() == ".et") {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace rapid::test

#define RAPID_REQUIRE_CHAKRA_SAMPLES()                                                                                 \
    do {                                                                                                               \
        if (!std::filesystem::is_directory(rapid::test::chakraSamples())) {                                            \
            QSKIP("../shared/chakra-samples is not available");                                                        \
        }                                                                                                              \
    } while (false)
