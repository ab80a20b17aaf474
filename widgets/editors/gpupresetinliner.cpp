// SPDX-License-Identifier: GPL-3.0-or-later
#include "editors/gpupresetinliner.h"

#include "config/yamledit.h"

#include <sstream>
#include <vector>

namespace rapid::widgets {

namespace {

// setYamlValue finds the scalar's exact position for us; the marker then tells where to splice the mapping in.
constexpr const char* kMarker = "__rapid_inline_gpu_marker__";

std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        lines.push_back(line);
    }
    return lines;
}

std::optional<std::string> fail(std::string* why, const std::string& reason)
{
    if (why) {
        *why = reason;
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> inlineGpuPreset(
    const std::string& hardwareText, const std::string& presetText, std::string* why)
{
    const auto presetName = config::yamlScalarAt(hardwareText, "hardware.gpu");
    if (!presetName) {
        return fail(why, "hardware.gpu is not a preset name");
    }
    const auto marked = config::setYamlValue(hardwareText, "hardware.gpu", kMarker, why);
    if (!marked) {
        return std::nullopt;
    }
    const size_t markerPos = marked->find(kMarker);
    if (markerPos == std::string::npos) {
        return fail(why, "could not find hardware.gpu in the text");
    }
    const size_t lineStart
        = marked->rfind('\n', markerPos) == std::string::npos ? 0 : marked->rfind('\n', markerPos) + 1;
    const size_t keyColumn = marked->find_first_not_of(' ', lineStart) - lineStart;
    std::string keyPart = marked->substr(lineStart, markerPos - lineStart);
    while (!keyPart.empty() && keyPart.back() == ' ') {
        keyPart.pop_back();
    }
    const size_t lineEnd = marked->find('\n', markerPos);
    const std::string afterMarker = marked->substr(markerPos + std::string(kMarker).size(),
        (lineEnd == std::string::npos ? marked->size() : lineEnd) - markerPos - std::string(kMarker).size());

    // The preset's body: the lines under its root `gpu:` key, plus its source comments (not the licence line).
    const std::vector<std::string> presetLines = splitLines(presetText);
    size_t rootLine = presetLines.size();
    for (size_t i = 0; i < presetLines.size(); ++i) {
        if (presetLines[i] == "gpu:" || presetLines[i].rfind("gpu: #", 0) == 0) {
            rootLine = i;
            break;
        }
    }
    if (rootLine == presetLines.size()) {
        return fail(why, "the GPU preset has no block mapping under gpu:");
    }
    const std::string indent(keyColumn, ' ');
    std::string body = indent + "  # Copied from the GPU preset " + *presetName + " so that it can be edited here.\n";
    for (size_t i = 0; i < rootLine; ++i) {
        if (presetLines[i].rfind('#', 0) == 0 && presetLines[i].find("SPDX-License-Identifier") == std::string::npos) {
            body += indent + "  " + presetLines[i] + "\n";
        }
    }
    for (size_t i = rootLine + 1; i < presetLines.size(); ++i) {
        body += presetLines[i].empty() ? std::string("\n") : indent + presetLines[i] + "\n";
    }
    std::string result = marked->substr(0, lineStart) + keyPart + afterMarker + "\n" + body;
    if (lineEnd != std::string::npos) {
        result += marked->substr(lineEnd + 1);
    }
    if (!config::yamlScalarAt(result, "hardware.gpu.name") && !config::yamlScalarAt(result, "hardware.gpu.sm_count")) {
        return fail(why, "copying the GPU preset into the hardware document did not give a mapping");
    }
    return result;
}

} // namespace rapid::widgets
