// SPDX-License-Identifier: GPL-3.0-or-later
#include "arguments.h"
#include "clioutput.h"
#include "commands.h"
#include "format.h"

#include "config/configloader.h"
#include "model/modelstats.h"

#include <fstream>
#include <ostream>

namespace rapid::cli {

int modelInfoCommand(const Invocation& invocation)
{
    Arguments arguments("model-info",
        "Parameters (total, per layer, embeddings, active per token for MoE), forward FLOPs per token "
        "and KV-cache bytes per token of a model.",
        { { "model", "NAME|FILE", "model preset name or model YAML file", false },
            { "run", "NAME|FILE", "take the context length and KV-cache precision from this run", false },
            { "context", "TOKENS", "context length for the attention FLOPs (default: the run's, else 2048)", false },
            { "set", "KEY=VALUE", "override a key, e.g. model.num_layers=40", true },
            { "json", "FILE", "also write the numbers as JSON (- for standard output)", false } });
    arguments.parse(invocation.args);
    if (arguments.helpRequested()) {
        invocation.out << arguments.help();
        return Success;
    }
    const config::ConfigLoader loader(config::PresetLibrary::standard());
    std::vector<std::string> modelOverrides;
    std::vector<std::string> runOverrides;
    for (const std::string& assignment : arguments.values("set")) {
        (assignment.rfind("run.", 0) == 0 ? runOverrides : modelOverrides).push_back(assignment);
    }
    const config::ModelSpec model = loader.loadModel(arguments.required("model"), modelOverrides);
    long long context = 2048;
    config::Precision kvPrecision = config::Precision::Bf16;
    std::string contextOrigin = "default";
    if (auto runReference = arguments.value("run")) {
        const config::RunSpec run = loader.loadRun(*runReference, runOverrides);
        context = run.mode == config::RunMode::Training ? run.seqLength : run.promptLength + run.decodeLength;
        kvPrecision = run.precision.kvCache;
        contextOrigin = "from the run";
    }
    if (arguments.value("context")) {
        context = arguments.integer("context", context);
        contextOrigin = "--context";
        if (context < 1) {
            throw UsageError("--context must be at least 1");
        }
    }

    const model::ParameterCounts counts = model::countParameters(model);
    const double flops = model::forwardFlopsPerToken(model, static_cast<double>(context));
    const double kvBytes = model::kvCacheBytesPerToken(model, kvPrecision);
    std::ostream& out = invocation.out;
    out << model.name << "\n";
    out << "  parameters            " << formatCount(static_cast<double>(counts.total())) << "  (" << counts.total()
        << ")\n";
    if (counts.denseLayers > 0) {
        const model::LayerParameters& layer = counts.denseLayer;
        out << "    per dense layer     " << formatCount(static_cast<double>(layer.total())) << " x "
            << counts.denseLayers << "  (attention " << formatCount(static_cast<double>(layer.attention)) << ", MLP "
            << formatCount(static_cast<double>(layer.mlp)) << ", norms " << layer.norms << ")\n";
    }
    if (counts.moeLayers > 0) {
        const model::LayerParameters& layer = counts.moeLayer;
        out << "    per MoE layer       " << formatCount(static_cast<double>(layer.total())) << " x "
            << counts.moeLayers << "  (attention " << formatCount(static_cast<double>(layer.attention))
            << ", experts+router " << formatCount(static_cast<double>(layer.mlp)) << ", norms " << layer.norms << ")\n";
    }
    out << "    embeddings          " << formatCount(static_cast<double>(counts.embedding + counts.positional))
        << (counts.positional
                   ? "  (incl. learned positions " + formatCount(static_cast<double>(counts.positional)) + ")"
                   : std::string())
        << "\n";
    out << "    LM head             "
        << (counts.lmHead ? formatCount(static_cast<double>(counts.lmHead)) : std::string("tied to the embedding"))
        << "\n";
    out << "    final norm          " << counts.finalNorm << "\n";
    if (model.moe) {
        out << "  active per token      " << formatCount(static_cast<double>(counts.activePerToken())) << "  ("
            << counts.activePerToken() << ")\n";
    }
    out << "  forward FLOPs/token   " << formatFlops(flops) << "  at context " << context << " (" << contextOrigin
        << ")\n";
    out << "  KV cache per token    " << formatBytes(kvBytes) << "  (" << config::toString(kvPrecision)
        << (model.mla ? ", MLA latent" : "") << ")\n";

    if (auto jsonPath = arguments.value("json")) {
        std::ofstream file;
        std::ostream* json = openOutput(*jsonPath, file, invocation);
        if (!json) {
            invocation.err << "rapid model-info: cannot write " << *jsonPath << "\n";
            return InputError;
        }
        report::writeJson(*json,
            { { "model", model.name },
                { "parameters",
                    { { "total", counts.total() }, { "per_dense_layer", counts.denseLayer.total() },
                        { "per_moe_layer", counts.moeLayer.total() }, { "embedding", counts.embedding },
                        { "positional", counts.positional }, { "lm_head", counts.lmHead },
                        { "active_per_token", counts.activePerToken() } } },
                { "forward_flops_per_token", flops }, { "context", context },
                { "kv_cache_bytes_per_token", kvBytes } });
    }
    return Success;
}

} // namespace rapid::cli
