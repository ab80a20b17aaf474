// SPDX-License-Identifier: GPL-3.0-or-later
// rapid: the command-line face of RAPID-LLM Workbench. Each subcommand lives in its own file; this only dispatches
// and turns errors into one-line messages and exit codes.
#include "arguments.h"
#include "commands.h"

#include "config/diagnostic.h"
#include "network/router.h"
#include "sim/heapreuse.h"

#include <functional>
#include <iostream>
#include <map>

#ifndef RAPID_VERSION
#define RAPID_VERSION "unknown"
#endif

namespace {

struct Command {
    std::function<int(const rapid::cli::Invocation&)> run;
    const char* summary;
};

const std::map<std::string, Command>& commands()
{
    static const std::map<std::string, Command> table = {
        { "model-info", { rapid::cli::modelInfoCommand, "parameters, FLOPs and KV-cache bytes of a model" } },
        { "import-hf", { rapid::cli::importHfCommand, "convert a local Hugging Face config.json to a model YAML" } },
        { "run", { rapid::cli::runCommand, "load and check a scenario, place its ranks (workspace or three files)" } },
        { "serve",
            { rapid::cli::serveCommand,
                "serve an inference scenario under load: continuous batching, TTFT/ITL percentiles, throughput" } },
        { "goodput",
            { rapid::cli::goodputCommand,
                "what interruptions cost a training run: checkpoint interval, effective training time" } },
        { "resilience",
            { rapid::cli::resilienceCommand,
                "how faulty links slow a step: Monte Carlo fault studies, link criticality (MPI-parallel)" } },
        { "presets", { rapid::cli::presetsCommand, "list the model, GPU, hardware, run and workspace presets" } },
        { "schema", { rapid::cli::schemaCommand, "the keys of the configuration documents: type, range, default" } },
        { "sweep",
            { rapid::cli::sweepCommand,
                "evaluate every combination of override axes or parallel splits; rank, prune, Pareto front" } },
        { "validate", { rapid::cli::validateCommand, "predict the published measurements in ../shared/validation" } },
        { "chakra", { rapid::cli::chakraCommand, "inspect Chakra execution traces (counts, critical path, defects)" } },
        { "collective",
            { rapid::cli::collectiveCommand,
                "analytical time of one collective on a hardware's network (faults too)" } },
        { "gemm", { rapid::cli::gemmCommand, "predicted time of one GEMM on one GPU: tile, waves, bytes, roofs" } },
        { "layer", { rapid::cli::layerCommand, "per-operator time of one transformer layer on one GPU" } },
#ifdef RAPID_WITH_PLOT
        { "plot",
            { rapid::cli::plotCommand,
                "draw a dashboard chart to PDF/SVG/PNG in a figure style (the workbench's Export Figure)" } },
#endif
    };
    return table;
}

void printUsage(std::ostream& out)
{
    out << "usage: rapid <command> [options]      (rapid <command> --help for its options)\n\n"
           "Predicts how large language models train and serve on GPU clusters.\n\ncommands:\n";
    for (const auto& [name, command] : commands()) {
        std::string padded = "  " + name;
        padded.resize(16, ' ');
        out << padded << command.summary << "\n";
    }
}

} // namespace

int main(int argc, char** argv)
{
    rapid::sim::keepFreedHeapForReuse(); // evaluations allocate and drop their step graphs: keep the pages
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args.front() == "-h" || args.front() == "--help" || args.front() == "help") {
        printUsage(std::cout);
        return args.empty() ? rapid::cli::UsageFailure : rapid::cli::Success;
    }
    if (args.front() == "--version") {
        std::cout << "rapid " << RAPID_VERSION << "\n";
        return rapid::cli::Success;
    }
    const auto found = commands().find(args.front());
    if (found == commands().end()) {
        std::cerr << "rapid: unknown command \"" << args.front() << "\"\n\n";
        printUsage(std::cerr);
        return rapid::cli::InputError;
    }
    const std::string name = args.front();
    args.erase(args.begin());
    try {
        return found->second.run({ args, std::cout, std::cerr });
    } catch (const rapid::cli::UsageError& error) {
        std::cerr << "rapid " << name << ": " << error.what() << " (see rapid " << name << " --help)\n";
        return rapid::cli::InputError; // an option or its value: an input error like a wrong key
    } catch (const rapid::config::ConfigError& error) {
        for (const rapid::config::Diagnostic& diagnostic : error.diagnostics()) {
            std::cerr << diagnostic.toString() << "\n";
        }
        return rapid::cli::InputError;
    } catch (const rapid::config::InputLimitError& error) {
        std::cerr << "rapid " << name << ": " << error.what() << "\n";
        return rapid::cli::InputError;
    } catch (const rapid::network::UnreachableError& error) {
        // Failed links that cut GPUs apart are a problem of the input (hardware.faults), wherever the GPUs are.
        std::cerr << "rapid " << name << ": hardware.faults: " << error.what()
                  << "; raise the health of a failed link or remove it\n";
        return rapid::cli::InputError;
    } catch (const std::exception& error) {
        std::cerr << "rapid " << name << ": internal error: " << error.what() << "\n";
        return rapid::cli::InternalError;
    }
}
