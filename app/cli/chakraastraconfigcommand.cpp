// SPDX-License-Identifier: GPL-3.0-or-later
#include "arguments.h"
#include "clioutput.h"
#include "commands.h"

#include "config/configloader.h"
#include "graph/astraconfig.h"

#include <filesystem>
#include <fstream>

namespace rapid::cli {

int chakraAstraConfigCommand(const Invocation& invocation, const std::vector<std::string>& args)
{
    Arguments arguments("chakra astra-config",
        "Writes ASTRA-sim's network (analytical backend), system and remote-memory files for a hardware preset, so "
        "the traces of rapid run --chakra-out run on the same network there (docs/chakra.md). Prints what ASTRA-sim "
        "cannot express and was approximated.",
        { { "hardware", "NAME|FILE", "hardware preset name or hardware YAML file", false },
            { "set", "KEY=VALUE", "override a hardware key, e.g. hardware.cluster.network[ib].size=16", true },
            { "out", "DIR", "where to write network.yml, system.json and remote_memory.json (created)", false } });
    arguments.parse(args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    const std::string directory = arguments.required("out");
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    const config::HardwareSpec hardware = loader.loadHardware(arguments.required("hardware"), arguments.values("set"));
    const graph::AstraConfig config = graph::astraConfigFor(hardware);
    const std::pair<const char*, const std::string*> files[] = { { "network.yml", &config.network },
        { "system.json", &config.system }, { "remote_memory.json", &config.remoteMemory } };
    std::error_code error;
    std::filesystem::create_directories(directory, error);
    for (const auto& [name, text] : files) {
        const std::filesystem::path path = std::filesystem::path(directory) / name;
        std::ofstream file(path);
        file << *text;
        if (!file) {
            invocation.err << "rapid chakra astra-config: --out " << directory << ": cannot write " << name << "\n";
            return InputError;
        }
    }
    invocation.out << "wrote network.yml, system.json and remote_memory.json for " << hardware.name << " to "
                   << directory << "\n";
    for (const std::string& note : config.approximations) {
        invocation.out << "approximated: " << note << "\n";
    }
    return Success;
}

} // namespace rapid::cli
