// SPDX-License-Identifier: GPL-3.0-or-later
#include "topology/faultlist.h"

#include "config/linkid.h"
#include "config/yamledit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace rapid::widgets {

namespace {

constexpr double kHealthTolerance = 1e-9;

std::string quoted(const std::string& text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out.push_back('\\');
        }
        out.push_back(c);
    }
    return out + "\"";
}

/// One YAML flow mapping per fault: {link: "...", health: 0.5}.
std::vector<std::string> faultItems(const std::vector<FaultEntry>& faults)
{
    std::vector<std::string> items;
    for (const FaultEntry& fault : faults) {
        items.push_back("{link: " + quoted(fault.link) + ", health: " + formatHealth(fault.health) + "}");
    }
    return items;
}

std::string flowList(const std::vector<FaultEntry>& faults)
{
    std::string list = "[";
    for (const FaultEntry& fault : faults) {
        list += (list.size() > 1 ? ", " : "") + std::string("{link: ") + quoted(fault.link)
            + ", health: " + formatHealth(fault.health) + "}";
    }
    return list + "]";
}

bool sameFaults(const std::vector<FaultEntry>& a, const std::vector<FaultEntry>& b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const auto& x, const auto& y) {
        return x.link == y.link && std::abs(x.health - y.health) < kHealthTolerance;
    });
}

/// The edit did what it should: the faults read back as written and the rest of the hardware mapping is still
/// there (its name, the first GPU and network keys).
bool readsBack(const std::string& before, const std::string& after, const std::vector<FaultEntry>& faults)
{
    std::vector<FaultEntry> expected = faults;
    for (FaultEntry& fault : expected) {
        fault.health = std::strtod(formatHealth(fault.health).c_str(), nullptr);
    }
    if (!sameFaults(faultsInText(after), expected)) {
        return false;
    }
    for (const char* key :
        { "hardware.name", "hardware.gpu", "hardware.cluster.gpus_per_node", "hardware.cluster.network[0].name" }) {
        if (config::yamlScalarAt(before, key) != config::yamlScalarAt(after, key)) {
            return false;
        }
    }
    return true;
}

} // namespace

std::vector<FaultEntry> faultsInText(const std::string& hardwareText)
{
    std::vector<FaultEntry> faults;
    for (size_t index = 0;; ++index) {
        const std::string item = "hardware.faults[" + std::to_string(index) + "]";
        const auto link = config::yamlScalarAt(hardwareText, item + ".link");
        const auto health = config::yamlScalarAt(hardwareText, item + ".health");
        if (!link && !health) {
            break;
        }
        faults.push_back({ link.value_or(std::string()), health ? std::strtod(health->c_str(), nullptr) : 1.0 });
    }
    return faults;
}

bool sameLink(const std::string& a, const std::string& b)
{
    return config::sameLinkId(a, b);
}

std::vector<FaultEntry> withLinkHealth(
    std::vector<FaultEntry> faults, const std::vector<std::string>& linkIds, double health)
{
    const bool healthy = health >= 1.0 - kHealthTolerance;
    const double clamped = std::clamp(health, 0.0, 1.0);
    for (const std::string& id : linkIds) {
        auto names = [&id](const FaultEntry& fault) { return sameLink(fault.link, id); };
        auto first = std::find_if(faults.begin(), faults.end(), names);
        if (healthy) {
            faults.erase(std::remove_if(faults.begin(), faults.end(), names), faults.end());
            continue;
        }
        if (first == faults.end()) {
            faults.push_back({ id, clamped });
            continue;
        }
        // Several entries on one link: the loader takes the lowest, so one entry at the new health says it exactly.
        first->health = clamped;
        faults.erase(std::remove_if(std::next(first), faults.end(), names), faults.end());
    }
    return faults;
}

std::optional<std::string> replaceFaults(
    const std::string& hardwareText, const std::vector<FaultEntry>& faults, std::string* why)
{
    if (auto edited = config::replaceYamlListInPlace(hardwareText, "hardware.faults", faultItems(faults));
        edited && readsBack(hardwareText, *edited, faults)) {
        return edited;
    }
    std::string reason;
    auto emitted = config::setYamlValue(hardwareText, "hardware.faults", flowList(faults), &reason);
    if (emitted && readsBack(hardwareText, *emitted, faults)) {
        return emitted;
    }
    if (why) {
        *why = reason.empty() ? "the faults list of the hardware document could not be rewritten" : reason;
    }
    return std::nullopt;
}

std::string formatHealth(double health)
{
    const double rounded = std::round(std::clamp(health, 0.0, 1.0) * 100.0) / 100.0;
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%.2f", rounded);
    std::string text = buffer;
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') {
        text.pop_back();
    }
    return text;
}

} // namespace rapid::widgets
