// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer entry point for the YAML loader: each input is tried as the model, the hardware and the run document of
// a small scenario (Llama-2-7B, one HGX A100 node, its training run), the other two read from configs/. A loaded
// scenario is estimated, evaluated on the analytical backend and written as JSON. The loader may reject the input
// (ConfigError), a budget or ceiling may stop it (InputLimitError) and faults may cut GPUs apart (UnreachableError);
// anything else, and every sanitizer report, is a finding: the harness aborts with the message.
#include "analysis/evaluation.h"
#include "analysis/resultjson.h"
#include "config/configloader.h"
#include "memory/memorymodel.h"
#include "network/router.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

using namespace rapid;

namespace {

const std::string kConfigs = RAPID_SOURCE_CONFIG_DIR;

config::DocumentText preset(const std::string& folder, const std::string& name)
{
    const std::string path = kConfigs + "/" + folder + "/" + name + ".yaml";
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
        std::fprintf(stderr, "fuzz_config_loader: cannot read %s\n", path.c_str());
        std::abort();
    }
    return { text.str(), path, kConfigs + "/" + folder };
}

struct Base {
    config::ConfigLoader loader { config::PresetLibrary({ kConfigs }) };
    config::DocumentText model = preset("models", "llama-2-7b");
    config::DocumentText hardware = preset("hardware", "hgx-a100-8gpu");
    config::DocumentText run = preset("runs", "llama-2-7b-train-4xa100");
};

const Base& base()
{
    static const Base kBase;
    return kBase;
}

void loadAndEvaluate(
    const config::DocumentText& model, const config::DocumentText& hardware, const config::DocumentText& run)
{
    try {
        const config::Scenario scenario = base().loader.loadTexts(model, hardware, run);
        const memory::MemoryEstimate memory
            = memory::estimateMemory(scenario.model, scenario.hardware.gpu, scenario.run);
        analysis::EvaluationOptions options;
        options.timeline = false;
        const analysis::ScenarioEvaluation evaluation = analysis::evaluateScenario(scenario, options);
        (void)report::jsonText(analysis::runResultJson(scenario, evaluation, memory));
    } catch (const config::ConfigError&) {
    } catch (const config::InputLimitError&) {
    } catch (const network::UnreachableError&) {
    } catch (const std::exception& error) {
        std::fprintf(stderr, "fuzz_config_loader: unexpected %s\n", error.what());
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const Base& scenario = base();
    const std::string text(reinterpret_cast<const char*>(data), size);
    loadAndEvaluate({ text, "fuzz-model.yaml", scenario.model.baseDir }, scenario.hardware, scenario.run);
    loadAndEvaluate(scenario.model, { text, "fuzz-hardware.yaml", scenario.hardware.baseDir }, scenario.run);
    loadAndEvaluate(scenario.model, scenario.hardware, { text, "fuzz-run.yaml", scenario.run.baseDir });
    return 0;
}
