// SPDX-License-Identifier: GPL-3.0-or-later
#include "utf8.h"

#include <algorithm>

namespace rapid::config {

namespace {

/// The length of the well-formed sequence starting at @p at, or 0. The ranges of the second byte follow the table of
/// well-formed byte sequences; later bytes are plain continuation bytes 0x80..0xBF.
std::size_t sequenceLength(std::string_view text, std::size_t at)
{
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    if (lead < 0x80) {
        return 1;
    }
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        low = lead == 0xE0 ? 0xA0 : 0x80; // E0 80..9F would be overlong
        high = lead == 0xED ? 0x9F : 0xBF; // ED A0..BF would be a surrogate
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        low = lead == 0xF0 ? 0x90 : 0x80; // F0 80..8F would be overlong
        high = lead == 0xF4 ? 0x8F : 0xBF; // F4 90.. would be above U+10FFFF
    } else {
        return 0; // a continuation byte, C0/C1 (overlong) or F5..FF
    }
    if (text.size() - at < length || byte(at + 1) < low || byte(at + 1) > high) {
        return 0;
    }
    for (std::size_t i = at + 2; i < at + length; ++i) {
        if (byte(i) < 0x80 || byte(i) > 0xBF) {
            return 0;
        }
    }
    return length;
}

} // namespace

std::optional<std::size_t> firstInvalidUtf8(std::string_view text)
{
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t length = sequenceLength(text, at);
        if (length == 0) {
            return at;
        }
        at += length;
    }
    return std::nullopt;
}

TextPosition positionOf(std::string_view text, std::size_t offset)
{
    const std::string_view before = text.substr(0, std::min(offset, text.size()));
    const std::size_t lineStart = before.rfind('\n');
    TextPosition position;
    position.line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    position.column = 1 + static_cast<int>(lineStart == std::string_view::npos ? offset : offset - lineStart - 1);
    return position;
}

} // namespace rapid::config
