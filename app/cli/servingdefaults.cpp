// SPDX-License-Identifier: GPL-3.0-or-later
#include "servingdefaults.h"

#include "config/diagnostic.h"
#include "config/workspacefile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace rapid::cli {

namespace {

/// The loads as rapid serve's --concurrency/--rate take them (no spaces), or nullopt when one is not a load.
std::optional<std::string> loadList(const std::string& typed, bool rate)
{
    std::string loads = typed;
    loads.erase(
        std::remove_if(loads.begin(), loads.end(), [](unsigned char c) { return std::isspace(c); }), loads.end());
    size_t start = 0;
    while (start <= loads.size()) {
        const size_t comma = std::min(loads.find(',', start), loads.size());
        const std::string item = loads.substr(start, comma - start);
        char* end = nullptr;
        const double value = std::strtod(item.c_str(), &end);
        const bool valid = !item.empty() && end == item.c_str() + item.size() && std::isfinite(value) && value > 0
            && (rate ? value <= 1e6 : value == std::floor(value) && value <= 100'000);
        if (!valid) {
            return std::nullopt;
        }
        start = comma + 1;
    }
    return loads;
}

} // namespace

void applyWorkspaceServingDefaults(Arguments& arguments)
{
    std::optional<std::string> workspace = arguments.value("workspace");
    if (!arguments.positional().empty()) {
        workspace = arguments.positional().front();
    }
    if (!workspace || arguments.value("model") || arguments.value("hardware") || arguments.value("run")) {
        return;
    }
    const std::optional<config::ServingSettings> settings
        = config::readWorkspaceDocuments(*workspace, config::PresetLibrary::standard()).serving;
    if (!settings) {
        return;
    }
    // The section keeps what the tab holds, typing in progress included: what rapid serve cannot take is an input
    // error naming the section's key, never an option the user did not type.
    auto sectionError = [&](const std::string& key, const std::string& message) {
        throw config::ConfigError({ { { *workspace, 0, 0 }, "serving." + key, message } });
    };
    const bool pools = settings->prefillWorkers > 0 || settings->decodeWorkers > 0;
    const bool rate = settings->load == config::ServingSettings::Load::Rate;
    if (!arguments.value("concurrency") && !arguments.value("rate") && !arguments.value("trace")) {
        const std::optional<std::string> loads = loadList(settings->loads, rate);
        if (!loads) {
            sectionError("loads",
                std::string("expected ")
                    + (rate ? "rates above 0 and at most 1e6 requests/s" : "whole client counts from 1 to 100000")
                    + " separated by commas, got \"" + settings->loads + "\"");
        }
        arguments.setDefault(rate ? "rate" : "concurrency", *loads);
    }
    if (pools && !arguments.value("pool-splits")) {
        if (settings->prefillWorkers == 0 || settings->decodeWorkers == 0) {
            sectionError(settings->prefillWorkers == 0 ? "prefill_workers" : "decode_workers",
                "give both prefill and decode workers, or neither");
        }
        arguments.setDefault("prefill-workers", std::to_string(settings->prefillWorkers));
        arguments.setDefault("decode-workers", std::to_string(settings->decodeWorkers));
    }
    auto setCount = [&](const char* option, int value) {
        if (value > 0) {
            arguments.setDefault(option, std::to_string(value));
        }
    };
    setCount("input-tokens", settings->inputTokens);
    setCount("output-tokens", settings->outputTokens);
    setCount("requests", settings->requests);
    if (pools && !arguments.value("pool-splits")) {
        setCount("prefill-tp", settings->prefillTp);
        setCount("decode-tp", settings->decodeTp);
    }
    arguments.setDefault("engine", settings->engine);
    for (const auto& [option, milliseconds] : { std::pair { "slo-ttft", settings->ttftSloMilliseconds },
             std::pair { "slo-itl", settings->itlSloMilliseconds } }) {
        if (milliseconds > 0) {
            char text[64];
            std::snprintf(text, sizeof text, "%.17gms", milliseconds);
            arguments.setDefault(option, text);
        }
    }
}

} // namespace rapid::cli
