// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>

namespace rapid::widgets {

/// Replaces `gpu: <preset name>` in a hardware document with the preset's own `gpu:` mapping, copied line by line
/// and indented under the key, so the preset's comments (its sources) come along. Returns std::nullopt with the
/// reason in @p why when the hardware text has no scalar `hardware.gpu` or the preset has no block `gpu:` mapping.
std::optional<std::string> inlineGpuPreset(
    const std::string& hardwareText, const std::string& presetText, std::string* why = nullptr);

} // namespace rapid::widgets
