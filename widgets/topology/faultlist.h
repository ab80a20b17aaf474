// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rapid::widgets {

/// One entry of `hardware.faults` (see configs/README.md): a link id and its health, 0 = failed.
struct FaultEntry {
    std::string link;
    double health = 1.0;

    bool operator==(const FaultEntry&) const = default;
};

/// The faults written in a hardware document's text, in order; empty when it has none or does not parse.
std::vector<FaultEntry> faultsInText(const std::string& hardwareText);

/// Whether two link ids name the same link: same dimension and the same two ends in either order.
bool sameLink(const std::string& a, const std::string& b);

/// @p faults with every link of @p linkIds at @p health: an entry already naming the link is updated where it is,
/// other links are appended; health >= 1 drops the entry, since a healthy link needs no fault.
std::vector<FaultEntry> withLinkHealth(
    std::vector<FaultEntry> faults, const std::vector<std::string>& linkIds, double health);

/// The hardware text with its `faults:` list replaced by @p faults (the key removed when the list is empty). Only
/// the lines of that list are rewritten, so every comment and the layout of the rest survive, the way form edits
/// keep them; a layout the line scan does not recognise falls back to config::setYamlValue (which re-emits the
/// document). The result is read back and checked. std::nullopt with the reason in @p why when neither works.
std::optional<std::string> replaceFaults(
    const std::string& hardwareText, const std::vector<FaultEntry>& faults, std::string* why = nullptr);

/// "0", "0.5", "0.25": a health as the YAML gets it, rounded to the two decimals the editor offers.
std::string formatHealth(double health);

} // namespace rapid::widgets
