// SPDX-License-Identifier: GPL-3.0-or-later
#include "arguments.h"
#include "commands.h"

#include "config/hfimport.h"

#include <fstream>
#include <ostream>

namespace rapid::cli {

int importHfCommand(const Invocation& invocation)
{
    Arguments arguments("import-hf",
        "Converts a local Hugging Face config.json (Llama, Mistral, Qwen2, Mixtral, DeepSeek-V3) into a "
        "model YAML document. Reads only the file; no network access.",
        { { "o", "FILE", "write the model YAML here (default: standard output)", false },
            { "output", "FILE", "same as -o", false },
            { "name", "TEXT", "model name (default: the config's _name_or_path or folder name)", false } },
        "CONFIG.json");
    std::vector<std::string> args = invocation.args;
    for (std::string& arg : args) {
        if (arg == "-o") {
            arg = "--o";
        }
    }
    arguments.parse(args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    if (arguments.positional().size() != 1) {
        throw UsageError("expected exactly one config.json path");
    }
    const std::string input = arguments.positional().front();
    config::ModelSpec model = config::importHuggingFaceConfig(input);
    if (auto name = arguments.value("name")) {
        model.name = *name;
    }
    const std::string yaml = config::modelToYaml(model, "converted by rapid import-hf from " + input);
    const auto output = arguments.value("o") ? arguments.value("o") : arguments.value("output");
    if (!output || *output == "-") {
        invocation.out << yaml;
        return Success;
    }
    std::ofstream file(*output);
    if (!(file << yaml)) {
        invocation.err << "rapid import-hf: cannot write " << *output << "\n";
        return InputError;
    }
    invocation.err << "wrote " << *output << "\n";
    return Success;
}

} // namespace rapid::cli
